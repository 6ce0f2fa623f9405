package runner

import (
	"context"
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
		{"a folder that does not exist", Endpoint{Name: "e", BaseURL: "http://e.invalid/v1", Model: "m", Record: filepath.Join(dir, "no", "tape.json")}, "cannot write beside"},
		{"record and replay", Endpoint{Name: "e", Model: "m", Record: filepath.Join(dir, "a.json"), Replay: filepath.Join(dir, "b.json")}, "not both"},
	} {
		_, err := NewClient(tc.ep, ClientOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
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
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "later calls were not kept") {
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
