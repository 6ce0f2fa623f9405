package analysis

import (
	"context"
	"strconv"
	"testing"

	"github.com/tool-workbench/workbench/lint"
)

// TestFixFigures measures, on every shared listing, the findings, how many of them have a safe
// or a suggested repair on offer, the findings before and after Fix with suggested repairs,
// and the ranker's clear tasks before and after. Run with -v to read them:
//
//	go test ./analysis -run TestFixFigures -v -count=1
func TestFixFigures(t *testing.T) {
	ctx := context.Background()
	for _, s := range fixSources(t) {
		l, tasks := mustParse(t, s.src), parseTasks(t, s.tasks)
		e := fixEngine(t)
		fs, err := e.fixFindings(ctx, l, tasks)
		if err != nil {
			t.Fatal(err)
		}
		safe, suggested := 0, 0
		for _, f := range fs {
			kinds := map[lint.FixKind]bool{}
			for _, r := range lint.Repairs(l, []lint.Finding{f}) {
				kinds[r.Kind] = true
			}
			switch {
			case kinds[lint.FixSafe]:
				safe++
			case kinds[lint.FixSuggested]:
				suggested++
			}
		}
		safeRes, err := e.Fix(ctx, l, tasks, FixOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Fix(ctx, l, tasks, FixOptions{Suggested: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.After) > len(res.Before) {
			t.Errorf("%s: %d findings after, %d before", s.name, len(res.After), len(res.Before))
		}
		clear := ""
		if len(tasks) > 0 {
			before, after := e.Analyze(l, tasks), e.Analyze(res.Listing, res.Tasks)
			clear = " · clear tasks " + strconv.Itoa(before.Clear) + " → " + strconv.Itoa(after.Clear) + " of " + strconv.Itoa(len(tasks))
		}
		t.Logf("%-38s findings %4d · with a safe fix %3d · with a suggested fix %3d · after safe fixes %4d (%d applied) · after suggested too %4d (%d applied)%s",
			s.name, len(fs), safe, suggested, len(safeRes.After), len(safeRes.Applied), len(res.After), len(res.Applied), clear)
	}
}
