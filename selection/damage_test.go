package selection

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// damageEdit sets the value at path (a JSON pointer) of l.
func damageEdit(t testing.TB, l *listing.Listing, path, v string) *listing.Listing {
	t.Helper()
	e, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: path, Value: listing.NewString(v)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustDamage(t testing.TB, dc *DamageCache, l *listing.Listing, tasks []Task) []ToolDamage {
	t.Helper()
	ds, err := dc.Test(context.Background(), l, tasks)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestDamagedPlaceMatchesRank checks the damage test's shortcut (one tool's words replaced,
// weights recomputed) against ranking the damaged listing itself: places and shares bit-equal.
func TestDamagedPlaceMatchesRank(t *testing.T) {
	l, tasks := githubTasks(t)
	for _, tool := range []int{0, 3, 40, 116} {
		d := l.Tools[tool].Get("description").Str
		for _, desc := range []string{"", GenericDescription, TruncateDescription(d)} {
			damaged := damageEdit(t, l, fmt.Sprintf("/tools/%d/description", tool), desc)
			r := NewRanker(l.Tools)
			rd := NewRanker(damaged.Tools)
			body := bodyWordsDesc(l.Tools[tool], desc)
			sc := r.newScratch()
			for _, task := range tasks {
				all := sortedContent(task.Task)
				place, shr, _ := r.damagedPlace(all, tool, body, sc, nil)
				s := rd.scores(rd.filter(all))
				want, top := 1, 0.0
				for j := range s {
					top = max(top, s[j])
					if j != tool && rd.before(s, j, tool) {
						want++
					}
				}
				wantShare := 0.0
				if top > 0 {
					wantShare = s[tool] / top
				}
				if place != want || shr != wantShare {
					t.Fatalf("tool %d, description %q, task %q: damaged place %d share %v; ranking the damaged listing gives %d, %v", tool, desc, task.Task, place, shr, want, wantShare)
				}
			}
		}
	}
}

// TestDamageIncrementalMatchesFresh checks that the damage test after each edit equals one
// computed afresh, and that edits reuse results.
func TestDamageIncrementalMatchesFresh(t *testing.T) {
	l, tasks := githubTasks(t)
	c := NewCache(0)
	dc := NewDamageCache(c)
	mustDamage(t, dc, l, tasks)
	edits := []struct{ path, value string }{
		{"/tools/5/description", "Merge a pull request into its base branch."},
		{"/tools/8/description", ""},
		{"/tools/11/description", "List issues and pull requests of a repository."},
		{"/tools/20/title", "Search code"},
		{"/tools/2/name", "renamed_tool"},
	}
	reusedAny := false
	for i, e := range edits {
		l = damageEdit(t, l, e.path, e.value)
		got := mustDamage(t, dc, l, tasks)
		want := mustDamage(t, NewDamageCache(nil), l, tasks)
		if !reflect.DeepEqual(got, want) {
			for k := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Fatalf("edit %d (%s): the incremental damage test differs from a fresh one: %+v, want %+v", i, e.path, got[k], want[k])
				}
			}
			t.Fatalf("edit %d (%s): %d tools damaged after the edit, %d afresh", i, e.path, len(got), len(want))
		}
		reusedAny = reusedAny || dc.Reused() > 0
		t.Logf("edit %d (%s): reused %d of %d tools", i, e.path, dc.Reused(), len(got))
	}
	if !reusedAny {
		t.Error("no edit reused any tool's result")
	}
	// Other tasks: nothing is reused.
	mustDamage(t, dc, l, tasks[:100])
	if dc.Reused() != 0 {
		t.Errorf("a damage test of other tasks reused %d results", dc.Reused())
	}
}

// TestDamageBaseMatchesVerdicts checks that the intact result counts as won exactly the tasks
// the ranker judges clear or ambiguous.
func TestDamageBaseMatchesVerdicts(t *testing.T) {
	l, tasks := githubTasks(t)
	won := map[string]int{}
	for _, v := range Rank(l, tasks, false) {
		if v.Status == Clear || v.Status == Close {
			won[v.Task.Expected()]++
		}
	}
	for _, d := range mustDamage(t, NewDamageCache(nil), l, tasks) {
		if d.Base.Won != won[d.Name] {
			t.Errorf("%s: intact it wins %d tasks; the ranker gives it %d", d.Name, d.Base.Won, won[d.Name])
		}
	}
}

func TestTruncateDescription(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one two", "one"},
		{"one two three", "one two"},
		{"  one\ttwo\nthree four  ", "one two"},
	}
	for _, tt := range tests {
		if got := TruncateDescription(tt.in); got != tt.want {
			t.Errorf("TruncateDescription(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// damageOf runs the damage test of a listing with tasks and returns the results by name.
func damageOf(t *testing.T, l *listing.Listing, tasks []Task) map[string]ToolDamage {
	t.Helper()
	out := map[string]ToolDamage{}
	for _, d := range mustDamage(t, NewDamageCache(nil), l, tasks) {
		out[d.Name] = d
	}
	return out
}

// TestDamageClassifies checks the judgement on a listing of our own (as the hidden listings
// are): two tools whose names say everything their tasks ask, one whose name says nothing of
// them, and a fourth that wins none of its tasks.
func TestDamageClassifies(t *testing.T) {
	l := parse(t, `[
	 {"name": "renew_loan", "description": "Extend the due date of a borrowed copy by two weeks."},
	 {"name": "pay_fine", "description": "Settle the charges a member owes for late returns."},
	 {"name": "desk_assistant", "description": "Reserve a book that is out on loan, so the member is told when it comes back."},
	 {"name": "opening_hours", "description": "The hours each branch is open."}
	]`)
	tasks := []Task{
		{Task: "renew my loan", Expect: strp("renew_loan")},
		{Task: "please renew the loan on my book", Expect: strp("renew_loan")},
		{Task: "pay the fine on my account", Expect: strp("pay_fine")},
		{Task: "reserve the book that is out", Expect: strp("desk_assistant")},
		{Task: "reserve a copy for me", Expect: strp("desk_assistant")},
		{Task: "pay my loan fine", Expect: strp("opening_hours")},
		{Task: "what is the weather", Expect: nil},
	}
	got := damageOf(t, l, tasks)
	want := map[string]string{"renew_loan": CarriedByName, "pay_fine": CarriedByName,
		"desk_assistant": CarriedByDescription, "opening_hours": CarriedByNothing}
	if len(got) != len(want) {
		t.Errorf("%d tools damaged, want %d: %v", len(got), len(want), got)
	}
	for name, c := range want {
		d := got[name]
		if d.CarriedBy != c {
			t.Errorf("%s: carried by %q (intact %+v, after %+v), want %q", name, d.CarriedBy, d.Base, d.After, c)
		}
	}
	if d := got["desk_assistant"]; d.Lost != 1 || d.After[0].Won != 0 || d.After[0].MeanShare != 0 {
		t.Errorf("desk_assistant blanked: lost %v, %+v; want every task lost and no score", d.Lost, d.After[0])
	}
	if d := got["renew_loan"]; d.Lost != 0 || d.Tasks != 2 || d.Base.WonShare != 1 {
		t.Errorf("renew_loan: lost %v of %d tasks, intact %+v; want none lost of 2, all won", d.Lost, d.Tasks, d.Base)
	}
}

// damageFixture runs the damage test of a seed listing with a seed task file.
func damageFixture(t *testing.T, listingFile, tasksFile string) map[string]ToolDamage {
	t.Helper()
	l, err := listing.Parse(testutil.ReadShared(t, "reference", "fixtures", listingFile), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := ParseTasks(testutil.ReadShared(t, "reference", "fixtures", tasksFile), false)
	if err != nil {
		t.Fatal(err)
	}
	return damageOf(t, l, tasks)
}

// TestDamageSeeds checks the seeds: the confusing listing's generic names win only through
// their descriptions, the draft's ticket tools fall when blanked, and on the GitHub listing's
// benchmark tasks most tools survive blanking on their names and parameters.
func TestDamageSeeds(t *testing.T) {
	confusing := damageFixture(t, "confusing-tools.json", "tasks-confusing.json")
	for name, want := range map[string]string{"get_data": CarriedByDescription, "find": CarriedByDescription,
		"update": CarriedByDescription, "delete": CarriedByDescription, "create": CarriedByName} {
		if d := confusing[name]; d.CarriedBy != want {
			t.Errorf("confusing %s: carried by %q (intact %+v, blank %+v), want %q", name, d.CarriedBy, d.Base, d.After[0], want)
		}
	}
	draft := damageFixture(t, "draft-tools.json", "tasks-clear.json")
	if d := draft["tickets_update_status"]; d.CarriedBy != CarriedByDescription || d.Lost != 1 {
		t.Errorf("draft tickets_update_status: carried by %q, loses %v blanked; want its one task lost", d.CarriedBy, d.Lost)
	}
	if d := draft["tickets_search"]; d.After[0].MeanShare > d.Base.MeanShare-0.3 {
		t.Errorf("draft tickets_search: share of the winner %.2f intact, %.2f blanked; want a fall of 0.3 or more", d.Base.MeanShare, d.After[0].MeanShare)
	}
	gl, gtasks := githubTasks(t)
	count := map[string]int{}
	for _, d := range mustDamage(t, NewDamageCache(nil), gl, gtasks) {
		count[d.CarriedBy]++
	}
	if count[CarriedByName] < 2*count[CarriedByDescription] || 2*count[CarriedByName] < len(gl.Tools) {
		t.Errorf("GitHub benchmark tasks: %v tools by carrier; want most to win by name alone", count)
	}
	t.Logf("GitHub benchmark tasks: %v tools by carrier", count)
}

func benchDamageTest(b *testing.B, edit bool) {
	l, tasks := githubTasks(b)
	c := NewCache(0)
	dc := NewDamageCache(c)
	mustDamage(b, dc, l, tasks)
	i := 0
	for b.Loop() {
		cur := l
		if edit {
			i++
			cur = damageEdit(b, l, "/tools/3/description", fmt.Sprintf("Edit number %d of a description about issues.", i))
		} else {
			dc = NewDamageCache(c)
		}
		mustDamage(b, dc, cur, tasks)
	}
	b.ReportMetric(float64(dc.Reused()), "reused-tools")
}

// BenchmarkDamageGitHub runs the damage test of the GitHub listing's 117 tools with
// BenchmarkRank's 200 tasks from scratch (word sets cached, as on a page's first load).
func BenchmarkDamageGitHub(b *testing.B) { benchDamageTest(b, false) }

// BenchmarkDamageGitHubAfterEdit runs it again after a one-tool edit (what the browser would do
// on a keystroke).
func BenchmarkDamageGitHubAfterEdit(b *testing.B) { benchDamageTest(b, true) }

// TestDamageStops checks that a done context stops the damage test with its error.
func TestDamageStops(t *testing.T) {
	l, tasks := githubTasks(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewDamageCache(nil).Test(ctx, l, tasks); !errors.Is(err, context.Canceled) {
		t.Errorf("damage test with a cancelled context: %v, want context.Canceled", err)
	}
}
