package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// pageCounter records how many revisions each Revisions call returned.
type pageCounter struct {
	store.Store
	mu   sync.Mutex
	most int
}

func (p *pageCounter) Revisions(ctx context.Context, ws string, page store.RevisionPage) ([]store.Revision, error) {
	revs, err := p.Store.Revisions(ctx, ws, page)
	p.mu.Lock()
	p.most = max(p.most, len(revs))
	p.mu.Unlock()
	return revs, err
}

// revNumbers lists the revision numbers of the rows under the elements of doc with testid.
func revNumbers(t testing.TB, doc, testid string) []int {
	t.Helper()
	var out []int
	for _, n := range find(t, doc, testid) {
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && attr(n, "data-testid") == "rev" {
				k, err := strconv.Atoi(attr(n, "data-number"))
				if err != nil {
					t.Fatalf("row without a number: %s", attr(n, "data-number"))
				}
				out = append(out, k)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
	}
	return out
}

// descending is from, from-1, …, to.
func descending(from, to int) []int {
	var out []int
	for n := from; n >= to; n-- {
		out = append(out, n)
	}
	return out
}

// TestHistoryPagesOlderRevisions: a history longer than a page shows the newest page, the
// baseline and "Show older revisions", which loads the next page; revisions pushed off the page
// by new ones can be loaded too; a live update of the list reads the newest page only.
func TestHistoryPagesOlderRevisions(t *testing.T) {
	st := &pageCounter{Store: newTestStore(t)}
	s := serverOn(t, st)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	const head = 450
	appendRevisions(t, st, id, head)
	pid := strings.Repeat("d", 32)
	live := dialSSE(t, ts.URL, id, pid, 0, head, func(r *http.Request) { ana.cookies(r) })

	checkNewestPage(t, s, id, pid, head)
	checkOlderPages(t, s, id)
	checkLiveHistoryList(t, s, live, id, head)
	if st.most > store.DefaultRevisionLimit {
		t.Errorf("a read of the history returned %d revisions; a page holds at most %d", st.most, store.DefaultRevisionLimit)
	}
	checkNamedBaseline(t, s, live, id, pid)
}

// appendRevisions makes n revisions of workspace id, alternating tools so that every edit
// starts a revision.
func appendRevisions(t *testing.T, st store.Store, id string, n int) {
	t.Helper()
	for i := range n {
		if _, err := st.AppendEdit(context.Background(), store.Edit{Workspace: id, Author: "cy", Ops: []listing.Op{{Kind: listing.OpSet,
			Path: fmt.Sprintf("/tools/%d/description", i%2), Value: listing.NewString(fmt.Sprint("edit ", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// checkNewestPage: opening the panel lists the newest page, the baseline with its record, and
// "Show older revisions" for those below the page.
func checkNewestPage(t *testing.T, s *Server, id, pid string, head int) {
	t.Helper()
	_, evs := getSSE(t, s, "/w/"+id+"/history", map[string]any{"pid": pid})
	panel := patched(evs)["revisions"]
	if got, want := revNumbers(t, panel, "rev-list"), descending(head, head-199); !slices.Equal(got, want) {
		t.Errorf("the panel lists %v; want the newest page, %d to %d", got, head, head-199)
	}
	if got := revNumbers(t, panel, "rev-base"); !slices.Equal(got, []int{0}) {
		t.Errorf("the baseline row: %v", got)
	}
	if m := find(t, panel, "rev-base-meta"); len(m) != 1 || !strings.Contains(text(m[0]), "import") {
		t.Errorf("the baseline's record is not shown: %s", panel)
	}
	more := find(t, panel, "rev-older-more")
	if len(more) != 1 || !strings.Contains(attr(more[0], "data-on:click"), "history/older?first=1&before=251'") {
		t.Fatalf("no Show older revisions control loading those below 251: %s", panel)
	}
	if !strings.Contains(sigEvents(evs), `"_revtop":0`) {
		t.Errorf("opening the panel does not reset what it holds of older revisions: %s", sigEvents(evs))
	}
}

// olderRevisions asks for a page of older revisions: how its rows are patched into #rev-older,
// their numbers, and the signals the answer sets.
func olderRevisions(t *testing.T, s *Server, id, query string) (mode string, rows []int, sigs string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/older?"+query, nil)
	req.Header.Set("Datastar-Request", "true")
	rec := do(t, s, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("older?%s: %d %s", query, rec.Code, rec.Body)
	}
	evs := parseSSE(t, rec.Body.String())
	for _, e := range evs {
		if e.Type == "datastar-patch-elements" && slices.Equal(e.Data["selector"], []string{"#rev-older"}) {
			mode = strings.Join(e.Data["mode"], "")
			rows = revNumbers(t, "<ol data-testid=x>"+e.elements()+"</ol>", "x")
		}
	}
	return mode, rows, sigEvents(evs)
}

// checkOlderPages: the older pages append down to the baseline, the revisions pushed off the
// newest page come in above them, and a query that names no such page is refused.
func checkOlderPages(t *testing.T, s *Server, id string) {
	t.Helper()
	mode, rows, sigs := olderRevisions(t, s, id, "first=1&before=251")
	if mode != "append" || !slices.Equal(rows, descending(250, 51)) || !strings.Contains(sigs, `"_revnext":51`) {
		t.Errorf("the next page: %s %v, signals %s; want 250 to 51 appended, next 51", mode, rows, sigs)
	}
	// The first older page says where the rows it brings start, as the click did: a late answer
	// to a panel opened again must not leave "Show older revisions" offered over its rows.
	if !strings.Contains(sigs, `"_revtop":251`) {
		t.Errorf("the first older page does not set what the list holds from its top: %s", sigs)
	}
	mode, rows, sigs = olderRevisions(t, s, id, "before=51")
	if strings.Contains(sigs, "_revtop") {
		t.Errorf("a later older page moved the top of what the list holds: %s", sigs)
	}
	if mode != "append" || !slices.Equal(rows, descending(50, 1)) || !strings.Contains(sigs, `"_revnext":0`) {
		t.Errorf("the last page: %s %v, signals %s; want 50 to 1 appended (the baseline is listed already), no next", mode, rows, sigs)
	}
	mode, rows, sigs = olderRevisions(t, s, id, "above=251&before=254")
	if mode != "prepend" || !slices.Equal(rows, descending(253, 251)) || !strings.Contains(sigs, `"_revtop":254`) {
		t.Errorf("the revisions between: %s %v, signals %s; want 253 to 251 prepended, top 254", mode, rows, sigs)
	}
	for _, bad := range []string{"before=x", "before=0", "", "before=300&above=300", "before=300&above=50", "before=300&above=x"} {
		req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/older?"+bad, nil)
		if rec := do(t, s, req); rec.Code != http.StatusBadRequest {
			t.Errorf("older?%s: %d, want 400", bad, rec.Code)
		}
	}
}

// checkLiveHistoryList: a live update (someone edits) shows the newest page again and the
// baseline, leaves #rev-older to the page, and offers the revisions the new one pushed off the
// page.
func checkLiveHistoryList(t *testing.T, s *Server, live *sseReader, id string, head int) {
	t.Helper()
	postAs(t, s, bo, strings.Repeat("e", 32), "/w/"+id+"/edit?t=2&f=description", map[string]any{"tool": 2, "val": "A new revision."})
	ev := live.next(t, "the history list updated", func(e event) bool {
		_, ok := patchOf(e, "rev-list-region")
		return ok
	})
	list, _ := patchOf(ev, "rev-list-region")
	if got, want := revNumbers(t, list, "rev-list"), descending(head+1, head-198); !slices.Equal(got, want) {
		t.Errorf("the live list shows %v; want the newest page, %d to %d", got, head+1, head-198)
	}
	if o := find(t, list, "rev-older"); len(o) != 1 || !hasAttr(o[0], "data-ignore-morph") || o[0].FirstChild != nil {
		t.Errorf("the live list must leave the older revisions the page loaded alone: %s", list)
	}
	if b := find(t, list, "rev-between"); len(b) != 1 || !strings.Contains(attr(b[0], "data-show"), "$_revtop < 252") {
		t.Errorf("the live list does not offer the revisions pushed off its page: %s", list)
	}
	if got := revNumbers(t, list, "rev-base"); !slices.Equal(got, []int{0}) {
		t.Errorf("the live list's baseline row: %v", got)
	}
}

// checkNamedBaseline: naming the baseline shows the name in the namer's list, and live on the
// other pages.
func checkNamedBaseline(t *testing.T, s *Server, live *sseReader, id, pid string) {
	t.Helper()
	evs := postAs(t, s, ana, pid, "/w/"+id+"/history/0/name", map[string]any{"rname": "as imported"})
	if m := find(t, patched(evs)["rev-list-region"], "rev-base-meta"); len(m) != 1 || !strings.Contains(text(m[0]), "as imported") {
		t.Errorf("naming the baseline does not show in the list: %v", keys(patched(evs)))
	}
	live.next(t, "the baseline's new name on another page", func(e event) bool {
		el, ok := patchOf(e, "rev-list-region")
		return ok && strings.Contains(el, "as imported")
	})
}

// sigEvents joins the signal patches of an answer.
func sigEvents(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == "datastar-patch-signals" {
			b.WriteString(strings.Join(e.Data["signals"], ""))
		}
	}
	return b.String()
}
