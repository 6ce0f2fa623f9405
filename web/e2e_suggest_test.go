package web

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/runner"
)

// TestBrowserSuggest: a person opens a listing, selects a tool, asks for three suggested
// rewrites, sees three candidates with word diffs and scores, accepts one (the description
// field shows it) and undoes it (the field shows the old text). WORKBENCH_SCREENSHOT_DIR keeps
// the dialog at 1280 and 390 px.
func TestBrowserSuggest(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}
	})
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`),
		// The second tool.
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#tool-row-1 .tool-pick').click()`),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '1'`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("open the listing and select a tool: %v", err)
	}
	old, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('f-desc').value`))
	if err != nil {
		t.Fatal(err)
	}
	askThree(t, ctx)
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shots(t, ctx, dir, "suggest")
	// The first card's scores, in view inside the dialog.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=suggest-scores]').scrollIntoView()`)); err != nil {
		t.Fatal(err)
	}
	shots(t, ctx, dir, "suggest-scores")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	// Accept the second candidate: the field shows its text.
	want, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
	  const c = document.querySelectorAll('[data-testid=suggest-card]')[1];
	  return [...c.querySelectorAll('[data-testid=suggest-diff] > span, [data-testid=suggest-diff] > ins')].map((e) => e.textContent).join('');
	})()`))
	if err != nil || want == "" {
		t.Fatalf("the second candidate's text: %q %v", want, err)
	}
	waitSuggest(t, ctx, "Accept closes the dialog and the field shows the candidate", chromedp.Evaluate[chromedp.Void](
		`document.querySelectorAll('[data-testid=suggest-accept]')[1].click()`),
		`!document.querySelector('[data-testid=suggest-dialog]') && `+sameText("document.getElementById('f-desc').value", want))
	waitSuggest(t, ctx, "Undo brings the old text back", chromedp.Click(chromedp.CSS("[data-testid=undo]")),
		sameText("document.getElementById('f-desc').value", old))
}

// askThree opens the Suggest dialog, reads the plan before asking, asks for three, and sees
// three candidates, each with a word diff, its scores beside the current text's and Accept.
func askThree(t *testing.T, ctx context.Context) {
	t.Helper()
	waitSuggest(t, ctx, "the dialog opens, modal, with the plan of calls", chromedp.Click(chromedp.CSS("[data-testid=suggest-open]")),
		`(() => { const d = document.querySelector('[data-testid=suggest-dialog]');
		  return !!d && d.matches(':modal') && /At most \d+ call/.test(d.querySelector('[data-testid=suggest-plan]').textContent); })()`)
	k, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=suggest-k]').value`))
	if err != nil || k != "3" {
		t.Errorf("candidates asked by default: %q %v; want 3", k, err)
	}
	waitSuggest(t, ctx, "three candidates with diffs and scores", chromedp.Click(chromedp.CSS("[data-testid=suggest-ask]")),
		`(() => { const cs = [...document.querySelectorAll('[data-testid=suggest-card]')];
		  return cs.length === 3 && cs.every((c) => c.querySelector('[data-testid=suggest-diff] ins') &&
		    c.querySelector('[data-testid=suggest-ranker]') && c.querySelector('[data-testid=suggest-tokens]') &&
		    c.querySelector('[data-testid=suggest-accept]')); })()`)
}

// sameText is an expression: whether the text of expr equals want, whitespace aside (the diff
// shows changed whitespace as · and ↵).
func sameText(expr, want string) string {
	w := strings.Join(strings.Fields(strings.NewReplacer("·", " ", "↵", " ").Replace(want)), " ")
	return `((s) => s.replace(/\s+/g, ' ').trim() === ` + jsString(w) + `)(` + expr + `)`
}

// waitSuggest runs act, then waits for js to hold; on failure it shows the dialog.
func waitSuggest(t *testing.T, ctx context.Context, what string, act chromedp.Action[chromedp.Void], js string) {
	t.Helper()
	if err := chromedp.Do(ctx, act, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		h, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById('draft-dialog')?.outerHTML || '').slice(0, 4000) + ' | f-desc: ' + document.getElementById('f-desc')?.value`))
		t.Fatalf("%s: %v\n%s", what, err, h)
	}
}

// TestBrowserDraftDialogs: the Rubric dialog shows the tool's six dimensions offline, then
// scored by the model; the Tasks tab's Propose dialog lists proposals, and two ticked land in
// the task table. WORKBENCH_SCREENSHOT_DIR keeps both dialogs at 1280 and 390 px.
func TestBrowserDraftDialogs(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}
	})
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "the offline rubric", chromedp.Click(chromedp.CSS("[data-testid=rubric-open]")),
		`document.querySelectorAll('[data-testid=rubric-dim]').length === 6 &&
		 document.querySelector('[data-testid=rubric-label]').textContent === 'offline: from the findings'`)
	waitSuggest(t, ctx, "the model's rubric", chromedp.Click(chromedp.CSS("[data-testid=rubric-score]")),
		`/scored by fake-model/.test(document.querySelector('[data-testid=rubric-label]')?.textContent)`)
	shots(t, ctx, dir, "rubric")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "Close closes the rubric", chromedp.Click(chromedp.CSS("[data-testid=draft-close]")),
		`!document.querySelector('[data-testid=rubric-dialog]')`)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=task-row]').length`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]"))); err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "the Propose dialog", chromedp.Click(chromedp.CSS("[data-testid=propose-open]")),
		`!!document.querySelector('[data-testid=propose-dialog] [data-testid=propose-form]')`)
	waitSuggest(t, ctx, "the proposals", chromedp.Click(chromedp.CSS("[data-testid=propose-ask]")),
		`document.querySelectorAll('[data-testid=propose-pick]:not([disabled])').length >= 2 &&
		 !!document.querySelector('[data-testid=propose-pick][disabled]')`)
	shots(t, ctx, dir, "propose")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "two ticked land in the task table", chromedp.Evaluate[chromedp.Void](`(() => {
		  const picks = [...document.querySelectorAll('[data-testid=propose-pick]:not([disabled])')].slice(0, 2);
		  picks.forEach((p) => p.click());
		  document.querySelector('[data-testid=propose-add]').click(); })()`),
		`!!document.querySelector('[data-testid=draft-done]') && document.querySelectorAll('[data-testid=task-row]').length === `+strconv.Itoa(rows+2))
}

// TestBrowserSuggestHostileInert: a candidate that carries markup, a Datastar attribute and
// CR/LF shows as text in the dialog, runs nothing, and after Accept is the field's text.
func TestBrowserSuggestHostileInert(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey, Rewrites: map[string][]string{"catalog_get_book": {hostileModelText + ` <img src=x onerror="window.__pwned=1">`}}}
	ctx, base := browser(t, func(c *Config) {
		c.Runs = RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}
	})
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitSuggest(t, ctx, "the dialog", chromedp.Click(chromedp.CSS("[data-testid=suggest-open]")), `!!document.querySelector('[data-testid=suggest-form]')`)
	waitSuggest(t, ctx, "the hostile candidate shows as text", chromedp.Click(chromedp.CSS("[data-testid=suggest-ask]")),
		`(() => { const d = document.querySelector('[data-testid=suggest-diff]');
		  return !!d && d.textContent.includes('<img src=x') && !d.querySelector('img, b') && !document.querySelector('img[src=x]'); })()`)
	waitSuggest(t, ctx, "Accept puts the text in the field, inert", chromedp.Click(chromedp.CSS("[data-testid=suggest-accept]")),
		`document.getElementById('f-desc').value.includes('onerror="window.__pwned=1"') && !document.querySelector('img[src=x]')`)
	if pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!window.__pwned || typeof $pwned !== 'undefined'`)); err != nil || pwned {
		t.Errorf("the model's text ran: %v %v", pwned, err)
	}
}
