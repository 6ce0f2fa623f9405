package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// mcpcheckerFile is an mcpchecker Task and Eval stream: two tasks, the second with any of two
// tools right, the first with a tool that must not be called and a difficulty.
const mcpcheckerFile = `kind: Task
apiVersion: mcpchecker/v1alpha2
metadata:
  name: renew-loan
  difficulty: easy
spec:
  prompt:
    inline: Renew my borrowed book so that it is due later
---
kind: Task
apiVersion: mcpchecker/v1alpha2
metadata:
  name: find-book
spec:
  prompt:
    inline: Search the catalog for books by this author
---
kind: Eval
apiVersion: mcpchecker/v1alpha2
metadata:
  name: library
config:
  taskSets:
    - path: tasks/renew-loan.yaml
      assertions:
        toolsUsed: [{server: library, tool: loans_renew}]
        toolsNotUsed: [{server: library, tool: fines_pay}]
    - path: tasks/find-book.yaml
      assertions:
        requireAny: [{server: library, tool: catalog_search}, {server: library, tool: holds_place}]
`

// TestBrowserTaskImportOtherFormat imports an mcpchecker file by the task panel's form, its
// format detected: the page opens on the tasks, which are the file's, and a notice lists what
// the tasks could not carry over; the verdicts show the answers and rejects they did carry. WORKBENCH_SCREENSHOT_DIR, when set, keeps a screenshot.
func TestBrowserTaskImportOtherFormat(t *testing.T) {
	ctx, base := browser(t)
	file := filepath.Join(t.TempDir(), "library-eval.yaml")
	if err := os.WriteFile(file, []byte(mcpcheckerFile), 0o600); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'"),
		chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
		chromedp.SetUploadFiles("#task-file", []string{file}),
		chromedp.Click(chromedp.CSS("[data-testid=task-import-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=task-import-confirm]")),
		chromedp.Evaluate[chromedp.Void](`window.__before = true`),
		chromedp.Click(chromedp.CSS("[data-testid=task-import-replace]")))
	if err != nil {
		t.Fatal(err)
	}
	if err := postedPage(ctx); err != nil {
		t.Fatal(err)
	}
	// The notice shows without a click: the page opens on its tasks.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("[data-testid=task-import-losses]")),
		poll(`document.querySelectorAll('[data-testid=task-row]').length === 2`)); err != nil {
		t.Fatalf("no loss notice beside the 2 imported tasks: %v", err)
	}
	notice, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=task-import-losses]').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Imported 2 tasks from library-eval.yaml, read as mcpchecker", "difficulty"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the notice does not say %q:\n%s", want, notice)
		}
	}
	// A tool that must not be called and any of two right tools are no longer losses: the
	// tasks hold them, and their verdicts show them.
	for _, lost := range []string{"fines_pay", "catalog_search"} {
		if strings.Contains(notice, lost) {
			t.Errorf("the notice lists %s as lost:\n%s", lost, notice)
		}
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=verdict]')].map((v) => v.innerText.replace(/\s+/g, ' '))`))
	if err != nil || len(cells) != 2 {
		t.Fatalf("verdict cells %q (%v), want 2", cells, err)
	}
	if !strings.Contains(cells[0], "never fines_pay") || !strings.Contains(cells[1], "any of catalog_search , holds_place") && !strings.Contains(cells[1], "any of catalog_search, holds_place") {
		t.Errorf("the verdicts do not show the rejected tool and the answers: %q", cells)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('t-0-task').value`))
	if err != nil || first != "Renew my borrowed book so that it is due later" {
		t.Errorf("the first task reads %q (%v)", first, err)
	}
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(".results-pane")))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "task-import-losses.png"), png, 0o644)
		}
		if err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
}
