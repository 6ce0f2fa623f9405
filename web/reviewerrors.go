package web

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/listing"
)

// ReviewErrors counts the error findings of workspace ws's listing l as its pages show them:
// with the workspace's lint profile (profileOf, engineFor). The review's gate asks it
// (review.Options.Errors), so that the gate, the findings panel and the tab counts agree.
func (s *Server) ReviewErrors(ctx context.Context, ws string, l *listing.Listing) (int, error) {
	eng, err := s.engineFor(s.profileOf(ctx, ws))
	if err != nil {
		return 0, fmt.Errorf("review errors: %w", err)
	}
	// Tasks add verdicts, never findings: the count needs none.
	res, err := eng.AnalyzeContext(ctx, l, nil)
	if err != nil {
		return 0, fmt.Errorf("review errors: %w", err)
	}
	return res.Errors, nil
}
