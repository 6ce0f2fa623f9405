package web

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserFixPreviewDialog: the Fix preview is a modal dialog. It opens with the focus inside
// it, and Escape, Cancel and a click outside it each close it, giving the focus back to the
// Fix button that opened it, and changing nothing.
func TestBrowserFixPreviewDialog(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, fixDraft("get_weather"))
	const btn = `document.querySelector('#findings .finding[data-rule=hidden-unicode] [data-testid=fix-button]')`
	waitFix(t, ctx, "the hidden character's Fix button", "!!"+btn)
	// (A first edit may ask for a name, in a box over the panes: not now.)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=name-ask-later]')?.click()`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		close chromedp.Action[chromedp.Void]
	}{
		{"Escape", chromedp.KeyEvent(kb.Escape)},
		{"Cancel", chromedp.Click(chromedp.CSS("[data-testid=fix-cancel]"))},
		{"a click outside", chromedp.MouseClickXY(4, 4)},
	} {
		// The button opens the preview from the keyboard, as a person who tabbed to it would.
		err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.fixOpener = `+btn+`; fixOpener.focus()`), chromedp.KeyEvent(kb.Enter))
		if err != nil {
			t.Fatal(err)
		}
		waitFix(t, ctx, c.name+": the preview opens as a modal dialog with the focus in it",
			`(() => { const d = document.querySelector('[data-testid=fix-preview]');
			  return !!d && d.matches(':modal') && d.contains(document.activeElement) && !!d.querySelector('[data-testid=fix-apply]'); })()`)
		if err := chromedp.Do(ctx, c.close); err != nil {
			t.Fatal(err)
		}
		waitFix(t, ctx, c.name+" closes the preview, gives the focus back to its Fix button, changing nothing",
			`!document.querySelector('[data-testid=fix-preview]') && document.activeElement === window.fixOpener && `+hasFinding("hidden-unicode"))
	}
}
