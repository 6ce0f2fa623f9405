package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// reviewFormAs posts a review form as a person's page does.
func reviewFormAs(t *testing.T, s *Server, who person, path string, v url.Values) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Datastar-Request", "true")
	rec := do(t, s, who.cookies(req))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("POST %s: %d %.300s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// reviewAcross: a page whose Review panel is open on one replica shows, without a reload, a
// comment and a sign-off made through another replica, and an edit made there turns the
// approval stale and the gate closed; a page whose panel is not open gets none of it.
func reviewAcross(t *testing.T, st1, st2 store.Store) {
	ctx := context.Background()
	s1, s2 := serverOn(t, st1), serverOn(t, st2)
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	id := openExample(t, s1, "library-2-draft")
	head, err := st1.Revision(ctx, id, -1)
	if err != nil {
		t.Fatal(err)
	}
	tool := head.Listing.Tools[0].Get("name").String()
	open, closed := strings.Repeat("c", 32), strings.Repeat("d", 32)
	so := openStream(t, ts2.URL, id, bo, open, 0)
	sc := openStream(t, ts2.URL, id, bo, closed, 0)
	for _, s := range []*stream{so, sc} {
		s.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	}
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":0}`, open))
	if rec := do(t, s2, bo.cookies(httptest.NewRequest(http.MethodGet, "/w/"+id+"/review?datastar="+q, nil))); rec.Code != http.StatusOK {
		t.Fatalf("open the Review panel: %d", rec.Code)
	}
	so.reset()
	sc.reset()
	base := "/w/" + id + "/review"
	reviewFormAs(t, s1, ana, base+"/comment", url.Values{"tool": {"0"}, "name": {tool}, "field": {"/description"}, "body": {"Seen on the other replica?"}})
	so.waitFor(t, "the comment", func(s string) bool {
		return strings.Contains(s, "Seen on the other replica?") && strings.Contains(s, `data-state="open"`)
	})
	cs, _ := st1.Comments(ctx, id)
	reviewFormAs(t, s1, ana, base+"/resolve?resolved=true", url.Values{"thread": {cs[0].ID}})
	reviewFormAs(t, s1, ana, base+"/signoff?verdict=approved", url.Values{"message": {"fine"}})
	so.waitFor(t, "the gate passed", func(s string) bool {
		return strings.Contains(s, `data-passed="true"`)
	})
	so.reset()
	postAs(t, s1, ana, strings.Repeat("e", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Changed after the approval."})
	so.waitFor(t, "the approval stale and the gate closed", func(s string) bool {
		return strings.Contains(s, `data-current="false"`) && strings.Contains(s, `data-passed="false"`)
	})
	if body := sc.waitFor(t, "the edit", func(s string) bool { return strings.Contains(s, "Changed after the approval.") }); strings.Contains(body, "review-gate") {
		t.Error("a page whose Review panel was never opened was sent the review")
	}
}

// TestReviewLiveAcrossServers: two servers on one SQLite store stand for two replicas.
func TestReviewLiveAcrossServers(t *testing.T) {
	st := newTestStore(t)
	reviewAcross(t, st, st)
}

// TestReviewLiveAcrossReplicasPostgres: two servers on two PostgreSQL store instances, where
// the review's events cross by LISTEN/NOTIFY.
func TestReviewLiveAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	reviewAcross(t, sts[0], sts[1])
}

// TestReviewStreamReconnect: a stream that (re)connects with the Review panel shown is sent the
// review as it stands and keeps it live, without the panel being loaded again.
func TestReviewStreamReconnect(t *testing.T) {
	s := serverOn(t, newTestStore(t))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	head, err := s.db.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	reviewFormAs(t, s, ana, "/w/"+id+"/review/comment", url.Values{"tool": {"0"}, "name": {head.Listing.Tools[0].Get("name").String()}, "body": {"Made while the page was away."}})
	pid := strings.Repeat("f", 32)
	// A reconnect: a page id the hub does not know, the panel shown.
	st := openStreamSignals(t, ts.URL, id, bo, fmt.Sprintf(`{"pid":%q,"tool":0,"ver":-1,"panel":"review"}`, pid))
	st.waitFor(t, "the comment made while away", func(s string) bool { return strings.Contains(s, "Made while the page was away.") })
	st.reset()
	reviewFormAs(t, s, ana, "/w/"+id+"/review/comment", url.Values{"tool": {"0"}, "name": {head.Listing.Tools[0].Get("name").String()}, "body": {"And one made since."}})
	st.waitFor(t, "the comment made since", func(s string) bool { return strings.Contains(s, "And one made since.") })
}

// TestReviewRendersOncePerNotice: twenty pages with the Review panel open all get a comment
// and an edit, and the review is read for them once per notice, not once per page.
func TestReviewRendersOncePerNotice(t *testing.T) {
	cs := &readCounter{Store: newTestStore(t)}
	s := serverOn(t, cs)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	head, err := cs.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	const pages = 20
	var streams []*stream
	for i := range pages {
		st := openStreamSignals(t, ts.URL, id, bo, fmt.Sprintf(`{"pid":"%032x","tool":0,"ver":-1,"panel":"review"}`, i+1))
		st.waitFor(t, "the review", func(s string) bool { return strings.Contains(s, "review-gate") })
		streams = append(streams, st)
	}
	before := cs.signoffReads()
	if _, err := s.review.Status(context.Background(), id, 1); err != nil {
		t.Fatal(err)
	}
	perRender := cs.signoffReads() - before
	for _, st := range streams {
		st.reset()
	}
	before = cs.signoffReads()
	reviewFormAs(t, s, ana, "/w/"+id+"/review/comment", url.Values{"tool": {"0"}, "name": {head.Listing.Tools[0].Get("name").String()}, "body": {"Seen by all twenty?"}})
	for _, st := range streams {
		st.waitFor(t, "the comment", func(s string) bool { return strings.Contains(s, "Seen by all twenty?") })
	}
	// The handler's answer renders once, the notice once for all the pages.
	if got := cs.signoffReads() - before; got > 2*perRender {
		t.Errorf("%d pages read the sign-offs %d times for one comment (%d per render); want at most %d", pages, got, perRender, 2*perRender)
	}
	// An edit: its notice renders the review once for all the pages too.
	for _, st := range streams {
		st.reset()
	}
	before = cs.signoffReads()
	postAs(t, s, ana, strings.Repeat("e", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Changed under twenty reviewers."})
	for _, st := range streams {
		st.waitFor(t, "the gate after the edit", func(s string) bool { return strings.Contains(s, "review-gate") })
	}
	if got := cs.signoffReads() - before; got > perRender {
		t.Errorf("%d pages read the sign-offs %d times for one edit; want at most %d", pages, got, perRender)
	}
}
