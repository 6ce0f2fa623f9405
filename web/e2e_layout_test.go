package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// TestBrowserTabsLayout fills every result tab (a field-changed notice and two tabs' presence
// in the header, a History diff, two runs with results and a comparison) and then, at
// 1280×800 and 390×844 in the light and the dark scheme, shows each tab: the six tabs form
// one tab row that arrow keys move along, and nothing sticks out sideways.
// WORKBENCH_SCREENSHOT_DIR, when set, keeps a screenshot of each tab at each size and scheme.
func TestBrowserTabsLayout(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f}, Retries: -1}
	})
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")), // a listing with tasks
		chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready)
	if err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx) // a second tab: presence, and the other writer
	defer cancel()
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")), ready); err != nil {
		t.Fatalf("open the second tab: %v", err)
	}
	typeAtEnd := func(c context.Context, text string) error {
		return chromedp.Do(c,
			chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
			chromedp.KeyEvent(text))
	}
	if err := typeAtEnd(ctx, " Typed here."); err != nil {
		t.Fatal(err)
	}
	if err := typeAtEnd(other, " Typed in the other tab."); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=field-notice]')?.textContent.includes('just changed')`,
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=person]')?.title.includes('2 tabs')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("field notice and presence: %v", err)
	}
	// Two runs, so that the Runs tab has results and a comparison to show.
	// The tab is clicked once: its click reloads the panel, which must not race the stream.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-runs]")), chromedp.WaitVisible(chromedp.CSS("[data-testid=run-start]"))); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS("[data-testid=run-samples]"), "3"),
			chromedp.Click(chromedp.CSS("[data-testid=run-start]")),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('[data-testid=run-row]').length === %d &&
				document.querySelector('[data-testid=run-progress]')?.dataset.status === 'done'`, i), chromedp.WithPollingTimeout(20*time.Second)),
		)
		if err != nil {
			h, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('runs')?.outerHTML.slice(0, 3000) || 'no #runs'"))
			t.Fatalf("run %d: %v\n%s", i, err, h)
		}
	}

	tabs := []struct {
		name, tab string
		// The tab's click reloads its panel: what it showed before is cleared first, so that
		// fill waits for the reloaded panel rather than acting on the old one.
		clear string
		fill  []chromedp.Action[chromedp.Void] // what to open in the panel once shown
	}{
		{"findings", "#panel-tabs [role=tab]:nth-child(1)", "", nil},
		{"cost", "#panel-tabs [role=tab]:nth-child(2)", "", nil},
		{"tasks", "[data-testid=tab-tasks]", "", nil},
		{"server", "[data-testid=tab-server]", "", nil},
		{"history", "[data-testid=tab-history]", "#revisions", []chromedp.Action[chromedp.Void]{
			chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid=rev]').length >= 2`, chromedp.WithPollingTimeout(10*time.Second)),
			chromedp.Click(chromedp.CSS("[data-testid=rev-compare]")),
			chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=rev-diff] ins') !== null`, chromedp.WithPollingTimeout(10*time.Second)),
		}},
		{"runs", "[data-testid=tab-runs]", "#runs", []chromedp.Action[chromedp.Void]{
			chromedp.WaitVisible(chromedp.CSS("[data-testid=run-show-last]")),
			chromedp.Click(chromedp.CSS("[data-testid=run-show-last]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-go]")),
			chromedp.Click(chromedp.CSS("[data-testid=compare-go]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=compare-summary]")),
		}},
	}
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {390, 844}} {
		for _, scheme := range []string{"light", "dark"} {
			err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h), colorScheme(scheme))
			if err != nil {
				t.Fatal(err)
			}
			for _, tab := range tabs {
				where := fmt.Sprintf("%dx%d %s %s", size.w, size.h, scheme, tab.name)
				var acts []chromedp.Action[chromedp.Void]
				if tab.clear != "" {
					acts = append(acts, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+tab.clear+`').replaceChildren()`))
				}
				acts = append(append(acts, chromedp.Click(chromedp.CSS(tab.tab))), tab.fill...)
				if err := chromedp.Do(ctx, acts...); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
				if err != nil {
					t.Fatal(err)
				}
				if len(out) > 0 {
					t.Errorf("%s: wider than the screen: %v", where, out)
				}
				if dir != "" && tab.name == "findings" {
					// The page's top: the header with presence and the access bar, the field notice.
					if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`)); err != nil {
						t.Fatal(err)
					}
					shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("top-%d-%s.png", size.w, scheme)))
				}
				if dir != "" {
					// Start each shot at the tab row (the page scrolls on a phone, the pane on a wide screen).
					if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('.results-pane').scrollTop = 0; document.querySelector('.results-pane .tabs').scrollIntoView({block: 'start'})`)); err != nil {
						t.Fatal(err)
					}
					shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", tab.name, size.w, scheme)))
					if tab.name == "runs" || tab.name == "history" {
						// The lower part: the confusion matrix, or the diff.
						target := map[string]string{"runs": "[data-testid=result-confusion]", "history": "[data-testid=rev-diff]"}[tab.name]
						if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+target+`').scrollIntoView({block: 'center'})`)); err != nil {
							t.Fatal(err)
						}
						shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s-lower.png", tab.name, size.w, scheme)))
						if tab.name == "runs" {
							if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=run-compare]').scrollIntoView({block: 'center'})`)); err != nil {
								t.Fatal(err)
							}
							shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d-%s-compare.png", tab.name, size.w, scheme)))
						}
						if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0); document.querySelectorAll('.pane').forEach((p) => p.scrollTop = 0)`)); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			// The header's Share menu, open, with a link just made and the list of links.
			sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
			err = chromedp.Do(sctx,
				chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`),
				chromedp.Click(chromedp.CSS("#share-menu > summary")),
				chromedp.WaitVisible(chromedp.CSS("[data-testid=share-new-view]")),
				chromedp.Click(chromedp.CSS("[data-testid=share-new-view]")),
				chromedp.WaitVisible(chromedp.CSS("[data-testid=share-url]")),
			)
			scancel()
			if err != nil {
				h, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('share-menu').outerHTML.slice(0, 1500) + ' open=' + document.getElementById('share-menu').open`))
				t.Fatalf("%dx%d %s share menu: %v\n%s", size.w, size.h, scheme, err, h)
			}
			if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
				t.Errorf("%dx%d %s share menu: wider than the screen: %v %v", size.w, size.h, scheme, out, err)
			}
			if dir != "" {
				shoot(t, ctx, filepath.Join(dir, fmt.Sprintf("share-%d-%s.png", size.w, scheme)))
			}
			// Closing empties the panel: the next opening must not offer the old one's buttons
			// (or its link shown once) while the fresh panel loads.
			err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#share-menu > summary")),
				chromedp.Poll[chromedp.Void](`document.getElementById('share-panel').children.length === 0`, chromedp.WithPollingTimeout(5*time.Second)))
			if err != nil {
				t.Fatalf("%dx%d %s closing the share menu: %v", size.w, size.h, scheme, err)
			}
		}
	}

	// One tab row: every tab is in the tablist, and the arrow keys move along it.
	type row struct {
		Tabs   int    `json:"tabs"`
		Owned  int    `json:"owned"`
		Active string `json:"active"`
		Panel  string `json:"panel"`
	}
	const state = `(() => { const list = document.querySelector('.results-pane [role=tablist]');
		const shown = [...document.querySelectorAll('.results-pane [role=tabpanel]')].filter((p) => p.checkVisibility());
		return {tabs: document.querySelectorAll('.results-pane [role=tab]').length, owned: list.querySelectorAll('[role=tab]').length,
			active: document.activeElement.textContent.trim().split(/\s/)[0], panel: shown.map((p) => p.getAttribute('aria-label')).join(',')}; })()`
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 800),
		chromedp.Focus(chromedp.CSS("#panel-tabs [role=tab]:nth-child(1)")),
		chromedp.KeyEvent(kb.ArrowRight),
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[row](state))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tabs != 6 || got.Owned != 6 || got.Active != "Cost" || got.Panel != "Cost" {
		t.Errorf("after → on Findings: %+v; want 6 tabs in the tablist, Cost focused and shown", got)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.End)); err != nil {
		t.Fatal(err)
	}
	if got, err = chromedp.Run(ctx, chromedp.Evaluate[row](state)); err != nil || got.Active != "Runs" || got.Panel != "Runs" {
		t.Errorf("after End: %+v, %v; want Runs focused and shown", got, err)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	if got, err = chromedp.Run(ctx, chromedp.Evaluate[row](state)); err != nil || got.Active != "Findings" || got.Panel != "Findings" {
		t.Errorf("after → on the last tab: %+v, %v; want Findings (the row wraps around)", got, err)
	}
	tabbable, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.results-pane [role=tab]')].filter((b) => b.tabIndex >= 0).map((b) => b.textContent.trim().split(/\s/)[0])`))
	if err != nil || strings.Join(tabbable, ",") != "Findings" {
		t.Errorf("tabs reached with Tab: %v, %v; want only the selected one (Findings)", tabbable, err)
	}
}

// colorScheme makes the page match prefers-color-scheme: scheme.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// shoot saves what the viewport shows.
func shoot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", path, err)
	}
}
