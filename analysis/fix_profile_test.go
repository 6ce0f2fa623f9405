package analysis

import (
	"context"
	"testing"

	"github.com/tool-workbench/workbench/lint"
)

// TestFixListingsUnderProfiles: under every profile, fixing the seeds' fixtures and the real
// listings with suggested repairs makes no finding appear, leaves fewer or as many findings, and
// a second Fix applies nothing. It prints the figures (findings before → after) with -v.
func TestFixListingsUnderProfiles(t *testing.T) {
	for _, p := range lint.ProfileNames() {
		mk := func() *Engine {
			e, err := New(Options{Extended: lint.New(lint.Config{Profile: p}), PlainVerdicts: true, NoCost: true})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		for _, s := range fixSources(t) {
			if s.name == "generated-300" {
				continue // the default rules' test covers it; the profiles' rules are per tool
			}
			t.Run(p+"/"+s.name, func(t *testing.T) {
				ctx := context.Background()
				l, tasks := mustParse(t, s.src), parseTasks(t, s.tasks)
				res, err := mk().Fix(ctx, l, tasks, FixOptions{Suggested: true})
				if err != nil {
					t.Fatal(err)
				}
				fresh := mk()
				after, err := fresh.fixFindings(ctx, res.Listing, res.Tasks)
				if err != nil {
					t.Fatal(err)
				}
				var renames []lint.Rename
				for _, r := range res.Applied {
					renames = append(renames, r.Renames...)
				}
				if appeared(res.Before, after, renames) || len(after) > len(res.Before) {
					t.Errorf("a finding appeared: %d before, %d after", len(res.Before), len(after))
				}
				again, err := fresh.Fix(ctx, res.Listing, res.Tasks, FixOptions{Suggested: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(again.Applied) != 0 {
					t.Errorf("a second Fix applied %d repairs: %+v", len(again.Applied), again.Applied)
				}
				prof := func(fs []lint.Finding) (n int) {
					for _, f := range fs {
						if lint.ProfileOnly(f.Rule) {
							n++
						}
					}
					return n
				}
				t.Logf("%s %s: findings %d -> %d (profile rules %d -> %d), %d repairs", p, s.name, len(res.Before), len(after), prof(res.Before), prof(after), len(res.Applied))
			})
		}
	}
}
