package analysis

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Extras are the analyses a check adds beyond findings and verdicts when asked, as the CLI's
// check --damage, --min-drop, --order-bias and --overlap and the API's members of those names.
type Extras struct {
	Damage bool
	// MinDrop is the --min-drop gate (nil: none); it implies Damage.
	MinDrop   *float64
	OrderBias bool
	Overlap   bool
}

// OverlapTop is how many pairs a check report's overlap member lists.
const OverlapTop = 20

// AddExtras adds to r, the report of checking l with tasks, the analyses x asks for. The damage
// test and the order bias need a task file (tasks non-nil, r.Ranking); without one they add
// nothing.
func (r *Report) AddExtras(ctx context.Context, l *listing.Listing, tasks []selection.Task, x Extras) error {
	if (x.Damage || x.MinDrop != nil) && tasks != nil {
		tools, err := selection.DamageTest(ctx, l, tasks)
		if err != nil {
			return fmt.Errorf("damage test: %w", err)
		}
		r.AddDamage(NewDamageReport(tools, x.MinDrop))
	}
	if x.OrderBias && r.Ranking != nil {
		ob := selection.OrderBiasOf(l, tasks)
		r.OrderBias = &ob
	}
	if x.Overlap {
		m, err := selection.Overlap(ctx, l, tasks)
		if err != nil {
			return fmt.Errorf("overlap map: %w", err)
		}
		r.Overlap = NewOverlapReport(m, OverlapTop)
	}
	return nil
}
