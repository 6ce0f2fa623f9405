package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// echoHandler answers every call with a completion that names the call's last message.
var echoHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"answered"}}]}`))
})

func ask(t *testing.T, c *Client, text string) string {
	t.Helper()
	rep, err := c.Complete(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: text}}}, 0, true)
	if err != nil {
		t.Fatalf("ask %q: %v", text, err)
	}
	return rep.Completion.Choices[0].Message.Content
}

// An endpoint with "record" adds every call to its recording, continues a recording already
// there, and a replay endpoint on the file answers those calls with no key.
func TestRecordFile(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "tape.json")
	ep := Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", APIKeyEnv: "K", Record: tape}
	opts := ClientOptions{Getenv: func(string) string { return "sk-secret-key-1234" }, HTTP: HandlerDoer{echoHandler}, Retries: -1}
	for round, texts := range [][]string{{"one", "two"}, {"three"}} {
		c, err := NewClient(ep, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			ask(t, c, s)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		rec, err := OpenRecording(tape)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if want := 2 + round; len(rec.Exchanges) != want || rec.Spec.Model != "m" {
			t.Errorf("round %d: %d exchanges for model %q, want %d for m", round, len(rec.Exchanges), rec.Spec.Model, want)
		}
	}
	b, _ := os.ReadFile(tape)
	if strings.Contains(string(b), "sk-secret-key-1234") {
		t.Error("the recording holds the key")
	}
	replay, err := NewClient(Endpoint{Name: "replay", Replay: tape}, ClientOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one", "two", "three"} {
		if got := ask(t, replay, s); got != "answered" {
			t.Errorf("replay of %q: %q", s, got)
		}
	}
}

func TestRecordFileRefuses(t *testing.T) {
	dir := t.TempDir()
	notRecording := filepath.Join(dir, "listing.json")
	os.WriteFile(notRecording, []byte(`{"tools": []}`), 0o600)
	for _, tc := range []struct {
		name string
		ep   Endpoint
		want string
	}{
		{"a file that is not a recording", Endpoint{Name: "e", BaseURL: "http://e.invalid/v1", Model: "m", Record: notRecording}, "not a workbench recording"},
		{"a folder that does not exist", Endpoint{Name: "e", BaseURL: "http://e.invalid/v1", Model: "m", Record: filepath.Join(dir, "no", "tape.json")}, "cannot write a file beside tape.json: no such file"},
		{"record and replay", Endpoint{Name: "e", Model: "m", Record: filepath.Join(dir, "a.json"), Replay: filepath.Join(dir, "b.json")}, "not both"},
	} {
		_, err := NewClient(tc.ep, ClientOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
		// The message becomes the endpoint's problem on the pages: no server folder in it.
		if err != nil && strings.Contains(err.Error(), dir) {
			t.Errorf("%s: the error names the folder: %v", tc.name, err)
		}
	}
}

// A recording stops growing at its bound: later calls are answered but not kept.
func TestRecordFileFull(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "tape.json")
	ep := Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", Record: tape}
	f, err := OpenRecordFile(tape, ep)
	if err != nil {
		t.Fatal(err)
	}
	f.max = 1200
	c, err := NewClient(ep, ClientOptions{HTTP: HandlerDoer{echoHandler}, Retries: -1, RecordTo: f})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		ask(t, c, strings.Repeat("x", 10*i))
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "calls were not kept") {
		t.Errorf("Close of a full recording: %v, want it said", err)
	}
	rec, err := OpenRecording(tape)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Exchanges); n == 0 || n >= 10 || !f.Full() {
		t.Errorf("%d of 10 exchanges kept (full %v); want some, and fewer than all", n, f.Full())
	}
}

// A hostile endpoint has the key: it may echo it back in any spelling, hoping it lands in the
// recording, which is made to be shared; or make redaction break the JSON so that nothing more
// can be written. Neither works, and what the recording keeps stays valid.
func TestRecordFileHostileAnswers(t *testing.T) {
	const ok = `"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"answered"}}]`
	for _, tc := range []struct{ name, key, body string }{
		{"an escaped key in a member a duplicate overrides", "sk-secret-key-1234", `{"note":"\u0073k-secret-key-1234","note":"x",` + ok + `}`},
		{"a key after a backslash (\\f…)", "fw_secret1234", `{"note":"\fw_secret1234",` + ok + `}`},
		{"a key as a member name", "sk-secret-key-1234", `{"sk-secret-key-1234":1,` + ok + `}`},
		{"an escaped key in nested arguments", "sk-secret-key-1234", `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"t","arguments":"{\"k\":\"\\u0073k-secret-key-1234\"}"}}]}}]}`},
	} {
		tape := filepath.Join(t.TempDir(), "tape.json")
		ep := Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", APIKeyEnv: "K", Record: tape}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(tc.body))
		})
		c, err := NewClient(ep, ClientOptions{Getenv: func(string) string { return tc.key }, HTTP: HandlerDoer{h}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		c.Complete(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}, 0, true)
		c.Complete(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "again"}}}, 0, true)
		if err := c.Close(); err != nil {
			t.Errorf("%s: the recording cannot be written: %v", tc.name, err)
			continue
		}
		rec, err := OpenRecording(tape)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(rec.Exchanges) != 2 {
			t.Errorf("%s: %d exchanges, want 2", tc.name, len(rec.Exchanges))
		}
		for _, x := range rec.Exchanges {
			if c.tokensHoldKey(x.Response, 0) || strings.Contains(string(x.Response), tc.key) || !json.Valid(x.Response) {
				t.Errorf("%s: the recording keeps %s", tc.name, x.Response)
			}
		}
	}
}

// The bound counts bytes as written: a response of characters JSON may escape (< > &) costs
// what it costs in the file.
func TestRecordFileBoundCountsBytesWritten(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "tape.json")
	ep := Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", Record: tape}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"pad":"` + strings.Repeat("<&>", 60<<10) + `","id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"a"}}]}`))
	})
	f, err := OpenRecordFile(tape, ep)
	if err != nil {
		t.Fatal(err)
	}
	f.max = 2 << 20
	c, err := NewClient(ep, ClientOptions{RecordTo: f, HTTP: HandlerDoer{h}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		ask(t, c, strings.Repeat("x", i+1))
	}
	c.Close()
	st, err := os.Stat(tape)
	if err != nil || st.Size() > f.max || !f.Full() {
		t.Errorf("the recording is %v bytes (%v), bound %d, full %v", st.Size(), err, f.max, f.Full())
	}
}

// Continuing a run's recording adds the endpoint's calls to it; since they were made with other
// settings, the recording no longer claims the run's (a replay would force them on every run).
func TestRecordFileContinuesARun(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "tape.json")
	seed := int64(7)
	run := &Recording{Format: RecordingFormat, Spec: Spec{Endpoint: "old", Model: "m", Samples: 3, Temperature: 0.7, Seed: &seed, SystemPrompt: "Pick a tool."},
		Header: Header{Kind: "run", ListingHash: "abc"}, Exchanges: []Exchange{{Request: []byte(`{"model":"m"}`), Status: 200, Response: []byte(`{"choices":[]}`)}}}
	b, _ := json.Marshal(run)
	if err := os.WriteFile(tape, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", Record: tape}, ClientOptions{HTTP: HandlerDoer{echoHandler}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ask(t, c, "one")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenRecording(tape)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Exchanges) != 2 || rec.Spec.Recorded() || rec.Spec.Model != "m" || rec.Header.ListingHash != "" {
		t.Errorf("continued: %d exchanges, spec %+v, header %+v", len(rec.Exchanges), rec.Spec, rec.Header)
	}
}

// Whatever an endpoint answers, the body kept of it holds no key, read as bytes or decoded, and
// is JSON when the answer was.
func FuzzRedactJSON(f *testing.F) {
	for _, s := range []string{`{"a":"sk-k3y-9f8e"}`, `{"a":"\u0073k-k3y-9f8e","a":1}`, `{"\fsk-k3y-9f8e":"\\u0073k-k3y-9f8e"}`,
		`["{\"x\":\"\\u0073k-k3y-9f8e\"}"]`, `"sk-k3y-9f8e\\"`, `{"a":"\/sk-k3y-9f8e"}`} {
		f.Add([]byte(s))
	}
	c := &Client{key: "sk-k3y-9f8e"}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 64<<10 {
			return
		}
		out := c.redactJSON(body)
		if bytes.Contains(out, []byte(c.key)) {
			t.Fatalf("the key survives in %q (from %q)", out, body)
		}
		if json.Valid(body) && (!json.Valid(out) || c.tokensHoldKey(out, 0)) {
			t.Fatalf("%q from %q: valid %v, holds the key decoded %v", out, body, json.Valid(out), c.tokensHoldKey(out, 0))
		}
	})
}

// A write that fails says so at Close, naming the file but no folder of the server.
func TestRecordFileWriteFails(t *testing.T) {
	dir := t.TempDir()
	tape := filepath.Join(dir, "tape.json")
	ep := Endpoint{Name: "live", BaseURL: "http://live.invalid/v1", Model: "m", Record: tape}
	c, err := NewClient(ep, ClientOptions{HTTP: HandlerDoer{echoHandler}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tape, "in-the-way"), 0o700); err != nil { // the rename cannot replace it
		t.Fatal(err)
	}
	ask(t, c, "one")
	err = c.Close()
	if err == nil || !strings.Contains(err.Error(), "record tape.json") || strings.Contains(err.Error(), dir) {
		t.Errorf("Close: %v; want an error naming tape.json and no folder", err)
	}
}

// BenchmarkRedactJSON: what every answer kept for a recording, a run or the cache costs: 4 MiB
// of strings with escapes, holding no key (left as they came), and the same with the key in it.
func BenchmarkRedactJSON(b *testing.B) {
	c := &Client{key: "sk-k3y-9f8e7d6c"}
	var body bytes.Buffer
	body.WriteString(`[`)
	for body.Len() < 4<<20 {
		body.WriteString(`"line one\nline \"two\"",`)
	}
	benign := append(bytes.Clone(body.Bytes()), []byte(`0]`)...)
	keyed := append(bytes.Clone(body.Bytes()), []byte(`"\u0073k-k3y-9f8e7d6c"]`)...)
	for _, tc := range []struct {
		name string
		body []byte
	}{{"no-key", benign}, {"key", keyed}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				c.redactJSON(tc.body)
			}
		})
	}
}
