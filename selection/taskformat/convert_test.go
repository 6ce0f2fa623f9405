package taskformat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// examples are the files written in our words from each format's documented examples.
var examples = []struct{ file, format string }{
	{"mcpjam/suite.yaml", "mcpjam"},
	{"mcpjam/legacy-tests.json", "mcpjam"},
	{"promptfoo/promptfooconfig.yaml", "promptfoo"},
	{"promptfoo/mcp-routing.yaml", "promptfoo"},
}

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConvertGolden converts every example to every format of this file's, detected by shape,
// and keeps the output and the losses as golden files.
func TestConvertGolden(t *testing.T) {
	for _, ex := range examples {
		for _, to := range []string{Workbench, "mcpjam", "promptfoo"} {
			t.Run(ex.file+"->"+to, func(t *testing.T) {
				res, err := Convert(readExample(t, ex.file), "", to)
				if err != nil {
					t.Fatal(err)
				}
				if res.From != ex.format {
					t.Fatalf("detected %s, want %s", res.From, ex.format)
				}
				var b bytes.Buffer
				b.Write(res.Out)
				fmt.Fprintf(&b, "--- %d cases, %d losses\n", res.Cases, len(res.Losses))
				for _, l := range res.Losses {
					fmt.Fprintln(&b, l)
				}
				name := strings.NewReplacer("/", "_", ".", "_").Replace(ex.file) + "." + to
				testutil.Golden(t, filepath.Join("testdata", "golden", name), b.Bytes())
			})
		}
	}
}

func caseJSON(t *testing.T, cs []Case) string {
	t.Helper()
	b, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRoundTrip reads each example, writes it in its own format and reads that back: every
// part of a case the format carries comes back the same.
func TestRoundTrip(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.file, func(t *testing.T) {
			f, err := Lookup(ex.format)
			if err != nil {
				t.Fatal(err)
			}
			first, _, err := f.Read(readExample(t, ex.file))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := f.Write(first)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Detect(out) {
				t.Errorf("%s does not detect its own output:\n%s", ex.format, out)
			}
			again, _, err := f.Read(out)
			if err != nil {
				t.Fatalf("reading back: %v\n%s", err, out)
			}
			want := first
			if ex.format == "mcpjam" {
				want = jamCarried(first)
			}
			if a, b := caseJSON(t, want), caseJSON(t, again); a != b {
				t.Errorf("round trip changed the cases:\nfirst %s\nagain %s", a, b)
			}
		})
	}
}

// jamCarried is what an MCPJam suite file can say of cases: ids (written for cases without
// one), one alternative of an any-of, no tags.
func jamCarried(cs []Case) []Case {
	out := make([]Case, len(cs))
	for i, c := range cs {
		if c.ID == "" {
			c.ID = fmt.Sprintf("c_%d", i+1)
		}
		if c.AnyOf {
			c.Expect, c.AnyOf = c.Expect[:1], false
		}
		c.Tags = nil
		out[i] = c
	}
	return out
}

const tripListing = `{"tools": [
 {"name": "get_forecast", "description": "Get the weather forecast (rain, temperature) for a city on a day.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
 {"name": "search_flights", "description": "Search flights between two cities on a date.", "inputSchema": {"type": "object"}},
 {"name": "book_hotel", "description": "Book a hotel room in a city for some nights.", "inputSchema": {"type": "object"}},
 {"name": "cancel_booking", "description": "Cancel an existing booking.", "inputSchema": {"type": "object"}}
]}`

// TestImportScoreExport imports each example, ranks its tasks against a small listing, and
// exports the tasks back to the example's format: what both the format and the task file
// carry (query, first expected tool and its arguments, id, tags, "no tool") survives.
func TestImportScoreExport(t *testing.T) {
	l, err := listing.Parse([]byte(tripListing), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.file, func(t *testing.T) {
			f, _ := Lookup(ex.format)
			cases, _, err := f.Read(readExample(t, ex.file))
			if err != nil {
				t.Fatal(err)
			}
			tasks, _ := ToTasks(cases)
			verdicts, err := selection.NewCache(0).Rank(context.Background(), l, tasks, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(verdicts) != len(tasks) {
				t.Fatalf("%d verdicts for %d tasks", len(verdicts), len(tasks))
			}
			for _, v := range verdicts {
				if v.Task.Expected() != "" && v.Expected == nil {
					t.Errorf("task %d: the expected tool %s was not scored", v.N, v.Task.Expected())
				}
			}
			out, wl, err := f.Write(FromTasks(tasks))
			if err != nil {
				t.Fatal(err)
			}
			// An id the format cannot spell is rewritten, and the loss says so.
			idLost := map[int]bool{}
			for _, l := range wl {
				if l.Field == "id" {
					idLost[l.Case] = true
				}
			}
			back, _, err := f.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			backTasks, _ := ToTasks(back)
			for i := range tasks {
				if idLost[i] {
					backTasks[i].ID = tasks[i].ID
				}
				a, b := shared(tasks[i], ex.format), shared(backTasks[i], ex.format)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("task %d: exported back as %+v, want %+v", i+1, b, a)
				}
			}
		})
	}
}

// shared is what of a task both the task file and the format carry.
func shared(t selection.Task, format string) string {
	args := ""
	if t.Args != nil {
		args = string(listing.Marshal(t.Args, ""))
	}
	s := fmt.Sprintf("id=%s task=%q expect=%q args=%s", t.ID, t.Task, t.Expected(), args)
	if format != "mcpjam" {
		s += fmt.Sprintf(" tags=%v", t.Tags)
	}
	return s
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func argsValue(s string) *listing.Value {
	v, err := listing.ParseJSON([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}
