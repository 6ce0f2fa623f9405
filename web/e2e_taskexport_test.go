package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/selection/taskformat"
)

// chooseExportFormat picks a format in the task panel's export list as a person does.
func chooseExportFormat(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.getElementById('task-export-format');
		s.value = '` + name + `';
		s.dispatchEvent(new Event('change', {bubbles: true}));
	})()`)
}

// TestBrowserTaskExportFormat chooses another tool's format in the task panel on a phone-wide
// screen: the panel shows what that format leaves out before anything is downloaded, its link
// downloads a file that reads as that format, and choosing the workbench's own again takes the
// notice away. Nothing sticks out sideways. WORKBENCH_SCREENSHOT_DIR, when set, keeps
// screenshots at 390 and 1400 px.
func TestBrowserTaskExportFormat(t *testing.T) {
	ctx, base := browser(t)
	err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'"),
		chromedp.Click(chromedp.CSS("[data-testid=view-results]")),
		chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=task-export-download]")))
	if err != nil {
		t.Fatal(err)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=task-export-download]').textContent + '|' + !!document.querySelector('[data-testid=task-export-losses]')`))
	if err != nil || first != "Download tasks.json|false" {
		t.Fatalf("the export first offers %q (%v), want the workbench's tasks.json and no notice", first, err)
	}
	if err := chromedp.Do(ctx, chooseExportFormat("mcptest"),
		poll(`document.querySelector('[data-testid=task-export-download]').textContent === 'Download tasks.mcptest.yaml'`),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=task-export-losses]"))); err != nil {
		t.Fatalf("choosing mcptest shows no link or no losses: %v", err)
	}
	notice, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=task-export-losses]').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exporting as mcptest tool-bench spec (YAML) leaves out", "catalog_path"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the notice does not say %q:\n%s", want, notice)
		}
	}
	if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
		t.Errorf("at 390 px, the task panel is wider than the screen: %v (%v)", out, err)
	}
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		_ = chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("[data-testid=task-export]")))
		shoot(t, ctx, filepath.Join(dir, "task-export-390.png"))
	}
	// The link downloads the file the notice is about.
	type download struct {
		Status      int
		Disposition string
		Body        string
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[download](`(async () => {
		const r = await fetch(document.querySelector('[data-testid=task-export-download]').href, {credentials: 'same-origin'});
		return {status: r.status, disposition: r.headers.get('Content-Disposition'), body: await r.text()};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != 200 || got.Disposition != `attachment; filename="tasks.mcptest.yaml"` {
		t.Fatalf("the download: %d %q: %s", got.Status, got.Disposition, got.Body)
	}
	f, err := taskformat.Lookup("mcptest")
	if err != nil {
		t.Fatal(err)
	}
	if cases, _, err := f.Read([]byte(got.Body)); err != nil || len(cases) == 0 {
		t.Errorf("the download does not read as mcptest (%d cases, %v):\n%s", len(cases), err, got.Body)
	}
	if dir != "" {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000), chromedp.ScrollIntoView(chromedp.CSS("[data-testid=task-export]"))); err != nil {
			t.Fatal(err)
		}
		shoot(t, ctx, filepath.Join(dir, "task-export-1400.png"))
	}
	if err := chromedp.Do(ctx, chooseExportFormat("workbench"),
		poll(`document.querySelector('[data-testid=task-export-download]').textContent === 'Download tasks.json' && !document.querySelector('[data-testid=task-export-losses]')`)); err != nil {
		t.Errorf("the workbench's own format again: the notice stays or the link is not tasks.json: %v", err)
	}
}
