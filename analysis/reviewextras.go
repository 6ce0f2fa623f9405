package analysis

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// reviewExtras adds to a review's analysis of l the overlap map's pairs (every pair, so that
// the review finds a pair of the current listing among the baseline's), and with tasks the
// damage test and the ranker's order bias.
func reviewExtras(ctx context.Context, a *export.Analysis, l *listing.Listing, tasks []selection.Task) error {
	m, err := selection.Overlap(ctx, l, tasks)
	if err != nil {
		return fmt.Errorf("overlap map: %w", err)
	}
	a.Overlap, a.OverlapPairs = make([]export.OverlapPair, len(m.Pairs)), len(m.Pairs)
	for k, p := range m.Pairs {
		q := export.OverlapPair{A: m.Names[p.I], B: m.Names[p.J], Strength: p.Strength, Lost: len(p.Lost), Close: len(p.Close), Advice: m.Advice(p)}
		for _, w := range m.SharedWords(p.I, p.J, 5) {
			q.SharedWords = append(q.SharedWords, w.Word)
		}
		a.Overlap[k] = q
	}
	if tasks == nil {
		return nil
	}
	tools, err := selection.DamageTest(ctx, l, tasks)
	if err != nil {
		return fmt.Errorf("damage test: %w", err)
	}
	a.Damage = make([]export.ToolDamage, len(tools))
	for k, t := range tools {
		blank, _ := t.Damage(selection.DamageBlank)
		a.Damage[k] = export.ToolDamage{Name: t.Name, Tasks: t.Tasks, Won: t.Base.Won, Blanked: blank.Won, CarriedBy: t.CarriedBy}
	}
	ob := selection.OrderBiasOf(l, tasks)
	a.OrderBias = &export.OrderBias{Tied: ob.Tied, Flips: ob.Flips, ExpectedRate: ob.ExpectedRate, ReferenceRate: ob.ReferenceRate}
	return nil
}
