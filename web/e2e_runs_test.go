package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// TestBrowserRuns drives the Runs tab in Chromium: start a run on the fake endpoint, watch the
// progress bar fill over the page's stream, read the results with the confusion matrix, then
// start a second run and compare it with the first. WORKBENCH_SCREENSHOT_DIR, when set, keeps
// a screenshot of the results.
func TestBrowserRuns(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey, Delay: 100 * time.Millisecond}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f}, Retries: -1}
	})
	runFirst(t, ctx, base)
	compareSecond(t, ctx)
	reopenRunsTab(t, ctx)
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		screenshotResults(t, ctx, dir)
	}
}

// runFirst opens the library example, starts a run of 3 samples from the Runs tab, sees its bar
// part way and then done, and reads its results.
func runFirst(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=tab-runs]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=run-start]")),
		chromedp.SetValue(chromedp.CSS("[data-testid=run-samples]"), "3"),
		// Note every value the bar shows.
		chromedp.Evaluate[chromedp.Void](`(() => { window.__partial = false;
			new MutationObserver(() => { const b = document.querySelector('[data-testid=run-progress-bar]');
				if (b && b.value > 0 && b.value < b.max) window.__partial = true; })
			.observe(document.body, {subtree: true, childList: true, attributes: true}); })()`),
		chromedp.Click(chromedp.CSS("[data-testid=run-start]")),
		// The bar arrives over the stream and fills: seen part way, then done.
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=run-progress]')?.dataset.status === 'done'`,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Poll[chromedp.Void](`window.__partial`, chromedp.WithPollingTimeout(time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=run-show-last]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=result-confusion]")),
	)
	if err != nil {
		h, herr := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('runs')?.outerHTML || 'no #runs'"))
		t.Fatalf("run from the page: %v\n%s %v", err, h, herr)
	}
	acc, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("[data-testid=result-accuracy]")))
	if err != nil || !strings.HasPrefix(acc, "0.") && acc != "1.000" {
		t.Errorf("accuracy shown %q, %v", acc, err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('[data-testid=result-task]').length"))
	if err != nil || rows != 9 {
		t.Errorf("%d task rows, %v; want 9", rows, err)
	}
}

// compareSecond starts a second run of the same listing and compares it with the first.
func compareSecond(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=run-start]")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=run-row]').length === 2 &&
			document.querySelector('[data-testid=run-progress]')?.dataset.status === 'done'`, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=run-show-last]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-go]")),
		chromedp.Click(chromedp.CSS("[data-testid=compare-go]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-summary]")),
	)
	if err != nil {
		t.Fatalf("compare from the page: %v", err)
	}
	diff, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("[data-testid=compare-diff]")))
	if err != nil || diff != "+0.000" {
		t.Errorf("two runs of the same listing differ by %q, %v; want +0.000", diff, err)
	}
}

// reopenRunsTab leaves the tab and opens it again: the panel empties to its placeholder at the
// click, before the reload answers, so none of the old buttons can be clicked and then undone
// by it. The check runs in the same task as the click: the GET cannot have answered yet.
func reopenRunsTab(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[aria-controls=tp-findings]")),
		chromedp.WaitNotVisible(chromedp.CSS("#tp-runs")),
	)
	if err != nil {
		t.Fatalf("leave the Runs tab: %v", err)
	}
	type panelState struct {
		Before, After int
		Loading       bool
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[panelState](`(() => {
		const controls = () => document.querySelectorAll('#runs button, #runs a.button, #runs input, #runs select').length;
		const before = controls();
		document.querySelector('[data-testid=tab-runs]').click();
		return {Before: before, After: controls(), Loading: !!document.querySelector('#runs [data-testid=runs-loading]')};
	})()`))
	if err != nil {
		t.Fatalf("re-open the Runs tab: %v", err)
	}
	if st.Before == 0 || st.After != 0 || !st.Loading {
		t.Errorf("re-opening the Runs tab: %d controls before the click, %d right after it (want none), placeholder shown %v", st.Before, st.After, st.Loading)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("[data-testid=run-start]")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=run-row]').length === 2 && !document.querySelector('#runs [data-testid=runs-loading]')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("the Runs panel did not load again: %v", err)
	}
}

// screenshotResults keeps a screenshot of the results pane in dir, in a tall viewport so that
// it shows whole.
func screenshotResults(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 4200))
	var png []byte
	if err == nil {
		png, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(".results-pane")))
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "runs.png"), png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot: %v", err)
	}
}
