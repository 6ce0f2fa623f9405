package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// TestReviewStatusLargeReview: a review whose threads whole are over the CLI's cap (600
// comments of 4,000 characters) still answers `review status URL` (it asks the threads'
// summary) and `fetch --compare approved:URL` (it asks none); --format json, which prints
// them whole, says what would work instead.
func TestReviewStatusLargeReview(t *testing.T) {
	// 600 long comments pass the real cap (32 MiB) with their threads whole; a 4 MiB cap stands
	// for a review of thousands.
	defer func(n int) { reviewMaxBytes = n }(reviewMaxBytes)
	reviewMaxBytes = 4 << 20
	mcpURL := mcpServer(t, fetchTestServer(), nil)
	served, errOut, code := fetchCLI(t, nil, "fetch", mcpURL)
	if code != 0 {
		t.Fatalf("fetch: exit %d: %s", code, errOut)
	}
	f := newReviewFixtureOf(t, served)
	ctx := context.Background()
	if _, err := f.svc.SignOff(ctx, f.ws, store.Approved, "ships", review.Author{Name: "Ana", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	head, err := f.st.Revision(ctx, f.ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	name := head.Listing.Tools[0].Get("name").String()
	long := strings.Repeat("é", store.MaxCommentBody) // 8,000 bytes of JSON
	const comments = 600
	for i := range comments {
		c, err := f.svc.Comment(ctx, f.ws, review.Target{Index: 0, Tool: name, Field: "/description"}, long, review.Author{Name: "Bo", ID: "b2"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 { // its replies are counted
			for range 2 {
				if _, err := f.svc.Reply(ctx, f.ws, c.ID, long, review.Author{Name: "Ana", ID: "a1"}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	a := api.New(api.Options{Workspaces: f.st, Review: f.svc, Access: func(*http.Request, string, bool) (string, error) { return "ci", nil }})
	e := echo.New()
	a.Register(e.Group(api.Prefix))
	wb := httptest.NewServer(e)
	t.Cleanup(wb.Close)

	out, errOut, code := fetchCLI(t, nil, "review", "status", wb.URL+"/w/"+f.ws)
	if code != 1 || !strings.Contains(out, "FAIL  workspace") || strings.Count(out, "— Bo: ") != comments {
		t.Errorf("review status of %d long comments: exit %d (want 1, the threads are open)\nstdout: %.600s\nstderr: %s", comments, code, out, errOut)
	}
	if strings.Count(out, "(2 replies)") != 1 || strings.Count(out, "(no replies)") != comments-1 {
		t.Errorf("the threads' replies are not counted: %.600s", out)
	}
	_, errOut, code = fetchCLI(t, nil, "review", "status", wb.URL+"/w/"+f.ws, "--format", "json")
	if code != 2 || !strings.Contains(errOut, "too large to print; use --format text") {
		t.Errorf("--format json of a review over the cap: exit %d: %s", code, errOut)
	}
	out, errOut, code = fetchCLI(t, nil, "fetch", mcpURL, "--compare", "approved:"+wb.URL+"/w/"+f.ws)
	if code != 0 || !strings.Contains(out, "Compared approved revision 0 of workspace "+f.ws) {
		t.Errorf("fetch --compare approved: with %d long comments: exit %d\n%s%s", comments, code, out, errOut)
	}
}
