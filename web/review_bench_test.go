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
	"time"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// BenchmarkReviewLiveNotice measures what the review adds to a live notice: 40 pages on the
// 8 tools of a workspace whose review holds store.MaxComments comments, no Review panel open.
// "edit": a value edit of tool 0's description, timed until the pages on tool 0 show it (its
// counts are forwarded before the notice's flush). "resolve": a thread resolved and reopened,
// timed until every page has its tool's counts. Reported: ms per notice, the comments read per
// notice.
func BenchmarkReviewLiveNotice(b *testing.B) {
	const pages = 40
	cs := &readCounter{Store: newTestStore(b)}
	s := serverOn(b, cs)
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	id := openExample(b, s, "library-2-draft")
	ctx := context.Background()
	head, err := cs.Revision(ctx, id, -1)
	if err != nil {
		b.Fatal(err)
	}
	tools := len(head.Listing.Tools)
	var first store.Comment
	for i := range store.MaxComments {
		k := i % tools
		c, err := s.review.Comment(ctx, id, review.Target{Index: k, Tool: head.Listing.Tools[k].Get("name").String(), Field: "/description"},
			fmt.Sprintf("Comment %d: %s", i, strings.Repeat("why? ", 40)), review.Author{Name: "Ana"})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = c
		}
	}
	addr := strings.TrimPrefix(ts.URL, "http://")
	wants := make([]chan string, pages)
	var got sync.WaitGroup
	for i := range pages {
		rs := dialStream(b, addr, id, fmt.Sprintf("%032x", i+1), i%tools, 0)
		wants[i] = make(chan string, 1)
		go rs.watch(wants[i], func(time.Time) { got.Done() })
		b.Cleanup(func() { rs.conn.Close() })
	}
	waitPages(b, s, id, pages)
	time.Sleep(200 * time.Millisecond) // the streams' first reads (counts at connect) are done
	run := func(b *testing.B, on func(page int) bool, marker func(n int) string, act func(n int)) {
		before := cs.commentReads()
		b.ResetTimer()
		for n := 0; n < b.N; n++ {
			for i, w := range wants {
				if on(i) {
					got.Add(1)
					w <- marker(n)
				}
			}
			act(n)
			got.Wait()
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/notice")
		b.ReportMetric(float64(cs.commentReads()-before)/float64(b.N), "comment-reads/notice")
	}
	b.Run("edit", func(b *testing.B) {
		run(b, func(i int) bool { return i%tools == 0 }, func(n int) string { return fmt.Sprintf("edit %d.", n) }, func(n int) {
			post(b, s, "/w/"+id+"/edit?t=0&f=description", map[string]any{"pid": strings.Repeat("e", 32), "tool": 0, "val": fmt.Sprintf("Show one book. edit %d.", n)})
		})
	})
	b.Run("resolve", func(b *testing.B) {
		run(b, func(int) bool { return true }, func(int) string { return `id="rc-desc"` }, func(n int) {
			v := url.Values{"thread": {first.ID}}
			req := httptest.NewRequest(http.MethodPost, fmt.Sprintf("/w/%s/review/resolve?resolved=%t", id, n%2 == 0), strings.NewReader(v.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Datastar-Request", "true")
			if rec := do(b, s, ana.cookies(req)); rec.Code != http.StatusOK {
				b.Fatalf("resolve: %d", rec.Code)
			}
		})
	})
}
