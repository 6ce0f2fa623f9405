package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// poll waits up to 10 s for a condition in the page.
func poll(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))
}

// openListing opens a listing posted as the start page's form does, at 1280×800, with the
// page's stream running.
func openListing(t *testing.T, ctx context.Context, base string, src []byte) {
	t.Helper()
	loc := postListingHTTP(t, base, src)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(base+loc),
		chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'")); err != nil {
		t.Fatalf("open the listing: %v", err)
	}
}

// TestBrowserToolListReadableAndSearchable (issue 21, point 5): on GitHub's 117 tools every
// name reads whole (wrapped, and in the row's title), the selected row keeps the width of its
// name, a search filters the list on the server with a count, qualifiers included, and the list
// pane is as wide as it was dragged, after a reload too. At 2,000 tools the page lists a window
// and a search finds a tool past it.
func TestBrowserToolListReadableAndSearchable(t *testing.T) {
	ctx, base := browser(t)
	openListing(t, ctx, base, testutil.ReadShared(t, "listings", "real", "github-mcp-server.json"))
	type shown struct {
		Rows, Cut, Titled int
		SelName, SelRow   float64
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
		const rows = [...document.querySelectorAll('#tool-list .tool-row')];
		const cut = rows.filter((r) => { const n = r.querySelector('.tool-name'); return n.scrollWidth > n.clientWidth + 1 || n.getBoundingClientRect().right > r.getBoundingClientRect().right + 1; });
		const titled = rows.filter((r) => r.querySelector('button').title === r.querySelector('.tool-name').textContent);
		const sel = document.querySelector('#tool-list .tool-row.selected');
		sel.querySelector('button').focus();
		return {rows: rows.length, cut: cut.length, titled: titled.length,
			selName: sel.querySelector('.tool-name').getBoundingClientRect().width, selRow: sel.getBoundingClientRect().width};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != 117 || got.Cut != 0 || got.Titled != 117 {
		t.Errorf("%d rows, %d names cut, %d with the name as title; want 117, 0, 117", got.Rows, got.Cut, got.Titled)
	}
	// The selected, focused row holds its name and counts only: no buttons take its room.
	if got.SelName < got.SelRow*0.55 {
		t.Errorf("the selected row's name is %.0f px of the row's %.0f", got.SelName, got.SelRow)
	}
	search := func(q, want string) {
		t.Helper()
		// Emptied first, so that the count read is the new search's.
		err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const q = document.getElementById('tool-q');
				q.value = ''; q.dispatchEvent(new Event('input', {bubbles: true})); })()`),
			poll(`/^\d+ tools$/.test(document.querySelector('[data-testid=tool-count]')?.textContent.trim())`),
			chromedp.SendKeys(chromedp.CSS("#tool-q"), q),
			poll(fmt.Sprintf(`document.querySelector('[data-testid=tool-count]')?.textContent.trim().match(%s)`, want)))
		if err != nil {
			c, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=tool-count]')?.textContent || 'no count'`))
			t.Fatalf("search %q: the count reads %q, want %s: %v", q, c, want, err)
		}
	}
	search("pull_request", `/^\d+ of 117$/`)
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#tool-list .tool-name')].map((n) => n.textContent)`))
	if err != nil || len(names) == 0 || len(names) > 30 {
		t.Fatalf("rows after the search: %v (%v)", names, err)
	}
	for _, n := range names {
		if !strings.Contains(n, "pull_request") {
			t.Errorf("the search for pull_request lists %s", n)
		}
	}
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		shoot(t, ctx, filepath.Join(dir, "tool-search-1280.png"))
	}
	search("readonly", `/^\d+ of 117$/`)
	search("has:warning", `/^\d+ of 117$/`)
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll('#tool-list .tool-row')].every((r) => r.querySelector('.count.sev-warning'))`))
	if err != nil || !ok {
		t.Errorf("has:warning lists a tool without warnings (%v)", err)
	}
	search("no_such_tool_at_all", `/^0 of 117$/`)

	// The pane is resizable from the keyboard (and by dragging), and stays so after a reload.
	width := `document.querySelector('.tools-pane').getBoundingClientRect().width`
	before, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](width))
	err = chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(".tools-resize")),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](width))
	if after < before+50 {
		t.Errorf("the list pane is %.0f px wide after widening it from %.0f", after, before)
	}
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#f-desc"))); err != nil {
		t.Fatal(err)
	}
	if again, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](width)); again < after-1 {
		t.Errorf("after a reload the list pane is %.0f px wide, not the %.0f it was made", again, after)
	}

	// 2,000 tools: a window of rows, and a search reaches a tool past it.
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		shoot(t, ctx, filepath.Join(dir, "tool-list-wide-1280.png"))
	}
	openListing(t, ctx, base, genTools(2000, 1))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#tool-list .tool-row').length`))
	if err != nil || rows > maxToolRows || rows == 0 {
		t.Errorf("%d rows listed of 2,000 (%v)", rows, err)
	}
	search("tool_01999", `/^1 of 2000$/`)
	if err := chromedp.Do(ctx, poll(`document.querySelector('#tool-list .tool-name')?.textContent === 'tool_01999'`)); err != nil {
		t.Errorf("the search did not list tool_01999: %v", err)
	}
}

// TestBrowserToolListKeyboard (issue 21, point 6): a skip link is the first Tab stop; the list
// is one Tab stop whose arrows, Home and End move the selection and Enter goes to the editor;
// Alt+D focuses the description, and Alt+↓ from the description opens the next tool with the
// caret in its description, not in the list.
func TestBrowserToolListKeyboard(t *testing.T) {
	ctx, base := browser(t)
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	active := `(document.activeElement.id || document.activeElement.dataset.testid || document.activeElement.className)`
	at := func(tool int, focus string) chromedp.Action[chromedp.Void] {
		return poll(fmt.Sprintf(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '%d' && %s === '%s'`, tool, active, focus))
	}
	step := func(name string, acts ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, acts...); err != nil {
			a, _ := chromedp.Run(ctx, chromedp.Evaluate[string](active))
			tool, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=editor-form]')?.dataset.tool`))
			t.Fatalf("%s: focus on %q, tool %s: %v", name, a, tool, err)
		}
	}
	step("the skip link first", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); window.scrollTo(0, 0)`),
		chromedp.KeyEvent(kb.Tab), poll(active+` === 'skip-link'`),
		chromedp.KeyEvent(kb.Enter), poll(active+` === 'f-name'`))
	stops, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('#tool-list button, #tool-list a, #tool-list input')].filter((b) => b.tabIndex >= 0 && !b.disabled && b.offsetParent !== null).length`))
	if err != nil || stops != 1 {
		t.Errorf("the tool list has %d Tab stops (%v), want 1", stops, err)
	}
	step("arrows in the list", chromedp.Focus(chromedp.CSS("#tool-list .tool-row.selected .tool-pick")),
		chromedp.KeyEvent(kb.ArrowDown), at(1, "pick-1"),
		chromedp.KeyEvent(kb.ArrowDown), at(2, "pick-2"),
		chromedp.KeyEvent(kb.ArrowUp), at(1, "pick-1"),
		chromedp.KeyEvent(kb.End), at(7, "pick-7"),
		chromedp.KeyEvent(kb.Home), at(0, "pick-0"))
	step("Enter to the editor", chromedp.KeyEvent(kb.ArrowDown), at(1, "pick-1"), chromedp.KeyEvent(kb.Enter), at(1, "f-name"))
	step("Alt+D", chromedp.KeyEvent("d", chromedp.KeyModifiers(chromedp.ModifierAlt)), at(1, "f-desc"))
	step("Alt+↓ from the description", chromedp.KeyEvent(kb.ArrowDown, chromedp.KeyModifiers(chromedp.ModifierAlt)), at(2, "f-desc"),
		chromedp.KeyEvent(kb.ArrowDown, chromedp.KeyModifiers(chromedp.ModifierAlt)), at(3, "f-desc"),
		chromedp.KeyEvent(kb.ArrowUp, chromedp.KeyModifiers(chromedp.ModifierAlt)), at(2, "f-desc"))
	keys, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("[data-testid=tool-keys]")))
	if err != nil || !strings.Contains(keys, "Alt+D") {
		t.Errorf("the keys line does not tell of Alt+D: %q (%v)", keys, err)
	}
}

// TestBrowserToolListKeyboardPastTheWindow: at 2,000 tools End in the list reaches the last
// tool, which lies past the listed rows, and the list follows it with focus on its row.
func TestBrowserToolListKeyboardPastTheWindow(t *testing.T) {
	ctx, base := browser(t)
	openListing(t, ctx, base, genTools(2000, 1))
	err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#tool-list .tool-row.selected .tool-pick")),
		chromedp.KeyEvent(kb.End),
		poll(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '1999' && document.activeElement.dataset.testid === 'pick-1999'`),
		chromedp.KeyEvent(kb.ArrowUp),
		poll(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '1998' && document.activeElement.dataset.testid === 'pick-1998'`),
		chromedp.KeyEvent(kb.Home),
		poll(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '0' && document.activeElement.dataset.testid === 'pick-0'`))
	if err != nil {
		a, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.outerHTML.slice(0, 200)`))
		t.Fatalf("End and Home past the window: %v (focus on %s)", err, a)
	}
}
