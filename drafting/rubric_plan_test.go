package drafting_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection/runner"
)

// manyTools is a listing of n similar tools: each one's neighbours take the ranker a pass over
// all of them.
func manyTools(t testing.TB, n int) *listing.Listing {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Get ticket data for a user by id and filter the report records %d.","inputSchema":{"type":"object"}}`, i, i)
	}
	b.WriteString(`]}`)
	l, err := listing.Parse([]byte(b.String()), listing.Options{Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// PlanRubric runs when the Rubric dialog opens, for every endpoint: with a cache that holds
// none of the listing's tools it costs a hash per tool, not each tool's neighbours among all
// the others (4,000 tools took over a second when it did). Measured without a clock: the bytes
// it allocates grow as the tools do, where working out every tool's neighbours allocates a
// score per tool for each tool, four times the bytes for twice the tools.
func TestPlanRubricColdCacheIsLinear(t *testing.T) {
	allocated := func(n int) uint64 {
		l := manyTools(t, n)
		cache := drafting.NewRubricCache(0)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p := drafting.PlanRubric(l, "fake/fake-model", cache)
		runtime.ReadMemStats(&after)
		if p.Calls != n {
			t.Errorf("%d tools: plan %d calls: %s", n, p.Calls, p.What)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(2000), allocated(4000)
	if ratio := float64(large) / float64(small); ratio > 3 {
		t.Errorf("PlanRubric allocated %d bytes for 2,000 tools and %d for 4,000 (%.1f×): more than linear", small, large, ratio)
	}
}

func BenchmarkPlanRubricCold(b *testing.B) {
	l := manyTools(b, 4000)
	cache := drafting.NewRubricCache(0)
	for b.Loop() {
		drafting.PlanRubric(l, "fake/fake-model", cache)
	}
}

// BenchmarkPlanRubricWarm plans again a listing of 2,000 similar tools (the API's bound) that
// the cache holds: every tool's neighbours are worked out, each a pass over the others.
func BenchmarkPlanRubricWarm(b *testing.B) {
	l := manyTools(b, 2000)
	c := fakeCaller(b, &fakemodel.Server{}, nil, runner.ClientOptions{})
	c.Budget = drafting.NewBudget(len(l.Tools))
	cache := drafting.NewRubricCache(0)
	if _, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(b), l, cache); err != nil {
		b.Fatal(err)
	}
	model := drafting.ModelKey(c.Model)
	for b.Loop() {
		if p := drafting.PlanRubric(l, model, cache); p.Calls != 0 {
			b.Fatalf("plan %d calls with every tool cached: %s", p.Calls, p.What)
		}
	}
}
