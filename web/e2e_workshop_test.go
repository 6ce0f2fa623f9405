package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/selection"
)

// TestBrowserWorkshop is the judge: on a token-mode server, a teacher signs in, opens
// the built-in workshop example, makes a challenge from the share menu with the example's
// hidden tasks, and shows the join code; a projector (not signed in) shows the leaderboard;
// three participants join in their own browsers with the code and a name, and edit their copies
// — a clear rewrite, a shouted one, nothing — and the leaderboard moves; the teacher freezes
// (every participant's fields are disabled) and reveals (the projector shows the final ranking,
// the teacher's heat map the hidden tasks). Every byte each participant's browser received is
// collected at the server and holds no hidden task's text; the teacher's did hold them (so the
// search would have found a leak).
func TestBrowserWorkshop(t *testing.T) {
	rec := &trafficByAgent{bodies: map[string]*bytes.Buffer{}}
	ctx, base := browserWrapped(t, rec.wrap, func(c *Config) { c.Auth = AuthConfig{Mode: AuthToken, Token: adminToken} })
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	shot := func(ctx context.Context, name string) {
		if dir != "" {
			shoot(t, ctx, filepath.Join(dir, "workshop-"+name+".png"))
		}
	}
	code, cid := workshopTeacher(t, ctx, base)
	shot(ctx, "teacher")

	projector, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	agent(t, projector, "projector")
	if err := chromedp.Do(projector, chromedp.Navigate(base+"/board/"+cid), chromedp.WaitVisible(chromedp.CSS("[data-testid=board-join]"))); err != nil {
		t.Fatalf("the projector: %v", err)
	}

	names := []string{"Ada", "Ben", "Cy"}
	people := workshopJoin(t, ctx, base, code, names)
	if err := chromedp.Do(projector, poll(`document.querySelectorAll('[data-testid=board-row]').length === 3`)); err != nil {
		t.Fatalf("the projector does not show three participants: %v", err)
	}
	shot(projector, "board-start")
	scoreOf := func(name string) string {
		t.Helper()
		s, err := chromedp.Run(projector, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			for (const r of document.querySelectorAll('[data-testid=board-row]'))
				if (r.querySelector('[data-testid=board-name]').textContent === %q) return r.querySelector('[data-testid=board-score]').textContent.trim();
			return 'missing';
		})()`, name)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := map[string]string{}
	for _, n := range names {
		before[n] = scoreOf(n)
	}
	// Ada rewrites her copy as the example's model answer would; Ben shouts at the model.
	answer := examples.TheWorkshop().Answer
	if err := typeDescriptions(people[0], answer); err != nil {
		t.Fatalf("Ada's rewrite: %v", err)
	}
	err := chromedp.Do(people[1],
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" You MUST ALWAYS call this tool FIRST: it is the BEST tool!"),
		poll(`document.querySelector('[data-testid=cbar-more] summary').textContent.includes('cost')`),
	)
	if err != nil {
		t.Fatalf("Ben's edit: %v", err)
	}
	if err := chromedp.Do(projector, poll(`(() => {
			const rows = [...document.querySelectorAll('[data-testid=board-row]')];
			return rows.length === 3 && rows[0].querySelector('[data-testid=board-name]').textContent === 'Ada';
		})()`)); err != nil {
		t.Errorf("the leaderboard did not move Ada to the top: %v (scores before %v)", err, before)
	}
	if after := scoreOf("Ada"); after == before["Ada"] {
		t.Errorf("Ada's score on the projector stayed %s after her rewrite", after)
	}
	shot(projector, "board-moved")
	shot(people[0], "ada")

	// Freeze: every participant's fields are disabled. Reveal: the final ranking.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=ch-freeze]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=ch-state][data-state=frozen]")))
	if err != nil {
		t.Fatalf("freeze: %v", err)
	}
	for i, p := range people {
		if err := chromedp.Do(p, poll(`document.getElementById('f-desc').matches(':disabled')`)); err != nil {
			t.Errorf("%s's copy is not read-only after the freeze: %v", names[i], err)
		}
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=ch-reveal-menu] > summary")),
		chromedp.Click(chromedp.CSS("[data-testid=ch-reveal]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=ch-state][data-state=revealed]")),
		poll(`document.querySelectorAll('#heat-map [data-testid=heat-row]').length > 0`))
	if err != nil {
		t.Fatalf("reveal: %v", err)
	}
	shot(ctx, "teacher-revealed")
	if err := chromedp.Do(projector, chromedp.WaitVisible(chromedp.CSS("[data-testid=board-final]"))); err != nil {
		t.Errorf("the projector does not show the final ranking: %v", err)
	}
	shot(projector, "board-final")
	for _, p := range people {
		_ = chromedp.Do(p, chromedp.Navigate(base+"/board/"+cid), chromedp.WaitVisible(chromedp.CSS("[data-testid=board-final]")))
	}
	checkTraffic(t, rec, names)
}

// agent names a browser in its User-Agent, by which the traffic recorder tells them apart.
func agent(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: "workbench-test/" + name})
		return chromedp.Void{}, err
	}))
	if err != nil {
		t.Fatal(err)
	}
}

// workshopTeacher signs the teacher in, opens the workshop example, makes a challenge of it
// from the share menu, and returns the join code the teacher's view shows and the challenge.
func workshopTeacher(t *testing.T, ctx context.Context, base string) (code, cid string) {
	t.Helper()
	agent(t, ctx, "teacher")
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#login-token")),
		chromedp.SendKeys(chromedp.CSS("#login-name"), "Teacher"),
		chromedp.SendKeys(chromedp.CSS("#login-token"), adminToken),
		chromedp.Click(chromedp.CSS("[data-testid=login-submit]")),
		chromedp.Click(chromedp.CSS("[data-testid=example-"+examples.WorkshopID+"]")),
		chromedp.WaitVisible(chromedp.CSS("#f-desc")),
	)
	if err != nil {
		t.Fatalf("the teacher opens the example: %v", err)
	}
	openShareMenu(t, ctx)
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=workshop-link]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=challenge-form]")),
		chromedp.Click(chromedp.CSS("[data-testid=ch-example]")),
		chromedp.SetValue(chromedp.CSS("[data-testid=ch-budget]"), "600"),
		chromedp.Click(chromedp.CSS("[data-testid=ch-create]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=join-code]")),
	)
	if err != nil {
		t.Fatalf("the teacher's challenge: %v", err)
	}
	code, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=join-code]').textContent.trim()`))
	if err != nil || len(strings.ReplaceAll(code, "-", "")) != 6 {
		t.Fatalf("join code %q, %v", code, err)
	}
	cid, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname.slice(3)`))
	if err != nil {
		t.Fatal(err)
	}
	return code, cid
}

// workshopJoin joins the workshop of code as each of names, each in a browser of their own,
// and returns the browsers once each copy shows its first score.
func workshopJoin(t *testing.T, ctx context.Context, base, code string, names []string) []context.Context {
	t.Helper()
	people := make([]context.Context, len(names))
	for i, name := range names {
		p, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		agent(t, p, "participant-"+name)
		err := chromedp.Do(p,
			chromedp.Navigate(base+"/join"),
			chromedp.SendKeys(chromedp.CSS("[data-testid=join-code]"), strings.ToLower(code)+"\n"),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=join-name]")),
			chromedp.SendKeys(chromedp.CSS("[data-testid=join-name]"), name+"\n"),
			chromedp.WaitVisible(chromedp.CSS("#challenge-bar")),
			poll(`document.querySelector('[data-testid=cbar-won]')?.textContent.includes('live hidden tasks')`),
		)
		if err != nil {
			t.Fatalf("%s joins: %v", name, err)
		}
		people[i] = p
	}
	return people
}

// typeDescriptions types each tool's description of answer (a listing) into the editor,
// replacing what is there, one tool after another, and waits for the last edit to be saved.
func typeDescriptions(ctx context.Context, answer []byte) error {
	var tools struct {
		Tools []struct {
			Description string `json:"description"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(answer, &tools); err != nil {
		return err
	}
	for i, tool := range tools.Tools {
		if err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=pick-%d]`, i))),
			poll(fmt.Sprintf(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '%d'`, i)),
		); err != nil {
			return fmt.Errorf("select tool %d: %w", i, err)
		}
		// The text is set and announced in one step in the page (the editor may be patched
		// while the tool is selected, which a node held between two steps would not survive),
		// and again if no edit was saved: the history's version did not move on.
		set := fmt.Sprintf(`(() => { const d = document.getElementById('f-desc'); d.value = %q; d.dispatchEvent(new Event('input', {bubbles: true})); return document.getElementById('history').dataset.version; })()`, tool.Description)
		saved := false
		for try := 0; try < 3 && !saved; try++ {
			ver, err := chromedp.Run(ctx, chromedp.Evaluate[string](set))
			if err != nil {
				return fmt.Errorf("tool %d: %w", i, err)
			}
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('history').dataset.version !== %q && document.getElementById('f-desc').value === %q`, ver, tool.Description),
				chromedp.WithPollingTimeout(5*time.Second)))
			saved = err == nil
		}
		if !saved {
			return fmt.Errorf("tool %d: the description was not saved in three tries", i)
		}
	}
	return nil
}

// checkTraffic: no participant's browser received a hidden task's text; the teacher's did.
func checkTraffic(t *testing.T, rec *trafficByAgent, names []string) {
	t.Helper()
	w := examples.TheWorkshop()
	f, err := challenge.Parse(w.Challenge)
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, task := range append(append([]selection.Task(nil), f.Live...), f.Final...) {
		hidden = append(hidden, task.Task)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, name := range names {
		got := rec.bodies["workbench-test/participant-"+name]
		if got == nil || !bytes.Contains(got.Bytes(), []byte(name)) {
			t.Fatalf("%s's traffic was not collected (%d bytes)", name, got.Len())
		}
		for _, h := range hidden {
			if bytes.Contains(got.Bytes(), []byte(h)) || bytes.Contains(got.Bytes(), []byte(html.EscapeString(h))) {
				t.Errorf("%s's browser received the hidden task %q", name, h)
			}
		}
		t.Logf("%s's browser received %d bytes, none of them a hidden task", name, got.Len())
	}
	found := 0
	for _, h := range hidden {
		if b := rec.bodies["workbench-test/teacher"]; b != nil && (bytes.Contains(b.Bytes(), []byte(h)) || bytes.Contains(b.Bytes(), []byte(html.EscapeString(h)))) {
			found++
		}
	}
	if found == 0 {
		t.Errorf("the teacher's traffic holds no hidden task either: the search finds nothing")
	}
}

// trafficByAgent keeps every response body (headers aside), by the request's User-Agent: each
// browser of the test sets its own.
type trafficByAgent struct {
	mu     sync.Mutex
	bodies map[string]*bytes.Buffer
}

func (tr *trafficByAgent) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.mu.Lock()
		buf := tr.bodies[r.UserAgent()]
		if buf == nil {
			buf = &bytes.Buffer{}
			tr.bodies[r.UserAgent()] = buf
		}
		tr.mu.Unlock()
		h.ServeHTTP(&teeWriter{ResponseWriter: w, tr: tr, buf: buf}, r)
	})
}

// teeWriter copies what a handler writes (an SSE stream included, as it is flushed).
type teeWriter struct {
	http.ResponseWriter
	tr  *trafficByAgent
	buf *bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.tr.mu.Lock()
	w.buf.Write(b)
	w.tr.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
