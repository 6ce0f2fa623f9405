package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
)

// TestBrowserTwoPagesLiveAndHistory opens one workspace in two tabs: an edit in one shows in the
// other; typing in a field another page changes gets a notice, never a reset; the History tab
// lists the revisions and diffs one against the baseline.
func TestBrowserTwoPagesLiveAndHistory(t *testing.T) {
	ctxA, base := browser(t)
	ctxB := openSecondTab(t, ctxA, base)
	typeBothWays(t, ctxA, ctxB)
	historyWhileEditing(t, ctxA, ctxB)
	reopenHistory(t, ctxA)
}

// typeAtEndOf puts the caret at the end of the description and types text.
func typeAtEndOf(ctx context.Context, text string) error {
	return chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(text))
}

// openSecondTab pastes a listing in tab A and opens it in a second tab of the same browser; the
// header then counts one person (this browser) in two tabs.
func openSecondTab(t *testing.T, ctxA context.Context, base string) context.Context {
	t.Helper()
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctxA, base, string(ex.Listing))
	url, err := chromedp.Run(ctxA, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	ctxB, cancel := chromedp.NewContext(ctxA)
	t.Cleanup(cancel)
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	if err := chromedp.Do(ctxB, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready); err != nil {
		t.Fatalf("open the second tab: %v", err)
	}
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](
		`document.querySelector('[data-testid=person]')?.title.includes('2 tabs')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		html, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('presence')?.outerHTML`))
		t.Fatalf("presence does not show two tabs: %v (%s)", err, html)
	}
	return ctxB
}

// typeBothWays: A types at the end of the description and B, not typing, sees it; then B types
// in the same field and A again: each keeps its text and caret, and is told.
func typeBothWays(t *testing.T, ctxA, ctxB context.Context) {
	t.Helper()
	const fromA, fromB = " Typed in tab A.", " B was here."
	const notice = `document.querySelector('[data-testid=field-notice]')?.textContent.includes('just changed the field you are typing in')`
	if err := typeAtEndOf(ctxA, fromA); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](`document.getElementById('f-desc').value.endsWith(`+jsString(fromA)+`)`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B did not get tab A's edit: %v", err)
	}
	if err := typeAtEndOf(ctxB, fromB); err != nil {
		t.Fatal(err)
	}
	// A typed in this field a moment ago, so it too is told rather than reset.
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](notice, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab A got no notice of B's change: %v", err)
	}
	if v, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('f-desc').value`)); !strings.HasSuffix(v, fromA) {
		t.Errorf("tab A's field was replaced while A was typing: %q", v)
	}
	if err := typeAtEndOf(ctxA, " And A again."); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](notice, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B got no notice: %v", err)
	}
	type field struct {
		Active string `json:"active"`
		Value  string `json:"value"`
		Start  int    `json:"start"`
	}
	f, err := chromedp.Run(ctxB, chromedp.Evaluate[field](`(() => { const d = document.getElementById('f-desc');
		return {active: document.activeElement.id, value: d.value, start: d.selectionStart}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Active != "f-desc" || !strings.HasSuffix(f.Value, fromB) || f.Start != len([]rune(f.Value)) {
		t.Errorf("tab B's field was disturbed: %+v", f)
	}
}

// historyWhileEditing: A's History tab lists the revisions and diffs the head against the
// baseline; B edits while A reads the diff: A's list shows it (B's typing extends B's revision),
// and the diff stays.
func historyWhileEditing(t *testing.T, ctxA, ctxB context.Context) {
	t.Helper()
	err := chromedp.Do(ctxA,
		chromedp.Click(chromedp.CSS("[data-testid=tab-history]")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=rev]').length >= 2`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=rev-compare]")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=rev-diff] ins')?.textContent.includes('again')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		html, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('revisions')?.outerHTML.slice(0, 2000)`))
		t.Fatalf("history: %v\n%s", err, html)
	}
	if err := chromedp.Do(ctxA, chromedp.Evaluate[chromedp.Void](`window.__list = document.getElementById('rev-list-region').innerHTML`)); err != nil {
		t.Fatal(err)
	}
	if err := typeAtEndOf(ctxB, " Later."); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](`document.getElementById('rev-list-region').innerHTML != window.__list`,
		chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("A's history list did not show B's edit: %v", err)
	}
	if ok, _ := chromedp.Run(ctxA, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid=rev-diff] ins')`)); !ok {
		t.Error("a live update of the history list wiped the diff A was reading")
	}
}

// reopenHistory: leaving and reopening the tab shows no control of the earlier opening before
// the reload answers (checked in the same turn as the click), then the fresh list.
func reopenHistory(t *testing.T, ctxA context.Context) {
	t.Helper()
	stale, err := chromedp.Run(ctxA, chromedp.Evaluate[int](`(() => {
		document.querySelector('[data-testid=tab-tasks]').click();
		document.querySelector('[data-testid=tab-history]').click();
		return document.querySelectorAll('#revisions [data-testid=rev], #revisions [data-testid=rev-diff]').length;
	})()`))
	if err != nil || stale != 0 {
		t.Errorf("right after reopening History, %d stale rows or diffs are shown (%v)", stale, err)
	}
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=rev]').length > 0`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("the reopened History panel did not load: %v", err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
