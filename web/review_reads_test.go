package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// readCounter counts a workspace's review reads: Comments (each Threads and each Status reads
// them once) and Signoffs (each rendering of the review reads them once).
type readCounter struct {
	store.Store
	mu                 sync.Mutex
	comments, signoffs int
}

func (c *readCounter) Comments(ctx context.Context, ws string) ([]store.Comment, error) {
	c.mu.Lock()
	c.comments++
	c.mu.Unlock()
	return c.Store.Comments(ctx, ws)
}

func (c *readCounter) Signoffs(ctx context.Context, ws string) ([]store.Signoff, error) {
	c.mu.Lock()
	c.signoffs++
	c.mu.Unlock()
	return c.Store.Signoffs(ctx, ws)
}

func (c *readCounter) commentReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.comments
}

func (c *readCounter) signoffReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.signoffs
}

// TestReviewReadsPerNotice: pages on different tools, the Review panel closed. A plain
// value edit reads no comments; a comment reads them once for every page and tool (beside
// the handler's own answer); a select reads them once; a page that left the Review tab is
// sent no panel.
func TestReviewReadsPerNotice(t *testing.T) {
	cs := &readCounter{Store: newTestStore(t)}
	s := serverOn(t, cs)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	head, err := cs.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	n := len(head.Listing.Tools)
	if n < 4 {
		t.Fatalf("the example has %d tools; the test needs pages on at least 4 different tools", n)
	}
	var streams []*stream
	for i := range n {
		st := openStreamSignals(t, ts.URL, id, bo, fmt.Sprintf(`{"pid":"%032x","tool":%d,"ver":-1}`, i+1, i))
		st.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
		streams = append(streams, st)
	}
	step := func(what string, want int, act func(), seen func(string) bool) {
		t.Helper()
		for _, st := range streams {
			st.reset()
		}
		before := cs.commentReads()
		act()
		for _, st := range streams {
			st.waitFor(t, what, seen)
		}
		if got := cs.commentReads() - before; got > want {
			t.Errorf("%s, %d pages on %d tools, no Review panel open: the comments were read %d times; want at most %d", what, n, n, got, want)
		}
	}
	edit := func(val string) func() {
		return func() {
			postAs(t, s, ana, strings.Repeat("e", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": val})
		}
	}
	// Every page gets the edit's verdicts (tool 0's page its form too).
	step("a value edit", 0, edit("One keystroke."), func(s string) bool { return strings.Contains(s, "tool-row-0") })
	// The comment's handler answers with the panel (its gate and its threads: 2 reads), and
	// the notice reads the threads once for all the pages' counts.
	step("a comment", 3, func() {
		reviewFormAs(t, s, ana, "/w/"+id+"/review/comment", url.Values{"tool": {"0"}, "name": {head.Listing.Tools[0].Get("name").String()},
			"field": {"/description"}, "body": {"x"}})
	}, func(s string) bool { return strings.Contains(s, "rc-desc") })
	step("another value edit, with a thread open", 0, edit("Two keystrokes."), func(s string) bool { return strings.Contains(s, "tool-row-0") })

	// A page opens its Review panel; a select then reads the threads once, for the panel's
	// form and the counts.
	pid := fmt.Sprintf("%032x", 2)
	get := func(path, panel string) {
		t.Helper()
		path += "?datastar=" + url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":1,"panel":%q}`, pid, panel))
		if rec := do(t, s, bo.cookies(httptest.NewRequest(http.MethodGet, path, nil))); rec.Code >= 300 {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
	}
	get("/w/"+id+"/review", "review")
	before := cs.commentReads()
	postAs(t, s, bo, pid, "/w/"+id+"/select", map[string]any{"tool": 1, "panel": "review"})
	if got := cs.commentReads() - before; got > 1 {
		t.Errorf("a select read the comments %d times; want at most 1", got)
	}
	// It leaves the Review tab for another: it is sent no panel.
	get("/w/"+id+"/review/leave", "findings")
	step("a third value edit", 0, edit("Three keystrokes."), func(s string) bool { return strings.Contains(s, "tool-row-0") })
	if body := streams[1].waitFor(t, "the edit", func(string) bool { return true }); strings.Contains(body, "review-gate") {
		t.Errorf("a page that left the Review tab was sent the panel: %.300s", body)
	}
}
