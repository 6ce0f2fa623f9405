package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// TestBrowserHistoryOlderRevisions: in a history longer than a page, "Show older revisions"
// loads the next page; a live update keeps what was loaded and offers the revision it pushed
// off the newest page; every revision ends up listed once, newest first.
func TestBrowserHistoryOlderRevisions(t *testing.T) {
	var st store.Store
	ctx, base := browser(t, func(c *Config) { st = c.Store })
	ex, _ := examples.Get("library-2-draft")
	pasteListing(t, ctx, base, string(ex.Listing))
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(href, "/w/")
	edit := func(i int) {
		t.Helper()
		// Alternate tools: every edit starts a revision.
		if _, err := st.AppendEdit(context.Background(), store.Edit{Workspace: id, Author: "cy", Ops: []listing.Op{{Kind: listing.OpSet,
			Path: fmt.Sprintf("/tools/%d/description", i%2), Value: listing.NewString(fmt.Sprint("edit ", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 450 {
		edit(i)
	}
	// The rows in the order the page shows them.
	const rows = `[...document.querySelectorAll('#revisions [data-testid=rev]')].map(e => +e.dataset.number)`
	wait := func(what, cond string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[[]int](rows))
			t.Fatalf("%s: %v; rows %v", what, err, got)
		}
	}
	visible := func(tid string) string {
		return fmt.Sprintf(`(document.querySelector('[data-testid=%s]')?.offsetParent ?? null) !== null`, tid)
	}
	contiguous := func(from int) string {
		return fmt.Sprintf(`(() => { const r = %s; return r.length === %d && r.every((n, i) => n === %d - i) })()`, rows, from+1, from)
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-history]")))
	if err != nil {
		t.Fatal(err)
	}
	wait("the newest page and the baseline", fmt.Sprintf(`JSON.stringify(%s.slice(-2)) === '[251,0]' && %s.length === 201 && %s`, rows, rows, visible("rev-older-more")))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=rev-older-more]"))); err != nil {
		t.Fatal(err)
	}
	wait("the next page", fmt.Sprintf(`%s.length === 401 && %s && !%s`, rows, visible("rev-older-next"), visible("rev-older-more")))

	edit(450) // a new revision pushes #251 off the newest page
	wait("the revision pushed off the page offered", fmt.Sprintf(`%s[0] === 451 && %s.length === 401 && %s`, rows, rows, visible("rev-between")))
	if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid=rev-base-meta]')?.textContent.includes('import')`)); !ok {
		t.Error("a live update wiped the baseline's record")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=rev-between]"))); err != nil {
		t.Fatal(err)
	}
	wait("the revision between loaded", fmt.Sprintf(`%s.length === 402 && !%s`, rows, visible("rev-between")))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=rev-older-next]"))); err != nil {
		t.Fatal(err)
	}
	wait("every revision once, newest first", contiguous(451)+" && !"+visible("rev-older-next"))
}
