package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserStalePositionsRefused: tab A cannot hear the live stream (blocked), so it never
// learns that tab B moved the tool it shows. A's next keystroke names the tool by a position
// that holds another tool now: the server refuses it, gives the text back and shows A the
// listing as it stands; A's next keystroke, from there, lands on the tool A meant. Tab B, which
// hears the stream, follows A's edit with no refusal of its own after its own move.
func TestBrowserStalePositionsRefused(t *testing.T) {
	ctxB, base := browser(t)
	pasteListing(t, ctxB, base, sixParams)
	url, err := chromedp.Run(ctxB, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	ctxA, cancel := chromedp.NewContext(ctxB)
	defer cancel()
	block := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/w/*/stream*", Block: true}}})
		return err
	})
	if err := chromedp.Do(ctxA, block,
		chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		t.Fatalf("open tab A: %v", err)
	}
	// B moves find_books (shown in both tabs) below hold_book, and at once types in its
	// description from its own, updated page.
	if err := chromedp.Do(ctxB,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=tool-down]').click()`),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=pick-1]')?.textContent.includes('find_books')`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Moved by B."),
	); err != nil {
		html, _ := chromedp.Run(ctxB, chromedp.Evaluate[string](`document.getElementById('tool-list')?.outerHTML.slice(0, 3000)`))
		t.Fatalf("tab B: %v\n%s", err, html)
	}
	listingHas := func(want string) bool {
		got, err := chromedp.Run(ctxB, chromedp.Evaluate[string](`fetch('`+url+`/listing.json').then(r => r.text())`, chromedp.EvalAwaitPromise))
		return err == nil && strings.Contains(got, want)
	}
	waitListing := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if listingHas(want) {
				return
			}
		}
		t.Fatalf("the listing never held %q", want)
	}
	waitListing("Find books. Moved by B.")

	// A, still showing find_books at position 0, types: refused, with the text given back.
	if err := chromedp.Do(ctxA,
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" A1"),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=field-notice]')?.textContent.includes('was not saved')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		html, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.getElementById('editor')?.outerHTML.slice(0, 1500)`))
		t.Fatalf("tab A's stale keystroke was not refused: %v\n%s", err, html)
	}
	if notice, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.querySelector('[data-testid=field-notice]').textContent`)); !strings.Contains(notice, "Find books. A1") {
		t.Errorf("the notice does not give A's text back: %q", notice)
	}
	if listingHas("A1") {
		t.Fatal("A's stale keystroke was applied (to hold_book, now at position 0)")
	}
	// A picks find_books where it is now and types: it lands.
	if err := chromedp.Do(ctxA,
		chromedp.Click(chromedp.CSS(`[data-testid=pick-1]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('f-name')?.value === 'find_books'`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" A2"),
	); err != nil {
		t.Fatalf("tab A after the refusal: %v", err)
	}
	waitListing("Find books. Moved by B. A2")
}

// TestBrowserParamMoveKeepsTextWithItsParameter: text typed into a parameter's description
// moves with the parameter when it is moved: the table is rendered afresh, not morphed (a
// morph keeps an input's typed value when its value attribute did not change, leaving p0's
// text in the row that now holds p1).
func TestBrowserParamMoveKeepsTextWithItsParameter(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, sixParams)
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById('f-p0-description').focus()`),
		chromedp.KeyEvent("the query"),
		chromedp.Poll[chromedp.Void](`document.getElementById('f-input').value.includes('the query')`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[aria-label="Move parameter p0 down"]').click()`),
		chromedp.Poll[chromedp.Void](`document.getElementById('f-p0-name')?.value === 'p1'`, chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		t.Fatal(err)
	}
	type rows struct {
		First  string `json:"first"`
		Second string `json:"second"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[rows](`({first: document.getElementById('f-p0-description').value, second: document.getElementById('f-p1-description').value})`))
	if err != nil {
		t.Fatal(err)
	}
	if got.First != "" || got.Second != "the query" {
		t.Errorf("after moving p0 down, row 1 (p1) shows %q and row 2 (p0) %q; want \"\" and \"the query\"", got.First, got.Second)
	}
}
