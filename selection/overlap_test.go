package selection

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// overlapGen is the benchmark generator's listing and tasks (../shared/bench/gen.py), or a
// skip that says what is missing.
func overlapGen(tb testing.TB, tools, tasks int) (*listing.Listing, []Task) {
	tb.Helper()
	gen := testutil.Shared(tb, "bench", "gen.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		tb.Skip("skipped: the generated listing is made by python3, which is not on PATH")
	}
	dir := tb.TempDir()
	if out, err := exec.Command(py, gen, fmt.Sprint(tools), fmt.Sprint(tasks), dir).CombinedOutput(); err != nil {
		tb.Fatalf("gen.py: %v: %s", err, out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "listing.json"))
	if err != nil {
		tb.Fatal(err)
	}
	tsrc, err := os.ReadFile(filepath.Join(dir, "tasks.json"))
	if err != nil {
		tb.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := ParseTasks(tsrc, false)
	if err != nil {
		tb.Fatal(err)
	}
	return l, ts
}

func overlapSetDesc(tb testing.TB, l *listing.Listing, i int, d string) *listing.Listing {
	tb.Helper()
	e, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: fmt.Sprintf("/tools/%d/description", i), Value: listing.NewString(d)})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func mustMap(tb testing.TB, oc *OverlapCache, l *listing.Listing, tasks []Task) *OverlapMap {
	tb.Helper()
	vs := mustRank(tb, oc.c, l, tasks)
	m, err := oc.Map(context.Background(), l, vs)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// seedMap is the overlap map of one of the seeds' fixtures with its tasks.
func seedMap(t *testing.T, fixture, tasks string) *OverlapMap {
	t.Helper()
	l, err := listing.Parse(testutil.ReadShared(t, "reference", "fixtures", fixture), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseTasks(testutil.ReadShared(t, "reference", "fixtures", tasks), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Overlap(context.Background(), l, ts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func logPairs(t *testing.T, name string, m *OverlapMap, n int) {
	t.Logf("== %s: %d tools, %d pairs", name, len(m.Names), len(m.Pairs))
	for _, p := range m.Pairs[:min(n, len(m.Pairs))] {
		t.Logf("  %.2f desc %.2f/%.2f shared %.2f tasks %.2f lost %v close %v  %s / %s  [%v]", p.Strength, p.DescI, p.DescJ, p.Shared, p.Tasks, p.Lost, p.Close,
			m.Names[p.I], m.Names[p.J], m.SharedWords(p.I, p.J, 5))
	}
}

// pairKey names a pair by its tools' names, in name order.
func pairKey(m *OverlapMap, p Pair) [2]string {
	a, b := m.Names[p.I], m.Names[p.J]
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

func strengthOf(m *OverlapMap, a, b string) float64 {
	for _, p := range m.Pairs {
		if k := pairKey(m, p); k == [2]string{a, b} || k == [2]string{b, a} {
			return p.Strength
		}
	}
	return 0
}

// TestOverlapSeeds is the judgement: on the seeds' drafts the strongest pairs are the
// ones the seeds discuss as confusable (the draft's two lost tasks and its tie; the confusing
// set's find/search loss and its get_data/fetch_data twins), and they fade in the clear draft.
func TestOverlapSeeds(t *testing.T) {
	draft := seedMap(t, "draft-tools.json", "tasks-clear.json")
	clear := seedMap(t, "clear-tools.json", "tasks-clear.json")
	confusing := seedMap(t, "confusing-tools.json", "tasks-confusing.json")
	seedPairs := [][2]string{{"tickets_search", "users_find"}, {"tickets_create", "tickets_delete"}, {"tickets_add_comment", "tickets_get"}}
	top := map[[2]string]bool{}
	for _, p := range draft.Pairs[:3] {
		top[pairKey(draft, p)] = true
	}
	for _, sp := range seedPairs {
		if !top[sp] {
			t.Errorf("draft: %s / %s is not among the 3 strongest pairs %v", sp[0], sp[1], top)
		}
		d, c := strengthOf(draft, sp[0], sp[1]), strengthOf(clear, sp[0], sp[1])
		if c >= Ambiguous || c >= d {
			t.Errorf("%s / %s: strength %.2f in the draft, %.2f in the clear draft; want it to fade below %.1f", sp[0], sp[1], d, c, Ambiguous)
		}
	}
	if s := clear.Pairs[0].Strength; s >= Ambiguous {
		t.Errorf("clear: the strongest pair %v is at %.2f; want no pair competing as closely as an ambiguous task", pairKey(clear, clear.Pairs[0]), s)
	}
	for _, p := range confusing.Pairs {
		if k := pairKey(confusing, p); k == [2]string{"delete", "update"} && p.Merge {
			t.Errorf("confusing: update and delete are advised to merge (they do opposite things): %+v", p)
		}
	}
	want := map[[2]string]bool{{"find", "search"}: true, {"fetch_data", "get_data"}: true}
	for _, p := range confusing.Pairs[:3] {
		k := pairKey(confusing, p)
		delete(want, k)
		if k == [2]string{"fetch_data", "get_data"} && !p.Merge {
			t.Errorf("confusing: get_data and fetch_data are not advised to merge: %+v", p)
		}
	}
	if len(want) > 0 {
		t.Errorf("confusing: %v not among the 3 strongest pairs", want)
	}
}

// TestOverlapIncrementalMatchesFresh checks that the map after edits (description changed,
// blanked, made to name a neighbour, a tool renamed) equals the map computed afresh.
func TestOverlapIncrementalMatchesFresh(t *testing.T) {
	l, tasks := githubTasks(t)
	oc := NewOverlapCache(nil)
	mustMap(t, oc, l, tasks)
	edits := []func(*listing.Listing) *listing.Listing{
		func(l *listing.Listing) *listing.Listing {
			return overlapSetDesc(t, l, 5, "Merge a pull request into its base branch.")
		},
		func(l *listing.Listing) *listing.Listing { return overlapSetDesc(t, l, 8, "") },
		func(l *listing.Listing) *listing.Listing {
			return overlapSetDesc(t, l, 11, "List issues and pull requests of a repository; use "+l.Tools[12].Get("name").Str+" for one.")
		},
		func(l *listing.Listing) *listing.Listing {
			e, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/20/name", Value: listing.NewString("renamed_tool")})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
	}
	for k, edit := range edits {
		l = edit(l)
		got := mustMap(t, oc, l, tasks)
		want := mustMap(t, NewOverlapCache(nil), l, tasks)
		if !reflect.DeepEqual(got.Pairs, want.Pairs) || !reflect.DeepEqual(got.Order, want.Order) {
			t.Errorf("edit %d: the incremental overlap map differs from a fresh one: %s", k, firstPairDiff(got, want))
		}
		if k < 3 && oc.Reused == 0 {
			t.Errorf("edit %d: reused no row; a one-tool edit should reuse the rows it does not touch", k)
		}
		t.Logf("edit %d: reused %d of %d rows", k, oc.Reused, len(l.Tools))
	}
}

func firstPairDiff(got, want *OverlapMap) string {
	for k := range min(len(got.Pairs), len(want.Pairs)) {
		if !reflect.DeepEqual(got.Pairs[k], want.Pairs[k]) {
			return fmt.Sprintf("pair %d: %+v, want %+v", k, got.Pairs[k], want.Pairs[k])
		}
	}
	if len(got.Pairs) != len(want.Pairs) {
		return fmt.Sprintf("%d pairs, want %d", len(got.Pairs), len(want.Pairs))
	}
	return fmt.Sprintf("order %v, want %v", got.Order, want.Order)
}

// TestOverlapReport logs the five strongest pairs of each real listing, for the README
// (go test ./selection -run OverlapReport -v).
func TestOverlapReport(t *testing.T) {
	dir := testutil.Shared(t, "listings", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := listing.Parse(src, listing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Overlap(context.Background(), l, nil)
		if err != nil {
			t.Fatal(err)
		}
		logPairs(t, filepath.Base(f), m, 5)
		for _, p := range m.Pairs[:min(5, len(m.Pairs))] {
			t.Logf("    %s", m.Advice(p))
		}
	}
}

// TestOverlapMentions checks which neighbours a description names: whole names only, at
// sentence ends too, never the tool itself.
func TestOverlapMentions(t *testing.T) {
	l := parse(t, `[
	 {"name": "a_get", "description": "Use a_list first. Not a_list_all."},
	 {"name": "a_list", "description": "See a_get, or a_get."},
	 {"name": "a_list_all", "description": "Like xa_get or a_get2; a_list_all itself."}
	]`)
	got := mentions(l, NewRanker(l.Tools))
	want := [][]int{{1, 2}, {0}, nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mentions %v, want %v", got, want)
	}
}

// TestSeriate checks that the order keeps linked tools together, largest cluster first,
// unlinked tools last by name.
func TestSeriate(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		pairs []Pair
		want  []int
	}{
		{"none", 3, nil, []int{0, 1, 2}},
		{"chain", 5, []Pair{{I: 0, J: 3}, {I: 3, J: 1}, {I: 2, J: 4}}, []int{0, 3, 1, 2, 4}},
		{"join at the linked ends", 4, []Pair{{I: 0, J: 1}, {I: 2, J: 3}, {I: 0, J: 3}}, []int{1, 0, 3, 2}},
		{"singletons last", 4, []Pair{{I: 1, J: 3}}, []int{1, 3, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			byName := make([]int, tt.n)
			for i := range byName {
				byName[i] = i
			}
			if got := seriate(tt.n, tt.pairs, byName); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("seriate %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMentionsBounded: a description that names every tool of the listing is read for its first
// maxMentions names only, so that each row's words do not cost the number of tools.
func TestMentionsBounded(t *testing.T) {
	var b, hub strings.Builder
	b.WriteString("[")
	for i := range 100 {
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"does thing %d"},`, i, i)
		fmt.Fprintf(&hub, "tool_%d ", i)
	}
	fmt.Fprintf(&b, `{"name":"hub","description":%q}]`, hub.String())
	l := parse(t, b.String())
	m := mentions(l, NewRanker(l.Tools))
	if got := len(m[100]); got != maxMentions {
		t.Errorf("the hub names %d tools as read; want %d", got, maxMentions)
	}
}
