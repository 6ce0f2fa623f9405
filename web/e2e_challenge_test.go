package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/workspace"
)

// TestBrowserTeacherAndBoard: a teacher reaches the workshop form from the share menu, makes
// a challenge, and watches three participants on the teacher's view and the projector's
// leaderboard, which follow an edit live; then reveals. At 1280 and 390 px wide nothing sticks
// out sideways. WORKBENCH_SCREENSHOT_DIR keeps a screenshot of each page at each width.
func TestBrowserTeacherAndBoard(t *testing.T) {
	var svc *challenge.Service
	ctx, base := browser(t, func(c *Config) {
		svc = challenge.New(c.Store, workspace.New(c.Store), challenge.Options{})
		c.Challenges = svc
	})
	ws := openExampleOver(t, base, "library-2-draft")
	wait := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))
	}
	cid := challengeInBrowser(t, ctx, base, ws)
	bg := context.Background()
	ch, err := svc.Get(bg, cid)
	if err != nil {
		t.Fatal(err)
	}
	var copies []string
	for _, name := range []string{"Ada", "Grace Hopper", "A participant with a rather long display name"} {
		j, err := svc.Join(bg, ch, name)
		if err != nil {
			t.Fatal(err)
		}
		copies = append(copies, j.Participant.Workspace)
		if err := svc.Rescore(bg, j.Participant.Workspace); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, wait(`document.querySelectorAll('[data-testid=board-row]').length === 3 && document.querySelectorAll('#heat-map .heat-cell').length === 6`)); err != nil {
		t.Fatalf("the teacher's view did not follow three joins: %v", err)
	}
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	shots(t, ctx, dir, "teacher")
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/board/"+cid), chromedp.WaitVisible(chromedp.CSS("[data-testid=board-join]")),
		wait(`document.querySelectorAll('[data-testid=board-row]').length === 3`))
	if err != nil {
		t.Fatal(err)
	}
	shots(t, ctx, dir, "board")
	// Grace words catalog_search for the hidden task about volcanoes: the board follows.
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=board-rows]').textContent`))
	desc := "Search the catalogue for books about any subject, volcanoes say, for a school project or for fun."
	req, _ := http.NewRequest(http.MethodPost, base+"/w/"+copies[1]+"/edit?t=1&f=description", strings.NewReader(sigJSON(sig(1, desc))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("edit: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if err := svc.Rescore(bg, copies[1]); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, wait(fmt.Sprintf(`document.querySelector('[data-testid=board-rows]').textContent !== %q`, before))); err != nil {
		t.Errorf("the open leaderboard did not follow an edit: %v", err)
	}
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/c/"+cid),
		chromedp.Click(chromedp.CSS("[data-testid=ch-reveal-menu] > summary")),
		chromedp.Click(chromedp.CSS("[data-testid=ch-reveal]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=ch-state][data-state=revealed]")),
		wait(`document.querySelectorAll('#heat-map [data-testid=heat-row]').length === 4`))
	if err != nil {
		t.Fatalf("reveal: %v", err)
	}
	shots(t, ctx, dir, "teacher-revealed")
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/board/"+cid), chromedp.WaitVisible(chromedp.CSS("[data-testid=board-final]")))
	if err != nil {
		t.Fatalf("the board after reveal: %v", err)
	}
	shots(t, ctx, dir, "board-final")
}

// challengeInBrowser goes from workspace ws's share menu to the workshop form, checks that the
// starting tokens shown follow the rendering chosen, makes a challenge with hiddenLibrary, and
// returns its ID.
func challengeInBrowser(t *testing.T, ctx context.Context, base, ws string) string {
	t.Helper()
	wait := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/w/"+ws), chromedp.WaitVisible(chromedp.CSS("#f-desc"))); err != nil {
		t.Fatal(err)
	}
	// (Once the panel above the link has loaded: it moves the link down. A menu opened while
	// the page's client starts can close again: openShareMenu tries again.)
	openShareMenu(t, ctx)
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=workshop-link]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=challenge-form]")),
	)
	if err != nil {
		t.Fatalf("from the share menu to the form: %v", err)
	}
	shots(t, ctx, os.Getenv("WORKBENCH_SCREENSHOT_DIR"), "form")
	// The starting tokens shown follow the tokenizer and rendering chosen.
	const shown = `[...document.querySelectorAll('[data-testid=ch-start-tokens] span')].filter((e) => e.checkVisibility()).map((e) => e.textContent).join('|')`
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](shown))
	if err != nil || !strings.Contains(first, "The starting listing is") || strings.Contains(first, "|") {
		t.Fatalf("starting tokens shown: %q %v", first, err)
	}
	err = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('ch-render'); s.value = 'openai'; s.dispatchEvent(new Event('change')); })()`),
		wait(shown+` !== `+fmt.Sprintf("%q", first)+` && !(`+shown+`).includes('|')`))
	if err != nil {
		t.Errorf("the starting tokens did not follow the rendering chosen: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#ch-hidden"), hiddenLibrary),
		chromedp.Click(chromedp.CSS("[data-testid=ch-create]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=join-code]")),
	)
	if err != nil {
		h, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + ' ' + (document.querySelector('.problem, main')?.textContent || '').slice(0, 400)`))
		t.Fatalf("from the share menu to the teacher's view: %v\n%s", err, h)
	}
	loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || !strings.HasPrefix(loc, "/c/") {
		t.Fatalf("after the form: %q %v", loc, err)
	}
	return strings.TrimPrefix(loc, "/c/")
}

// shots checks at 1280 and 390 px that nothing sticks out sideways, and keeps a screenshot of
// each when dir is set.
func shots(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	for _, size := range []viewport{{1280, 800}, {390, 844}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`)); err != nil {
			t.Fatal(err)
		}
		if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
			t.Errorf("%s at %d px: wider than the screen: %v %v", name, size.w, out, err)
		}
		if dir == "" {
			continue
		}
		shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, size.w)))
		if strings.HasPrefix(name, "teacher") {
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('heat-map').scrollIntoView()`)); err != nil {
				t.Fatal(err)
			}
			shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-heat-%d.png", name, size.w)))
		}
	}
}

// openExampleOver opens an example as the home page's button does, over HTTP.
func openExampleOver(t *testing.T, base, id string) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Post(base+"/examples/"+id, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("open example: %d", resp.StatusCode)
	}
	return strings.TrimPrefix(resp.Header.Get("Location"), "/w/")
}
