package web

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/store"
)

// TestBrowserRevisionsSayWhatChanged (issue 21, point 10, History): each revision of the list
// says what it changed, in words, and when, in a readable form that keeps the exact UTC time
// as its datetime and title.
func TestBrowserRevisionsSayWhatChanged(t *testing.T) {
	var st store.Store
	ctx, base := browser(t, func(c *Config) { st = c.Store })
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	id := workspaceID(t, ctx)
	if err := typeAtEndOf(ctx, " More."); err != nil {
		t.Fatal(err)
	}
	waitStoreHead(t, st, id, 1)
	openHistoryTab(t, ctx, 1)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#revisions [data-testid=rev][data-number="0"] [data-testid=rev-restore]`))); err != nil {
		t.Fatal(err)
	}
	waitStoreHead(t, st, id, 2)
	// Type in the title once the restore has reached the editor: typed before, the keys can
	// land in the form the restore's patch is replacing (CI saw the edit lost once).
	if err := chromedp.Do(ctx,
		chromedp.Poll[chromedp.Void](`!document.getElementById('f-desc').value.endsWith(' More.')`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("#f-title")), chromedp.KeyEvent("Book")); err != nil {
		t.Fatal(err)
	}
	waitStoreHead(t, st, id, 3)
	want := []string{"title of catalog_get_book", "restored revision 0", "description of catalog_get_book"}
	const summaries = `[...document.querySelectorAll('#revisions [data-testid=rev]')].filter(r => r.dataset.number !== '0')
		.map(r => r.querySelector('[data-testid=rev-summary]')?.textContent ?? '')`
	var got []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, _ = chromedp.Run(ctx, chromedp.Evaluate[[]string](summaries)); slices.Equal(got, want) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the revisions say %q; want %q", got, want)
	}
	type stamp struct {
		Text     string `json:"text"`
		Datetime string `json:"datetime"`
		Title    string `json:"title"`
	}
	times, err := chromedp.Run(ctx, chromedp.Evaluate[[]stamp](`[...document.querySelectorAll('#revisions [data-testid=rev] time')]
		.map(e => ({text: e.textContent, datetime: e.getAttribute('datetime'), title: e.title}))`))
	if err != nil || len(times) != 4 {
		t.Fatalf("times %+v, %v", times, err)
	}
	exact := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	for _, s := range times {
		if !exact.MatchString(s.Datetime) || s.Title != s.Datetime || exact.MatchString(s.Text) || s.Text == "" {
			t.Errorf("a revision's time reads %q (datetime %q, title %q); want readable text with the exact UTC time kept", s.Text, s.Datetime, s.Title)
		}
	}
}
