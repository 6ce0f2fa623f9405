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

	"github.com/tool-workbench/workbench/internal/testutil"
)

// layoutJS lists what is wrong with the page's layout at the current size:
//   - the page, or any box in it, scrolls sideways. Two kinds of box may: the parameters table's
//     wrapper (.table-wrap: a table wider than the editor scrolls inside it, never the pane) and
//     a tab row ([role=tablist]), which TestBrowserTabsLayout checks on its own;
//   - a box clips text sideways (overflow hidden, often with an ellipsis): text cut off. The tool
//     list is left out: its names are point 5's (a resizable list, names in tooltips);
//   - the items issue 21 found cut (the annotations' help, the names of the people present, the
//     result tabs' labels) are not wholly inside every box around them (up to their pane) and
//     the screen.
//
// Text fields are left out: a long value scrolls inside its field, as it should.
const layoutJS = `(() => {
	const out = [];
	const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
		(typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '');
	const text = (e) => JSON.stringify(e.textContent.replace(/\s+/g, ' ').trim().slice(0, 60));
	// widest names the innermost box that sticks out of a box that scrolls sideways.
	const widest = (box) => {
		const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
		const sticking = [...box.querySelectorAll('*')].filter((c) => c.getBoundingClientRect().right > edge + 1 && c.checkVisibility());
		const inner = sticking.filter((c) => !sticking.some((d) => d !== c && c.contains(d)));
		return inner.length ? ' (' + name(inner[0]) + ' sticks out)' : '';
	};
	const de = document.documentElement;
	if (de.scrollWidth > de.clientWidth + 1) out.push('the page scrolls sideways: ' + de.scrollWidth + ' px of content in ' + de.clientWidth);
	for (const e of document.body.querySelectorAll('*')) {
		if (e.clientWidth === 0 || e.scrollWidth <= e.clientWidth + 1 || !e.checkVisibility()) continue;
		if (e.matches('input, textarea, select, option, .sr-only, .sr-only *') || e.closest('.tools-pane')) continue;
		const x = getComputedStyle(e).overflowX;
		if (x === 'auto' || x === 'scroll') {
			if (!e.matches('.table-wrap, [role=tablist]')) out.push(name(e) + ' scrolls sideways: ' + e.scrollWidth + ' px of content in ' + e.clientWidth + widest(e));
		} else if (x === 'hidden' || x === 'clip') {
			out.push(name(e) + ' cuts off its text (' + e.scrollWidth + ' px in ' + e.clientWidth + '): ' + text(e));
		}
	}
	const named = '.ann > :last-child, .person-name, .results-pane [role=tab]';
	for (const e of document.querySelectorAll(named)) {
		if (!e.checkVisibility()) continue;
		const r = e.getBoundingClientRect();
		let [left, right] = [0, de.clientWidth];
		// Inside every box around it up to its pane: one that clips would cut it, and text
		// sticking out of one that does not runs over its neighbours or the pane's edge.
		for (let p = e.parentElement; p && p !== document.body && !p.matches('.pane'); p = p.parentElement) {
			if (getComputedStyle(p).display === 'contents') continue;
			const q = p.getBoundingClientRect();
			left = Math.max(left, q.left + p.clientLeft);
			right = Math.min(right, q.left + p.clientLeft + p.clientWidth);
		}
		if (r.left < left - 1 || r.right > right + 1 || e.scrollWidth > e.clientWidth + 1) {
			out.push(name(e) + ' is cut off (' + Math.round(r.left) + '..' + Math.round(r.right) + ' px shown in ' + Math.round(left) + '..' + Math.round(right) + '): ' + text(e));
		}
	}
	return out.slice(0, 8);
})()`

// tabPlaceJS says how the result tabs sit: on how many lines, whether the row must scroll to show
// them all, where it is on the screen after the page is scrolled to its top, and where it is
// (and whether it is what the screen shows there) after every scroller is scrolled to its end.
// Where the tabs are not shown (a phone's tools or editor view) it says the same of the switch
// between the views, which must then be in sight instead.
const tabPlaceJS = `(() => {
	let list = document.querySelector('.results-pane [role=tablist]');
	if (!list.checkVisibility()) list = document.querySelector('[data-testid=view-switch]');
	if (!list || !list.checkVisibility()) return {what: 'nothing'};
	const tabs = [...list.querySelectorAll('button')].filter((b) => b.checkVisibility());
	const lines = new Set(tabs.map((b) => Math.round(b.getBoundingClientRect().top))).size;
	const scrollers = [document.scrollingElement, ...document.querySelectorAll('.pane')];
	scrollers.forEach((s) => s.scrollTop = 0);
	const top = list.getBoundingClientRect();
	scrollers.forEach((s) => s.scrollTop = s.scrollHeight);
	const end = list.getBoundingClientRect();
	const hit = document.elementFromPoint(end.left + end.width / 2, end.top + Math.min(end.height / 2, 12));
	const row = {what: list.matches('[role=tablist]') ? 'the result tabs' : 'the view switch', lines, scrolls: list.scrollWidth > list.clientWidth + 1, top: Math.round(top.top), bottom: Math.round(top.bottom),
		endTop: Math.round(end.top), endBottom: Math.round(end.bottom), endShown: !!hit && list.contains(hit), height: innerHeight};
	scrollers.forEach((s) => s.scrollTop = 0);
	return row;
})()`

// tabRowState is what tabPlaceJS returns.
type tabRowState struct {
	What      string `json:"what"`
	Lines     int    `json:"lines"`
	Scrolls   bool   `json:"scrolls"`
	Top       int    `json:"top"`
	Bottom    int    `json:"bottom"`
	EndTop    int    `json:"endTop"`
	EndBottom int    `json:"endBottom"`
	EndShown  bool   `json:"endShown"`
	Height    int    `json:"height"`
}

// phone is the width below which the page is laid out for a phone.
const phone = 720

// checkLayout asserts, for what the page shows now, that nothing scrolls sideways and nothing
// is cut off; and that the result tabs are one line that shows every tab on a wide screen, and
// within the first screen and still there once scrolled down on a phone.
func checkLayout(t *testing.T, ctx context.Context, where string, size viewport) {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](layoutJS))
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if len(out) > 0 {
		t.Errorf("%s:\n\t%s", where, strings.Join(out, "\n\t"))
	}
	row, err := chromedp.Run(ctx, chromedp.Evaluate[tabRowState](tabPlaceJS))
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	switch {
	case row.What == "nothing":
		t.Errorf("%s: neither the result tabs nor a switch to them are shown", where)
	case size.w >= 1100 && (row.Lines != 1 || row.Scrolls):
		t.Errorf("%s: %s take %d lines (scrolling sideways: %v); want one line showing every tab", where, row.What, row.Lines, row.Scrolls)
	case size.w < phone && (row.Top < 0 || row.Bottom > row.Height):
		t.Errorf("%s: %s are at %d..%d px with the page at its top; want them within the first screen (%d px)", where, row.What, row.Top, row.Bottom, row.Height)
	case size.w < phone && (row.EndTop < 0 || row.EndBottom > row.Height || !row.EndShown):
		t.Errorf("%s: scrolled down, %s are at %d..%d px (shown: %v); want them to stay in sight", where, row.What, row.EndTop, row.EndBottom, row.EndShown)
	}
}

// phoneView switches a phone's page to one of its views (tools, editor, results) with the switch
// at its top; it does nothing where there is no switch (a wide screen).
func phoneView(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	js := `(() => { const b = document.querySelector('[data-testid=view-` + view + `]');
		if (b && b.checkVisibility()) b.click(); return true; })()`
	err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js),
		chromedp.Poll[chromedp.Void](`(() => { const b = document.querySelector('[data-testid=view-`+view+`]');
			return !b || !b.checkVisibility() || b.getAttribute('aria-pressed') === 'true'; })()`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		t.Fatalf("switch to the %s view: %v", view, err)
	}
}

// checkEditor checks the editor (the parameters table, the annotations) at a size, and on a
// phone the tools view before it; with dir set it keeps screenshots of them, the editor scrolled
// to the parameters and to the annotations.
func checkEditor(t *testing.T, ctx context.Context, size viewport, scheme, set, dir string) {
	t.Helper()
	if size.w < phone {
		phoneView(t, ctx, "tools")
		checkLayout(t, ctx, fmt.Sprintf("%dx%d %s %s tools", size.w, size.h, scheme, set), size)
		if dir != "" {
			shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-tools-%d-%s.png", set, size.w, scheme)))
		}
	}
	phoneView(t, ctx, "editor")
	where := fmt.Sprintf("%dx%d %s %s editor", size.w, size.h, scheme, set)
	checkLayout(t, ctx, where, size)
	if size.w >= 1100 {
		stacked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const th = document.querySelector('table.params thead');
			return !!th && !th.checkVisibility(); })()`))
		if err != nil || stacked {
			t.Errorf("%s: the parameters table shows as stacked cards (%v); want a table", where, err)
		}
	}
	if dir == "" {
		return
	}
	for _, part := range []string{"params", "annotations"} {
		sel := map[string]string{"params": "#params", "annotations": ".annotations"}[part]
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+sel+`').scrollIntoView({block: 'center'})`)); err != nil {
			t.Fatal(err)
		}
		shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-editor-%s-%d-%s.png", set, part, size.w, scheme)))
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0); document.querySelectorAll('.pane').forEach((p) => p.scrollTop = 0)`)); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserLayoutGitHub shows the GitHub server's 117 tools, with two named people present and
// a tool of ten parameters selected, at 1280×800 and 390×844 in the light and the dark scheme:
// the editor and every result tab fit (checkLayout). WORKBENCH_SCREENSHOT_DIR keeps screenshots
// of each (github-*.png).
func TestBrowserLayoutGitHub(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, string(testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")))
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	setName(t, ctx, "Marguerite Yourcenar")
	// A second person, in a browser context of their own (their own cookies), on another tool.
	other, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc"))); err != nil {
		t.Fatalf("open the second person's page: %v", err)
	}
	setName(t, other, "Zora Neale Hurston")
	err = chromedp.Do(ctx,
		// add_pull_request_review_comment: ten parameters. Clicked by script: a pointer over the
		// row brings out its buttons under the pointer (the list is point 5's).
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=pick-7]').click()`),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=param-row]').length === 10`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Edited."), // a second revision, for History to compare
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=person]').length === 2`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelectorAll('[data-testid=param-row]').length + ' parameters, ' +
			document.querySelectorAll('[data-testid=person]').length + ' people'`))
		t.Fatalf("select a tool, edit it, see two people: %v (%s)", err, got)
	}
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	tabs := layoutTabs()
	tabs[len(tabs)-1].fill = nil // no run endpoint here: the Runs tab says so
	for _, size := range []viewport{{1280, 800}, {390, 844}} {
		for _, scheme := range []string{"light", "dark"} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h), colorScheme(scheme)); err != nil {
				t.Fatal(err)
			}
			checkEditor(t, ctx, size, scheme, "github", dir)
			for _, tab := range tabs {
				tab.shots = "github-"
				showTab(t, ctx, size, scheme, tab, dir)
			}
		}
	}
}

// setName gives the person of a page a display name with the header's name form. The form
// reloads the page: a poll that the reload interrupts is polled again.
func setName(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("[data-testid=display-name]"), name),
		chromedp.Submit(chromedp.CSS("[data-testid=display-name]")))
	if err != nil {
		t.Fatalf("set the name %q: %v", name, err)
	}
	named := chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=display-name]')?.value === `+fmt.Sprintf("%q", name)+` &&
		document.querySelector('[data-testid=datastar-missing]')?.style.display === 'none'`, chromedp.WithPollingTimeout(10*time.Second))
	for try := 0; ; try++ {
		err = chromedp.Do(ctx, named)
		if err == nil || try == 3 || !strings.Contains(err.Error(), "context") {
			break
		}
	}
	if err != nil {
		t.Fatalf("set the name %q: %v", name, err)
	}
}
