package analysis

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// fixSource is a listing the fix tests read in place, with its task file when it has one.
type fixSource struct {
	name       string
	src, tasks []byte
}

// fixSources returns the seeds' fixtures, the five real listings and, with python3, a
// generated listing of 300 tools and 60 tasks.
func fixSources(t *testing.T) []fixSource {
	t.Helper()
	fx := func(parts ...string) []byte {
		return testutil.ReadShared(t, append([]string{"reference", "fixtures"}, parts...)...)
	}
	out := []fixSource{
		{name: "confusing", src: fx("confusing-tools.json"), tasks: fx("tasks-confusing.json")},
		{name: "draft", src: fx("draft-tools.json"), tasks: fx("tasks-clear.json")},
		{name: "clear", src: fx("clear-tools.json"), tasks: fx("tasks-clear.json")},
	}
	for _, f := range []string{"github-mcp-server", "gitlab-mcp-server", "kubernetes-mcp-server", "kubernetes-mcp-server-extra-toolsets", "mongodb-mcp-server"} {
		out = append(out, fixSource{name: f, src: testutil.ReadShared(t, "listings", "real", f+".json")})
	}
	if src, tasks, ok := genFixListing(t, 300, 60); ok {
		out = append(out, fixSource{name: "generated-300", src: src, tasks: tasks})
	}
	return out
}

// genFixListing runs the benchmark generator (../shared/bench/gen.py), or reports false
// without python3.
func genFixListing(t testing.TB, tools, tasks int) (src, taskSrc []byte, ok bool) {
	t.Helper()
	gen := testutil.Shared(t, "bench", "gen.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("no python3 on PATH: the generated listing is left out")
		return nil, nil, false
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, gen, fmt.Sprint(tools), fmt.Sprint(tasks), dir).CombinedOutput(); err != nil {
		t.Fatalf("gen.py: %v: %s", err, out)
	}
	if src, err = os.ReadFile(filepath.Join(dir, "listing.json")); err != nil {
		t.Fatal(err)
	}
	if taskSrc, err = os.ReadFile(filepath.Join(dir, "tasks.json")); err != nil {
		t.Fatal(err)
	}
	return src, taskSrc, true
}

func parseTasks(t testing.TB, src []byte) []selection.Task {
	t.Helper()
	if src == nil {
		return nil
	}
	tasks, err := selection.ParseTasks(src, false)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// TestFixListings fixes every shared listing, safe repairs only and then suggested ones too,
// and checks that no finding appears that was not there (the findings of the result, computed
// afresh by another engine, against those of the input), that a second Fix applies nothing,
// and that what no repair touched is written as before.
func TestFixListings(t *testing.T) {
	for _, s := range fixSources(t) {
		for _, opt := range []FixOptions{{}, {Suggested: true}} {
			t.Run(fmt.Sprintf("%s/suggested=%t", s.name, opt.Suggested), func(t *testing.T) {
				l, tasks := mustParse(t, s.src), parseTasks(t, s.tasks)
				ctx := context.Background()
				res, err := fixEngine(t).Fix(ctx, l, tasks, opt)
				if err != nil {
					t.Fatal(err)
				}
				fresh := fixEngine(t)
				after, err := fresh.fixFindings(ctx, res.Listing, res.Tasks)
				if err != nil {
					t.Fatal(err)
				}
				var renames []lint.Rename
				for _, r := range res.Applied {
					renames = append(renames, r.Renames...)
					if r.Kind != lint.FixSafe && !opt.Suggested {
						t.Errorf("a %s repair applied without Suggested: %s", r.Kind, r.Title)
					}
				}
				if appeared(res.Before, after, renames) {
					t.Errorf("a finding appeared:\nbefore %v\nafter %v", res.Before, after)
				}
				if len(after) > len(res.Before) {
					t.Errorf("%d findings after, %d before", len(after), len(res.Before))
				}
				again, err := fresh.Fix(ctx, res.Listing, res.Tasks, opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(again.Applied) != 0 || string(again.Listing.Marshal("  ")) != string(res.Listing.Marshal("  ")) {
					t.Errorf("a second Fix applied %d repairs: %+v", len(again.Applied), again.Applied)
				}
				if len(res.Applied) == 0 && res.Listing != l {
					t.Error("nothing applied, yet the listing is another")
				}
				checkUntouched(t, l, res)
			})
		}
	}
}

// checkUntouched checks that a fixed listing differs from the input only at the paths its
// repairs edited: each tool no repair touched is the same value, written the same.
func checkUntouched(t *testing.T, l *listing.Listing, res FixResult) {
	t.Helper()
	touched := map[string]bool{}
	for _, r := range res.Applied {
		for _, op := range r.Ops {
			toks, _ := listing.SplitPointer(op.Path)
			touched[toks[1]] = true
		}
	}
	if len(res.Listing.Tools) != len(l.Tools) {
		t.Fatalf("%d tools after, %d before", len(res.Listing.Tools), len(l.Tools))
	}
	for i, tool := range l.Tools {
		if touched[fmt.Sprint(i)] {
			continue
		}
		if res.Listing.Tools[i] != tool {
			t.Errorf("tool %d was not repaired but is another value", i)
		}
	}
	if !listing.Equal(l.Envelope, res.Listing.Envelope) {
		t.Error("the envelope changed")
	}
}
