package reference

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

// pairwise is the reference's own loop: every pair of tools compared, descriptions looked up by
// name (the last one of a name stands).
func pairwise(names []string, descs [][]string) []Overlap {
	sets := map[string]map[string]bool{}
	for i, n := range names {
		s := map[string]bool{}
		for _, w := range descs[i] {
			s[w] = true
		}
		sets[n] = s
	}
	var pairs []Overlap
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			a, b := sets[names[i]], sets[names[j]]
			shared, union := 0, len(a)
			for w := range b {
				if a[w] {
					shared++
				} else {
					union++
				}
			}
			if o := (Overlap{I: i, J: j, Shared: shared, Union: union}); o.NearDuplicate(names) {
				pairs = append(pairs, o)
			}
		}
	}
	return pairs
}

// TestNearDuplicatesMatchPairwise: the set-similarity join finds exactly the pairs the
// reference's pairwise loop finds, on random listings from small vocabularies (so that many
// pairs reach the threshold, and some listings pass MaxPairs and are grouped) with repeated
// names and empty descriptions.
func TestNearDuplicatesMatchPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name          string
		tools, vocab  int
		words, nnames int
		runs          int
	}{
		{"few tools, tiny vocabulary", 8, 4, 4, 5, 300},
		{"repeated names", 30, 8, 5, 10, 100},
		{"long descriptions", 40, 30, 25, 40, 50},
		{"grouped past MaxPairs", 200, 5, 4, 200, 5},
		{"many tools, larger vocabulary", 300, 40, 12, 300, 5},
	}
	grouped := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for run := range tt.runs {
				names := make([]string, tt.tools)
				descs := make([][]string, tt.tools)
				for i := range names {
					names[i] = fmt.Sprintf("t%d", rng.IntN(tt.nnames))
					for range rng.IntN(tt.words + 1) {
						descs[i] = append(descs[i], fmt.Sprintf("w%d", rng.IntN(tt.vocab)))
					}
				}
				want := NearDuplicateLine(names, pairwise(names, descs))
				nd, err := FindNearDuplicates(context.Background(), names, descs)
				if err != nil {
					t.Fatal(err)
				}
				if got := nd.Line(); got != want {
					t.Fatalf("run %d: names %v descs %v\n got %s\nwant %s", run, names, descs, got, want)
				}
				if !nd.Complete {
					t.Fatalf("run %d: the budget ran out on %d tools", run, tt.tools)
				}
				if p := pairwise(names, descs); int64(len(p)) != nd.Pairs {
					t.Fatalf("run %d: counted %d pairs, the reference lists %d", run, nd.Pairs, len(p))
				}
				if strings.Contains(want.Detail, "too many to list") {
					grouped++
				}
			}
		})
	}
	if grouped == 0 {
		t.Error("no listing passed MaxPairs: the grouped line is not tested")
	}
}

// nearIdentical returns n tools whose descriptions differ in one word each: every pair is a
// near-duplicate (12 of 14 words, 86%).
func nearIdentical(n int) ([]string, [][]string) {
	names := make([]string, n)
	descs := make([][]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("orders_lookup_%05d", i)
		c := words.Content(fmt.Sprintf("Look up one customer order by its identifier and return status items total variant%d", i))
		for w := range c {
			descs[i] = append(descs[i], w)
		}
	}
	return names, descs
}

// TestNearDuplicatesBounded: however many pairs there are, the line a finding shows stays short
// and reports the pairs as groups; the reference's line is printed up to MaxPairs and refused
// past it with the number of pairs it would list.
func TestNearDuplicatesBounded(t *testing.T) {
	identical := func(n int) ([]string, [][]string) {
		names, descs := nearIdentical(n)
		for i := range descs {
			descs[i] = descs[0]
		}
		return names, descs
	}
	tests := []struct {
		name      string
		gen       func(int) ([]string, [][]string)
		n         int
		wantPairs int64 // 0: at least MaxPairs+1
		shows     string
	}{
		{"identical descriptions, just past MaxPairs", identical, 64, 64 * 63 / 2, "64 tools, 2016 pairs, 100% of their words shared"},
		{"3,000 identical descriptions", identical, 3000, 3000 * 2999 / 2, "orders_lookup_00000, orders_lookup_00001"},
		{"19,999 identical descriptions", identical, 19999, 19999 * 19998 / 2, "and 19993 more (19999 tools"},
		{"3,000 near-identical descriptions", nearIdentical, 3000, 0, "orders_lookup_00000"},
		{"19,999 near-identical descriptions", nearIdentical, 19999, 0, "orders_lookup_00000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, descs := tt.gen(tt.n)
			start := time.Now()
			nd, err := FindNearDuplicates(context.Background(), names, descs)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			ln := nd.Line()
			if len(ln.Detail) > 4<<10 {
				t.Errorf("the line is %d bytes", len(ln.Detail))
			}
			if !strings.Contains(ln.Detail, "too many to list one by one") || !strings.Contains(ln.Detail, tt.shows) {
				t.Errorf("line %q does not report groups with %q", ln.Detail, tt.shows)
			}
			if tt.wantPairs > 0 && (nd.Pairs != tt.wantPairs || !nd.Complete) {
				t.Errorf("counted %d pairs (complete %v), want %d", nd.Pairs, nd.Complete, tt.wantPairs)
			}
			exact, err := nd.Exact()
			var pe *PairsError
			switch {
			case nd.Pairs <= MaxPairs:
				if err != nil || strings.Count(exact.Detail, " and ") != int(nd.Pairs) || nd.Printed() != exact {
					t.Errorf("Exact: %v, want the reference's line of %d pairs", err, nd.Pairs)
				}
			case !errors.As(err, &pe) || pe.Pairs != nd.Pairs || !strings.Contains(err.Error(), fmt.Sprint(nd.Pairs)):
				t.Errorf("Exact: %v, want a *PairsError of %d pairs", err, nd.Pairs)
			case nd.Printed() != ln:
				t.Errorf("Printed is not the grouped line")
			}
			t.Logf("%d tools: %d pairs (complete %v, %d of %d compared) in %v; %d bytes: %.300s", tt.n, nd.Pairs, nd.Complete, nd.Compared, nd.Total, took, len(ln.Detail), ln.Detail)
		})
	}
}

// TestNearDuplicatesCancelled: a cancelled context stops the search and Lint.
func TestNearDuplicatesCancelled(t *testing.T) {
	names, descs := nearIdentical(20000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := FindNearDuplicates(ctx, names, descs); !errors.Is(err, context.Canceled) {
		t.Errorf("FindNearDuplicates: %v, want context.Canceled", err)
	}
	var b strings.Builder
	b.WriteString(`{"tools": [`)
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "t%d", "description": "Look up one order by its id, variant %d."}`, i, i)
	}
	b.WriteString("]}")
	l, err := listing.Parse([]byte(b.String()), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LintContext(ctx, l); !errors.Is(err, context.Canceled) {
		t.Errorf("LintContext: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelled calls took %v", took)
	}
}

func BenchmarkNearDuplicates(b *testing.B) {
	for _, n := range []int{3000, 19999} {
		b.Run(fmt.Sprintf("near-identical-%d", n), func(b *testing.B) {
			names, descs := nearIdentical(n)
			b.ReportAllocs()
			for b.Loop() {
				NearDuplicates(names, descs)
			}
		})
	}
}
