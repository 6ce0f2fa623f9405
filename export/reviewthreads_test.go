package export

import (
	"strings"
	"testing"
	"time"
)

// TestReviewSection writes the review section of a hostile review: every kind of user text
// (names, labels, messages, comment bodies, the text a thread was made on) carries pipes,
// backquotes, HTML, Markdown and line breaks, none of which may leave its cell, line or block.
func TestReviewSection(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)
	hostile := "a | b `code` ``` <script>alert(1)</script>\n# heading\r\n- item [x](javascript:1) **bold** \u202e"
	for _, tc := range []struct {
		name  string
		state ReviewState
	}{
		{"review-section-empty.md", ReviewState{Gate: ReviewGate{Revision: 0, Hash: "sha256:0123456789abcdef0123", Require: 1,
			Reasons: []string{"nobody has approved revision 0"}}}},
		{"review-section-hostile.md", ReviewState{
			Gate: ReviewGate{Passed: false, Revision: 4, Hash: "sha256:" + strings.Repeat("ab", 32), Require: 2, Approvals: 1, OpenThreads: 1, Errors: 2,
				Reasons: []string{"1 of 2 approvals", "1 thread is open", "2 error findings"}},
			Signoffs: []ReviewSignoff{
				{Author: "Ana | <b>admin</b>", Approved: true, Message: hostile, Revision: 4, Hash: "sha256:" + strings.Repeat("ab", 32), Time: at, Current: true},
				{Author: "`Bo`", Approved: false, Message: "", Revision: 2, Hash: "sha256:|`|", Time: at.Add(-time.Hour),
					Changed: []string{"search_issues description", "a | b"}},
			},
			Threads: []ReviewThread{
				{Label: "search_issues › parameter q | <i>x</i>", Outdated: true, Was: hostile, Now: "````\nfour backquotes",
					Comments: []ReviewComment{{Author: "1. Cy\n# not a heading", Time: at, Body: hostile}, {Author: "Ana", Time: at.Add(time.Minute), Body: "```\nfence```"}}},
				{Label: "get_book", Resolved: true, ResolvedBy: "Ana *", Gone: true, Comments: []ReviewComment{{Author: "Bo", Body: "ok"}}},
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ReviewSection(tc.state)
			golden(t, tc.name, got)
			for _, bad := range []string{"<script>", "<b>", "<i>", "\n# ", "\n- item", "\n1. Cy", "\u202e"} {
				if strings.Contains(string(got), bad) && !inFence(string(got), bad) {
					t.Errorf("%q escaped its context:\n%s", bad, got)
				}
			}
		})
	}
}

// inFence reports whether every occurrence of s in md is inside a fenced code block.
func inFence(md, s string) bool {
	inside, fence := false, ""
	for _, ln := range strings.Split(md, "\n") {
		trim := strings.TrimLeft(ln, "`")
		switch {
		case !inside && strings.HasPrefix(ln, "```"):
			inside, fence = true, ln[:len(ln)-len(trim)]
		case inside && ln == fence:
			inside = false
		case !inside && strings.Contains("\n"+ln, s):
			return false
		}
	}
	return true
}
