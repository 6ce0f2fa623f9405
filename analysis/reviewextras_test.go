package analysis

import (
	"context"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// TestReviewExtras: the review's analysis carries the engines' overlap map (every pair, in
// order), damage test and order bias of the listing, and without tasks only the overlap map.
func TestReviewExtras(t *testing.T) {
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(testutil.ReadShared(t, "reference", "fixtures", "confusing-tools.json"), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(testutil.ReadShared(t, "reference", "fixtures", "tasks-confusing.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := selection.Overlap(ctx, l, tasks)
	if err != nil {
		t.Fatal(err)
	}
	dmg, err := selection.DamageTest(ctx, l, tasks)
	if err != nil {
		t.Fatal(err)
	}
	ob := selection.OrderBiasOf(l, tasks)
	for _, withTasks := range []bool{true, false} {
		var ts []selection.Task
		if withTasks {
			ts = tasks
		}
		opts, err := ReviewEngines(ctx, tok, ts)
		if err != nil {
			t.Fatal(err)
		}
		a, err := opts.Analyze(l)
		if err != nil {
			t.Fatal(err)
		}
		if !withTasks {
			if a.Damage != nil || a.OrderBias != nil || len(a.Overlap) == 0 {
				t.Errorf("without tasks: damage %v, order bias %v, %d pairs; want only the pairs", a.Damage, a.OrderBias, len(a.Overlap))
			}
			continue
		}
		if len(a.Overlap) != len(m.Pairs) || a.OverlapPairs != len(m.Pairs) {
			t.Fatalf("%d pairs (of %d), want %d", len(a.Overlap), a.OverlapPairs, len(m.Pairs))
		}
		for k, p := range m.Pairs {
			q := a.Overlap[k]
			if q.A != m.Names[p.I] || q.B != m.Names[p.J] || q.Strength != p.Strength || q.Lost != len(p.Lost) || q.Advice != m.Advice(p) {
				t.Errorf("pair %d: %+v, want %s/%s %v", k, q, m.Names[p.I], m.Names[p.J], p)
			}
		}
		if len(a.Damage) != len(dmg) {
			t.Fatalf("%d tools damaged, want %d", len(a.Damage), len(dmg))
		}
		for k, d := range dmg {
			blank, _ := d.Damage(selection.DamageBlank)
			if g := a.Damage[k]; g.Name != d.Name || g.Won != d.Base.Won || g.Blanked != blank.Won || g.CarriedBy != d.CarriedBy {
				t.Errorf("damage %d: %+v, want %+v", k, g, d)
			}
		}
		if o := a.OrderBias; o == nil || o.Tied != ob.Tied || o.Flips != ob.Flips || o.ExpectedRate != ob.ExpectedRate {
			t.Errorf("order bias %+v, want %+v", o, ob)
		}
	}
}
