package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/lint"
)

// browser starts the workbench with the Datastar client named by WORKBENCH_DATASTAR_JS and a
// headless Chromium, or skips.
func browser(t testing.TB, configure ...func(*Config)) (context.Context, string) {
	t.Helper()
	return browserWrapped(t, nil, configure...)
}

// browserWrapped is browser with the server's handler wrapped (nil: as it is): a test that
// collects what the server sends puts its recorder there.
func browserWrapped(t testing.TB, wrap func(http.Handler) http.Handler, configure ...func(*Config)) (context.Context, string) {
	t.Helper()
	js := os.Getenv("WORKBENCH_DATASTAR_JS")
	if js == "" {
		t.Skip("skipped: set WORKBENCH_DATASTAR_JS to a Datastar v1.0.2 client file to run the browser test")
	}
	client, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("WORKBENCH_DATASTAR_JS: %v", err)
	}
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("skipped: no chromium on PATH (apt-get install -y chromium)")
	}
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: newTestStore(t), Engine: eng, DatastarJS: client}
	for _, f := range configure {
		f(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chrome), chromedp.Headless,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800)}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second) // a guard against a hung page, not a timing claim
	t.Cleanup(cancel3)
	return ctx, ts.URL
}

// pasteListing opens the start page, pastes src and opens the workspace.
func pasteListing(t *testing.T, ctx context.Context, base, src string) {
	t.Helper()
	b, _ := json.Marshal(src)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#paste")),
		// Setting the value at once: typing a whole listing key by key would take minutes.
		chromedp.Evaluate[chromedp.Void]("document.getElementById('paste').value = "+string(b)),
		chromedp.Click(chromedp.CSS("[data-testid=import-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		// The page's stream is open once the hub counts it; give Datastar a moment to start.
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		t.Fatalf("paste the listing: %v", err)
	}
}

// watch records the time of the last input event before the task's verdict turns clear, and
// the time it does.
const watch = `(() => {
  window.__lastInput = 0; window.__flipped = 0;
  document.addEventListener('input', () => { if (!window.__flipped) window.__lastInput = performance.now(); }, true);
  new MutationObserver(() => {
    const v = document.getElementById('verdict-0');
    if (!window.__flipped && v && v.dataset.status === 'clear') window.__flipped = performance.now();
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
  return true;
})()`

func TestBrowserEditFlipsRanking(t *testing.T) {
	ctx, base := browser(t)
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))

	// A task, entered in the table: it picks the wrong tool in this draft.
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
		chromedp.Click(chromedp.CSS("[data-testid=task-add]")),
		chromedp.WaitVisible(chromedp.CSS("#t-0-task")),
		chromedp.SendKeys(chromedp.CSS("#t-0-task"), "Show me the book with ISBN 9780141439518"),
		// The expected tool is a select of the listing's tool names (and "no tool").
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('t-0-expect');
			s.value = 'catalog_get_book'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`),
		chromedp.Poll[chromedp.Void](`document.querySelector('#verdict-0')?.dataset.status === 'wrong'`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("enter the task: %v", err)
	}
	winner, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict-0 [data-testid=verdict-winner]")))
	if err != nil || winner != "catalog_search" {
		t.Fatalf("winner before the edit = %q, %v; want catalog_search", winner, err)
	}

	// Type at the end of catalog_get_book's description; the verdict flips while the caret
	// stays where it was.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](watch)); err != nil {
		t.Fatal(err)
	}
	const added = " Show it by its ISBN too."
	err = chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(added),
		chromedp.Poll[chromedp.Void](`document.querySelector('#verdict-0')?.dataset.status === 'clear'`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#verdict-0')?.dataset.status`))
		t.Fatalf("the verdict did not flip to clear (now %q): %v", status, err)
	}
	type caret struct {
		Active string `json:"active"`
		Value  string `json:"value"`
		Start  int    `json:"start"`
		Length int    `json:"length"`
	}
	c, err := chromedp.Run(ctx, chromedp.Evaluate[caret](`(() => { const d = document.getElementById('f-desc');
		return {active: document.activeElement.id, value: d.value, start: d.selectionStart, length: d.value.length}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Active != "f-desc" || !strings.HasSuffix(c.Value, added) || c.Start != c.Length {
		t.Errorf("the field being typed in was disturbed: %+v", c)
	}
	lat, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.__flipped - window.__lastInput`))
	if err != nil {
		t.Fatal(err)
	}
	// The debounce is 150 ms; what remains is the request, the recompute and the patch.
	t.Logf("last keystroke to updated verdict: %.1f ms (%.1f ms after the 150 ms debounce)", lat, lat-150)
}

func TestBrowserHostileTextIsInert(t *testing.T) {
	ctx, base := browser(t)
	src, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "evil_tool", "description": hostile,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"q": map[string]any{"type": "string", "description": hostile}}}}}})
	pasteListing(t, ctx, base, string(src))
	check := `window.pwned === undefined && document.querySelectorAll('img, b[data-on\\:load]').length === 0 &&
		document.getElementById('f-desc').value.includes('<script>window.pwned=1</script>')`
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](check))
	if err != nil || !ok {
		t.Fatalf("hostile text ran or was not shown as text: %v", err)
	}
	// An edit sends the same text back through a patch.
	err = chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" more"),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=history]').dataset.version !== '0'`,
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=undo]")),
		chromedp.Poll[chromedp.Void](`document.getElementById('f-desc').value.endsWith('bold</b>')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("edit and undo: %v", err)
	}
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](check)); err != nil || !ok {
		t.Fatalf("after a patch the hostile text ran or changed: %v", err)
	}
}

// TestBrowserForgedEventDoesNotRun: another person writes text whose CRs would, were they line
// ends on the wire, end the live stream's event and start a signals event that the Datastar
// client evaluates as an expression. The page open on the workspace receives the edit through
// its stream, shows the text, and runs nothing.
func TestBrowserForgedEventDoesNotRun(t *testing.T) {
	ctx, base := browser(t)
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	id := loc[strings.LastIndex(loc, "/w/")+3:]
	for _, brk := range []string{"\r", "\r\n", "\n\r"} {
		text := forged(brk)
		for _, f := range []string{"description", "title"} {
			b, _ := json.Marshal(map[string]any{"pid": strings.Repeat("e", 32), "tool": 0, "val": text, "ver": 0})
			req, _ := http.NewRequest(http.MethodPost, base+"/w/"+id+"/edit?t=0&f="+f, strings.NewReader(string(b)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Datastar-Request", "true")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		want, _ := json.Marshal(strings.ReplaceAll(text, "\r\n", "\n"))
		shown := `document.getElementById('f-desc').value.replace(/\r\n?/g, '\n') === ` + strings.ReplaceAll(string(want), `\r`, `\n`)
		// Wait for the edit to show, or for the forged event to run.
		err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`window.__pwned !== undefined || (`+shown+`)`,
			chromedp.WithPollingTimeout(10*time.Second)))
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__pwned === undefined`)); err != nil || !ok {
			t.Fatalf("%q: a forged event ran in the page (%v)", brk, err)
		}
		if err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('f-desc').value`))
			t.Fatalf("%q: the live edit did not reach the page: %v (the field holds %q)", brk, err, got)
		}
	}
}
