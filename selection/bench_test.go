package selection

import (
	"fmt"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkRank ranks the GitHub server's 117 tools for 200 tasks made from their own
// descriptions (the browser re-ranks like this on every edit).
func BenchmarkRank(b *testing.B) {
	l, tasks := githubTasks(b)
	for b.Loop() {
		Rank(l, tasks, true)
	}
}

// BenchmarkRankAfterEdit re-ranks the same 200 tasks after a one-tool edit, with the word sets
// of the other tools and of the tasks cached (what the browser does on a keystroke).
func BenchmarkRankAfterEdit(b *testing.B) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var tasks []Task
	for i := 0; len(tasks) < 200; i++ {
		t := l.Tools[i%len(l.Tools)]
		name := t.Get("name").Str
		d := t.Get("description").Str
		if len(d) > 80 {
			d = d[:80]
		}
		tasks = append(tasks, Task{Task: d, Expect: &name})
	}
	c := NewCache(0)
	mustRank(b, c, l, tasks)
	i := 0
	for b.Loop() {
		i++
		edited, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/3/description", Value: listing.NewString(fmt.Sprintf("Edit number %d of a description.", i))})
		if err != nil {
			b.Fatal(err)
		}
		mustRank(b, c, edited, tasks)
	}
}

// BenchmarkRankAfterRename re-ranks the 200 tasks after renaming one tool: names order tied
// scores, so every task is judged again (the worst case of an edit; compare
// BenchmarkRankAfterEdit, where only tasks that share a changed word are).
func BenchmarkRankAfterRename(b *testing.B) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var tasks []Task
	for i := 0; len(tasks) < 200; i++ {
		t := l.Tools[i%len(l.Tools)]
		name := t.Get("name").Str
		d := t.Get("description").Str
		if len(d) > 80 {
			d = d[:80]
		}
		tasks = append(tasks, Task{Task: d, Expect: &name})
	}
	c := NewCache(0)
	mustRank(b, c, l, tasks)
	i := 0
	for b.Loop() {
		i++
		edited, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/3/name", Value: listing.NewString(fmt.Sprintf("renamed_%d", i))})
		if err != nil {
			b.Fatal(err)
		}
		mustRank(b, c, edited, tasks)
	}
}

// githubTasks is the GitHub server's listing with 200 tasks made from its tools' own
// descriptions (their first 80 bytes), which the selection benchmarks rank.
func githubTasks(tb testing.TB) (*listing.Listing, []Task) {
	tb.Helper()
	l, err := listing.Parse(testutil.ReadShared(tb, "listings", "real", "github-mcp-server.json"), listing.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var tasks []Task
	for i := 0; len(tasks) < 200; i++ {
		t := l.Tools[i%len(l.Tools)]
		name := t.Get("name").Str
		d := t.Get("description").Str
		if len(d) > 80 {
			d = d[:80]
		}
		tasks = append(tasks, Task{Task: d, Expect: &name})
	}
	return l, tasks
}
