package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestOverlapGolden keeps workbench overlap's outputs, usage and errors as golden files.
func TestOverlapGolden(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	f := func(name string) string { return filepath.Join(fx, name) }
	hostile := `[{"name": "a_get", "description": "Get the \u001b[31mred\u001b[0m record by id"},` +
		`{"name": "b_\u202eget", "description": "Get the red record by id"}]`
	cases := []struct {
		name, stdin string
		args        []string
		code        int
	}{
		{"help", "", []string{"-h"}, 0},
		{"draft-tasks", "", []string{f("draft-tools.json"), "--tasks", f("tasks-clear.json"), "--top", "5"}, 0},
		{"clear-tasks", "", []string{f("clear-tools.json"), "--tasks", f("tasks-clear.json"), "--top", "5"}, 0},
		{"confusing-json", "", []string{f("confusing-tools.json"), "--tasks", f("tasks-confusing.json"), "--format", "json", "--top", "3"}, 0},
		{"clear-svg", "", []string{f("clear-tools.json"), "--format", "svg"}, 0},
		{"hostile-stdin", hostile, []string{"-"}, 0},
		{"no-source", "", nil, 2},
		{"two-sources", "", []string{f("clear-tools.json"), f("draft-tools.json")}, 2},
		{"bad-format", "", []string{f("clear-tools.json"), "--format", "html"}, 2},
		{"bad-top", "", []string{f("clear-tools.json"), "--top", "-1"}, 2},
		{"missing-file", "", []string{"no-such-listing.json"}, 2},
		{"broken-stdin", `[{"name": "x"`, []string{"-"}, 2},
		{"bad-tasks", `[{"name": "x"}]`, []string{"-", "--tasks", "no-such-tasks.json"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"overlap"}, c.args...)
			out, errs, code := runCLI(t, c.stdin, args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			}
			shown := strings.ReplaceAll(strings.Join(args, " "), fx, "FIXTURES")
			got := fmt.Sprintf("$ workbench %s\n%s[stderr]\n%s[exit %d]\n", shown, out, errs, code)
			testutil.Golden(t, filepath.Join("testdata", "overlap", c.name+".golden"), []byte(got))
		})
	}
}

// TestOverlapListedInHelp checks that workbench help lists the command.
func TestOverlapListedInHelp(t *testing.T) {
	out, _, code := runCLI(t, "", "help")
	if code != 0 || !strings.Contains(out, "\n  overlap  map which tools compete") {
		t.Errorf("exit %d; help does not list overlap:\n%s", code, out)
	}
}

// TestOverlapJSONShape checks the JSON output's members and that --top 0 lists every pair.
func TestOverlapJSONShape(t *testing.T) {
	src := testutil.Shared(t, "listings", "real", "kubernetes-mcp-server.json")
	out, errs, code := runCLI(t, "", "overlap", src, "--format", "json", "--top", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Tools []string `json:"tools"`
		Order []int    `json:"order"`
		Total int      `json:"totalPairs"`
		Pairs []struct {
			A, B     string
			Strength float64
			Words    []string `json:"sharedWords"`
			Advice   string
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Order) != len(doc.Tools) || len(doc.Pairs) != doc.Total || doc.Total == 0 {
		t.Fatalf("%d tools, order of %d, %d of %d pairs listed", len(doc.Tools), len(doc.Order), len(doc.Pairs), doc.Total)
	}
	for k, p := range doc.Pairs {
		if p.A == "" || p.B == "" || p.Advice == "" || p.Strength <= 0 || p.Strength > 1 || k > 0 && p.Strength > doc.Pairs[k-1].Strength {
			t.Errorf("pair %d: %+v", k, p)
		}
	}
}

// TestCheckOverlapMember checks check --overlap: the JSON report gains an overlap member with
// the strongest pairs, only when asked, and only in JSON.
func TestCheckOverlapMember(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	base := []string{"check", filepath.Join(fx, "draft-tools.json"), "--tasks", filepath.Join(fx, "tasks-clear.json"), "--format", "json"}
	tests := []struct {
		name   string
		extra  []string
		code   int
		member bool
	}{
		{"asked", []string{"--overlap"}, 1, true}, // the draft fails two tasks
		{"not asked", nil, 1, false},
		{"text", []string{"--overlap", "--format", "text"}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, "", append(append([]string{}, base...), tt.extra...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errs)
			}
			if code == 2 {
				return
			}
			var r struct {
				Overlap *struct {
					TotalPairs int `json:"totalPairs"`
					Pairs      []struct{ A, B string }
				} `json:"overlap"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if (r.Overlap != nil) != tt.member {
				t.Fatalf("overlap member present: %v, want %v", r.Overlap != nil, tt.member)
			}
			if tt.member && (len(r.Overlap.Pairs) == 0 || r.Overlap.Pairs[0].A != "tickets_search" || r.Overlap.Pairs[0].B != "users_find") {
				t.Errorf("overlap member %+v; want tickets_search / users_find first", r.Overlap)
			}
		})
	}
}
