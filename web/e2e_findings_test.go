package web

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestBrowserFindingsFollowTool, on GitHub's 117 tools: selecting a tool marks its findings and
// scrolls them into view in the findings panel; "This tool" shows its findings alone; and the
// near-duplicate finding, which lists 98 pairs of tools, reads as one line until opened.
func TestBrowserFindingsFollowTool(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, string(testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")))

	// The last tool with findings, selected while the panel shows its top.
	last, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
	  document.querySelector('.results-pane').scrollTop = 0;
	  const g = [...document.querySelectorAll('#findings .fgroup')].filter((g) => g.id !== 'fg-listing').pop();
	  g.querySelector('h3 button').click();
	  return g.id; })()`))
	if err != nil {
		t.Fatal(err)
	}
	inView := `(() => { const g = document.getElementById('` + last + `'), p = document.querySelector('.results-pane');
	  const r = g.getBoundingClientRect(), b = p.getBoundingClientRect(), tabs = p.querySelector('.tabs').getBoundingClientRect();
	  return g.classList.contains('current') && r.top >= tabs.bottom - 1 && r.top < b.bottom - 20; })()`
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](inView, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		where, _ := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const g = document.getElementById('`+last+`'), p = document.querySelector('.results-pane');
		  return [g.classList.contains('current') ? 1 : 0, g.getBoundingClientRect().top, p.getBoundingClientRect().bottom]; })()`))
		t.Fatalf("the selected tool's findings (#%s) are not marked and in view in the panel: [current, top, pane bottom] = %v (%v)", last, where, err)
	}

	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "findings-current-1280.png"))
	}

	// This tool: its group alone; All tools: every group again.
	visible := `[...document.querySelectorAll('#findings .fgroup')].filter((g) => g.offsetParent !== null).map((g) => g.id)`
	groups, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`document.querySelector('[data-testid=findings-scope-tool]').click(), `+visible))
	if err != nil || len(groups) != 1 || groups[0] != last {
		t.Errorf("This tool shows the groups %q (%v); want only %s", groups, err, last)
	}
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "findings-this-tool-1280.png"))
	}
	groups, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`document.querySelector('[data-testid=findings-scope-all]').click(), `+visible))
	if err != nil || len(groups) < 50 {
		t.Errorf("All tools shows %d groups (%v); want all of them", len(groups), err)
	}

	// No message is a wall of text: the near-duplicate one is a line, its pairs behind a disclosure.
	type msgSize struct {
		Tallest  float64 `json:"tallest"`
		Line     float64 `json:"line"`
		Pairs    int     `json:"pairs"`
		Disclose bool    `json:"disclose"`
	}
	sz, err := chromedp.Run(ctx, chromedp.Evaluate[msgSize](`(() => {
	  const msgs = [...document.querySelectorAll('#findings .finding .msg')];
	  const nd = document.querySelector('#fg-listing .finding[data-rule=near-duplicate] .msg');
	  return {tallest: Math.max(...msgs.map((m) => m.getBoundingClientRect().height)), line: parseFloat(getComputedStyle(nd).lineHeight),
	    pairs: nd.querySelectorAll('details li').length, disclose: !!nd.querySelector('details:not([open]) summary')}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if sz.Tallest > 3.5*sz.Line || !sz.Disclose || sz.Pairs < 90 {
		t.Errorf("the tallest finding message is %.0f px (a line is %.0f px); the near-duplicate one lists %d pairs, behind a closed disclosure: %v",
			sz.Tallest, sz.Line, sz.Pairs, sz.Disclose)
	}
	if dir != "" {
		_ = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('fg-listing').scrollIntoView({block: 'start'})`))
		shoot(t, ctx, filepath.Join(dir, "findings-follow-1280.png"))
	}
	// Open, on a phone, the list fits the screen.
	err = chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Evaluate[chromedp.Void](`(() => {
	  const d = document.querySelector('#fg-listing .finding[data-rule=near-duplicate] details');
	  d.open = true; d.scrollIntoView({block: 'start'}); })()`))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
		t.Errorf("at 390 px wide, wider than the screen: %v (%v)", out, err)
	}
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "findings-open-390.png"))
	}
}

// TestBrowserFindingsThisTool: with "This tool", a tool without findings (or without any of the
// chosen severity: here errors, of a tool with warnings only) says so instead of showing an empty panel, and a tool with findings shows
// them alone.
func TestBrowserFindingsThisTool(t *testing.T) {
	ctx, base := browser(t)
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	// What the panel shows: the ids of the visible groups, or "empty" for the note.
	const shows = `(() => { const e = document.querySelector('[data-testid=findings-scope-empty]');
	  return e.offsetParent !== null ? ['empty'] : [...document.querySelectorAll('#findings .fgroup')].filter((g) => g.offsetParent !== null).map((g) => g.id); })()`
	tools, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`(() => {
	  const has = new Set([...document.querySelectorAll('#findings .fgroup')].map((g) => g.id));
	  const rows = document.querySelectorAll('#tool-list .tool-row').length;
	  let none = -1, some = -1;
	  for (let i = 0; i < rows; i++) {
	    if (!has.has('fg-' + i)) none = i;
	    else if (!document.querySelector('#fg-' + i + ' .finding.sev-error')) some = i;
	  }
	  return [none, some]; })()`))
	if err != nil || tools[0] < 0 || tools[1] < 0 {
		t.Fatalf("a tool without findings and one with findings but no errors: %v, %v", tools, err)
	}
	pick := func(i int) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('#tool-row-%d .tool-pick').click()`, i))
	}
	cases := []struct {
		name string
		tool int
		sev  string
		want string
	}{
		{"no findings", tools[0], "All", "empty"},
		{"findings", tools[1], "All", fmt.Sprintf("fg-%d", tools[1])},
		{"none at the severity", tools[1], "Errors", "empty"},
	}
	for _, c := range cases {
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=findings-scope-tool]")), pick(c.tool),
			chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#findings [aria-label^=Filter] .chip')].find((b) => b.textContent.trim().startsWith('`+c.sev+`')).click()`))
		if err != nil {
			t.Fatal(err)
		}
		err = chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`(() => { const s = `+shows+`; return s.length === 1 && s[0] === '`+c.want+`'; })()`,
			chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](shows))
			t.Errorf("%s: This tool shows %q, want %s", c.name, got, c.want)
		}
	}
}
