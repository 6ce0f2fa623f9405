package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// TestReviewExportCarriesReview: the export menu's review report ends with the workspace's
// review — the gate, the sign-offs and the threads, hostile comments in fences.
func TestReviewExportCarriesReview(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	ctx := context.Background()
	md := exportGet(t, s, id, "format=review", false).Body.String()
	if !strings.Contains(md, "\n## Review\n\n**Fails** the release gate at revision 0") || !strings.Contains(md, "Nobody has signed off.") || !strings.Contains(md, "No comments.") {
		t.Fatalf("an unreviewed workspace's report:\n%s", md)
	}
	if _, err := s.review.SignOff(ctx, id, store.Approved, "looks | good", review.Author{Name: "Ana <b>", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	ws, err := s.db.Revision(ctx, id, -1)
	if err != nil {
		t.Fatal(err)
	}
	tool := ws.Listing.Names()[0]
	hostile := "```\n<script>alert(1)</script>\n# not a heading | pipe"
	if _, err := s.review.Comment(ctx, id, review.Target{Index: 0, Tool: tool, Field: "/description"}, hostile, review.Author{Name: "Bo", ID: "b1"}); err != nil {
		t.Fatal(err)
	}
	rec := exportGet(t, s, id, "format=review", false)
	if rec.Code != http.StatusOK {
		t.Fatalf("export: %d %s", rec.Code, rec.Body)
	}
	md = rec.Body.String()
	for _, want := range []string{"| Ana \\<b\\> | approved | 0 |", "| current | looks \\| good |", "(open)\n\nFrom Bo, ", "````text\n```\n<script>alert(1)</script>\n# not a heading | pipe\n````\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md[strings.Index(md, "\n## Review"):])
		}
	}
}
