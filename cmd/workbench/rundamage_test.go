package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
)

// TestRunDamage runs a fake model (it calls the ranker's winner) with --damage on a listing
// where one tool's name says nothing of its task and the other's says it all: removing the
// first one's description loses its task, the second keeps its own; --max-calls leaves tools
// out and says so; the text report shows the same.
func TestRunDamage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := write("tools.json", `[{"name": "zq_1", "description": "Show the weather forecast for a city.", "inputSchema": {"type": "object"}},
	 {"name": "notes_add", "description": "Store a short text.", "inputSchema": {"type": "object"}}]`)
	tasks := write("tasks.json", `[{"task": "weather forecast for Oslo", "expect": "zq_1"},
	 {"task": "add notes about lunch", "expect": "notes_add"}, {"task": "hello", "expect": null}]`)
	url := fakeURL(t, &fake.Server{})
	args := []string{"run", src, "--tasks", tasks, "--base-url", url, "--model", "fake", "--samples", "2", "--estimate-tokenizer", "off", "--cache-dir", "off", "--damage"}
	type report struct {
		Damage *struct {
			MaxCalls, Calls int
			Tools           []struct {
				Tool                                                          string
				Tasks, IntactCorrect, IntactScored, BlankCorrect, BlankScored int
				Fall                                                          float64
			}
			Skipped []string
		}
	}
	for _, tt := range []struct {
		name    string
		extra   []string
		tools   map[string]float64 // tool: fall
		skipped []string
		calls   int
	}{
		{"all", nil, map[string]float64{"zq_1": 1, "notes_add": 0}, []string{}, 4},
		{"bounded", []string{"--max-calls", "3"}, map[string]float64{"zq_1": 1}, []string{"notes_add"}, 2},
	} {
		out, errs, code := runWith(t, nil, append(append(args, tt.extra...), "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.name, code, errs)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Damage == nil {
			t.Fatalf("%s: no damage member (%v):\n%s", tt.name, err, out)
		}
		d := r.Damage
		if d.Calls != tt.calls || strings.Join(d.Skipped, ",") != strings.Join(tt.skipped, ",") || len(d.Tools) != len(tt.tools) {
			t.Errorf("%s: %d calls, skipped %v, %d tools; want %d, %v, %d", tt.name, d.Calls, d.Skipped, len(d.Tools), tt.calls, tt.skipped, len(tt.tools))
		}
		for _, g := range d.Tools {
			fall, ok := tt.tools[g.Tool]
			if !ok || g.Fall != fall || g.Tasks != 1 || g.IntactScored != 2 || g.BlankScored != 2 || g.IntactCorrect != 2 {
				t.Errorf("%s: %+v; want fall %v on 1 task of 2 calls, won intact", tt.name, g, fall)
			}
		}
	}
	text, errs, code := runWith(t, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"damage test with the model:", "zq_1: 1 tasks, right 2/2 intact, 0/2 without its description, fall 100%: its description carries it",
		"notes_add: 1 tasks, right 2/2 intact, 2/2 without its description, fall 0%: its name alone carries it"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
	if _, errs, code := runWith(t, nil, append(args[:len(args)-1], "--max-calls", "5")...); code != 2 || !strings.Contains(errs, "with --damage") {
		t.Errorf("--max-calls without --damage: exit %d, %q", code, errs)
	}
}
