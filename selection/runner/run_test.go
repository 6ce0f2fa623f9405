package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/selection/fake"
)

func TestExecuteCues(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[
 {"id": "get", "task": "Show me ticket 4521", "expect": "tickets_get", "args": {"ticket_id": 4521}},
 {"id": "search", "task": "Find open tickets", "expect": "tickets_search"},
 {"id": "none", "task": "What is the weather like?", "expect": null},
 {"id": "text", "task": "Show me ticket 7 [[text]]", "expect": "tickets_get"},
 {"id": "empty", "task": "Show me ticket 7 [[empty]]", "expect": "tickets_get"},
 {"id": "badargs", "task": "Show me ticket 7 [[badargs]]", "expect": "tickets_get"},
 {"id": "unknown", "task": "Show me ticket 7 [[unknown]]", "expect": "tickets_get"},
 {"id": "multi", "task": "Remove ticket 9 [[multi]]", "expect": "tickets_delete"},
 {"id": "fail", "task": "Look up user Maria [[fail:2]]", "expect": "users_find"},
 {"id": "429", "task": "Look up user Chen [[429:3]]", "expect": "users_find"},
 {"id": "garbage", "task": "Show me ticket 7 [[garbage]]", "expect": "tickets_get"},
 {"id": "wrongargs", "task": "Show me ticket 12", "expect": "tickets_get", "args": {"ticket_id": 13}}
]`)
	srv := &fake.Server{}
	w := &waits{}
	c := fakeClient(t, srv, ClientOptions{Sleep: w.sleep, Retries: 3})
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Calls) != len(tasks) {
		t.Fatalf("%d calls, want %d", len(run.Calls), len(tasks))
	}
	byID := map[string]Call{}
	for _, c := range run.Calls {
		byID[tasks[c.Task].ID] = c
	}
	tests := []struct {
		id       string
		outcome  Outcome
		tool     string
		known    bool
		calls    int
		attempts int
		json     bool
		valid    string // "true", "false", "nil"
		match    string
		errText  string
	}{
		{"get", OutTool, "tickets_get", true, 1, 1, true, "true", "true", ""},
		{"search", OutTool, "tickets_search", true, 1, 1, true, "true", "nil", ""},
		{"none", OutText, "", false, 0, 1, false, "nil", "nil", ""},
		{"text", OutText, "", false, 0, 1, false, "nil", "nil", ""},
		{"empty", OutNone, "", false, 0, 1, false, "nil", "nil", ""},
		{"badargs", OutTool, "tickets_get", true, 1, 1, false, "nil", "nil", ""},
		{"unknown", OutTool, "no_such_tool", false, 1, 1, true, "nil", "nil", ""},
		{"multi", OutTool, "tickets_delete", true, 2, 1, true, "true", "nil", ""},
		{"fail", OutTool, "users_find", true, 1, 3, true, "true", "nil", ""},
		{"429", OutTool, "users_find", true, 1, 2, true, "true", "nil", ""},
		{"garbage", OutError, "", false, 0, 1, false, "nil", "nil", "not a chat completion"},
		{"wrongargs", OutTool, "tickets_get", true, 1, 1, true, "true", "false", ""},
	}
	tri := func(b *bool) string {
		if b == nil {
			return "nil"
		}
		if *b {
			return "true"
		}
		return "false"
	}
	for _, tt := range tests {
		c := byID[tt.id]
		if c.Outcome != tt.outcome || c.Tool != tt.tool || c.Known != tt.known || c.ToolCalls != tt.calls || c.Attempts != tt.attempts ||
			c.Args.JSON != tt.json || tri(c.Args.Valid) != tt.valid || tri(c.Args.Match) != tt.match || !strings.Contains(c.Error, tt.errText) {
			t.Errorf("%s: got outcome %s tool %q known %v calls %d attempts %d json %v valid %s match %s error %q\nwant %+v",
				tt.id, c.Outcome, c.Tool, c.Known, c.ToolCalls, c.Attempts, c.Args.JSON, tri(c.Args.Valid), tri(c.Args.Match), c.Error, tt)
		}
	}
	// The 429's Retry-After (3 s) is honoured; the two 500s wait with backoff.
	var sawRetryAfter bool
	for _, d := range w.all() {
		if d == 3*time.Second {
			sawRetryAfter = true
		}
	}
	if !sawRetryAfter || len(w.all()) != 3 {
		t.Errorf("waits = %v, want three, one of them the 3s Retry-After", w.all())
	}
	if c := byID["get"]; c.Usage.Prompt == 0 || c.LatencyMS <= 0 || c.Exchange == nil || c.Exchange.Status != 200 {
		t.Errorf("get: usage %+v latency %v exchange %+v, want usage, latency and the exchange recorded", c.Usage, c.LatencyMS, c.Exchange)
	}
}

func TestRequestCarriesSchemaAsWritten(t *testing.T) {
	l := mustListing(t, ticketTools)
	ts := newToolSet(l)
	req, _ := buildRequest(ts, mustTasks(t, `[{"task": "x", "expect": null}]`)[0], 0, 0, Spec{Samples: 1, SystemPrompt: "sys", Temperature: 0})
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `"parameters":{"type":"object","properties":{"ticket_id":{"type":"integer","description":"Numeric ticket id.","x-order":1}},"required":["ticket_id"],"additionalProperties":false}`
	if !strings.Contains(string(b), want) {
		t.Errorf("request %s\ndoes not carry the schema as written: %s", b, want)
	}
	if !strings.Contains(string(b), `"temperature":1e-45`) {
		t.Errorf("request %s does not send a zero temperature", b)
	}
	if !strings.Contains(string(b), `{"role":"system","content":"sys"}`) {
		t.Errorf("request %s lacks the system prompt", b)
	}
}

func TestShuffleOrders(t *testing.T) {
	seed := int64(7)
	spec := Spec{Samples: 8, Shuffle: true, Seed: &seed}
	seen := map[string]bool{}
	for s := 0; s < 8; s++ {
		o := order(6, spec, 3, s)
		again := order(6, spec, 3, s)
		b, _ := json.Marshal(o)
		b2, _ := json.Marshal(again)
		if string(b) != string(b2) {
			t.Fatalf("order for sample %d is not reproducible: %s, %s", s, b, b2)
		}
		seen[string(b)] = true
	}
	if len(seen) < 4 {
		t.Errorf("8 shuffled samples gave only %d distinct orders", len(seen))
	}
	if o := order(4, Spec{Samples: 1}, 0, 0); o[0] != 0 || o[3] != 3 {
		t.Errorf("unshuffled order = %v, want as listed", o)
	}
}

func TestExecuteShuffleRecordsPosition(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}]`)
	seed := int64(1)
	c := fakeClient(t, &fake.Server{}, ClientOptions{})
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 12, Shuffle: true, Seed: &seed}})
	if err != nil {
		t.Fatal(err)
	}
	positions := map[int]bool{}
	for _, cl := range run.Calls {
		if cl.Tool != "tickets_get" {
			t.Fatalf("sample %d chose %q", cl.Sample, cl.Tool)
		}
		positions[cl.Position] = true
	}
	if len(positions) < 2 {
		t.Errorf("12 shuffled samples put the chosen tool at positions %v, want several", positions)
	}
	if s := ScoreRun(run); len(s.ByPosition) == 0 {
		t.Error("score has no position counts")
	}
}

func TestRetriesGiveUp(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1 [[fail:10]]", "expect": "tickets_get"}, {"task": "Show me ticket 2 [[slow:3s]]", "expect": "tickets_get"}]`)
	w := &waits{}
	c := fakeClient(t, &fake.Server{}, ClientOptions{Sleep: w.sleep, Retries: 2, Timeout: 50 * time.Millisecond})
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"server error (HTTP 500): the fake server fails on cue (gave up after 3 attempts)", "did not answer within 50ms (gave up after 3 attempts)"}
	for i, cl := range run.Calls {
		if cl.Outcome != OutError || !strings.Contains(cl.Error, want[i]) {
			t.Errorf("call %d: %s %q, want an error containing %q", i, cl.Outcome, cl.Error, want[i])
		}
	}
	s := ScoreRun(run)
	if s.Errors != 2 || s.Scored != 0 || s.Interval.Low != 0 || s.Interval.High != 1 {
		t.Errorf("score = errors %d scored %d interval %+v, want 2, 0, [0, 1]", s.Errors, s.Scored, s.Interval)
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1 [[429:600]]", "expect": "tickets_get"}]`)
	c := fakeClient(t, &fake.Server{}, ClientOptions{Sleep: (&waits{}).sleep, MaxRetryAfter: time.Minute})
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if cl := run.Calls[0]; cl.Outcome != OutError || !strings.Contains(cl.Error, "retry after 10m0s") {
		t.Errorf("call = %s %q, want an error about the 10 minute Retry-After", cl.Outcome, cl.Error)
	}
}

func TestCache(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}, {"task": "Find open tickets", "expect": "tickets_search"}]`)
	srv := &fake.Server{}
	c := fakeClient(t, srv, ClientOptions{Cache: &MemCache{}})
	spec := Spec{Samples: 3}
	first, err := Execute(context.Background(), c, l, tasks, Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 6 {
		t.Fatalf("first run sent %d requests, want 6 (3 samples are 3 answers, not one)", srv.Requests())
	}
	second, err := Execute(context.Background(), c, l, tasks, Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 6 || ScoreRun(second).Cached != 6 {
		t.Errorf("second run: %d requests in all and %d cached, want 6 and 6", srv.Requests(), ScoreRun(second).Cached)
	}
	if a, b := ScoreRun(first), ScoreRun(second); a.Accuracy != b.Accuracy {
		t.Errorf("cached run scores %v, first %v", b.Accuracy, a.Accuracy)
	}
	if _, err := Execute(context.Background(), c, l, tasks, Options{Spec: spec, NoCache: true}); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 12 {
		t.Errorf("after a run without the cache: %d requests, want 12", srv.Requests())
	}
}

func TestExecuteRejects(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "x", "expect": null}]`)
	c := fakeClient(t, &fake.Server{}, ClientOptions{})
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{Samples: -1}, "samples -1 is out of range"},
		{Spec{Samples: 1, Temperature: 3}, "temperature 3 is out of range"},
	} {
		if _, err := Execute(context.Background(), c, l, tasks, Options{Spec: tt.spec}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("spec %+v: error %v, want %q", tt.spec, err, tt.want)
		}
	}
	if _, err := Execute(context.Background(), c, l, nil, Options{}); err == nil || !strings.Contains(err.Error(), "no tasks") {
		t.Errorf("no tasks: error %v", err)
	}
}

// go-openai refuses some requests before sending them; that is final, not retried.
func TestRefusedBeforeSending(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get"}]`)
	srv := &fake.Server{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, err := NewClient(Endpoint{Name: "o", BaseURL: ts.URL, Model: "o3-mini"}, ClientOptions{Sleep: (&waits{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1, Temperature: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if cl := run.Calls[0]; cl.Outcome != OutError || cl.Attempts != 1 || !strings.Contains(cl.Error, "the request was not sent") || srv.Requests() != 0 {
		t.Errorf("call = %s after %d attempts: %q; server saw %d requests", cl.Outcome, cl.Attempts, cl.Error, srv.Requests())
	}
}

// TestRetryAfterHuge: a Retry-After too large for a Duration (or infinite) reads as a very long
// wait, never as a negative one that would retry at once.
func TestRetryAfterHuge(t *testing.T) {
	for _, v := range []string{"1e300", "Inf", "1e10", "9223372037"} {
		d, ok := retryAfter(http.Header{"Retry-After": {v}})
		if !ok || d < time.Hour {
			t.Errorf("Retry-After %s = %v, %v; want a long wait", v, d, ok)
		}
	}
}

// TestArgsCheckedWithECMAPatterns: a schema whose pattern only ECMA-262 reads (a look-ahead, as
// JSON Schema allows) still checks a call's arguments, as the linter compiles it.
func TestArgsCheckedWithECMAPatterns(t *testing.T) {
	l := mustListing(t, `{"tools": [{"name": "set_code", "description": "Set a code.", "inputSchema": {"type": "object",
		"properties": {"code": {"type": "string", "pattern": "^(?=.*[0-9])[a-z0-9]+$"}}, "required": ["code"]}}]}`)
	ts := newToolSet(l)
	for args, want := range map[string]bool{`{"code": "abc1"}`: true, `{"code": "abc"}`: false} {
		ac := ts.check("set_code", args, nil, "set_code")
		if ac.Valid == nil || *ac.Valid != want {
			t.Errorf("%s: Valid = %v (problems %v), want %v", args, ac.Valid, ac.Problems, want)
		}
	}
}
