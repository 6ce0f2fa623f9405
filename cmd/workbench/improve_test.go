package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

const improveTD = "testdata/improve"

// fakeEndpoint serves s over HTTP, as a model endpoint is served, and returns its API root.
func fakeEndpoint(t *testing.T, s *fakemodel.Server) string {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

// ticketRewrites are the descriptions the recorded model proposes: honest ones, as a careful
// writer would put them (testdata/improve/rewrites.json).
func ticketRewrites(t *testing.T) map[string][]string {
	t.Helper()
	var m map[string][]string
	b, err := os.ReadFile(filepath.Join(improveTD, "rewrites.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noHeldOutBrief fails the test if a brief the model received holds the text of a task the
// default split holds out.
func noHeldOutBrief(t *testing.T, s *fakemodel.Server, tasksFile string) {
	t.Helper()
	b, err := os.ReadFile(tasksFile)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(b, false)
	if err != nil {
		t.Fatal(err)
	}
	_, held := drafting.Split(tasks, drafting.DefaultHeldOut)
	briefs := s.Briefs()
	if len(briefs) == 0 {
		t.Error("the model was asked for nothing")
	}
	for _, br := range briefs {
		j, _ := json.Marshal(br)
		for _, h := range held {
			if strings.Contains(string(j), tasks[h].Task) {
				t.Errorf("a %s brief holds held-out task %d %q", br.Job, h+1, tasks[h].Task)
			}
		}
	}
}

// TestImproveRecorded replays a recorded improvement of the confusing seed (record it again
// with -update, which runs the loop against the fake model proposing honest rewrites): held-out
// accuracy rises, the report says by how much with its interval and McNemar p, and --out holds
// the listing with the rewritten descriptions. No endpoint and no key are needed.
func TestImproveRecorded(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	recording := filepath.Join(improveTD, "confusing.recording.json")
	golden := filepath.Join(improveTD, "confusing.txt")
	if *testutil.Update {
		s := &fakemodel.Server{Rewrites: ticketRewrites(t)}
		out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--base-url", fakeEndpoint(t, s),
			"--model", "fake-model", "--record", recording, "--max-calls", "300")
		if code != 0 {
			t.Fatalf("recording: exit %d\n%s%s", code, out, errs)
		}
		noHeldOutBrief(t, s, tasks)
		testutil.WriteFile(t, golden, []byte(out))
	}
	outFile := filepath.Join(t.TempDir(), "revised.json")
	out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--replay", recording, "--out", outFile, "--max-calls", "300")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (improved)\n%s%s", code, out, errs)
	}
	testutil.Golden(t, golden, []byte(out))
	for _, want := range []string{"verdict: Held-out accuracy rose from 1/4 to 2/4 (+25 points, 95% CI ", "McNemar p = ", "fixed task 7"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// 4 held-out tasks cannot make a rise significant: the line that says --out was written
	// says so too.
	if !strings.Contains(out, "; not significant: 4 held-out tasks") {
		t.Errorf("the verdict does not say the rise is not significant:\n%s", out)
	}
	for _, want := range []string{"at most 462 model calls (budget 300)", "wrote the revised listing to " + outFile + " (not significant: 4 held-out tasks; changed: "} {
		if !strings.Contains(errs, want) {
			t.Errorf("standard error lacks %q:\n%s", want, errs)
		}
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	revised, err := listing.Parse(b, listing.Options{Name: "revised.json"})
	if err != nil {
		t.Fatalf("--out is not a listing: %v", err)
	}
	rewrites := ticketRewrites(t)
	changed := 0
	for _, tool := range revised.Tools {
		name, desc := tool.Get("name").String(), tool.Get("description").String()
		if desc == rewrites[name][0] {
			changed++
		}
	}
	if changed == 0 || changed == len(revised.Tools) {
		t.Errorf("%d of %d descriptions rewritten in --out; want some, not all", changed, len(revised.Tools))
	}
}

// improveJSON is the part of the JSON report the tests read.
type improveJSON struct {
	Improved bool   `json:"improved"`
	Verdict  string `json:"verdict"`
	Attempts []struct {
		Tool   string `json:"tool"`
		Kept   bool   `json:"kept"`
		Ran    bool   `json:"ran"`
		Reason string `json:"reason"`
	} `json:"attempts"`
	Problems []string `json:"problems"`
	Calls    int      `json:"calls"`
}

// Models that do not inform: keyword stuffing wins training tasks only, promotion is refused
// outright, broken answers are named; each ends with exit 1, no --out, and no held-out task in
// any brief.
func TestImproveModels(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	for _, tc := range []struct {
		name    string
		mode    fakemodel.Mode
		verdict string
		check   func(t *testing.T, r improveJSON)
	}{
		{"keyword stuffing", fakemodel.Stuffing, "No improvement on held-out tasks (1/4 → 1/4): the rewrites won training tasks only.",
			func(t *testing.T, r improveJSON) {
				if len(r.Attempts) == 0 || !r.Attempts[0].Ran {
					t.Errorf("attempts %+v: want stuffed candidates run", r.Attempts)
				}
			}},
		{"promotional", fakemodel.Promotional, "no rewrite was kept",
			func(t *testing.T, r improveJSON) {
				if len(r.Attempts) == 0 {
					t.Fatal("no attempt")
				}
				for _, a := range r.Attempts {
					if a.Kept || a.Ran || !strings.HasPrefix(a.Reason, "refused: it has ") || !strings.Contains(a.Reason, "promotional wording") {
						t.Errorf("attempt on %s: kept %v, ran %v, reason %q", a.Tool, a.Kept, a.Ran, a.Reason)
					}
				}
			}},
		{"malformed", fakemodel.Malformed, "no rewrite was kept",
			func(t *testing.T, r improveJSON) {
				if len(r.Attempts) != 0 || len(r.Problems) == 0 || !strings.Contains(strings.Join(r.Problems, "\n"), "could not be used") {
					t.Errorf("attempts %d, problems %q: want the broken answers named", len(r.Attempts), r.Problems)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &fakemodel.Server{Mode: tc.mode}
			outFile := filepath.Join(t.TempDir(), "revised.json")
			out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--base-url", fakeEndpoint(t, s), "--model", "m",
				"--out", outFile, "--format", "json")
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
			}
			var r improveJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("the JSON report: %v\n%s", err, out)
			}
			if r.Improved || !strings.Contains(r.Verdict, tc.verdict) || r.Calls != s.Requests() {
				t.Errorf("improved %v, verdict %q, %d calls of %d served; want no improvement and %q", r.Improved, r.Verdict, r.Calls, s.Requests(), tc.verdict)
			}
			if _, err := os.Stat(outFile); !os.IsNotExist(err) || !strings.Contains(errs, "not written: no improvement on held-out tasks") {
				t.Errorf("--out: stat %v; stderr:\n%s", err, errs)
			}
			noHeldOutBrief(t, s, tasks)
			tc.check(t, r)
		})
	}
}

// A budget that cannot pay for the baseline and final runs is refused before any call, with
// the numbers and what would work; a plan over the budget says what it will skip.
func TestImproveBudget(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	s := &fakemodel.Server{}
	out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--base-url", fakeEndpoint(t, s), "--model", "m", "--max-calls", "11")
	want := "not started: the budget of 11 calls cannot pay for the baseline run of every task (8 calls) and the final run of the held-out tasks (4 calls); give --max-calls 12 or more"
	if code != 2 || out != "" || !strings.Contains(errs, want) || s.Requests() != 0 {
		t.Errorf("exit %d after %d requests, stdout %q, stderr:\n%s\nwant exit 2 before any request, saying %q", code, s.Requests(), out, errs, want)
	}
	s = &fakemodel.Server{Rewrites: ticketRewrites(t)}
	out, errs, _ = runWith(t, nil, "improve", tools, "--tasks", tasks, "--base-url", fakeEndpoint(t, s), "--model", "m", "--max-calls", "30")
	for _, want := range []string{"at most 462 model calls (budget 30)", "the plan is over the budget", "18 calls pay for about 0 rewrites of a tool (25 calls each"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "stopped early: the call budget is spent") {
		t.Errorf("the report does not say the budget stopped it:\n%s", out)
	}
	if s.Requests() > 30 {
		t.Errorf("%d requests, over the budget of 30", s.Requests())
	}
}

// A model too slow to answer the rewrite calls in time: each timeout is named, the loop goes
// on to the next tool, and the report ends with no improvement.
func TestImproveSlowModel(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	s := &fakemodel.Server{Delay: 5 * time.Second}
	start := time.Now()
	out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--base-url", fakeEndpoint(t, s), "--model", "m",
		"--timeout", "100ms", "--retries", "0")
	if code != 1 || !strings.Contains(out, "did not answer within 100ms") || !strings.Contains(out, "verdict: No improvement on held-out tasks") {
		t.Errorf("exit %d\n%s%s\nwant exit 1 and the timeouts named", code, out, errs)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("took %s: the timeouts did not bound the calls", d)
	}
}

// The key never reaches the report, standard error, the recording or the revised listing,
// even from a model that quotes the request's Authorization header back.
func TestImproveKeyStaysOut(t *testing.T) {
	const secret = "sk-improve-secret-4f9a2c"
	tools := fixture(t, "confusing-tools.json")
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.json")
	testutil.WriteFile(t, tasks, []byte(`[
  {"task": "Show me ticket 4521 [[echo]]", "expect": "get_data"},
  {"task": "Close ticket 4521 as resolved", "expect": "update"},
  {"task": "Remove the duplicate ticket 4533", "expect": "delete"},
  {"task": "Create a new ticket for the login bug", "expect": "create"}
]`))
	rec, outFile := filepath.Join(dir, "rec.json"), filepath.Join(dir, "out.json")
	s := &fakemodel.Server{Mode: fakemodel.Echo, Key: secret}
	out, errs, code := runWith(t, map[string]string{"WB_TEST_KEY": secret}, "improve", tools, "--tasks", tasks,
		"--base-url", fakeEndpoint(t, s), "--model", "m", "--api-key-env", "WB_TEST_KEY", "--record", rec, "--out", outFile)
	if code == 2 || s.Requests() == 0 {
		t.Fatalf("exit %d after %d requests\n%s%s", code, s.Requests(), out, errs)
	}
	recorded, _ := os.ReadFile(rec)
	written, _ := os.ReadFile(outFile)
	if len(recorded) == 0 {
		t.Error("no recording written")
	}
	for what, text := range map[string]string{"stdout": out, "stderr": errs, "recording": string(recorded), "--out": string(written)} {
		if strings.Contains(text, secret) {
			t.Errorf("the key is in %s", what)
		}
	}
}

// Mistakes in the command line exit 2 and say what would work.
func TestImproveUsage(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{tools, "--base-url", "http://x/v1", "--model", "m"}, "improve needs --tasks FILE"},
		{[]string{tools, "--tasks", tasks}, "give exactly one of --endpoint NAME"},
		{[]string{tools, "--tasks", tasks, "--base-url", "http://x/v1"}, "--base-url needs --model"},
		{[]string{tools, "--tasks", tasks, "--replay", "r.json", "--held-out", "1"}, "--held-out 1 is out of range"},
		{[]string{tools, "--tasks", tasks, "--replay", "r.json", "--rounds", "0"}, "--rounds 0 is out of range"},
		{[]string{tools, "--tasks", tasks, "--replay", "r.json", "--max-calls", "0"}, "--max-calls takes a positive number"},
		{[]string{tools, "--tasks", tasks, "--replay", "r.json", "--format", "yaml"}, `unknown format "yaml"`},
		{[]string{"--tasks", tasks, "--replay", "r.json"}, "improve takes one SOURCE"},
	} {
		_, errs, code := runWith(t, nil, append([]string{"improve"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("improve %q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// A listing the model already reads right (the seeds' clear fixture) has nothing to rewrite:
// no rewrite is asked for, and the report says why nothing improved.
func TestImproveNothingToRewrite(t *testing.T) {
	s := &fakemodel.Server{}
	out, errs, code := runWith(t, nil, "improve", fixture(t, "clear-tools.json"), "--tasks", fixture(t, "tasks-clear.json"),
		"--base-url", fakeEndpoint(t, s), "--model", "m")
	want := "verdict: No improvement on held-out tasks (4/4 → 4/4): no rewrite was kept (before round 1 the model picks the expected tool for every training task: nothing to rewrite), so the listing is unchanged"
	if code != 1 || !strings.Contains(out, want) || len(s.Briefs()) != 0 {
		t.Errorf("exit %d, %d briefs\n%s%s\nwant exit 1, no brief, and %q", code, len(s.Briefs()), out, errs, want)
	}
}

// With the response cache on (the command's default), the kept candidate's trial run has
// already sent the final run's requests: the final held-out run goes to the model all the same,
// and the report counts cached answers apart from the calls it made. A second improve with the
// same cache takes its baseline from the cache and says so. The report also says that the
// held-out tasks vetoed candidates, so the final comparison is not an independent test.
func TestImproveCachedFinal(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	env := map[string]string{"WORKBENCH_CACHE_DIR": t.TempDir()}
	type report struct {
		Calls    int    `json:"calls"`
		Cached   int    `json:"cached"`
		Improved bool   `json:"improved"`
		Caveat   string `json:"caveat"`
	}
	s := &fakemodel.Server{Rewrites: ticketRewrites(t)}
	url := fakeEndpoint(t, s)
	served := 0
	for n := 1; n <= 2; n++ {
		out, errs, code := runWith(t, env, "improve", tools, "--tasks", tasks, "--base-url", url, "--model", "m", "--format", "json")
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("run %d: %v\n%s\n%s", n, err, out, errs)
		}
		if code != 0 || !r.Improved {
			t.Fatalf("run %d: exit %d, improved %v; want 0 and true\n%s", n, code, r.Improved, errs)
		}
		if r.Calls != s.Requests()-served {
			t.Errorf("run %d: the report says %d calls were made; the endpoint served %d", n, r.Calls, s.Requests()-served)
		}
		served = s.Requests()
		if n == 1 && r.Cached != 0 {
			t.Errorf("run 1: %d answers from an empty cache", r.Cached)
		}
		// The baseline (8 calls) comes from the cache the second time; the final run never does.
		if n == 2 && (r.Cached < 8 || r.Calls < 4) {
			t.Errorf("run 2: %d calls made, %d cached; want the baseline's 8 cached and the final run's 4 made", r.Calls, r.Cached)
		}
		if !strings.Contains(r.Caveat, "not an independent test") {
			t.Errorf("run %d: caveat %q", n, r.Caveat)
		}
	}
}

// A replay whose settings differ from the recording's (here --samples 2 on a recording of one
// sample a task) gets no answer to most of its calls: improve stops after the baseline with
// exit 2, says how many calls failed, and says first that the recording holds no answer.
func TestImproveReplayMismatch(t *testing.T) {
	tools, tasks := fixture(t, "confusing-tools.json"), fixture(t, "tasks-confusing.json")
	recording := filepath.Join(improveTD, "confusing.recording.json")
	out, errs, code := runWith(t, nil, "improve", tools, "--tasks", tasks, "--replay", recording, "--samples", "2", "--max-calls", "300")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
	}
	for _, want := range []string{"the baseline run failed: ", " of 16 calls; first error: the recording holds no answer to this request: "} {
		if !strings.Contains(errs, want) {
			t.Errorf("standard error lacks %q:\n%s", want, errs)
		}
	}
}
