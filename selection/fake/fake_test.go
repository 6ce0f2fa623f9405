package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func fixtures(t *testing.T) string {
	t.Helper()
	return testutil.Shared(t, "reference", "fixtures")
}

func ask(t *testing.T, s *Server, tools []*listing.Value, task string) map[string]any {
	t.Helper()
	var defs []any
	for _, tl := range tools {
		defs = append(defs, map[string]any{"type": "function", "function": map[string]any{
			"name": tl.Get("name").Str, "description": tl.Get("description").Str,
			"parameters": json.RawMessage(listing.Marshal(tl.Get("inputSchema"), ""))}})
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": task}}, "tools": defs})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var resp map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	return resp["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
}

// The fake calls the reference ranker's winner for every task of the reference fixtures.
func TestFakeCallsRankerWinner(t *testing.T) {
	dir := fixtures(t)
	for _, pair := range [][2]string{{"clear-tools.json", "tasks-clear.json"}, {"confusing-tools.json", "tasks-confusing.json"}} {
		src, err := os.ReadFile(filepath.Join(dir, pair[0]))
		if err != nil {
			t.Fatal(err)
		}
		l, err := listing.Parse(src, listing.Options{Name: pair[0]})
		if err != nil {
			t.Fatal(err)
		}
		tsrc, err := os.ReadFile(filepath.Join(dir, pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := selection.ParseTasks(tsrc, true)
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{}
		for i, v := range selection.Rank(l, tasks, false) {
			msg := ask(t, s, l.Tools, tasks[i].Task)
			calls, _ := msg["tool_calls"].([]any)
			if v.Winner == nil || v.Winner.Score == 0 {
				if len(calls) != 0 {
					t.Errorf("%s: no tool scores, but the fake called %v", tasks[i].Task, calls)
				}
				continue
			}
			if len(calls) != 1 {
				t.Fatalf("%s: %d calls, want 1", tasks[i].Task, len(calls))
			}
			got := calls[0].(map[string]any)["function"].(map[string]any)["name"]
			if got != v.Winner.Name {
				t.Errorf("%s: fake called %v, ranker's winner is %s", tasks[i].Task, got, v.Winner.Name)
			}
		}
	}
}

func TestFakeCues(t *testing.T) {
	l, err := listing.Parse([]byte(`[{"name": "get_ticket", "description": "Show a ticket", "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
 {"name": "find_ticket", "description": "Find a ticket by text", "inputSchema": {"type": "object"}}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	tests := []struct {
		task     string
		calls    int
		first    string
		args     string
		wantText bool
	}{
		{"show ticket 42", 1, "get_ticket", `{"id":42}`, false},
		{"show ticket 42 [[wrong]]", 1, "find_ticket", `{}`, false},
		{"show ticket 42 [[multi]]", 2, "get_ticket", `{"id":42}`, false},
		{"show ticket 42 [[unknown]]", 1, "no_such_tool", `{}`, false},
		{"show ticket 42 [[badargs]]", 1, "get_ticket", `{"ticket_id": 45`, false},
		{"show ticket 42 [[text]]", 0, "", "", true},
		{"nothing matches here", 0, "", "", true},
	}
	for _, tt := range tests {
		msg := ask(t, s, l.Tools, tt.task)
		calls, _ := msg["tool_calls"].([]any)
		if len(calls) != tt.calls {
			t.Errorf("%s: %d calls, want %d", tt.task, len(calls), tt.calls)
			continue
		}
		if tt.calls > 0 {
			fn := calls[0].(map[string]any)["function"].(map[string]any)
			if fn["name"] != tt.first || fn["arguments"] != tt.args {
				t.Errorf("%s: called %v(%v), want %s(%s)", tt.task, fn["name"], fn["arguments"], tt.first, tt.args)
			}
		}
		if text, _ := msg["content"].(string); (text != "") != tt.wantText {
			t.Errorf("%s: content %q", tt.task, text)
		}
	}
}

// Whatever arrives, the fake answers with a status and never panics.
func FuzzServe(f *testing.F) {
	f.Add([]byte(`{"model": "m", "messages": [{"role": "user", "content": "show ticket 1 [[multi]]"}], "tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}}}}]}`))
	f.Add([]byte(`{"messages": [{"role": "user", "content": "[[slow:-1s]][[fail:x]]"}], "tools": [{"function": {"parameters": null}}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := &Server{}
		rec := httptest.NewRecorder()
		// A cancelled request: a [[slow:1h]] cue returns at once instead of stalling the fuzzer.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)).WithContext(ctx))
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
	})
}
