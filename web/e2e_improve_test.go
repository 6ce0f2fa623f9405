package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/workspace"
)

// TestBrowserImprove: a person opens the confusing fixture with its tasks, opens "Improve with
// a model…" in the Tasks tab, reads the plan, starts; the dialog follows the loop's progress,
// shows the verdict, the held-out figures and the word diffs, and Apply stores the revised
// descriptions (the editor's field shows the new text) and Undo takes them back. WORKBENCH_SCREENSHOT_DIR keeps the
// dialog at 1280 and 390 px, before starting and with the report.
func TestBrowserImprove(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey, Rewrites: honestRewrites(t)}
	var cfg *Config
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}
		cfg = c
	})
	ws := browserConfusing(t, workspace.New(cfg.Store))
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/w/"+ws),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`),
		chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=improve-open]")),
	)
	if err != nil {
		t.Fatalf("open the workspace's Tasks tab: %v", err)
	}
	waitSuggest(t, ctx, "the dialog opens with the plan of calls", chromedp.Click(chromedp.CSS("[data-testid=improve-open]")),
		`document.querySelector('[data-testid=improve-plan]')?.textContent.includes('the baseline and final runs need')`)
	shots(t, ctx, dir, "improve-form")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "Start runs the loop and the dialog shows its verdict", chromedp.Click(chromedp.CSS("[data-testid=improve-start]")),
		`document.querySelector('[data-testid=improve-status]')?.dataset.status === 'improved' && !document.querySelector('[data-testid=improve-poll]')`)
	shots(t, ctx, dir, "improve-report")
	// The word diffs and Apply, in view inside the dialog.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=improve-apply]').scrollIntoView({block: 'end'})`)); err != nil {
		t.Fatal(err)
	}
	shots(t, ctx, dir, "improve-apply")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "Apply closes the dialog and says what was stored", chromedp.Click(chromedp.CSS("[data-testid=improve-apply]")),
		`!document.querySelector('[data-testid=improve-dialog]') && document.querySelector('[data-testid=draft-done]')?.textContent.includes('1 revision stored')`)
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "improve-applied-1280.png"))
	}
	// The editor shows the first tool, get_data, which the loop rewrote; Undo brings it back.
	waitSuggest(t, ctx, "the editor shows the revised description", chromedp.Evaluate[chromedp.Void](`0`),
		`document.getElementById('f-desc').value.startsWith('Get one ticket by its id')`)
	waitSuggest(t, ctx, "Undo brings the old text back", chromedp.Click(chromedp.CSS("[data-testid=undo]")),
		`!document.getElementById('f-desc').value.startsWith('Get one ticket by its id')`)
}

// browserConfusing creates a workspace of the seeds' confusing fixture and its tasks.
func browserConfusing(t *testing.T, svc *workspace.Service) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(improveFixtures, "confusing-tools.json"))
	if err != nil {
		t.Skipf("the seeds' fixture: %v", err)
	}
	l, err := listing.Parse(src, listing.Options{Name: "confusing-tools.json"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(filepath.Join(improveFixtures, "tasks-confusing.json"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(tb, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.Create(context.Background(), "confusing", l, tasks, Author{Name: "test"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return w.ID
}
