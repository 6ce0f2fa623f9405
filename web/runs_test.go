package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// TestRunFromPage starts a run from the Runs tab, watches its progress arrive over the page's
// stream, and reads its results, which must equal a run of the same inputs made directly
// with the engine.
func TestRunFromPage(t *testing.T) {
	// A little delay per call, so that the run outlasts several progress ticks.
	e := newRunEnv(t, &fake.Server{Delay: 20 * time.Millisecond}, nil)
	ws := openExample(t, e.s, "library-2-draft")
	code, panel := e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if code != http.StatusOK || !strings.Contains(panel, `data-testid="run-form"`) || !strings.Contains(panel, "fake-model") {
		t.Fatalf("the Runs panel: %d %s", code, panel)
	}
	if !strings.Contains(panel, runner.DefaultSystemPrompt[:40]) {
		t.Error("the form does not show the default system prompt")
	}
	st := e.openStream(t, ws)
	id := e.start(t, ws, runForm("samples", "3", "seed", "7", "shuffle", "on"))
	e.s.WaitRuns()
	body := st.waitFor(t, `data-testid="run-progress" data-status="done"`)
	// Progress patches came before the end: the bar at intermediate values, then full.
	bars := regexp.MustCompile(`data-testid="run-progress-bar">`).FindAllStringIndex(body, -1)
	if len(bars) < 2 {
		t.Errorf("the stream carried %d progress bars; want the bar patched during the run and at its end", len(bars))
	}
	if !strings.Contains(body, `value="27"`) || !strings.Contains(body, `max="27"`) {
		t.Errorf("the final bar does not show 27 of 27 calls")
	}

	rec, stored, meta := e.stored(t, ws, id)
	if rec.Status != runsvc.Done || meta.Done != 27 || meta.Total != 27 || stored.Run == nil {
		t.Fatalf("stored run: status %s, %d/%d calls", rec.Status, meta.Done, meta.Total)
	}
	// The same inputs through the engine directly.
	wsRec, err := e.s.store.Get(context.Background(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := runner.NewClient(fakeEndpoint(), runner.ClientOptions{Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: e.fake}})
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(7)
	direct, err := runner.Execute(context.Background(), client, wsRec.Listing, wsRec.Tasks, runner.Options{
		Spec: runner.Spec{Samples: 3, Seed: &seed, Shuffle: true, SystemPrompt: runner.DefaultSystemPrompt}})
	if err != nil {
		t.Fatal(err)
	}
	want := runner.ScoreRun(direct)

	code, res := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id, nil)
	if code != http.StatusOK {
		t.Fatalf("show run: %d %s", code, res)
	}
	got := texts(res)
	if w := fmt.Sprintf("%.3f", want.Accuracy); got["result-accuracy"] != w {
		t.Errorf("accuracy shown %q, want %q", got["result-accuracy"], w)
	}
	if w := fmt.Sprintf("%d/%d, 95%% CI %.3f–%.3f", want.Correct, want.Scored, want.Interval.Low, want.Interval.High); got["result-interval"] != w {
		t.Errorf("interval shown %q, want %q", got["result-interval"], w)
	}
	if w := fmt.Sprintf("%.3f", want.NoTool.Rate); want.NoTool.N == 0 || got["result-notool"] != w {
		t.Errorf("no-tool accuracy shown %q, want %q", got["result-notool"], w)
	}
	if w := fmt.Sprintf("%d/%d, 95%% CI %.3f–%.3f", want.NoTool.K, want.NoTool.N, want.NoTool.Interval.Low, want.NoTool.Interval.High); got["result-notool-detail"] != w {
		t.Errorf("no-tool detail shown %q, want %q", got["result-notool-detail"], w)
	}
	if !strings.Contains(res, fmt.Sprintf("offline estimate of the tools: %d (test estimate)", 100*len(wsRec.Listing.Tools))) {
		i := strings.Index(res, "offline estimate")
		t.Errorf("the offline estimate is not shown beside the measured tokens: %.200s", res[max(i, 0):])
	}
	if w := fmt.Sprintf("%.0f", want.Tokens.PromptMean); want.Tokens.Calls == 0 || got["result-tokens"] != w {
		t.Errorf("measured prompt tokens shown as %q, want %q", got["result-tokens"], w)
	}
	// The confusion matrix: a table with a caption, a column and a row header per label.
	conf := res[strings.Index(res, `data-testid="result-confusion"`):]
	conf = conf[:strings.Index(conf, "</table>")]
	if !strings.Contains(conf, "<caption>") || strings.Count(conf, `scope="col"`) != len(want.Confusion.Labels) ||
		strings.Count(conf, `scope="row"`) != len(want.Confusion.Labels) || !strings.Contains(conf, "(none)") {
		t.Errorf("the confusion matrix is not an accessible table of %d labels: %s", len(want.Confusion.Labels), conf)
	}
	for i, row := range want.Confusion.Counts {
		cells := regexp.MustCompile(`<td class="(?:diag|diag zero|off|muted)">(?:<strong>)?(\d+)`).FindAllStringSubmatch(strings.Split(conf, "<tr>")[i+2], -1)
		for j, n := range row {
			if j >= len(cells) || cells[j][1] != fmt.Sprint(n) {
				t.Fatalf("confusion row %d differs from the engine's %v", i, row)
			}
		}
	}
	if n := strings.Count(res, `data-testid="result-task"`); n != len(want.PerTask) {
		t.Errorf("%d task rows, want %d", n, len(want.PerTask))
	}
	// Each task row shows every sample's choice.
	if n := strings.Count(res, `class="chip `); n != 27 {
		t.Errorf("%d sample choices shown, want 27", n)
	}
	for _, tool := range want.PerTool {
		if !strings.Contains(res, "<code>"+tool.Name+"</code>") {
			t.Errorf("per-tool row for %s missing", tool.Name)
		}
	}
	if !strings.Contains(res, "calls by position") && !strings.Contains(res, "Calls by position") {
		t.Error("a shuffled run does not show calls by position")
	}
}

// TestRunCancelResume cancels a run part way, checks that its finished calls are kept, edits
// the listing, and resumes: the run finishes on the listing it started with, without sending
// the kept calls again.
func TestRunCancelResume(t *testing.T) {
	f := &fake.Server{Delay: 20 * time.Millisecond}
	e := newRunEnv(t, f, func(c *RunsConfig) {
		c.Endpoints[0].Concurrency = 1
	})
	ws := openExample(t, e.s, "library-2-draft")
	st := e.openStream(t, ws)
	id := e.start(t, ws, runForm("samples", "4", "seed", "1"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := e.s.runs.Get(id)
		if a == nil {
			t.Fatal("the run ended before it could be cancelled")
		}
		if a.Counts().Done >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run made no progress")
		}
		time.Sleep(5 * time.Millisecond)
	}
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/cancel", nil)
	if code != http.StatusNoContent {
		t.Fatalf("cancel: %d %s", code, body)
	}
	e.s.WaitRuns()
	st.waitFor(t, `data-testid="run-progress" data-status="cancelled"`)
	rec, stored, meta := e.stored(t, ws, id)
	if rec.Status != runsvc.Cancelled || meta.Done < 5 || meta.Done >= 36 || len(stored.Run.Calls) != meta.Done {
		t.Fatalf("cancelled run: status %s, %d of %d calls kept", rec.Status, meta.Done, meta.Total)
	}
	kept := meta.Done
	sent := f.Requests()
	// Cancelling again is refused plainly: the run is no longer in progress.
	if code, _ := e.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/cancel", nil); code != http.StatusConflict {
		t.Errorf("a second cancel answered %d, want 409", code)
	}
	_, list := e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if !strings.Contains(list, "/runs/"+id+"/resume") {
		t.Fatal("the cancelled run offers no Resume")
	}

	// Move the workspace on: the resumed run still runs against the revision it started on.
	edit := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/edit?t=0&f=description",
		strings.NewReader(`{"pid":"`+strings.Repeat("c", 32)+`","tool":0,"ver":0,"val":"Show one book by its catalog id or ISBN."}`))
	edit.Header.Set("Content-Type", "application/json")
	edit.Header.Set("Datastar-Request", "true")
	rr := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rr, edit)
	if rr.Code != http.StatusOK {
		t.Fatalf("edit: %d %s", rr.Code, rr.Body.String())
	}

	code, body = e.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/resume", nil)
	if code != http.StatusOK || strings.Contains(body, `data-testid="run-failure"`) {
		t.Fatalf("resume: %d %s", code, body)
	}
	e.s.WaitRuns()
	st.waitFor(t, `data-testid="run-progress" data-status="done"`)
	rec, stored, meta = e.stored(t, ws, id)
	if rec.Status != runsvc.Done || meta.Done != 36 || len(stored.Run.Calls) != 36 {
		t.Fatalf("resumed run: status %s, %d/%d calls (%s)", rec.Status, meta.Done, meta.Total, meta.Problem)
	}
	// Only the calls not kept were sent again (plus at most the one abandoned in flight).
	if resent := f.Requests() - sent; resent < 36-kept || resent > 36-kept+1 {
		t.Errorf("resume sent %d requests; %d calls were kept of 36", resent, kept)
	}
	if stored.Run.Header.ListingHash != runner.NewHeader(mustParse(t, stored.Listing), nil, runner.Spec{}).ListingHash {
		t.Error("the stored listing is not the one the run's header names")
	}
}

func mustParse(t *testing.T, src []byte) *listing.Listing {
	t.Helper()
	l, err := listing.Parse(src, listing.Options{Name: "stored"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRunCompare runs the draft, turns one description into a catch-all, runs again, and
// compares both ways: the tasks that flipped, which tool took them, the paired difference,
// McNemar's p and the persuasion flag must be the engine's.
func TestRunCompare(t *testing.T) {
	e := newRunEnv(t, nil, nil)
	ws := openExample(t, e.s, "library-2-draft")
	before := e.start(t, ws, runForm("samples", "2", "seed", "3"))
	e.s.WaitRuns()
	// catalog_search (tool 1) now claims the words of other tasks: it draws their calls.
	catchAll := "Show me any book by ISBN, lend a copy to a card holder, mark a copy as returned, extend a loan, put a hold on the next free copy, look up a member, list every overdue loan at a branch."
	edit := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/edit?t=1&f=description",
		strings.NewReader(`{"pid":"`+strings.Repeat("c", 32)+`","tool":1,"ver":0,"val":"`+catchAll+`"}`))
	edit.Header.Set("Content-Type", "application/json")
	edit.Header.Set("Datastar-Request", "true")
	rr := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rr, edit)
	if rr.Code != http.StatusOK {
		t.Fatalf("edit: %d %s", rr.Code, rr.Body.String())
	}
	after := e.start(t, ws, runForm("samples", "2", "seed", "3"))
	e.s.WaitRuns()

	_, res := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+after, nil)
	if !strings.Contains(res, `<option value="`+before+`"`) {
		t.Fatalf("the earlier run is not offered as a baseline")
	}
	_, bBody, _ := e.stored(t, ws, before)
	_, aBody, _ := e.stored(t, ws, after)
	cases := []struct {
		name       string
		cur, base  string
		curRun     *runner.Run
		baseRun    *runner.Run
		fixed      bool
		persuasive bool // the engine must flag a tool
	}{
		{"the catch-all against the draft", after, before, aBody.Run, bBody.Run, false, true},
		{"the draft against the catch-all", before, after, bBody.Run, aBody.Run, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := runner.Compare(tc.baseRun, tc.curRun)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Flipped) == 0 || tc.persuasive && len(want.Persuasive) == 0 {
				t.Fatalf("the edit flipped %d tasks and flagged %d tools; the test measures nothing", len(want.Flipped), len(want.Persuasive))
			}
			code, body := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+tc.cur+"/compare?base="+tc.base, nil)
			if code != http.StatusOK {
				t.Fatalf("compare: %d %s", code, body)
			}
			got := texts(body)
			if w := fmt.Sprintf("%+.3f", want.Difference); got["compare-diff"] != w {
				t.Errorf("difference %q, want %q", got["compare-diff"], w)
			}
			if w := fmt.Sprintf("%.4g", want.McNemarP); got["compare-p"] != w {
				t.Errorf("McNemar p %q, want %q", got["compare-p"], w)
			}
			if !strings.Contains(body, fmt.Sprintf("paired 95%% CI %+.3f to %+.3f", want.Interval.Low, want.Interval.High)) {
				t.Error("the paired interval is not shown")
			}
			if n := strings.Count(body, `data-testid="compare-flip"`); n != len(want.Flipped) {
				t.Errorf("%d flipped rows, want %d", n, len(want.Flipped))
			}
			for _, f := range want.Flipped {
				if f.Fixed != tc.fixed {
					t.Errorf("task %d: fixed %v, want %v", f.Index+1, f.Fixed, tc.fixed)
				}
			}
			f := want.Flipped[0]
			if !strings.Contains(body, "<code>"+f.After+"</code>") {
				t.Errorf("the tool that took task %d (%s) is not shown", f.Index+1, f.After)
			}
			if n := strings.Count(body, `data-testid="compare-persuasive"`); n != len(want.Persuasive) {
				t.Errorf("%d persuasion flags, want %d", n, len(want.Persuasive))
			}
			for _, p := range want.Persuasive {
				if !strings.Contains(body, "<code>"+p.Tool+"</code> persuades instead of informs?") {
					t.Errorf("the flag on %s is not shown", p.Tool)
				}
			}
		})
	}
	// A baseline that does not exist, or the run itself, is refused plainly.
	for _, base := range []string{strings.Repeat("0", 32), after, "not-an-id"} {
		_, body := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+after+"/compare?base="+base, nil)
		if !strings.Contains(body, `data-testid="compare-problem"`) {
			t.Errorf("base %s: no problem shown: %s", base, body)
		}
	}
}

// TestRunKeyNeverLeaks has the fake server echo the key in answers and in errors, then reads
// every page, patch, download and log line the run produced.
func TestRunKeyNeverLeaks(t *testing.T) {
	e := newRunEnv(t, nil, nil)
	ws := openExample(t, e.s, "library-2-draft")
	e.putTasks(t, ws, `[
		{"task": "Show me the book with ISBN 9780141439518", "expect": "catalog_get_book"},
		{"task": "Tell me my header [[echo]]", "expect": null},
		{"task": "Break with my header [[echo-error]]", "expect": null}
	]`)
	st := e.openStream(t, ws)
	var bodies []string
	add := func(code int, b string) { bodies = append(bodies, b) }
	add(e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil))
	id := e.start(t, ws, runForm("samples", "2"))
	e.s.WaitRuns()
	st.waitFor(t, `data-testid="run-progress" data-status="(done|failed)"`)
	other := e.start(t, ws, runForm("samples", "2", "seed", "5"))
	e.s.WaitRuns()
	add(e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil))
	add(e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id, nil))
	add(e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id+"/compare?base="+other, nil))
	code, rec := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id+"/recording.json", nil)
	if code != http.StatusOK {
		t.Fatalf("recording: %d %s", code, rec)
	}
	add(code, rec)
	add(e.call(t, http.MethodGet, "/w/"+ws, nil))
	bodies = append(bodies, st.text(), e.log.String())
	_, stored, _ := e.stored(t, ws, id)
	raw, _ := json.Marshal(stored)
	bodies = append(bodies, string(raw))
	// The key went out (the fake refuses requests without it) and came back in the echo.
	if e.fake.Requests() == 0 || !strings.Contains(rec, "your header was Bearer [redacted]") {
		t.Fatal("the echo task did not run, so the test proves nothing")
	}
	for i, b := range bodies {
		if strings.Contains(b, testKey) || strings.Contains(b, testKey[8:]) {
			t.Errorf("body %d holds the API key", i)
		}
	}
}

// TestRunFailuresShowPlainly: an endpoint that is down, a key the server refuses, a key that
// is not set, and a server too slow for the timeout each end the run with a message that says
// so, quickly.
func TestRunFailuresShowPlainly(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/v1"
	down.Close()
	cases := []struct {
		name      string
		configure func(*RunsConfig)
		want      string
	}{
		{"endpoint down", func(c *RunsConfig) {
			c.HTTP = nil
			c.Endpoints[0].BaseURL = downURL
		}, `endpoint &#34;fake&#34;: .*connection refused`},
		{"401", func(c *RunsConfig) {
			c.Getenv = func(string) string { return "sk-wrong-key-for-this-test" }
		}, `refused the credentials \(HTTP 401\): check the key in ` + keyEnv},
		{"timeout", func(c *RunsConfig) {
			// Over real HTTP, so that the client's deadline cuts the connection.
			slow := httptest.NewServer(&fake.Server{Delay: time.Second, Key: testKey})
			t.Cleanup(slow.Close)
			c.HTTP = nil
			c.Endpoints[0].BaseURL = slow.URL + "/v1"
			c.Timeout = 20 * time.Millisecond
		}, `did not answer within 20ms`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newRunEnv(t, nil, tc.configure)
			ws := openExample(t, e.s, "library-2-draft")
			st := e.openStream(t, ws)
			id := e.start(t, ws, runForm())
			e.s.WaitRuns()
			body := st.waitFor(t, `data-testid="run-progress" data-status="failed"`)
			if !regexp.MustCompile(`data-testid="run-failure">[^<]*` + tc.want).MatchString(body) {
				t.Errorf("the failure is not shown plainly; the stream holds:\n%s", body)
			}
			rec, _, meta := e.stored(t, ws, id)
			if rec.Status != runsvc.Failed || meta.Done >= 9 {
				t.Errorf("status %s after %d calls; want failed, stopped early", rec.Status, meta.Done)
			}
			_, res := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id, nil)
			if !strings.Contains(res, `data-testid="run-errors"`) {
				t.Error("the results do not list the failed calls")
			}
			if strings.Contains(e.log.String(), "sk-wrong-key") {
				t.Error("a log line holds the key")
			}
		})
	}
	t.Run("key not set", func(t *testing.T) {
		e := newRunEnv(t, nil, func(c *RunsConfig) { c.Getenv = func(string) string { return "" } })
		ws := openExample(t, e.s, "library-2-draft")
		_, panel := e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
		if !strings.Contains(panel, "the environment variable "+keyEnv+" is unset or empty") {
			t.Errorf("the panel does not say why the endpoint is unavailable: %s", panel)
		}
		_, body := e.call(t, http.MethodPost, "/w/"+ws+"/runs", runForm())
		if !strings.Contains(body, `data-testid="run-form-problem"`) || !strings.Contains(body, keyEnv) {
			t.Errorf("starting on it is not refused plainly: %s", body)
		}
	})
}

// TestRunFormRefusals: every bad input gets a message saying what would work.
func TestRunFormRefusals(t *testing.T) {
	e := newRunEnv(t, nil, func(c *RunsConfig) { c.MaxCalls = 50 })
	ws := openExample(t, e.s, "library-2-draft")
	empty := workspaceFrom(t, e.s, `{"tools": [{"name": "only", "description": "One tool.", "inputSchema": {"type": "object"}}]}`)
	cases := []struct {
		name string
		ws   string
		form url.Values
		want string
	}{
		{"no endpoint", ws, runForm("endpoint", ""), "Choose an endpoint"},
		{"unknown endpoint", ws, runForm("endpoint", "gpt-9"), `No endpoint is named &#34;gpt-9&#34;; this server has fake.`},
		{"samples zero", ws, runForm("samples", "0"), "from 1 to 100"},
		{"samples text", ws, runForm("samples", "many"), `not &#34;many&#34;`},
		{"temperature high", ws, runForm("temperature", "3"), "from 0 to 2"},
		{"temperature NaN", ws, runForm("temperature", "NaN"), "from 0 to 2"},
		{"seed text", ws, runForm("seed", "1e3"), "whole number"},
		{"too many calls", ws, runForm("samples", "6"), "54 calls; the page runs up to 50"},
		{"no tasks", empty, runForm(), "no tasks"},
		{"hostile text is escaped", ws, runForm("samples", `<script>alert(1)</script>`), `&lt;script&gt;`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.call(t, http.MethodPost, "/w/"+tc.ws+"/runs", tc.form)
			if code != http.StatusOK || !strings.Contains(body, `data-testid="run-form-problem"`) || !strings.Contains(body, tc.want) {
				t.Errorf("status %d, answer:\n%s\nwant a problem with %q", code, body, tc.want)
			}
			if strings.Contains(body, "<script>") {
				t.Error("user text reached the page unescaped")
			}
		})
	}
	if e.fake.Requests() != 0 {
		t.Errorf("refused runs sent %d requests", e.fake.Requests())
	}
	// One run at a time per workspace.
	f := e.fake
	f.Delay = 200 * time.Millisecond
	e.start(t, ws, runForm())
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/runs", runForm())
	if !strings.Contains(body, "already in progress") {
		t.Errorf("a second run was not refused: %s", body)
	}
	for _, id := range []string{"nope", strings.Repeat("a", 32)} {
		if code, _ := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id, nil); code != http.StatusNotFound {
			t.Errorf("run %s: %d, want 404", id, code)
		}
	}
}

// TestRunReplayWorkshop records a run against the fake, then serves that recording as an
// endpoint with no key and no network, as a workshop would, and runs it from the page.
func TestRunReplayWorkshop(t *testing.T) {
	e := newRunEnv(t, nil, nil)
	ws := openExample(t, e.s, "library-2-draft")
	id := e.start(t, ws, runForm("samples", "2", "seed", "11", "temperature", "0.7"))
	e.s.WaitRuns()
	code, rec := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+id+"/recording.json", nil)
	if code != http.StatusOK {
		t.Fatalf("recording: %d %s", code, rec)
	}
	path := filepath.Join(t.TempDir(), "workshop.json")
	if err := os.WriteFile(path, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, origMeta := e.stored(t, ws, id)

	// The workshop's server: no key anywhere, and nothing to reach.
	os.Unsetenv(keyEnv)
	w := newRunEnvWith(t, nil, RunsConfig{Endpoints: []runner.Endpoint{{Name: "workshop", Replay: path}}, Getenv: os.Getenv,
		ProgressEvery: 10 * time.Millisecond, Retries: -1})
	wsW := openExample(t, w.s, "library-2-draft")
	_, panel := w.call(t, http.MethodGet, "/w/"+wsW+"/runs/panel", nil)
	if !strings.Contains(panel, "(recording, no key)") || !strings.Contains(panel, "fake-model") || !strings.Contains(panel, "replace the ones below") {
		t.Errorf("the replay endpoint is not offered as a recording: %s", panel)
	}
	// The form's settings differ from the recording's: the recording's win, or nothing answers.
	rid := w.start(t, wsW, url.Values{"endpoint": {"workshop"}, "samples": {"1"}, "temperature": {"0"}})
	w.s.WaitRuns()
	r, body, meta := w.stored(t, wsW, rid)
	if r.Status != runsvc.Done || meta.Errors != 0 || meta.Done != origMeta.Done {
		t.Fatalf("replayed run: status %s, %d calls, %d failed (%s)", r.Status, meta.Done, meta.Errors, meta.Problem)
	}
	if *meta.Accuracy != *origMeta.Accuracy || body.Run.Header.Spec.Temperature != 0.7 {
		t.Errorf("replayed accuracy %v (temperature %v), recorded %v", *meta.Accuracy, body.Run.Header.Spec.Temperature, *origMeta.Accuracy)
	}
	// Another listing has no answers in the recording: refused before anything runs.
	other := openExample(t, w.s, "library-3-clear")
	_, refused := w.call(t, http.MethodPost, "/w/"+other+"/runs", url.Values{"endpoint": {"workshop"}})
	if !strings.Contains(refused, "recording made on other tools") {
		t.Errorf("a replay on another listing was not refused plainly: %s", refused)
	}
}

// FuzzRunForm: any form is either refused with a message or read into settings the engine
// accepts.
func FuzzRunForm(f *testing.F) {
	f.Add("fake", "1", "0", "", "on", "prompt")
	f.Add("", "-1", "NaN", "x", "", "")
	f.Add("fake", "100", "2", "-9223372036854775808", "off", strings.Repeat("a", 20000))
	f.Add("fake", "1e2", "0x1p-2", "007", "on", "\x00")
	f.Fuzz(func(t *testing.T, endpoint, samples, temperature, seed, shuffle, system string) {
		form := url.Values{"endpoint": {endpoint}, "samples": {samples}, "temperature": {temperature}, "seed": {seed}, "shuffle": {shuffle}, "system": {system}}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		c := echoContext(req)
		spec, ep, problem := readRunForm(c)
		if problem != "" {
			return
		}
		if ep == "" || spec.Samples < 1 || spec.Samples > MaxRunSamples || !(spec.Temperature >= 0 && spec.Temperature <= 2) || len(spec.SystemPrompt) > 16<<10 {
			t.Fatalf("accepted a bad form: %+v %q", spec, ep)
		}
	})
}

func echoContext(req *http.Request) echo.Context {
	return echo.New().NewContext(req, httptest.NewRecorder())
}

// TestRunsViewLink: a view link shows runs and their results and hands out recordings, but
// starting, cancelling and resuming are refused, and the page offers no form to start one.
func TestRunsViewLink(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	f := &fake.Server{Key: testKey}
	r.s.runs = r.s.newRuns(RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv,
		HTTP: runner.HandlerDoer{Handler: f}, Retries: -1}, r.st)
	ctx := context.Background()
	// A cancelled run of the workspace, made with the engine and stored as the page stores it.
	l, err := listing.Parse([]byte(authListing), listing.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks([]byte(`[{"task": "Search the catalogue for Le Guin", "expect": "books_search"}, {"task": "weather", "expect": null}]`), false)
	if err != nil {
		t.Fatal(err)
	}
	client, _ := r.s.runs.Client("fake")
	run, err := runner.Execute(ctx, client, l, tasks, runner.Options{Spec: runner.Spec{Samples: 2}})
	if err != nil {
		t.Fatal(err)
	}
	run.Calls = run.Calls[:2]
	rec, err := r.st.PutRun(ctx, store.Run{Workspace: r.ws, Label: "earlier", Status: runsvc.Cancelled, Created: time.Now(),
		Meta: runsvc.MustJSON(runsvc.Meta{Endpoint: "fake", Model: "fake-model", Samples: 2, Tasks: 2, Done: 2, Total: 4, TasksHash: run.Header.TasksHash}),
		Body: runsvc.MustJSON(runsvc.Body{Listing: listing.Marshal(l.Result(), ""), Run: run})})
	if err != nil {
		t.Fatal(err)
	}
	sent := f.Requests()

	view := r.link(t, store.CanView)
	b := r.visitor()
	if rec := b.get(t, "/s/"+view.Token); rec.Code != http.StatusSeeOther {
		t.Fatalf("open view link: %d", rec.Code)
	}
	panel := b.get(t, "/w/"+r.ws+"/runs/panel")
	if panel.Code != http.StatusOK || !strings.Contains(panel.Body.String(), "shared with you read-only") ||
		strings.Contains(panel.Body.String(), `data-testid="run-start"`) || strings.Contains(panel.Body.String(), "/resume") {
		t.Errorf("a viewer's Runs panel: %d %s", panel.Code, panel.Body.String())
	}
	for _, p := range []string{"/runs/" + rec.ID, "/runs/" + rec.ID + "/recording.json"} {
		if got := b.get(t, "/w/"+r.ws+p); got.Code != http.StatusOK {
			t.Errorf("GET %s with a view link: %d", p, got.Code)
		}
	}
	for _, p := range []string{"/runs", "/runs/" + rec.ID + "/cancel", "/runs/" + rec.ID + "/resume"} {
		if got := b.form(t, "/w/"+r.ws+p, url.Values{"endpoint": {"fake"}}); got.Code != http.StatusForbidden {
			t.Errorf("POST %s with a view link: %d, want 403", p, got.Code)
		}
	}
	r.s.WaitRuns()
	if list, _ := r.st.Runs(ctx, r.ws); len(list) != 1 || f.Requests() != sent {
		t.Errorf("a viewer started something: %d runs, %d requests", len(list), f.Requests()-sent)
	}
	// The owner, in the same server, may resume it.
	owner := r.visitor()
	if got := owner.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Owner"}}); got.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d %s", got.Code, got.Body.String())
	}
	if got := owner.datastar(t, http.MethodPost, "/w/"+r.ws+"/runs/"+rec.ID+"/resume", nil); got.Code != http.StatusOK ||
		strings.Contains(got.Body.String(), "run-failure") {
		t.Fatalf("the owner's resume: %d %s", got.Code, got.Body.String())
	}
	r.s.WaitRuns()
	if got, _ := r.st.Run(ctx, r.ws, rec.ID); got.Status != runsvc.Done {
		t.Errorf("resumed run: %s", got.Status)
	}
}

// TestRunSurvivesRestart stops a server while its run is in progress, then opens a new server
// on the same database: the run shows as interrupted with its finished calls, and resumes.
// A run whose last save still says "running" (the process was killed) reads the same way.
func TestRunSurvivesRestart(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	f := &fake.Server{Key: testKey, Delay: 20 * time.Millisecond}
	server := func(runCtx context.Context) *runEnv {
		cfg := RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f},
			Retries: -1, Context: runCtx, SaveEvery: 10 * time.Millisecond}
		cfg.Endpoints[0].Concurrency = 1
		s, err := New(Config{Store: db, Engine: eng, DatastarJS: []byte("// test client"), Runs: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return &runEnv{s: s, db: db, fake: f, log: &syncBuf{}}
	}
	first, stop := context.WithCancel(ctx)
	a := server(first)
	ws := openExample(t, a.s, "library-2-draft")
	id := a.start(t, ws, runForm("samples", "2"))
	for a.s.runs.Get(id) != nil && a.s.runs.Get(id).Counts().Done < 4 {
		time.Sleep(5 * time.Millisecond)
	}
	stop() // the process is told to stop
	a.s.WaitRuns()
	rec, body, meta := a.stored(t, ws, id)
	if rec.Status != runsvc.Interrupted || meta.Done < 4 || meta.Done >= 18 || len(body.Run.Calls) != meta.Done {
		t.Fatalf("after the stop: status %s, %d of 18 calls kept", rec.Status, meta.Done)
	}
	// As if killed: the last periodic save says running, and it was just made, so the run's
	// lease is live and a new server reads it as alive elsewhere, not to be resumed.
	rec.Status, rec.Updated = runsvc.Running, time.Now()
	if _, err := db.PutRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	b := server(ctx)
	t.Cleanup(b.s.WaitRuns)
	_, panel := b.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if !strings.Contains(panel, `data-run="`+id+`" data-status="running" data-elsewhere`) || strings.Contains(panel, "/runs/"+id+"/resume") {
		t.Fatalf("a run saved as running a moment ago does not read as alive elsewhere: %s", panel)
	}
	// Once no save has come for longer than the lease, it reads as interrupted.
	rec.Updated = time.Now().Add(-time.Hour)
	if _, err := db.PutRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	_, panel = b.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if !strings.Contains(panel, `data-run="`+id+`" data-status="interrupted"`) || !strings.Contains(panel, "/runs/"+id+"/resume") {
		t.Fatalf("the new server does not offer the interrupted run for resuming: %s", panel)
	}
	sent := f.Requests()
	if code, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/resume", nil); code != http.StatusOK || strings.Contains(body, "run-failure") {
		t.Fatalf("resume: %d %s", code, body)
	}
	b.s.WaitRuns()
	rec, _, after := b.stored(t, ws, id)
	if rec.Status != runsvc.Done || after.Done != 18 {
		t.Fatalf("resumed: status %s, %d of 18 calls", rec.Status, after.Done)
	}
	if n := f.Requests() - sent; n != 18-meta.Done {
		t.Errorf("the resume sent %d requests for %d missing calls", n, 18-meta.Done)
	}
}

// TestRunCacheAndThrottle: a second identical run is answered from the response cache and pays
// nothing, unless "send again" is ticked; and with a progress interval longer than the run,
// the stream carries the start's bar and the final one only, not one patch per call.
func TestRunCacheAndThrottle(t *testing.T) {
	e := newRunEnv(t, nil, func(c *RunsConfig) {
		c.Cache = &runner.MemCache{}
		c.ProgressEvery = time.Hour
	})
	ws := openExample(t, e.s, "library-2-draft")
	_, panel := e.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if !strings.Contains(panel, `data-testid="run-nocache"`) {
		t.Error("the form does not offer to bypass the cache")
	}
	st := e.openStream(t, ws)
	first := e.start(t, ws, runForm("samples", "2"))
	e.s.WaitRuns()
	body := st.waitFor(t, `data-testid="run-progress" data-status="done"`)
	if n := strings.Count(body, `data-testid="run-progress-bar"`); n != 2 {
		t.Errorf("the stream carried %d progress bars for 18 calls with an hour between patches; want the start's and the final one only", n)
	}
	sent := e.fake.Requests()
	second := e.start(t, ws, runForm("samples", "2"))
	e.s.WaitRuns()
	if e.fake.Requests() != sent {
		t.Errorf("an identical run sent %d requests; the cache should answer them", e.fake.Requests()-sent)
	}
	_, res := e.call(t, http.MethodGet, "/w/"+ws+"/runs/"+second, nil)
	if !strings.Contains(res, "18 from the cache") {
		t.Error("the results do not say the answers came from the cache")
	}
	third := e.start(t, ws, runForm("samples", "2", "nocache", "on"))
	e.s.WaitRuns()
	if n := e.fake.Requests() - sent; n != 18 {
		t.Errorf("a run that bypasses the cache sent %d requests, want 18", n)
	}
	for _, id := range []string{first, second, third} {
		if rec, _, meta := e.stored(t, ws, id); rec.Status != runsvc.Done || meta.Done != 18 {
			t.Errorf("run %s: %s, %d calls", id, rec.Status, meta.Done)
		}
	}
}

// TestRunStartsFromWhatItNames: an edit lands between the read of the workspace and the run's
// start. The run is started again from a fresh read, so the revision it names is the listing
// it sends to the model (never a revision a keystroke extended past what the run saw).
func TestRunStartsFromWhatItNames(t *testing.T) {
	e := newRunEnv(t, nil, nil)
	race := &interject{Store: e.db, method: "PutRun", when: func(a any) bool { return a.(store.Run).ID == "" }}
	e.s.runs = e.s.newRuns(e.s.runs.Config(), race)
	ws := openExample(t, e.s, "library-2-draft")
	race.arm(func(st store.Store) {
		if _, err := st.AppendEdit(context.Background(), store.Edit{Workspace: ws, Author: "bo",
			Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString("Landed as the run started.")}}}); err != nil {
			t.Error(err)
		}
	})
	id := e.start(t, ws, runForm())
	e.s.WaitRuns()
	rec, body, _ := e.stored(t, ws, id)
	head, err := e.db.Revision(context.Background(), ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body.Listing), "Landed as the run started.") {
		t.Errorf("the run sent the listing from before the edit")
	}
	if rec.Revision != head.Number {
		t.Errorf("the run names revision %d; the edit made it %d", rec.Revision, head.Number)
	}
}
