package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserQuickFixes: a person pastes a draft with several findings, previews the fix of
// the hidden character (its word and JSON diffs show what goes), applies it (the finding goes,
// History lists "fix: hidden-unicode", a second page sees it live), fixes the rest of the safe
// ones at once, undoes the last of them (its finding comes back), and on a phone previews a
// suggested fix that fits the screen.
func TestBrowserQuickFixes(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, fixDraft("get_weather"))
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	wait := func(c context.Context, what, js string) { t.Helper(); waitFix(t, c, what, js) }
	has := hasFinding
	for _, r := range []string{"hidden-unicode", "description-whitespace", "params-required", "annotations-missing"} {
		wait(ctx, "the draft's "+r+" finding with its Fix button", `!!document.querySelector('#findings .finding[data-rule=`+r+`] [data-testid=fix-button]')`)
	}

	// A second page of the workspace, which sees each fix as it lands.
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#findings"))); err != nil {
		t.Fatal(err)
	}
	wait(other, "the second page is live", `document.querySelector('[data-testid=datastar-missing]').style.display === 'none'`)

	// Preview: nothing changes until Apply; the diff shows the invisible character going.
	err = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#findings .finding[data-rule=hidden-unicode] [data-testid=fix-button]').click()`))
	if err != nil {
		t.Fatal(err)
	}
	wait(ctx, "the preview", `!!document.querySelector('[data-testid=fix-preview] [data-testid=fix-apply]')`)
	checkHiddenFixPreview(t, ctx)
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "fix-preview-1280.png"))
	}

	// Apply: the finding goes here and on the other page; History says "fix: hidden-unicode".
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=fix-apply]"))); err != nil {
		t.Fatal(err)
	}
	wait(ctx, "the finding goes", "!"+has("hidden-unicode")+" && !!document.querySelector('[data-testid=fix-done]')")
	wait(other, "the other page sees the fix", "!"+has("hidden-unicode"))
	// (A first edit may ask for a name, in a box over the panes: not now.)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`)); err != nil {
		t.Fatal(err)
	}
	historyShows(t, other, "fix: hidden-unicode")

	// Fix all safe: a preview listing each repair, then one revision per rule.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=fix-all-safe] .count').textContent`))
	if err != nil || n != "2" {
		t.Errorf("Fix all safe counts %q (%v); want 2 (the trailing whitespace and the required list)", n, err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=fix-all-safe]').click()`)); err != nil {
		t.Fatal(err)
	}
	wait(ctx, "the preview of every safe fix", `document.querySelectorAll('[data-testid=fix-preview] [data-testid=fix-item]').length === 2`)
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "fix-all-safe-1280.png"))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=fix-apply]"))); err != nil {
		t.Fatal(err)
	}
	wait(ctx, "the safe fixes apply", "!"+has("description-whitespace")+" && !"+has("params-required"))
	wait(other, "the other page sees them", "!"+has("description-whitespace")+" && !"+has("params-required"))
	historyShows(t, other, "fix: params-required")
	historyShows(t, other, "fix: description-whitespace")

	// Undo takes back the last fix alone (the newest revision's rule): its finding comes back,
	// the other stays fixed.
	last, err := chromedp.Run(other, chromedp.Evaluate[string](`document.querySelector('[data-testid=rev-summary]').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	undone, kept := strings.TrimPrefix(last, "fix: "), "params-required"
	if undone == kept {
		kept = "description-whitespace"
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=undo]"))); err != nil {
		t.Fatal(err)
	}
	wait(ctx, "undo brings back the last fix's finding ("+last+")", has(undone)+" && !"+has(kept)+" && !"+has("hidden-unicode"))
	wait(other, "the other page sees the undo", has(undone))

	phoneFixPreview(t, ctx, dir)
}

// historyShows opens the History tab of the page c and waits for a revision whose message is msg.
func historyShows(t *testing.T, c context.Context, msg string) {
	t.Helper()
	err := chromedp.Do(c, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=tab-history]').click()`),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('[data-testid=rev-summary]')].some((e) => e.textContent === '`+msg+`')`,
			chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		h, _ := chromedp.Run(c, chromedp.Evaluate[string](`document.getElementById('revisions')?.textContent.slice(0, 2000)`))
		t.Fatalf("History does not list %q: %v\n%s", msg, err, h)
	}
}

// waitFix waits for js to hold in the page c, showing the preview and findings when it does not.
func waitFix(t *testing.T, c context.Context, what, js string) {
	t.Helper()
	if err := chromedp.Do(c, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		h, _ := chromedp.Run(c, chromedp.Evaluate[string](`(document.getElementById('fix-preview')?.outerHTML || '') + document.getElementById('findings')?.outerHTML.slice(0, 3000)`))
		t.Fatalf("%s: %v\n%s", what, err, h)
	}
}

// hasFinding is an expression: whether the findings panel lists a finding of rule.
func hasFinding(rule string) string {
	return `!!document.querySelector('#findings .finding[data-rule=` + rule + `]')`
}

// checkHiddenFixPreview checks the open preview of the hidden-character fix: the word diff
// and the JSON line of the description, without U+200B after, in view, and nothing applied yet.
func checkHiddenFixPreview(t *testing.T, ctx context.Context) {
	t.Helper()
	type diff struct {
		Del, Ins   []string
		JSONDel    []string
		JSONAdd    []string
		Visible    bool
		StillThere bool
	}
	d, err := chromedp.Run(ctx, chromedp.Evaluate[diff](`(() => {
	  const p = document.querySelector('[data-testid=fix-preview]'), r = p.getBoundingClientRect();
	  const texts = (sel) => [...p.querySelectorAll(sel)].map((e) => e.textContent);
	  return {Del: texts('[data-testid=fix-word-diff] del'), Ins: texts('[data-testid=fix-word-diff] ins'),
	    JSONDel: texts('[data-testid=fix-json-diff] .jd-del'), JSONAdd: texts('[data-testid=fix-json-diff] .jd-add'),
	    Visible: r.width > 0 && r.top >= 0 && r.bottom <= innerHeight + 1,
	    StillThere: `+hasFinding("hidden-unicode")+`}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Del) != 1 || !strings.Contains(d.Del[0], "<U+200B>") || len(d.Ins) != 1 || strings.Contains(d.Ins[0], "<U+200B>") ||
		len(d.JSONDel) != 1 || !strings.Contains(d.JSONDel[0], `"description": "Get the weather<U+200B> forecast`) ||
		len(d.JSONAdd) != 1 || !strings.Contains(d.JSONAdd[0], `"description": "Get the weather forecast`) || !d.Visible || !d.StillThere {
		t.Errorf("the preview of the hidden-character fix: %+v; want the word diff and the JSON line of the description, without U+200B after, in view, nothing applied yet", d)
	}
}

// phoneFixPreview: on a phone, a suggested fix (a behaviour hint, each its own button)
// previews within the screen, and Cancel closes it changing nothing.
func phoneFixPreview(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	// On a phone, a suggested fix (a behaviour hint, each its own button) previews within the screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	phoneView(t, ctx, "results")
	err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#findings .finding[data-rule=annotations-missing] [data-testid=fix-button]').click()`))
	if err != nil {
		t.Fatal(err)
	}
	waitFix(t, ctx, "the hint's preview", `!!document.querySelector('[data-testid=fix-preview] [data-testid=fix-apply]')`)
	if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
		t.Errorf("at 390 px wide, wider than the screen: %v (%v)", out, err)
	}
	fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const p = document.querySelector('[data-testid=fix-preview]').getBoundingClientRect();
	  const a = document.querySelector('[data-testid=fix-apply]').getBoundingClientRect();
	  return p.width > 0 && p.left >= 0 && p.right <= innerWidth && p.bottom <= innerHeight && a.bottom <= innerHeight && a.right <= innerWidth; })()`))
	if err != nil || !fits {
		t.Errorf("on a phone the preview or its Apply button is cut off (%v)", err)
	}
	if dir != "" {
		shoot(t, ctx, filepath.Join(dir, "fix-preview-390.png"))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=fix-cancel]"))); err != nil {
		t.Fatal(err)
	}
	waitFix(t, ctx, "Cancel closes the preview, changing nothing", `!document.querySelector('[data-testid=fix-preview]') && `+hasFinding("annotations-missing"))
}
