package web

import (
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
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctxA, base, string(ex.Listing))
	url, err := chromedp.Run(ctxA, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	ctxB, cancel := chromedp.NewContext(ctxA) // a second tab of the same browser
	defer cancel()
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	if err := chromedp.Do(ctxB, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready); err != nil {
		t.Fatalf("open the second tab: %v", err)
	}
	// Both pages are on the workspace: the header counts one person (this browser) in two tabs.
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](
		`document.querySelector('[data-testid=person]')?.title.includes('2 tabs')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		html, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('presence')?.outerHTML`))
		t.Fatalf("presence does not show two tabs: %v (%s)", err, html)
	}

	// A types at the end of the description; B, not typing, sees it.
	const fromA = " Typed in tab A."
	err = chromedp.Do(ctxA,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(fromA))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](`document.getElementById('f-desc').value.endsWith(`+jsString(fromA)+`)`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B did not get tab A's edit: %v", err)
	}

	// B types in the same field; then A types again: B keeps its text and caret, and is told.
	const fromB = " B was here."
	err = chromedp.Do(ctxB,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(fromB),
	)
	if err != nil {
		t.Fatal(err)
	}
	// A typed in this field a moment ago, so it too is told rather than reset.
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](
		`document.querySelector('[data-testid=field-notice]')?.textContent.includes('just changed the field you are typing in')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab A got no notice of B's change: %v", err)
	}
	if v, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('f-desc').value`)); !strings.HasSuffix(v, fromA) {
		t.Errorf("tab A's field was replaced while A was typing: %q", v)
	}
	err = chromedp.Do(ctxA,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" And A again."))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](
		`document.querySelector('[data-testid=field-notice]')?.textContent.includes('just changed the field you are typing in')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
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

	// History: the revisions, and the head against the baseline.
	err = chromedp.Do(ctxA,
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

	// B edits while A reads the diff: A's list shows it (B's typing extends B's revision), and
	// the diff stays.
	if err := chromedp.Do(ctxA, chromedp.Evaluate[chromedp.Void](`window.__list = document.getElementById('rev-list-region').innerHTML`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Later."),
	); err != nil {
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

	// Leaving and reopening the tab shows no control of the earlier opening before the reload
	// answers (checked in the same turn as the click), then the fresh list.
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
