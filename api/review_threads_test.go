package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/review"
)

// TestReviewThreadsParam: ?threads= answers every thread whole (all, the default), the open
// ones (open), each in brief (summary: the first comment clipped, the replies counted) or
// none; the anchor is sent once per thread, never again in its comments; anything else is
// refused with what would work. Every answer is valid against the document.
func TestReviewThreadsParam(t *testing.T) {
	e, _, svc, ws := reviewRouter(t, Options{}, nil)
	ctx := context.Background()
	ana := review.Author{Name: "Ana", ID: "a1"}
	long := strings.Repeat("é", 3000)
	c1, err := svc.Comment(ctx, ws, review.Target{Index: 0, Tool: "search_books", Field: "/description"}, long, ana)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := svc.Reply(ctx, ws, c1.ID, "a reply", review.Author{Name: "Bo"}); err != nil {
			t.Fatal(err)
		}
	}
	c2, err := svc.Comment(ctx, ws, review.Target{Index: 0, Tool: "search_books"}, "resolved soon", ana)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Resolve(ctx, ws, c2.ID, true, ana); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query   string
		threads int
	}{{"", 2}, {"?threads=all", 2}, {"?threads=open", 1}, {"?threads=none", 0}} {
		path := Prefix + "/workspaces/" + ws + "/review" + tc.query
		rec := call(e, http.MethodGet, path, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		checkResponse(t, http.MethodGet, path, rec)
		var r struct {
			Status  review.Status
			Threads []map[string]any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Threads) != tc.threads || r.Status.OpenThreads != 1 {
			t.Errorf("%s: %d threads (%d open); want %d (1 open)", tc.query, len(r.Threads), r.Status.OpenThreads, tc.threads)
		}
		if n := strings.Count(rec.Body.String(), `"anchor"`); n != tc.threads {
			t.Errorf("%s: the anchor is sent %d times for %d threads; want once per thread", tc.query, n, tc.threads)
		}
	}
	path := Prefix + "/workspaces/" + ws + "/review?threads=summary"
	rec := call(e, http.MethodGet, path, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodGet, path, rec)
	var r struct{ Threads []ReviewThreadSummary }
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 2 {
		t.Fatalf("summary: %d threads; want 2: %s", len(r.Threads), rec.Body)
	}
	if r.Threads[0].ID != c1.ID {
		r.Threads[0], r.Threads[1] = r.Threads[1], r.Threads[0]
	}
	s := r.Threads[0]
	if s.ID != c1.ID || s.Replies != 2 || s.Author != "Ana" || s.Resolved || utf8.RuneCountInString(s.First) != SummaryChars+1 || !strings.HasSuffix(s.First, "…") || s.Label == "" {
		t.Errorf("the summary of a thread of 3,000 characters with 2 replies: %+v", s)
	}
	if !r.Threads[1].Resolved {
		t.Errorf("the resolved thread's summary: %+v", r.Threads[1])
	}
	if rec.Body.Len() > 2000 {
		t.Errorf("the summary of two threads is %d bytes", rec.Body.Len())
	}
	for _, q := range []string{"?threads=everything", "?threads=all&threads=none", "?threads="} {
		rec := call(e, http.MethodGet, Prefix+"/workspaces/"+ws+"/review"+q, "")
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "summary") {
			t.Errorf("%s: %d %s; want 400 saying what would work", q, rec.Code, rec.Body)
		}
	}
}

// TestReviewSummaryClipsNames: a summary clips the label and the tool too, which come from the
// listing (a hostile one names its tools and parameters at length), so that 5,000 summaries
// stay within what `workbench review status` reads.
func TestReviewSummaryClipsNames(t *testing.T) {
	e, _, svc, _ := reviewRouter(t, Options{}, nil)
	tool, param := strings.Repeat("t", 500), strings.Repeat("<", 1000)
	src := `{"tools": [{"name": "` + tool + `", "description": "Does a thing.", "inputSchema": {"type": "object", "properties": {"` + param + `": {"type": "string", "description": "p"}}}}]}`
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", src))
	var w workspaceResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	if _, err := svc.Comment(context.Background(), w.ID, review.Target{Index: 0, Tool: tool, Field: "/inputSchema/properties/" + param}, "why", review.Author{Name: "Ana"}); err != nil {
		t.Fatal(err)
	}
	rec = call(e, http.MethodGet, Prefix+"/workspaces/"+w.ID+"/review?threads=summary", "")
	var r struct{ Threads []ReviewThreadSummary }
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || len(r.Threads) != 1 {
		t.Fatalf("summary: %d %.300s", rec.Code, rec.Body)
	}
	for what, s := range map[string]string{"label": r.Threads[0].Label, "tool": r.Threads[0].Tool} {
		if n := utf8.RuneCountInString(s); n > SummaryChars+1 {
			t.Errorf("the summary's %s is %d characters; want at most %d and an ellipsis", what, n, SummaryChars)
		}
	}
}
