package web

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
)

// browseExample opens a built-in example from the start page, as a person would.
func browseExample(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-"+id+"]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		t.Fatalf("open the example %s: %v", id, err)
	}
}

// shownFigures are a revision's figures as the page shows them, and as the review report
// downloaded from the page's export menu states them for the current revision.
type shownFigures struct {
	Tokens   string `json:"tokens"`   // the Cost tab's total
	Summary  string `json:"summary"`  // the Tasks tab's "N clear N ambiguous N wrong of N"
	Statuses string `json:"statuses"` // each task's verdict, in order
	Review   string `json:"review"`   // the review report, fetched as the menu's Download fetches it
}

// TestBrowserReviewReportMatchesPage opens each example with tasks, reads the page's token
// total, task summary and verdicts, downloads the review report through the export menu's
// form (fetch, in the page) and requires the report to state the same figures (issue 21,
// point 3).
func TestBrowserReviewReportMatchesPage(t *testing.T) {
	ctx, base := browser(t)
	for _, ex := range examples.All() {
		browseExample(t, ctx, base, ex.ID)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[shownFigures](`(async () => {
			const f = document.querySelector('[data-testid=export-review]');
			const r = await fetch(f.action + '?' + new URLSearchParams(new FormData(f)), {credentials: 'same-origin'});
			const text = (sel) => document.querySelector(sel).textContent.replace(/\s+/g, ' ').trim();
			return {tokens: text('[data-testid=cost-tokens]'), summary: text('[data-testid=task-summary]'),
				statuses: [...document.querySelectorAll('[data-testid=verdict]')].map((v) => v.dataset.status).join(' '),
				review: await r.text()};
		})()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: read the page and fetch the review: %v", ex.ID, err)
		}
		m := regexp.MustCompile(`^(\d+) clear (\d+) ambiguous (\d+) wrong of (\d+)$`).FindStringSubmatch(got.Summary)
		if m == nil {
			t.Fatalf("%s: the task summary reads %q", ex.ID, got.Summary)
		}
		// A fresh workspace's baseline is its current revision: the report's two columns are
		// both the page's figures.
		for _, want := range []string{
			"| Tokens | " + got.Tokens + " | " + got.Tokens + " | 0 |",
			"| Tasks clear | " + m[1] + "/" + m[4] + " | " + m[1] + "/" + m[4] + " |",
			"| Tasks ambiguous | " + m[2] + "/" + m[4] + " | " + m[2] + "/" + m[4] + " |",
			"| Tasks wrong | " + m[3] + "/" + m[4] + " | " + m[3] + "/" + m[4] + " |",
		} {
			if !strings.Contains(got.Review, want) {
				t.Errorf("%s: the page shows %s tokens and %q; the review lacks %q:\n%.1500s", ex.ID, got.Tokens, got.Summary, want, got.Review)
			}
		}
		var statuses []string
		for _, row := range regexp.MustCompile(`(?m)^\| .* \| ([a-z-]+)(?:, picks [^|]*)? \| ([a-z-]+)(?:, picks [^|]*)? \| [^|]* \|$`).FindAllStringSubmatch(got.Review, -1) {
			if row[1] != row[2] {
				t.Errorf("%s: a task's baseline verdict %s differs from its current %s in an unedited workspace", ex.ID, row[1], row[2])
			}
			statuses = append(statuses, row[2])
		}
		if strings.Join(statuses, " ") != got.Statuses {
			t.Errorf("%s: the review's verdicts %v, the page's %q", ex.ID, statuses, got.Statuses)
		}
	}
	// The menu's Download fetches the same report and saves it without leaving the page. The
	// page's first live patches can still be arriving and morph the header (closing the menu)
	// between the menu opening and the click: a click that started nothing (the status still
	// empty) is made again, as a person would, a few times at most.
	var status string
	for try := 0; try < 5 && status == ""; try++ {
		err := chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=export-menu]').open = true`),
			chromedp.Click(chromedp.CSS("[data-testid=export-review] button[type=submit]")),
		)
		if err != nil {
			t.Fatalf("Download the review from the menu: %v", err)
		}
		// A hang guard, not a timing.
		status, _ = chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('[data-testid=export-status]').textContent || false`,
			chromedp.WithPollingTimeout(3*time.Second)))
	}
	err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-status]').textContent === 'Downloaded review.md.'`,
		chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=export-status]').textContent`))
		t.Errorf("Download the review from the menu: %v; the menu's status says %q", err, status)
	}
}

// exportMenuState is what the page shows after an export action.
type exportMenuState struct {
	Workspace bool   `json:"workspace"` // the workspace is still the page
	Problem   string `json:"problem"`   // the Go options' problem, when shown
	Status    string `json:"status"`    // the menu's status line
}

const readExportMenu = `(() => {
	const p = document.querySelector('[data-testid=export-go-problem]');
	const s = document.querySelector('[data-testid=export-status]');
	return {workspace: !!document.querySelector('[data-testid=workspace]'),
		problem: p && !p.hidden ? p.textContent : '', status: s ? s.textContent : ''};
})()`

// TestBrowserExportOptionsStayInWorkspace: a Go export that cannot be made keeps the person in
// the workspace and says, in the export menu, what to change (issue 21, point 8): a package
// name other than main with "with main" is told as it is typed, Download and Copy then do not
// leave or fetch, a listing go-sdk would refuse is told in the menu, and the server refuses
// the bad options itself with a plain-text message that says what to change.
func TestBrowserExportOptionsStayInWorkspace(t *testing.T) {
	ctx, base := browser(t)
	// Two tools of one name: go-sdk keeps only the last one, so the Go export is refused.
	pasteListing(t, ctx, base, `{"tools": [{"name": "books_find", "description": "Find books.", "inputSchema": {"type": "object"}},
		{"name": "books_find", "description": "Find books again.", "inputSchema": {"type": "object"}}]}`)
	goDownload := chromedp.CSS(`[data-testid=export-go] button[type=submit]`)
	// A package other than main, with main: Download and Copy stay in the workspace, and the menu
	// says what to change (as it is typed).
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=export-menu] > summary")),
		chromedp.WaitVisible(chromedp.CSS("#export-package")),
		// The field takes the focus before the keys: on a loaded machine DOM.focus once ran
		// before the opened menu had been laid out ("Element is not focusable").
		chromedp.Poll[chromedp.Void](`(() => { const f = document.getElementById('export-package');
			f.focus(); return document.getElementById('export-menu').open && document.activeElement === f; })()`,
			chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.SendKeys(chromedp.CSS("#export-package"), "tools"),
		chromedp.Click(chromedp.CSS(`[data-testid=export-go] input[name=main]`)),
		chromedp.Click(goDownload),
		chromedp.Click(chromedp.CSS("[data-testid=copy-go]")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-status]')?.textContent.startsWith('Not copied')`,
			chromedp.WithPollingTimeout(5*time.Second)),
	)
	if err != nil {
		st, _ := chromedp.Run(ctx, chromedp.Evaluate[exportMenuState](readExportMenu))
		t.Fatalf("Download and Copy with package tools and main: %v (page %+v)", err, st)
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[exportMenuState](readExportMenu))
	if err != nil || !st.Workspace || !strings.Contains(st.Problem, "untick") || !strings.Contains(st.Status, "untick") {
		t.Errorf("after Download and Copy with package tools and main the page is %+v, %v; want the workspace, saying what to change", st, err)
	}
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		shoot(t, ctx, filepath.Join(dir, "export-go-problem.png"))
	}
	// Unticking "with main" clears the problem.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid=export-go] input[name=main]`)),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-go-problem]').hidden`, chromedp.WithPollingTimeout(5*time.Second)),
	)
	if err != nil {
		t.Fatalf("untick with main: %v", err)
	}

	// A listing go-sdk refuses: the refusal is told in the menu, and the workspace stays.
	err = chromedp.Do(ctx,
		chromedp.Click(goDownload),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-status]')?.textContent.includes('also used by tool')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		st, _ := chromedp.Run(ctx, chromedp.Evaluate[exportMenuState](readExportMenu))
		t.Fatalf("Download of a listing go-sdk refuses: %v (page %+v)", err, st)
	}
	if st, err := chromedp.Run(ctx, chromedp.Evaluate[exportMenuState](readExportMenu)); err != nil || !st.Workspace {
		t.Fatalf("after a refused Download the page is %+v, %v", st, err)
	}

	// The server refuses the same options itself, in plain text for the Copy path.
	type answer struct {
		Status int    `json:"status"`
		Type   string `json:"type"`
		Body   string `json:"body"`
	}
	a, err := chromedp.Run(ctx, chromedp.Evaluate[answer](`(async () => {
		const f = document.querySelector('[data-testid=export-go]');
		const r = await fetch(f.action + '?format=go&package=tools&main=1', {headers: {Accept: 'text/plain'}, credentials: 'same-origin'});
		return {status: r.status, type: r.headers.get('Content-Type'), body: await r.text()};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != 400 || !strings.HasPrefix(a.Type, "text/plain") || !strings.Contains(a.Body, "untick") {
		t.Errorf("the server answers package tools with main: %+v; want a 400 in plain text saying what to change", a)
	}
}
