package selection

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// rotationListings are small listings with exact ties: equal descriptions under different
// names, a name shared by two tools, and tools no task reaches.
var rotationListings = []struct {
	name, src string
	tasks     []Task
}{
	{"equal descriptions", `[
	 {"name": "list_loans", "description": "List a member's loans."},
	 {"name": "place_hold", "description": "Reserve a book."},
	 {"name": "loans_list", "description": "List a member's loans."},
	 {"name": "loans_show", "description": "List a member's loans."},
	 {"name": "renew", "description": "Renew a loan."}
	]`, []Task{
		{Task: "list my loans", Expect: strp("loans_list")},
		{Task: "show the member loans", Expect: strp("loans_show")},
		{Task: "reserve a book", Expect: strp("place_hold")},
		{Task: "renew", Expect: strp("renew")},
		{Task: "list loans", Expect: strp("missing_tool")},
		{Task: "list loans"},
		{Task: "zzz", Expect: strp("renew")},
	}},
	{"a shared name", `[
	 {"name": "search", "description": "Search the catalogue for books."},
	 {"name": "find_books", "description": "Search the catalogue for books."},
	 {"name": "search", "description": "Search the catalogue for books."},
	 {"name": "authors", "description": "Look up an author."}
	]`, []Task{
		{Task: "search the catalogue for books", Expect: strp("search")},
		{Task: "catalogue books", Expect: strp("find_books")},
		{Task: "look up an author", Expect: strp("authors")},
	}},
	{"one tool", `[{"name": "only", "description": "Does the one thing."}]`, []Task{
		{Task: "the one thing", Expect: strp("only")},
	}},
}

// rotate lists the tools of l from k on, then the first k.
func rotate(t *testing.T, l *listing.Listing, k int) *listing.Listing {
	t.Helper()
	n := len(l.Tools)
	tools := make([]*listing.Value, n)
	for j := range tools {
		tools[j] = l.Tools[(k+j)%n]
	}
	return &listing.Listing{Tools: tools}
}

// TestOrderBiasMatchesEveryRotation ranks every rotation of each listing afresh and breaks an
// exact tie at the top by position: the winners' rotation counts, the expected tool's share
// and the flips must be the ones computed from one scoring.
func TestOrderBiasMatchesEveryRotation(t *testing.T) {
	for _, c := range rotationListings {
		t.Run(c.name, func(t *testing.T) {
			l := parse(t, c.src)
			n := len(l.Tools)
			got := NewRanker(l.Tools).OrderBiases(c.tasks)
			byTask := map[int]TaskOrderBias{}
			for _, tb := range got.Tasks {
				byTask[tb.N] = tb
			}
			for ti, task := range c.tasks {
				want, expWins := map[int]int{}, 0
				for k := range n {
					s := NewRanker(rotate(t, l, k).Tools).Scores(task.Task)
					top := slices.Max(s)
					if top == 0 {
						continue
					}
					j := slices.Index(s, top) // the first listed of the top scores
					want[(k+j)%n]++
					if task.Accepts(l.Tools[(k+j)%n].Get("name").Str) {
						expWins++
					}
				}
				tb, tied := byTask[ti+1]
				gotWins := map[int]int{}
				for _, w := range tb.Wins {
					gotWins[w.Tool] = w.Rotations
				}
				if len(want) < 2 {
					if tied {
						t.Errorf("task %q: listed as tied %+v, but one tool wins every rotation", task.Task, tb)
					}
					continue
				}
				if !maps.Equal(gotWins, want) || tb.ExpectedWins != expWins || tb.Flips != (expWins > 0 && expWins < n) {
					t.Errorf("task %q: wins %v, expected %d, flips %v; every rotation gives %v and %d", task.Task, gotWins, tb.ExpectedWins, tb.Flips, want, expWins)
				}
			}
		})
	}
}

// TestReferenceVerdictsIgnoreRotation checks the claim the report makes: the reference's
// verdicts (status and the winner's name) are the same under every rotation.
func TestReferenceVerdictsIgnoreRotation(t *testing.T) {
	for _, c := range rotationListings {
		l := parse(t, c.src)
		base := Rank(l, c.tasks, false)
		for k := 1; k < len(l.Tools); k++ {
			for i, v := range Rank(rotate(t, l, k), c.tasks, false) {
				if v.Status != base[i].Status || v.Winner.Name != base[i].Winner.Name {
					t.Errorf("%s, rotation %d, task %q: %s won by %s; as listed %s won by %s", c.name, k, v.Task.Task, v.Status, v.Winner.Name, base[i].Status, base[i].Winner.Name)
				}
			}
		}
	}
}

// TestOrderBiasSummary checks the counts on the first listing by hand. "list my loans" and
// "list loans" tie list_loans (tool 0) with loans_list (tool 2) on their name words: tool 0
// wins rotations 3, 4 and 0, tool 2 rotations 1 and 2. Only the first of those tasks expects
// one of them (loans_list: 2 of 5), so it alone flips; "list loans" is tied twice (expecting
// a missing tool, and no tool).
func TestOrderBiasSummary(t *testing.T) {
	c := rotationListings[0]
	ob := OrderBiasOf(parse(t, c.src), c.tasks)
	if ob.Rotations != 5 || ob.Tied != 3 || ob.Flips != 1 || len(ob.Tasks) != 3 {
		t.Errorf("rotations %d, tied %d, flips %d, %d tasks listed; want 5, 3, 1 and 3", ob.Rotations, ob.Tied, ob.Flips, len(ob.Tasks))
	}
	first := ob.Tasks[0]
	wantWins := []RotationWins{{0, "list_loans", 3}, {2, "loans_list", 2}}
	if first.N != 1 || !slices.Equal(first.Wins, wantWins) || first.ExpectedWins != 2 || first.PExpected != 0.4 || !first.Flips {
		t.Errorf("first tied task %+v, want n 1 won by loans_list in 2 of 5 rotations", first)
	}
	// Six tasks expect a tool; the reference counts the first four right (the tie is
	// ambiguous, not wrong); by position the first is right in 2 of 5 rotations.
	if ob.ReferenceRate != 4.0/6 || ob.ExpectedRate != 3.4/6 {
		t.Errorf("reference rate %v, expected rate %v; want 4/6 and 3.4/6", ob.ReferenceRate, ob.ExpectedRate)
	}
}

// BenchmarkOrderBias computes the rotation order bias of the GitHub listing's 200 tasks (the
// tasks BenchmarkRank ranks).
func BenchmarkOrderBias(b *testing.B) {
	l, tasks := githubTasks(b)
	var ob OrderBias
	for b.Loop() {
		ob = OrderBiasOf(l, tasks)
	}
	b.ReportMetric(float64(ob.Tied), "tied-tasks")
	b.ReportMetric(float64(ob.Flips), "flips")
}

// TestOrderBiasAnswers: a task that accepts both tied tools is right under every rotation,
// whichever of them the order puts first; one that accepts only one of them flips.
func TestOrderBiasAnswers(t *testing.T) {
	c := rotationListings[0]
	l := parse(t, c.src)
	set := []string{"list_loans", "loans_list"}
	for _, tc := range []struct {
		task   Task
		expect float64
		flips  int
	}{
		{Task{Task: "list my loans", Expect: &set[1], AnyOf: set}, 1, 0},
		{Task{Task: "list my loans", Expect: &set[1]}, 0.4, 1},
	} {
		ob := OrderBiasOf(l, []Task{tc.task})
		if ob.ExpectedRate != tc.expect || ob.Flips != tc.flips {
			t.Errorf("expect %v: expected rate %v, flips %d; want %v and %d", tc.task.Answers(), ob.ExpectedRate, ob.Flips, tc.expect, tc.flips)
		}
	}
}

// TestOrderBiasBounded: identical tools and tasks tie everything with everything; the report
// still counts every tie but lists at most MaxOrderBiasTasks tasks of MaxOrderBiasWins tools.
func TestOrderBiasBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 50 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"t%d","description":"list the open tickets"}`, i)
	}
	b.WriteString("]")
	tasks := make([]Task, MaxOrderBiasTasks+100)
	for i := range tasks {
		tasks[i] = Task{Task: "list open tickets"}
	}
	ob := OrderBiasOf(parse(t, b.String()), tasks)
	if ob.Tied != len(tasks) || len(ob.Tasks) != MaxOrderBiasTasks || ob.More != 100 {
		t.Fatalf("tied %d, listed %d, more %d; want %d, %d, 100", ob.Tied, len(ob.Tasks), ob.More, len(tasks), MaxOrderBiasTasks)
	}
	if tb := ob.Tasks[0]; tb.TiedTools != 50 || len(tb.Wins) != MaxOrderBiasWins {
		t.Errorf("a task lists %d of %d tied tools; want %d of 50", len(tb.Wins), tb.TiedTools, MaxOrderBiasWins)
	}
}
