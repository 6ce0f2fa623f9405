package analysis

import (
	"context"
	"testing"

	"github.com/tool-workbench/workbench/lint"
)

func TestZZDebug(t *testing.T) {
	ctx := context.Background()
	for _, s := range fixSources(t) {
		l, tasks := mustParse(t, s.src), parseTasks(t, s.tasks)
		e := fixEngine(t)
		res, _ := e.Fix(ctx, l, tasks, FixOptions{Suggested: true})
		for _, r := range lint.Repairs(res.Listing, res.After) {
			nl, err := res.Listing.ApplyAll(r.Ops)
			if err != nil {
				t.Logf("apply err %v", err)
				continue
			}
			fs, _ := e.fixFindings(ctx, nl, res.Tasks)
			n := map[string]int{}
			for _, f := range res.After {
				n[fixKey(f)]++
			}
			for _, f := range fs {
				if n[fixKey(f)] == 0 {
					t.Logf("%s: %s -> new %s %s %s", s.name, r.Title, f.Rule, f.Pointer, f.Message)
				}
				n[fixKey(f)]--
			}
		}
	}
}
