package web

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
)

// cliTokens is the total `workbench cost --tokenizer tok --render render` prints for l: the
// CLI's own calls (cmd/workbench/cost_web_test.go holds the page to the CLI's output itself).
func cliTokens(t *testing.T, l *listing.Listing, tok, render string, opts ...cost.Options) int {
	t.Helper()
	tk, err := cost.OpenTokenizer(tok)
	if err != nil {
		t.Fatal(err)
	}
	o := cost.Options{}
	if len(opts) > 0 {
		o = opts[0]
	}
	c, err := cost.NewCounter(tk, render, o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.ListingContext(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Total.Tokens
}

// costWaitText waits until the element css selects shows want.
func costWaitText(t *testing.T, ctx context.Context, what, css, want string) {
	t.Helper()
	el := `(document.querySelector(` + strconv.Quote(css) + `) || {textContent: 'absent'}).textContent.trim()`
	js := el + ` === ` + strconv.Quote(want)
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](el))
		t.Fatalf("%s: %s shows %q, want %q", what, css, got, want)
	}
}

// costTypeAtEnd types text at the end of the selected tool's description.
func costTypeAtEnd(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(text)); err != nil {
		t.Fatal(err)
	}
}

// costChoose sets a control of the Cost tab as a person does: an input event, then change.
func costChoose(t *testing.T, ctx context.Context, tid, value string) {
	t.Helper()
	js := `(() => { const s = document.querySelector('[data-testid=` + tid + `]'); if (!s) return false;
	  s.value = ` + strconv.Quote(value) + `;
	  s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); return s.value === ` + strconv.Quote(value) + `; })()`
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	if err != nil || !ok {
		t.Fatalf("choose %s in %s: no such select or option (%v)", value, tid, err)
	}
}

// TestBrowserCostOptions: the Cost tab offers the CLI's tokenizers and renderings; choosing
// them changes the totals to what `workbench cost` prints for them, an edit afterwards is
// counted with the page's choice, and another page of the workspace keeps its own.
func TestBrowserCostOptions(t *testing.T) {
	ctx, base := browser(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatal(err)
	}
	costTypeAtEnd(t, ctx, " Typed here.")
	ex, _ := examples.Get("library-2-draft")
	l, err := listing.Parse(ex.Listing, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	desc := l.Tools[0].Get("description").Str + " Typed here."
	if l, err = l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(desc)}); err != nil {
		t.Fatal(err)
	}
	costWaitText(t, ctx, "o200k_base compact", "[data-testid=cost-tokens]", strconv.Itoa(cliTokens(t, l, "o200k_base", "compact")))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[aria-controls=tp-cost]`))); err != nil {
		t.Fatal(err)
	}
	costChoose(t, ctx, "cost-tokenizer", "cl100k_base")
	costWaitText(t, ctx, "cl100k_base compact", "[data-testid=cost-tokens]", strconv.Itoa(cliTokens(t, l, "cl100k_base", "compact")))
	costChoose(t, ctx, "cost-render", "harmony")
	want := cliTokens(t, l, "cl100k_base", "harmony")
	costWaitText(t, ctx, "cl100k_base harmony", "[data-testid=cost-tokens]", strconv.Itoa(want))
	costWaitText(t, ctx, "the tab's count", "[aria-controls=tp-cost] .count", strconv.Itoa(want)+" tok")
	// The context window: a preset, then a number typed in.
	clicked, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = [...document.querySelectorAll('[data-testid=cost-window-preset]')].find(b => b.textContent.trim() === '32k'); if (b) b.click(); return !!b; })()`))
	if err != nil || !clicked {
		t.Fatalf("the 32k preset: %v", err)
	}
	costWaitText(t, ctx, "a 32k window", "[data-testid=cost-share]", strconv.FormatFloat(100*float64(want)/32768, 'f', 2, 64)+"%")
	costChoose(t, ctx, "cost-window", "50000")
	costWaitText(t, ctx, "a 50000-token window", "[data-testid=cost-share]", strconv.FormatFloat(100*float64(want)/50000, 'f', 2, 64)+"%")
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		// Tall enough for the whole tab, which scrolls inside the results pane at 1280×800.
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1600)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.Screenshot("#tp-cost"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cost-tab.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// An edit: the live patches count with this page's choice.
	desc += " More."
	if l, err = l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(desc)}); err != nil {
		t.Fatal(err)
	}
	costTypeAtEnd(t, ctx, " More.")
	want = cliTokens(t, l, "cl100k_base", "harmony")
	costWaitText(t, ctx, "after the edit, cl100k_base harmony", "[data-testid=cost-tokens]", strconv.Itoa(want))
	costWaitText(t, ctx, "the tab's count after the edit", "[aria-controls=tp-cost] .count", strconv.Itoa(want)+" tok")

	// The other page made no choice: it counts as the server does by default.
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc"))); err != nil {
		t.Fatal(err)
	}
	costWaitText(t, other, "another page", "[data-testid=cost-tokens]", strconv.Itoa(cliTokens(t, l, "o200k_base", "compact")))

	// Anthropic's estimate depends on the tool choice, as with --tool-choice.
	costChoose(t, ctx, "cost-render", "anthropic")
	costWaitText(t, ctx, "cl100k_base anthropic", "[data-testid=cost-tokens]", strconv.Itoa(cliTokens(t, l, "cl100k_base", "anthropic")))
	costChoose(t, ctx, "cost-tool-choice", "any")
	costWaitText(t, ctx, "cl100k_base anthropic, tool choice any", "[data-testid=cost-tokens]",
		strconv.Itoa(cliTokens(t, l, "cl100k_base", "anthropic", cost.Options{ToolChoice: "any"})))
}
