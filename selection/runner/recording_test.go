package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
)

// A run recorded against the fake server replays with no server and no key, to the same
// choices, including a failed call.
func TestRecordAndReplay(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[
 {"task": "Show me ticket 4521", "expect": "tickets_get"},
 {"task": "Find open tickets [[flip]]", "expect": "tickets_search"},
 {"task": "What is the weather like?", "expect": null},
 {"task": "Show me ticket 3 [[fail:9]]", "expect": "tickets_get"}
]`)
	srv := &fake.Server{Key: "sk-record-0123456789"}
	c := fakeClient(t, srv, ClientOptions{Retries: -1})
	seed := int64(10)
	spec := Spec{Samples: 3, Temperature: 0.7, Seed: &seed, Shuffle: true}
	orig, err := Execute(context.Background(), c, l, tasks, Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(NewRecording(orig)); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(srv.Key)) {
		t.Fatal("the recording holds the key")
	}
	rec, err := ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Exchanges) != 12 {
		t.Fatalf("recording has %d exchanges, want 12", len(rec.Exchanges))
	}
	ep := Endpoint{Name: "fake", BaseURL: "http://replay.invalid/v1", Model: "fake-model"}
	rc, err := NewClient(ep, ClientOptions{HTTP: HandlerDoer{ReplayHandler(rec)}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := Execute(context.Background(), rc, l, tasks, Options{Spec: rec.Spec})
	if err != nil {
		t.Fatal(err)
	}
	a, b := ScoreRun(orig), ScoreRun(replayed)
	for i := range a.PerTask {
		if !reflect.DeepEqual(a.PerTask[i].Choices, b.PerTask[i].Choices) {
			t.Errorf("task %d: recorded %v, replayed %v", i, a.PerTask[i].Choices, b.PerTask[i].Choices)
		}
	}
	if a.Errors != 3 || b.Errors != 3 {
		t.Errorf("errors recorded %d, replayed %d, want 3 each", a.Errors, b.Errors)
	}
	// Another setting is another request: the replay says so rather than inventing an answer.
	other := rec.Spec
	other.Temperature = 0.2
	miss, err := Execute(context.Background(), rc, l, tasks[:1], Options{Spec: other})
	if err != nil {
		t.Fatal(err)
	}
	if cl := miss.Calls[0]; cl.Outcome != OutError || !strings.Contains(cl.Error, "holds no answer to this request") {
		t.Errorf("unrecorded request: %s %q", cl.Outcome, cl.Error)
	}
}

func TestReadRecordingErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`nope`, "not valid JSON"},
		{`{"format": "x"}`, "not a workbench recording"},
		{`{"format": "workbench-recording/1", "exchanges": [{"request": null, "status": 200}]}`, "exchange 1 has no JSON request"},
		{`{"format": "workbench-recording/1", "exchanges": [{"request": {}, "status": 42}]}`, "HTTP status 42"},
	} {
		if _, err := ReadRecording(strings.NewReader(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.src, err, tt.want)
		}
	}
}

func FuzzReadRecording(f *testing.F) {
	f.Add([]byte(`{"format": "workbench-recording/1", "exchanges": [{"request": {"model": "m"}, "status": 200, "response": {}}]}`))
	f.Add([]byte(`{"format": "workbench-recording/1", "exchanges": []}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		rec, err := ReadRecording(bytes.NewReader(src))
		if err != nil {
			return
		}
		// Whatever was read serves without panicking.
		h := ReplayHandler(rec)
		for _, x := range rec.Exchanges {
			d := HandlerDoer{h}
			req, _ := newPost("http://r/v1/chat/completions", x.Request)
			resp, err := d.Do(req)
			if err != nil || resp.StatusCode != x.Status {
				t.Fatalf("replay of a recorded request: %v, status %v, want %d", err, resp, x.Status)
			}
		}
	})
}

// The key appears in no call, error, text, exchange, recording or score, even when the server
// echoes it in an answer and in an error.
func TestKeyNeverLeaks(t *testing.T) {
	const key = "sk-leak-test-9f8e7d6c5b4a"
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[
 {"task": "Show me ticket 1 [[echo]]", "expect": "tickets_get"},
 {"task": "Show me ticket 2 [[echo-error]]", "expect": "tickets_get"},
 {"task": "Show me ticket 3", "expect": "tickets_get"}
]`)
	srv := &fake.Server{Key: key}
	c := fakeClient(t, srv, ClientOptions{Cache: &MemCache{}})
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, v := range []any{run, NewRecording(run), ScoreRun(run)} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	if bytes.Contains(all.Bytes(), []byte(key)) {
		t.Fatalf("the key leaked into the run's output: %s", all.Bytes())
	}
	if !bytes.Contains(all.Bytes(), []byte("Bearer [redacted]")) {
		t.Error("the echoed header was not found redacted: the test did not exercise the echo")
	}
	if c := run.Calls[2]; c.Outcome != OutError || !strings.Contains(c.Error, "HTTP 400") {
		t.Errorf("echo-error call = %s %q", c.Outcome, c.Error)
	}
	// With the wrong key the error names the variable, not the key.
	ts := httptest.NewServer(&fake.Server{Key: "sk-other-key-000"})
	defer ts.Close()
	bad, err := NewClient(Endpoint{Name: "fake", BaseURL: ts.URL, Model: "m", APIKeyEnv: "K"},
		ClientOptions{Getenv: func(string) string { return key }})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Execute(context.Background(), bad, l, tasks[2:], Options{Spec: Spec{Samples: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r2)
	if bytes.Contains(b, []byte(key)) {
		t.Fatal("the key leaked from a refused call")
	}
	if c := r2.Calls[0]; !strings.Contains(c.Error, "refused the credentials (HTTP 401): check the key in K") {
		t.Errorf("refused call error = %q", c.Error)
	}
}

func newPost(url string, body []byte) (*http.Request, error) {
	return http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
}

// A replay endpoint in the configuration answers from its recording file.
func TestReplayEndpoint(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}]`)
	c := fakeClient(t, &fake.Server{}, ClientOptions{})
	orig, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 2, SystemPrompt: DefaultSystemPrompt}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(NewRecording(orig))
	path := t.TempDir() + "/rec.json"
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	eps, err := ParseEndpoints([]byte(`[{"name": "fake", "replay": "` + path + `"}]`))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := NewClient(eps[0], ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Recording() == nil || rc.Endpoint().Model != "fake-model" || !eps[0].Info().Replay {
		t.Fatalf("replay client: recording %v, model %q", rc.Recording() != nil, rc.Endpoint().Model)
	}
	run, err := Execute(context.Background(), rc, l, tasks, Options{Spec: rc.Recording().Spec})
	if err != nil {
		t.Fatal(err)
	}
	if s := ScoreRun(run); s.Correct != 2 || s.Errors != 0 {
		t.Errorf("replayed %d right, %d errors; want 2 and 0", s.Correct, s.Errors)
	}
	if _, err := ParseEndpoints([]byte(`[{"name": "r", "replay": "x.json", "apiKeyEnv": "K"}]`)); err == nil {
		t.Error("a replay endpoint with a key variable was accepted")
	}
	if _, err := NewClient(Endpoint{Name: "r", Replay: path + ".missing"}, ClientOptions{}); err == nil || !strings.Contains(err.Error(), "opening the recording") {
		t.Errorf("missing recording: %v", err)
	}
}
