package web

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestBrowserOverlapMap opens the GitHub listing, opens the Overlap tab, clicks the cell of the
// strongest pair and sees the editor open the row's tool with the column's marked in the tool
// list; "Edit the other" swaps them. WORKBENCH_SCREENSHOT_DIR, when set, gets the tab at a
// desktop and a phone width.
func TestBrowserOverlapMap(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, string(testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")))
	wait := func(what, js string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`'view ' + document.querySelector('.layout')?.dataset.view + ', editor ' + document.querySelector('[data-testid=editor-form]')?.dataset.tool + ', selected ' + [...document.querySelectorAll('.tool-row.selected button')].map(b => b.dataset.index) + ', paired ' + [...document.querySelectorAll('.tool-row.paired button')].map(b => b.dataset.index)`))
			t.Fatalf("%s: %v (%s)", what, err, got)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-overlap]"))); err != nil {
		t.Fatal(err)
	}
	wait("the map", "document.querySelectorAll('[data-testid=overlap-map] rect').length > 100")
	// The strongest pair is the first listed; its cell is the one the test clicks.
	type pick struct {
		I, J  int
		Title string
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[pick](`(() => {
		const r = document.querySelector('[data-testid=overlap-map] rect');
		const [, i, j] = r.dataset.testid.split('-').map(Number);
		return {I: i, J: j, Title: r.querySelector('title').textContent};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if p.I == p.J || p.Title == "" {
		t.Fatalf("first cell %+v: want two tools and a title", p)
	}
	overlapShot(t, ctx, "overlap-desktop.png", 1280, 900)
	// A click on an SVG rect: chromedp.Click needs a box, which the scrolled map may clip.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="ov-`+strconv.Itoa(p.I)+`-`+strconv.Itoa(p.J)+`"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)); err != nil {
		t.Fatal(err)
	}
	i, j := strconv.Itoa(p.I), strconv.Itoa(p.J)
	t.Logf("pair %s %s", i, j)
	wait("the editor opens the row's tool", `document.querySelector('[data-testid=editor-form]')?.dataset.tool === '`+i+`'`)
	wait("the list selects the row's tool", `document.querySelector('[data-testid=pick-`+i+`]')?.closest('li').classList.contains('selected')`)
	wait("the list marks the column's tool", `document.querySelector('[data-testid=pick-`+j+`]')?.closest('li').classList.contains('paired')`)
	wait("the pair bar shows", `getComputedStyle(document.querySelector('[data-testid=overlap-pair]')).display !== 'none'`)
	overlapShot(t, ctx, "overlap-picked.png", 1280, 900)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=overlap-swap]"))); err != nil {
		t.Fatal(err)
	}
	wait("the other tool in the editor", `document.querySelector('[data-testid=editor-form]')?.dataset.tool === '`+j+`'`)
	wait("the first tool marked", `document.querySelector('[data-testid=pick-`+i+`]')?.closest('li').classList.contains('paired')`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="ov-`+i+`-`+j+`"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)); err != nil {
		t.Fatal(err)
	}
	wait("desktop again", `document.querySelector('[data-testid=editor-form]')?.dataset.tool === '`+i+`'`)
	// On a phone the map is under Results; a click there switches to the editor.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Click(chromedp.CSS("[data-testid=view-results]"))); err != nil {
		t.Fatal(err)
	}
	wait("the results view", `document.querySelector('.layout').dataset.view === 'results'`)
	overlapShot(t, ctx, "overlap-phone-map.png", 390, 844)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="ov-`+j+`-`+i+`"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)); err != nil {
		t.Fatal(err)
	}
	wait("the phone shows the editor", `document.querySelector('.layout').dataset.view === 'editor' && document.querySelector('[data-testid=editor-form]')?.dataset.tool === '`+j+`'`)
	overlapShot(t, ctx, "overlap-phone-editor.png", 390, 844)
}

// overlapShot saves a screenshot of the page at w×h in WORKBENCH_SCREENSHOT_DIR, when set.
func overlapShot(t *testing.T, ctx context.Context, name string, w, h int64) {
	t.Helper()
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
