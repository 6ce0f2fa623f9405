package drafting_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
)

// A recording keeps no answer of a size drafting would never read. An answer padded with
// whitespace is kept compacted, and replays the same; an answer still over MaxAnswerBytes is
// replaced by a short note, which a replay answers as an error that says what was left out.
func TestRecorderBoundsAnswers(t *testing.T) {
	small := `{"candidates":[{"description":"Reads one support ticket by its numeric id and returns its fields."}]}`
	cases := []struct {
		name     string
		content  string
		pad      int  // whitespace after the completion's last member
		kept     bool // the answer is kept (compacted)
		wantText string
	}{
		{"a small answer", small, 0, true, small},
		{"a small answer padded to 15 MiB", small, 15 << 20, true, small},
		{"an answer over MaxAnswerBytes", strings.Repeat("x", drafting.MaxAnswerBytes+1), 0, false, ""},
	}
	for _, tc := range cases {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "choices": []any{map[string]any{
				"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": tc.content}}}})
			w.Header().Set("Content-Type", "application/json")
			w.Write(b[:len(b)-1])
			w.Write([]byte(strings.Repeat(" ", tc.pad) + "}"))
		})
		live, err := runner.NewClient(runner.Endpoint{Name: "e", BaseURL: "http://e.invalid/v1", Model: "m"},
			runner.ClientOptions{Retries: -1, HTTP: runner.HandlerDoer{Handler: h}})
		if err != nil {
			t.Fatal(err)
		}
		rec := &drafting.Recorder{}
		if _, err := (drafting.Caller{Model: live, Record: rec}).Ask(context.Background(), askBrief); err != nil {
			t.Fatalf("%s: live: %v", tc.name, err)
		}
		recording := rec.Recording(runner.Spec{})
		if n := len(recording.Exchanges); n != 1 {
			t.Fatalf("%s: %d exchanges recorded, want 1", tc.name, n)
		}
		if n := len(recording.Exchanges[0].Response); n > drafting.MaxAnswerBytes {
			t.Errorf("%s: the recording keeps a %d-byte answer", tc.name, n)
		}
		replay, err := runner.NewClient(runner.Endpoint{Name: "e", BaseURL: "http://replay.invalid/v1", Model: "m"},
			runner.ClientOptions{Retries: -1, HTTP: runner.HandlerDoer{Handler: runner.ReplayHandler(recording)}})
		if err != nil {
			t.Fatal(err)
		}
		text, err := drafting.Caller{Model: replay}.Ask(context.Background(), askBrief)
		switch {
		case tc.kept && (err != nil || text != tc.wantText):
			t.Errorf("%s: the replay answers %q, %v; want %q", tc.name, text, err, tc.wantText)
		case !tc.kept && (err == nil || !strings.Contains(err.Error(), "the recording left out this answer")):
			t.Errorf("%s: the replay answers %d bytes, %v; want an error that says the answer was left out", tc.name, len(text), err)
		}
		if !tc.kept && err != nil {
			t.Logf("%s: the replay says: %v", tc.name, err)
		}
	}
}
