package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserTwoPagesEditTasks opens one workspace in two tabs on the Tasks panel: typing in a
// task in one shows in the other; a page typing in the task another page changes is told, and
// keeps its text and caret until it asks for their version.
func TestBrowserTwoPagesEditTasks(t *testing.T) {
	ctxA, base := browser(t)
	// The example opens with its task file.
	if err := chromedp.Do(ctxA, chromedp.Navigate(base+"/"), chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("#f-desc"))); err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(ctxA, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	ctxB, cancel := chromedp.NewContext(ctxA)
	defer cancel()
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	if err := chromedp.Do(ctxB, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready); err != nil {
		t.Fatalf("open the second tab: %v", err)
	}
	typeAtEnd := func(id, text string) []chromedp.Action[chromedp.Void] {
		return []chromedp.Action[chromedp.Void]{
			chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById(` + jsString(id) + `); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
			chromedp.KeyEvent(text),
		}
	}
	if err := chromedp.Do(ctxA, chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")), chromedp.WaitVisible(chromedp.CSS("#t-0-task"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")), chromedp.WaitVisible(chromedp.CSS("#t-0-task"))); err != nil {
		t.Fatal(err)
	}

	const fromA = " (typed in tab A)"
	if err := chromedp.Do(ctxA, typeAtEnd("t-0-task", fromA)...); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](`document.getElementById('t-0-task').value.endsWith(`+jsString(fromA)+`)`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B did not get tab A's task edit: %v", err)
	}

	// B types in task 1, then A changes task 1: B is told, and B's field keeps its text and caret.
	const fromB = " (B typing)"
	if err := chromedp.Do(ctxB, typeAtEnd("t-1-task", fromB)...); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](`document.getElementById('t-1-task').value.endsWith(`+jsString(fromB)+`)`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab A did not get tab B's task edit: %v", err)
	}
	if err := chromedp.Do(ctxA, typeAtEnd("t-1-task", " A too")...); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctxB, chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=task-notice]')?.textContent.includes('which you are editing')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B got no notice of A's change to the task it is typing in: %v", err)
	}
	type field struct {
		Active string `json:"active"`
		Value  string `json:"value"`
		Start  int    `json:"start"`
	}
	f, err := chromedp.Run(ctxB, chromedp.Evaluate[field](`(() => { const d = document.getElementById('t-1-task');
		return {active: document.activeElement?.id || '', value: d.value, start: d.selectionStart}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Active != "t-1-task" || !strings.HasSuffix(f.Value, fromB) || f.Start != len([]rune(f.Value)) {
		t.Errorf("tab B's task field was disturbed: %+v", f)
	}
	// "Show their version" brings the table as it stands: once all of A's typing has been saved
	// (the notice comes with A's first keystrokes, and a click before the last would show an
	// older table, which then keeps B's focus, as it should).
	saved := func() bool {
		resp, err := http.Get(url + "/tasks.json")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(b), " A too")
	}
	for deadline := time.Now().Add(10 * time.Second); !saved(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tab A's edit was not saved within 10s")
		}
	}
	if err := chromedp.Do(ctxB, chromedp.Click(chromedp.CSS("[data-testid=task-notice-show]")),
		chromedp.Poll[chromedp.Void](`document.getElementById('t-1-task').value.endsWith(' A too')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab B's \"Show their version\" did not show A's text: %v", err)
	}
}
