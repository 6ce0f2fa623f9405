package main

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// addAnalyses adds to a check report what was asked for beyond findings and verdicts: the
// description damage test (--damage), the order bias (--order-bias) and the overlap map
// (--overlap).
func addAnalyses(ctx context.Context, o checkOptions, l *listing.Listing, tasks []selection.Task, r *analysis.Report) error {
	x := analysis.Extras{OrderBias: o.orderBias, Overlap: o.overlap}
	if o.damage != nil {
		x.Damage, x.MinDrop = true, o.damage.minDrop
	}
	if err := r.AddExtras(ctx, l, tasks, x); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return nil
}
