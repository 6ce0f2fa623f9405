package web

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/store"
)

// TestBrowserUndoTakesBackRestore (issue 21, point 2): alone on a workspace, a person sets an
// annotation of the third tool, restores the baseline from History, then presses Undo: the
// restore is taken back (the annotation is set again) with no refusal; a second Undo takes back
// the annotation, and Undo is then disabled.
func TestBrowserUndoTakesBackRestore(t *testing.T) {
	var st store.Store
	ctx, base := browser(t, func(c *Config) { st = c.Store })
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	id := workspaceID(t, ctx)
	const hint = `document.getElementById('f-ann-destructiveHint').value`
	err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=pick-2]")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '2'`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("select the third tool: %v", err)
	}
	was, err := chromedp.Run(ctx, chromedp.Evaluate[string](hint))
	if err != nil {
		t.Fatal(err)
	}
	set := "true"
	if was == "true" {
		set = "false"
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('f-ann-destructiveHint');
		s.value = '`+set+`'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)); err != nil {
		t.Fatalf("set the annotation: %v", err)
	}
	waitStoreHead(t, st, id, 1)
	openHistoryTab(t, ctx, 1)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#revisions [data-testid=rev][data-number="0"] [data-testid=rev-restore]`)),
		chromedp.Poll[chromedp.Void](hint+` === '`+was+`'`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("restore the baseline: %v", err)
	}
	waitStoreHead(t, st, id, 2)
	steps := []struct{ what, want, undo string }{
		{"the restore", set, "false"},
		{"the annotation", was, "true"},
	}
	for _, s := range steps {
		cond := hint + ` === '` + s.want + `' && document.querySelector('[data-testid=undo]').disabled === ` + s.undo
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=undo]")),
			chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			notice, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('field-notice').textContent.trim()`))
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](hint))
			t.Fatalf("Undo did not take back %s: destructiveHint %q, notice %q (%v)", s.what, got, notice, err)
		}
		if notice, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('field-notice').textContent.trim()`)); notice != "" {
			t.Errorf("after undoing %s the page says %q", s.what, notice)
		}
	}
}
