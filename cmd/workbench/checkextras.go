package main

import (
	"context"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// addAnalyses adds to a check report what was asked for beyond findings and verdicts: the
// description damage test (--damage), the order bias (--order-bias) and the overlap map
// (--overlap).
func addAnalyses(ctx context.Context, o checkOptions, l *listing.Listing, tasks []selection.Task, r *analysis.Report) error {
	if err := o.damage.addDamage(ctx, l, tasks, r); err != nil {
		return err
	}
	addOrderBias(o, r, l, tasks)
	var err error
	r.Overlap, err = checkOverlap(ctx, o.overlap, l, tasks)
	return err
}
