package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// TestBrowserTabsLayout fills every result tab (a field-changed notice and two tabs' presence
// in the header, a History diff, two runs with results and a comparison) and then, at
// 1280×800 and 390×844 in the light and the dark scheme, shows each tab: the six tabs form
// one tab row that arrow keys move along, and nothing sticks out sideways.
// WORKBENCH_SCREENSHOT_DIR, when set, keeps a screenshot of each tab at each size and scheme.
func TestBrowserTabsLayout(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f}, Retries: -1}
	})
	openTwoWriters(t, ctx, base)
	startTwoRuns(t, ctx)
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	for _, size := range []viewport{{1280, 800}, {390, 844}} {
		for _, scheme := range []string{"light", "dark"} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h), colorScheme(scheme)); err != nil {
				t.Fatal(err)
			}
			checkEditor(t, ctx, size, scheme, "example", dir)
			for _, tab := range layoutTabs() {
				showTab(t, ctx, size, scheme, tab, dir)
			}
			checkShareMenu(t, ctx, size, scheme, dir)
		}
	}
	checkTabRow(t, ctx)
}

// viewport is a screen size the layout is checked at.
type viewport struct{ w, h int64 }

// openTwoWriters opens a listing with tasks in two tabs that both type into one description:
// the first tab then shows the field notice, and the header shows two tabs' presence.
func openTwoWriters(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")), // a listing with tasks
		chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready)
	if err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx) // a second tab: presence, and the other writer
	t.Cleanup(cancel)
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready); err != nil {
		t.Fatalf("open the second tab: %v", err)
	}
	typeAtEnd := func(c context.Context, text string) error {
		return chromedp.Do(c,
			chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
			chromedp.KeyEvent(text))
	}
	if err := typeAtEnd(ctx, " Typed here."); err != nil {
		t.Fatal(err)
	}
	if err := typeAtEnd(other, " Typed in the other tab."); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=field-notice]')?.textContent.includes('just changed')`,
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=person]')?.title.includes('2 tabs')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("field notice and presence: %v", err)
	}
	// The first edit asked for a name (a box in the corner, over the panes): not now.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=name-ask-later]")),
		chromedp.WaitNotVisible(chromedp.CSS("[data-testid=name-ask]"))); err != nil {
		t.Fatalf("answer the name box: %v", err)
	}
}

// startTwoRuns makes two runs, so that the Runs tab has results and a comparison to show. The
// tab is clicked once: its click reloads the panel, which must not race the stream.
func startTwoRuns(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-runs]")), chromedp.WaitVisible(chromedp.CSS("[data-testid=run-start]"))); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS("[data-testid=run-samples]"), "3"),
			chromedp.Click(chromedp.CSS("[data-testid=run-start]")),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('[data-testid=run-row]').length === %d &&
				document.querySelector('[data-testid=run-progress]')?.dataset.status === 'done'`, i), chromedp.WithPollingTimeout(20*time.Second)),
		)
		if err != nil {
			h, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('runs')?.outerHTML.slice(0, 3000) || 'no #runs'"))
			t.Fatalf("run %d: %v\n%s", i, err, h)
		}
	}
}

// layoutTab is one result tab and what to open in it before it is looked at.
type layoutTab struct {
	name, tab string
	// The tab's click reloads its panel: what it showed before is cleared first, so that
	// fill waits for the reloaded panel rather than acting on the old one.
	clear string
	fill  []chromedp.Action[chromedp.Void] // what to open in the panel once shown
	shots string                           // what the screenshots' names start with
}

func layoutTabs() []layoutTab {
	return []layoutTab{
		{"findings", "#panel-tabs [role=tab]:nth-child(1)", "", nil, ""},
		{"cost", "#panel-tabs [role=tab]:nth-child(2)", "", nil, ""},
		{"tasks", "[data-testid=tab-tasks]", "", nil, ""},
		{"server", "[data-testid=tab-server]", "", nil, ""},
		{"history", "[data-testid=tab-history]", "#revisions", []chromedp.Action[chromedp.Void]{
			chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=rev]').length >= 2`, chromedp.WithPollingTimeout(10*time.Second)),
			chromedp.Click(chromedp.CSS("[data-testid=rev-compare]")),
			chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=rev-diff] ins') !== null`, chromedp.WithPollingTimeout(10*time.Second)),
		}, ""},
		{"review", "[data-testid=tab-review]", "#review", []chromedp.Action[chromedp.Void]{
			chromedp.WaitVisible(chromedp.CSS("#review-gate")),
		}, ""},
		{"runs", "[data-testid=tab-runs]", "#runs", []chromedp.Action[chromedp.Void]{
			chromedp.WaitVisible(chromedp.CSS("[data-testid=run-show-last]")),
			chromedp.Click(chromedp.CSS("[data-testid=run-show-last]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-go]")),
			chromedp.Click(chromedp.CSS("[data-testid=compare-go]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-summary]")),
		}, ""},
	}
}

// showTab opens a tab (on a phone, in the results view) and checks the layout (checkLayout); with
// dir set it keeps screenshots of it.
func showTab(t *testing.T, ctx context.Context, size viewport, scheme string, tab layoutTab, dir string) {
	t.Helper()
	where := fmt.Sprintf("%dx%d %s %s", size.w, size.h, scheme, tab.name)
	var acts []chromedp.Action[chromedp.Void]
	if tab.clear != "" {
		acts = append(acts, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+tab.clear+`').replaceChildren()`))
	}
	acts = append(append(acts, chromedp.Click(chromedp.CSS(tab.tab))), tab.fill...)
	phoneView(t, ctx, "results")
	step, cancel := context.WithTimeout(ctx, 20*time.Second) // leaves time to say what the panel showed
	defer cancel()
	if err := chromedp.Do(step, acts...); err != nil {
		h, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('tp-"+tab.name+"')?.outerHTML.slice(0, 3000) || 'no panel'"))
		t.Fatalf("%s: %v\n%s", where, err, h)
	}
	checkLayout(t, ctx, where, size)
	if dir != "" {
		shootTab(t, ctx, size, scheme, tab.shots+tab.name, dir)
	}
}

// shootTab keeps screenshots of a tab: the page's top (with the Findings tab), the tab from its
// tab row, and the lower parts of Runs and History.
func shootTab(t *testing.T, ctx context.Context, size viewport, scheme, name, dir string) {
	t.Helper()
	scroll := func(js string) {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasSuffix(name, "findings") {
		// The page's top: the header with presence and the access bar, the field notice.
		scroll(`scrollTo(0, 0)`)
		shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%stop-%d-%s.png", strings.TrimSuffix(name, "findings"), size.w, scheme)))
	}
	// Start each shot at the tab row (the page scrolls on a phone, the pane on a wide screen),
	// below a phone's sticky view switch.
	scroll(`(() => { const p = document.querySelector('.results-pane'); p.scrollTop = 0;
		scrollTo(0, p.getBoundingClientRect().top + scrollY - (document.querySelector('.view-switch')?.offsetHeight || 0)); })()`)
	shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", name, size.w, scheme)))
	target := map[string]string{"runs": "[data-testid=result-confusion]", "history": "[data-testid=rev-diff]", "github-history": "[data-testid=rev-diff]"}[name]
	if target == "" {
		return
	}
	// The lower part: the confusion matrix, or the diff.
	scroll(`document.querySelector('` + target + `').scrollIntoView({block: 'center'})`)
	shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s-lower.png", name, size.w, scheme)))
	if name == "runs" {
		scroll(`document.querySelector('[data-testid=run-compare]').scrollIntoView({block: 'center'})`)
		shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s-compare.png", name, size.w, scheme)))
	}
	scroll(`scrollTo(0, 0); document.querySelectorAll('.pane').forEach((p) => p.scrollTop = 0)`)
}

// checkShareMenu opens the header's Share menu with a link just made and the list of links,
// checks its width, and closes it: closing empties the panel, so that the next opening does not
// offer the old one's buttons (or its link shown once) while the fresh panel loads.
func checkShareMenu(t *testing.T, ctx context.Context, size viewport, scheme, dir string) {
	t.Helper()
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	err := chromedp.Do(sctx,
		chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`),
		chromedp.Click(chromedp.CSS("#share-menu > summary")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=share-new-view]")),
		chromedp.Click(chromedp.CSS("[data-testid=share-new-view]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=share-url]")),
	)
	scancel()
	if err != nil {
		h, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('share-menu').outerHTML.slice(0, 1500) + ' open=' + document.getElementById('share-menu').open`))
		t.Fatalf("%dx%d %s share menu: %v\n%s", size.w, size.h, scheme, err, h)
	}
	if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
		t.Errorf("%dx%d %s share menu: wider than the screen: %v %v", size.w, size.h, scheme, out, err)
	}
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("share-%d-%s.png", size.w, scheme)))
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#share-menu > summary")),
		chromedp.Poll[chromedp.Void](`document.getElementById('share-panel').children.length === 0`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		t.Fatalf("%dx%d %s closing the share menu: %v", size.w, size.h, scheme, err)
	}
}

// tabRow is the state of the results pane's tab row.
type tabRow struct {
	Tabs   int    `json:"tabs"`
	Owned  int    `json:"owned"`
	Active string `json:"active"`
	Panel  string `json:"panel"`
}

const tabRowJS = `(() => { const list = document.querySelector('.results-pane [role=tablist]');
	const shown = [...document.querySelectorAll('.results-pane [role=tabpanel]')].filter((p) => p.checkVisibility());
	return {tabs: document.querySelectorAll('.results-pane [role=tab]').length, owned: list.querySelectorAll('[role=tab]').length,
		active: document.activeElement.textContent.trim().split(/\s/)[0], panel: shown.map((p) => p.getAttribute('aria-label')).join(',')}; })()`

// checkTabRow: every tab is in one tablist, the arrow keys move along it (wrapping around), and
// only the selected tab is reached with Tab.
func checkTabRow(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 800),
		chromedp.Focus(chromedp.CSS("#panel-tabs [role=tab]:nth-child(1)")),
		chromedp.KeyEvent(kb.ArrowRight),
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[tabRow](tabRowJS))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tabs != 8 || got.Owned != 8 || got.Active != "Cost" || got.Panel != "Cost" {
		t.Errorf("after → on Findings: %+v; want 8 tabs in the tablist, Cost focused and shown", got)
	}
	steps := []struct{ key, name, want string }{
		{kb.End, "End", "Review"},
		{kb.ArrowRight, "→ on the last tab (the row wraps around)", "Findings"},
	}
	for _, st := range steps {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(st.key)); err != nil {
			t.Fatal(err)
		}
		if got, err = chromedp.Run(ctx, chromedp.Evaluate[tabRow](tabRowJS)); err != nil || got.Active != st.want || got.Panel != st.want {
			t.Errorf("after %s: %+v, %v; want %s focused and shown", st.name, got, err, st.want)
		}
	}
	tabbable, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.results-pane [role=tab]')].filter((b) => b.tabIndex >= 0).map((b) => b.textContent.trim().split(/\s/)[0])`))
	if err != nil || strings.Join(tabbable, ",") != "Findings" {
		t.Errorf("tabs reached with Tab: %v, %v; want only the selected one (Findings)", tabbable, err)
	}
}

// colorScheme makes the page match prefers-color-scheme: scheme.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// shoot saves what the viewport shows.
func shoot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", path, err)
	}
}

// TestBrowserNoShiftOnLoad: nothing moves when the page's stream connects and the first
// patches arrive (the roster, with the person themselves; the selection): a click a moment after
// the page appears lands where the person aimed. Where things are is read as the document is
// parsed, before any patch can arrive (they come in later tasks, after a round trip).
func TestBrowserNoShiftOnLoad(t *testing.T) {
	ctx, base := browser(t)
	const watch = `document.addEventListener('DOMContentLoaded', () => {
	  if (!document.querySelector('[data-testid=workspace]')) return;
	  const where = () => ['tab-tasks', 'findings-scope-tool', 'tool-list', 'editor'].map((id) => {
	    const e = document.querySelector('[data-testid=' + id + ']'); if (!e) return id + ': none';
	    const r = e.getBoundingClientRect(); return id + ': ' + Math.round(r.x) + ',' + Math.round(r.y); });
	  // A pixel of rounding as fonts and styles settle is not a move a person would notice.
	  const far = (a, b) => a.some((s, i) => { const p = s.split(/[ ,]/), q = b[i].split(/[ ,]/); return Math.abs(p[1] - q[1]) > 2 || Math.abs(p[2] - q[2]) > 2; });
	  window.__first = where(); window.__moved = [];
	  new MutationObserver(() => { const now = where(); if (far(now, window.__first)) window.__moved.push(now.join('; ')); })
	    .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
	})`
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: watch})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1280, 390} {
		err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844), chromedp.Navigate(base+"/"),
			chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")), chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
			// The stream is open once Datastar runs and the hub counts the page; patches follow.
			poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none' && !!window.__first"))
		if err != nil {
			t.Fatalf("%d px: %v", width, err)
		}
		time.Sleep(1500 * time.Millisecond)
		first, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__first`))
		moved, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__moved`))
		if err != nil || len(moved) > 0 {
			t.Errorf("%d px: the page moved after it was drawn (%v): first %q, then %q", width, err, first, moved)
		}
	}
}
