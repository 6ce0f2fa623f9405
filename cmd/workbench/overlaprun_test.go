package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// fakeRunFile runs a fake model on the tickets listing, with tasks that cue it to call the
// second-ranked tool, and returns the run file.
func fakeRunFile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	tasks := filepath.Join(dir, "wrong.json")
	src := `[{"task": "Show me ticket 4521 [[wrong]]", "expect": "tickets_get"},
	 {"task": "Find open tickets", "expect": "tickets_search"},
	 {"task": "Remove ticket 9 permanently [[wrong]]", "expect": "tickets_delete"},
	 {"task": "Look up the user Maria by email", "expect": "users_find"}]`
	if err := os.WriteFile(tasks, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	runFile := filepath.Join(dir, "run.jsonl")
	_, errs, code := runWith(t, nil, "run", filepath.Join(runTD, "tickets.json"), "--tasks", tasks, "--base-url", fakeURL(t, &fake.Server{}),
		"--model", "fake", "--samples", "2", "--estimate-tokenizer", "off", "--cache-dir", "off", "--out", runFile)
	if code != 0 {
		t.Fatalf("workbench run: exit %d: %s", code, errs)
	}
	return runFile
}

// TestOverlapRun: workbench overlap --run gives each pair the model part of the run's
// confusion matrix, computed here from the run file's own score, and shows it in every format.
func TestOverlapRun(t *testing.T) {
	runFile := fakeRunFile(t)
	rf, err := runner.OpenRunFile(runFile)
	if err != nil {
		t.Fatal(err)
	}
	c := runner.ScoreRun(rf.Run).Confusion
	at := map[string]int{}
	for k, l := range c.Labels {
		at[l] = k
	}
	row := func(name string) int {
		n := 0
		for _, v := range c.Counts[at[name]] {
			n += v
		}
		return n
	}
	src := filepath.Join(runTD, "tickets.json")
	out, errs, code := runCLI(t, "", "overlap", src, "--run", runFile, "--format", "json", "--top", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Run   *struct{ Scored, Matched int } `json:"run"`
		Pairs []struct {
			A, B          string
			Strength      float64
			Model         *float64
			ModelConfused int
			ModelCalls    int
			Advice        string
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Run == nil || doc.Run.Scored != 8 || doc.Run.Matched != 4 {
		t.Errorf("run %+v, want 8 scored calls and 4 tools matched", doc.Run)
	}
	confused := 0
	for _, p := range doc.Pairs {
		a, b := at[p.A], at[p.B]
		n := c.Counts[a][b] + c.Counts[b][a]
		calls := row(p.A) + row(p.B)
		if calls == 0 {
			if p.Model != nil {
				t.Errorf("%s/%s: model %v with no call expecting either", p.A, p.B, *p.Model)
			}
			continue
		}
		want := float64(n) / float64(calls)
		if p.Model == nil || *p.Model != want || p.ModelConfused != n || p.ModelCalls != calls || p.Strength < want {
			t.Errorf("%s/%s: model %v (%d of %d), strength %v; want %v (%d of %d)", p.A, p.B, p.Model, p.ModelConfused, p.ModelCalls, p.Strength, want, n, calls)
		}
		if n > 0 {
			confused++
			if !strings.Contains(p.Advice, "the model chose one for the other") {
				t.Errorf("%s/%s: advice %q does not say the model confused them", p.A, p.B, p.Advice)
			}
		}
	}
	if confused == 0 {
		t.Fatalf("no pair confused by the fake model's wrong calls:\n%s", out)
	}
	text, _, code := runCLI(t, "", "overlap", src, "--run", runFile)
	if code != 0 || !strings.Contains(text, "model run: 8 scored calls; 4 of the 4 tools matched by name") || !strings.Contains(text, ", model 0.") {
		t.Errorf("exit %d; the text lacks the run and the model parts:\n%s", code, text)
	}
	svg, _, code := runCLI(t, "", "overlap", src, "--run", runFile, "--format", "svg")
	if code != 0 || !strings.Contains(svg, "calls chose the other)") {
		t.Errorf("exit %d; no cell of the SVG explains the model part", code)
	}
}

// TestOverlapRunRefused: a file that is not a run, and a run of another listing, are refused
// with exit 2 and a message naming the flag.
func TestOverlapRunRefused(t *testing.T) {
	runFile := fakeRunFile(t)
	notRun := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(notRun, []byte(`[{"task": "x", "expect": "y"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	other := `[{"name": "weather_now", "description": "Current weather for a city."}, {"name": "weather_week", "description": "The week's forecast."}]`
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"not a run", "", []string{filepath.Join(runTD, "tickets.json"), "--run", notRun}, "not a workbench run file"},
		{"missing", "", []string{filepath.Join(runTD, "tickets.json"), "--run", filepath.Join(t.TempDir(), "none.jsonl")}, "--run: opening the run file"},
		{"other listing", other, []string{"-", "--run", runFile}, "the run's tools are none of the listing's"},
	} {
		_, errs, code := runCLI(t, tt.stdin, append([]string{"overlap"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 saying %q", tt.name, code, errs, tt.want)
		}
	}
}
