package web

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// reviewSection is the review export's section on the workspace's review: the gate (with the
// workspace's approvals required, as the panel shows it), the sign-offs and the threads.
func (s *Server) reviewSection(ctx context.Context, ws string) ([]byte, error) {
	st, err := s.review.Status(ctx, ws, 0)
	if err != nil {
		return nil, fmt.Errorf("review export: the gate: %w", err)
	}
	threads, err := s.review.Threads(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("review export: the threads: %w", err)
	}
	return export.ReviewSection(exportReview(st, threads)), nil
}

// exportReview converts the review service's answer into the export's own types (package
// export sits below package review).
func exportReview(st review.Status, threads []review.Thread) export.ReviewState {
	out := export.ReviewState{Gate: export.ReviewGate{Passed: st.Passed, Revision: st.Revision, Hash: st.Hash, Require: st.Require,
		Approvals: st.Approvals, OpenThreads: st.OpenThreads, Errors: st.Errors, Reasons: st.Reasons}}
	for _, a := range st.Signoffs {
		out.Signoffs = append(out.Signoffs, export.ReviewSignoff{Author: a.Author, Approved: a.Verdict == store.Approved, Message: a.Message,
			Revision: a.Revision, Hash: a.Hash, Time: a.Created, Current: a.Current, Changed: a.Changed})
	}
	for _, t := range threads {
		et := export.ReviewThread{Label: t.Label, Resolved: t.Resolved, ResolvedBy: t.ResolvedBy, Gone: t.Gone, Outdated: t.Outdated,
			Was: t.Anchor.Text, Now: t.Now}
		for _, c := range append([]store.Comment{t.First}, t.Replies...) {
			et.Comments = append(et.Comments, export.ReviewComment{Author: c.Author, Time: c.Created, Body: c.Body})
		}
		out.Threads = append(out.Threads, et)
	}
	return out
}
