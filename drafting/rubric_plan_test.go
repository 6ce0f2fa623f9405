package drafting_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/listing"
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
// the others (4,000 tools took over a second when it did).
func TestPlanRubricColdCacheIsLinear(t *testing.T) {
	l := manyTools(t, 4000)
	cache := drafting.NewRubricCache(0)
	start := time.Now()
	p := drafting.PlanRubric(l, "fake/fake-model", cache)
	took := time.Since(start)
	if p.Calls != 4000 {
		t.Errorf("plan %d calls, want 4000: %s", p.Calls, p.What)
	}
	if took > 300*time.Millisecond {
		t.Errorf("PlanRubric of 4,000 tools with a cold cache took %v; want well under 300ms", took)
	}
}

func BenchmarkPlanRubricCold(b *testing.B) {
	l := manyTools(b, 4000)
	cache := drafting.NewRubricCache(0)
	for b.Loop() {
		drafting.PlanRubric(l, "fake/fake-model", cache)
	}
}
