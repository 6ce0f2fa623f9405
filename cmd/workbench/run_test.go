package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

const runTD = "testdata/run"

// runWith runs the workbench with an environment of its own.
func runWith(t testing.TB, envv map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return envv[k] }
	err := run(context.Background(), args, getenv, strings.NewReader(""), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func fakeURL(t testing.TB, s *fake.Server) string {
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

type runJSON struct {
	Accuracy float64 `json:"accuracy"`
	Interval struct {
		Low  float64 `json:"low"`
		High float64 `json:"high"`
	} `json:"interval"`
	Scored int `json:"scored"`
	Cached int `json:"cached"`
	Tokens struct {
		PromptMean float64 `json:"promptMean"`
		Estimated  *int    `json:"estimatedTools"`
	} `json:"tokens"`
	Tasks []struct {
		ID       string   `json:"id"`
		Expected string   `json:"expected"`
		Choices  []string `json:"choices"`
	} `json:"tasks"`
	Comparison *struct {
		McNemarP   float64 `json:"mcnemarP"`
		Difference float64 `json:"difference"`
		Flipped    []struct {
			ID    string `json:"id"`
			After string `json:"after"`
		} `json:"flipped"`
		Persuasive []struct {
			Tool string `json:"tool"`
		} `json:"persuasive"`
	} `json:"comparison"`
}

func decodeRun(t *testing.T, s string) runJSON {
	t.Helper()
	var r runJSON
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	return r
}

func TestRunJSON(t *testing.T) {
	url := fakeURL(t, &fake.Server{})
	out, errs, code := runWith(t, nil, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"),
		"--base-url", url, "--model", "fake", "--samples", "4", "--seed", "1", "--format", "json", "--min-accuracy", "0.5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decodeRun(t, out)
	// 6 tasks × 4 samples; the flaky task's odd seeds (2 and 4) call the runner-up.
	if r.Scored != 24 || r.Accuracy != 22.0/24 || r.Interval.Low <= 0.7 || r.Interval.High >= 1 {
		t.Errorf("scored %d accuracy %v interval %+v, want 24 and 22/24 with a Wilson interval", r.Scored, r.Accuracy, r.Interval)
	}
	if len(r.Tasks) != 6 || r.Tasks[4].Expected != "(none)" || len(r.Tasks[0].Choices) != 4 || r.Tasks[0].Choices[0] != "tickets_get" {
		t.Errorf("tasks = %+v", r.Tasks)
	}
	if r.Tokens.PromptMean <= 0 || r.Tokens.Estimated == nil || *r.Tokens.Estimated <= 0 {
		t.Errorf("tokens = %+v, want the measured mean beside an offline estimate", r.Tokens)
	}
	// Sample i sends seed 1+i: samples 0 and 2 have odd seeds.
	if got := r.Tasks[5].Choices; got[0] == "tickets_get" || got[1] != "tickets_get" || got[2] == "tickets_get" || got[3] != "tickets_get" {
		t.Errorf("flaky task's choices = %v, want the expected tool on even seeds only", got)
	}
}

func TestRunText(t *testing.T) {
	url := fakeURL(t, &fake.Server{})
	out, errs, code := runWith(t, nil, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"),
		"--base-url", url, "--model", "fake", "--samples", "2", "--seed", "4", "--shuffle", "--estimate-tokenizer", "off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden := filepath.Join(runTD, "text.golden")
	if *update {
		testutil.WriteFile(t, golden, []byte(out))
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if out != string(want) {
		t.Errorf("text output differs from %s:\n%s", golden, out)
	}
}

func TestRunMinAccuracy(t *testing.T) {
	url := fakeURL(t, &fake.Server{})
	_, errs, code := runWith(t, nil, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"),
		"--base-url", url, "--model", "fake", "--samples", "2", "--seed", "1", "--format", "json", "--min-accuracy", "0.99")
	if code != 1 || !strings.Contains(errs, "is under --min-accuracy 0.99") {
		t.Errorf("exit %d, stderr %q; want 1 and the reason", code, errs)
	}
}

// Baseline and an edit that makes tickets_search claim users: the comparison names the flipped
// task, the tool that took it, and flags the persuasive description.
func TestRunOutCompareRecordReplayResume(t *testing.T) {
	dir := t.TempDir()
	srv := &fake.Server{}
	url := fakeURL(t, srv)
	base := filepath.Join(dir, "base.jsonl")
	rec := filepath.Join(dir, "rec.json")
	common := []string{"--tasks", filepath.Join(runTD, "tasks.json"), "--base-url", url, "--model", "fake", "--samples", "3", "--seed", "2", "--format", "json"}
	out1, errs, code := runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets.json"), "--out", base, "--record", rec}, common...)...)
	if code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, errs)
	}
	out2, errs, code := runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets-edited.json"), "--compare", base}, common...)...)
	if code != 0 {
		t.Fatalf("edited: exit %d: %s", code, errs)
	}
	r := decodeRun(t, out2)
	if r.Comparison == nil || len(r.Comparison.Flipped) != 1 || r.Comparison.Flipped[0].ID != "user" || r.Comparison.Flipped[0].After != "tickets_search" {
		t.Fatalf("comparison = %+v, want the user task flipped to tickets_search", r.Comparison)
	}
	if len(r.Comparison.Persuasive) != 1 || r.Comparison.Persuasive[0].Tool != "tickets_search" || r.Comparison.Difference >= 0 {
		t.Errorf("comparison = %+v, want tickets_search flagged and a negative difference", r.Comparison)
	}

	// The recording replays with no server and no key to the same choices.
	before := srv.Requests()
	out3, errs, code := runWith(t, nil, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"), "--replay", rec, "--format", "json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	if srv.Requests() != before {
		t.Error("the replay sent requests to the server")
	}
	a, b := decodeRun(t, out1), decodeRun(t, out3)
	for i := range a.Tasks {
		if strings.Join(a.Tasks[i].Choices, ",") != strings.Join(b.Tasks[i].Choices, ",") {
			t.Errorf("task %d: recorded %v, replayed %v", i, a.Tasks[i].Choices, b.Tasks[i].Choices)
		}
	}

	// Resume: keep the header and 5 calls, tear the 6th; resuming sends exactly the 13 others.
	b0, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b0), "\n")
	partial := strings.Join(lines[:6], "") + lines[6][:len(lines[6])/2]
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(partial), 0o600); err != nil {
		t.Fatal(err)
	}
	before = srv.Requests()
	out4, errs, code := runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets.json"), "--resume", cut, "--no-cache"}, common...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if sent := srv.Requests() - before; sent != 13 {
		t.Errorf("resume sent %d requests, want 13", sent)
	}
	if d := decodeRun(t, out4); d.Scored != 18 || d.Accuracy != a.Accuracy {
		t.Errorf("resumed run scored %d at %v, want 18 at %v", d.Scored, d.Accuracy, a.Accuracy)
	}
	rf, err := runner.OpenRunFile(cut)
	if err != nil || rf.Torn || len(rf.Run.Calls) != 18 {
		t.Errorf("resumed run file: %v calls, torn %v, err %v; want 18 whole calls", len(rf.Run.Calls), rf.Torn, err)
	}
	// Resuming with other inputs is refused before anything is sent.
	_, errs, code = runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets-edited.json"), "--resume", cut}, common...)...)
	if code != 2 || !strings.Contains(errs, "cannot resume: the listing") {
		t.Errorf("resume with another listing: exit %d, %q", code, errs)
	}
}

// The key is in no response, log line (at debug level), run file or recording, even when the
// server echoes it back.
func TestRunKeyNeverLeaks(t *testing.T) {
	const key = "sk-cli-leak-5a4b3c2d1e0f"
	dir := t.TempDir()
	url := fakeURL(t, &fake.Server{Key: key})
	tasks := filepath.Join(dir, "tasks.json")
	os.WriteFile(tasks, []byte(`[{"task": "Show me ticket 1 [[echo]]", "expect": "tickets_get"}, {"task": "Show me ticket 2 [[echo-error]]", "expect": "tickets_get"}, {"task": "Show me ticket 3", "expect": "tickets_get"}]`), 0o600)
	envv := map[string]string{"FAKE_KEY": key, "WORKBENCH_LOG_LEVEL": "debug", "WORKBENCH_CACHE_DIR": filepath.Join(dir, "cache")}
	var all strings.Builder
	for _, format := range []string{"text", "json"} {
		outf, recf := filepath.Join(dir, format+".jsonl"), filepath.Join(dir, format+".rec")
		out, errs, code := runWith(t, envv, "run", filepath.Join(runTD, "tickets.json"), "--tasks", tasks, "--base-url", url, "--model", "fake",
			"--api-key-env", "FAKE_KEY", "--format", format, "--out", outf, "--record", recf, "--samples", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		all.WriteString(out + errs)
		for _, f := range []string{outf, recf} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
	}
	filepath.WalkDir(filepath.Join(dir, "cache"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	// A wrong key in the environment is refused without being quoted.
	_, errs, _ := runWith(t, map[string]string{"FAKE_KEY": key + "-wrong", "WORKBENCH_LOG_LEVEL": "debug"}, "run", filepath.Join(runTD, "tickets.json"),
		"--tasks", tasks, "--base-url", url, "--model", "fake", "--api-key-env", "FAKE_KEY")
	all.WriteString(errs)
	if strings.Contains(all.String(), key) {
		t.Fatal("the key leaked into the output, logs, run file, recording or cache")
	}
	if !strings.Contains(all.String(), "Bearer [redacted]") || !strings.Contains(errs, "refused the credentials") {
		t.Error("the echoes were not seen: the test did not exercise them")
	}
}

func TestRunEndpointConfig(t *testing.T) {
	dir := t.TempDir()
	url := fakeURL(t, &fake.Server{Key: "sk-config-key-1234"})
	cfg := filepath.Join(dir, "endpoints.json")
	os.WriteFile(cfg, []byte(`{"endpoints": [{"name": "local", "baseURL": "`+url+`", "model": "fake", "apiKeyEnv": "LOCAL_KEY", "concurrency": 2, "headers": {"X-Team": "docs"}}]}`), 0o600)
	envv := map[string]string{"WORKBENCH_ENDPOINTS": cfg, "LOCAL_KEY": "sk-config-key-1234"}
	out, errs, code := runWith(t, envv, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"), "--endpoint", "local", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r := decodeRun(t, out); r.Scored != 6 {
		t.Errorf("scored %d, want 6", r.Scored)
	}
	_, errs, code = runWith(t, envv, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"), "--endpoint", "remote")
	if code != 2 || !strings.Contains(errs, `no endpoint is named "remote"; configured: local`) {
		t.Errorf("unknown endpoint: exit %d, %q", code, errs)
	}
	delete(envv, "LOCAL_KEY")
	_, errs, code = runWith(t, envv, "run", filepath.Join(runTD, "tickets.json"), "--tasks", filepath.Join(runTD, "tasks.json"), "--endpoint", "local")
	if code != 2 || !strings.Contains(errs, "LOCAL_KEY is unset or empty") {
		t.Errorf("missing key: exit %d, %q", code, errs)
	}
}

func TestRunUsage(t *testing.T) {
	src, tasks := filepath.Join(runTD, "tickets.json"), filepath.Join(runTD, "tasks.json")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", src}, 2, "needs --tasks"},
		{[]string{"run", src, "--tasks", tasks}, 2, "exactly one of --endpoint"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--base-url", "http://h"}, 2, "exactly one of"},
		{[]string{"run", src, "--tasks", tasks, "--base-url", "http://h"}, 2, "--base-url needs --model"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--model", "m"}, 2, "go with --base-url"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--samples", "0"}, 2, "--samples 0 is out of range"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--temperature", "9"}, 2, "--temperature 9 is out of range"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--min-accuracy", "2"}, 2, "--min-accuracy 2 is out of range"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--format", "xml"}, 2, `unknown format "xml"`},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--seed", "x"}, 2, `"x" is not an integer`},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a", "--out", "a", "--resume", "b"}, 2, "not both"},
		{[]string{"run", src, "--tasks", tasks, "--endpoint", "a"}, 2, "--endpoint needs a configuration"},
		{[]string{"run", src, "--tasks", tasks, "--base-url", "ftp://h", "--model", "m"}, 2, "not an http(s) URL"},
		{[]string{"run", src, "--tasks", src, "--base-url", "http://h", "--model", "m"}, 2, "every task needs string fields"},
		{[]string{"run", "no-such.json", "--tasks", tasks, "--base-url", "http://h", "--model", "m"}, 2, "No such file"},
		{[]string{"run", src, "--tasks", tasks, "--replay", filepath.Join(runTD, "tasks.json")}, 2, "the recording is not valid JSON"},
		{[]string{"run", src, "--tasks", tasks, "--base-url", "http://h", "--model", "m", "--compare", tasks}, 2, "not a workbench run file"},
	}
	for _, tt := range tests {
		_, errs, code := runWith(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args[2:], code, errs, tt.code, tt.want)
		}
	}
}

// Interrupted (the context the signal handler cancels), the command keeps the finished calls in
// the run file, says how to resume, and exits 130; resuming completes the run.
func TestRunInterruptedThenResumed(t *testing.T) {
	dir := t.TempDir()
	srv := &fake.Server{}
	url := fakeURL(t, srv)
	tasks := filepath.Join(dir, "tasks.json")
	os.WriteFile(tasks, []byte(`[{"task": "Show me ticket 1", "expect": "tickets_get"}, {"task": "Find open tickets", "expect": "tickets_search"},
 {"task": "Remove ticket 9", "expect": "tickets_delete"}, {"task": "Show me ticket 2 [[stall:1h]]", "expect": "tickets_get"}]`), 0o600)
	runFile := filepath.Join(dir, "run.jsonl")
	args := []string{"run", filepath.Join(runTD, "tickets.json"), "--tasks", tasks, "--base-url", url, "--model", "fake", "--format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once the three quick calls are in the run file and the stalled one hangs.
		for {
			b, _ := os.ReadFile(runFile)
			if strings.Count(string(b), "\n") >= 4 {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var out, errb bytes.Buffer
	err := run(ctx, append(args, "--out", runFile), func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, &errb); code != 130 || !strings.Contains(errb.String(), "stopped after 3 of 4 calls") || !strings.Contains(errb.String(), "resume with --resume "+runFile) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	o, errs, code := runWith(t, nil, append(args, "--resume", runFile)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if r := decodeRun(t, o); r.Scored != 4 || r.Accuracy != 1 {
		t.Errorf("resumed run: %d scored at %v, want 4 at 1", r.Scored, r.Accuracy)
	}
	if n := srv.Calls()["Show me ticket 1"]; n != 1 {
		t.Errorf("a finished call was sent %d times", n)
	}
}
