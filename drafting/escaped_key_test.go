package drafting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
)

// escapedKey is the key of the escaped-key tests; it holds a slash so that "\/" can spell it.
const escapedKey = "sk-drafting/0123456789abcdef"

// keyEchoHandler answers every drafting job in the shape it asks for, with the key in every
// text: a candidate's description and rationale, a rubric's reasons, a proposed task. spell
// writes the key into the answer's content, which is itself JSON text that drafting decodes.
func keyEchoHandler(t *testing.T, spell func(key string) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
			t.Errorf("the request does not read: %v", err)
			return
		}
		var b drafting.Brief
		if err := json.Unmarshal([]byte(req.Messages[1].Content), &b); err != nil {
			t.Errorf("the brief does not read: %v", err)
			return
		}
		k := spell(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		var content string
		switch b.Job {
		case drafting.JobRewrite:
			content = `{"candidates":[{"description":"Reads one support ticket by its numeric id and returns its fields. ` + k + `","rationale":"` + k + `"}]}`
		case drafting.JobRubric:
			var dims []string
			for _, d := range drafting.Dimensions {
				dims = append(dims, `"`+d.ID+`":{"score":3,"reason":"`+k+`"}`)
			}
			content = `{"scores":{` + strings.Join(dims, ",") + `}}`
		case drafting.JobTasks:
			content = "Here you are:\n```json\n" + `{"tasks":[{"task":"Look up the record ` + k + `","expect":"` + b.Tools[0].Name + `","kind":"plain"}]}` + "\n```"
		}
		resp, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	})
}

// A server that spells the key inside its answer's JSON with escapes ("\u0073k-…", "\/" for a
// slash) passes the client's byte-level redaction of the completion, whose text still holds
// the escape; drafting decodes that text again. Ask re-encodes such an answer, escapes resolved,
// and redacts it, so no suggestion, rubric or proposed task holds the key.
func TestEscapedKeyInAnswerRedacted(t *testing.T) {
	spellings := map[string]func(string) string{
		"plain":               func(k string) string { return k },
		"first byte \\u":      func(k string) string { return `\u0073` + k[1:] },
		"slash as \\/":        func(k string) string { return strings.ReplaceAll(k, "/", `\/`) },
		"every byte \\u":      func(k string) string { return jsonEscapeAll(k) },
		"\\u and \\/ at once": func(k string) string { return `\u0073` + strings.ReplaceAll(k[1:], "/", `\/`) },
	}
	l, tasks := confusing(t)
	for name, spell := range spellings {
		cl, err := runner.NewClient(runner.Endpoint{Name: "echo", BaseURL: "http://echo.invalid/v1", Model: "m", APIKeyEnv: "K"},
			runner.ClientOptions{Retries: -1, Getenv: func(string) string { return escapedKey }, HTTP: runner.HandlerDoer{Handler: keyEchoHandler(t, spell)}})
		if err != nil {
			t.Fatal(err)
		}
		rec := &drafting.Recorder{}
		c := drafting.Caller{Model: cl, Record: rec}
		s, err := drafting.Suggest(context.Background(), c, engine(t), drafting.SuggestRequest{Listing: l, Tool: 1, Tasks: tasks, K: 1})
		if err != nil {
			t.Fatalf("%s: suggest: %v", name, err)
		}
		rb, err := drafting.ScoreRubric(context.Background(), c, engine(t), l, nil)
		if err != nil {
			t.Fatalf("%s: rubric: %v", name, err)
		}
		props, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: l})
		if err != nil {
			t.Fatalf("%s: tasks: %v", name, err)
		}
		if len(s.Candidates) == 0 || len(rb.Tools) == 0 || len(props.Tasks) == 0 {
			t.Fatalf("%s: the answers were not read: %d candidates, %d rubric tools, %d tasks; problems %q %q",
				name, len(s.Candidates), len(rb.Tools), len(props.Tasks), s.Problems, props.Problems)
		}
		for what, v := range map[string]any{"suggestion": s, "rubric": rb, "proposed tasks": props, "recording": rec.Recording(runner.Spec{})} {
			b, _ := json.Marshal(v)
			if strings.Contains(string(b), escapedKey) {
				t.Errorf("key spelt %s: the %s holds the key", name, what)
			}
		}
		// A replay knows no key to redact: the recording must hold none, however spelt.
		replay, err := runner.NewClient(runner.Endpoint{Name: "echo", BaseURL: "http://replay.invalid/v1", Model: "m"},
			runner.ClientOptions{Retries: -1, HTTP: runner.HandlerDoer{Handler: runner.ReplayHandler(rec.Recording(runner.Spec{}))}})
		if err != nil {
			t.Fatal(err)
		}
		again, err := drafting.Suggest(context.Background(), drafting.Caller{Model: replay}, engine(t), drafting.SuggestRequest{Listing: l, Tool: 1, Tasks: tasks, K: 1})
		if err != nil {
			t.Fatalf("%s: the replay: %v", name, err)
		}
		if b, _ := json.Marshal(again); len(again.Candidates) == 0 || strings.Contains(string(b), escapedKey) {
			t.Errorf("key spelt %s: the replayed suggestion holds the key or no candidate: %s", name, b)
		}
		if !strings.Contains(s.Candidates[0].Description, "[redacted]") {
			t.Errorf("key spelt %s: the candidate %q was not redacted in place", name, s.Candidates[0].Description)
		}
	}
}

// jsonEscapeAll spells every byte of s as a \u escape.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\u%04x`, s[i])
	}
	return b.String()
}

// An answer cut off before its end cannot be re-encoded, so Ask resolves its \u and \/ escapes
// by hand before redacting: neither the problem that quotes the answer nor the recording (which
// a replay, knowing no key, reads back) spells the key with an escape.
func TestEscapedKeyInCutAnswerRedacted(t *testing.T) {
	spellings := map[string]func(string) string{
		"first byte \\u":      func(k string) string { return `\u0073` + k[1:] },
		"slash as \\/":        func(k string) string { return strings.ReplaceAll(k, "/", `\/`) },
		"every byte \\u":      func(k string) string { return jsonEscapeAll(k) },
		"\\u and \\/ at once": func(k string) string { return `\u0073` + strings.ReplaceAll(k[1:], "/", `\/`) },
	}
	l, tasks := confusing(t)
	for name, spell := range spellings {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k := spell(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			resp, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "choices": []any{map[string]any{
				"index": 0, "finish_reason": "length", "message": map[string]any{"role": "assistant",
					"content": `{"candidates":[{"description":"` + k + ` and the text goes on without end`}}}})
			w.Header().Set("Content-Type", "application/json")
			w.Write(resp)
		})
		cl, err := runner.NewClient(runner.Endpoint{Name: "echo", BaseURL: "http://echo.invalid/v1", Model: "m", APIKeyEnv: "K"},
			runner.ClientOptions{Retries: -1, Getenv: func(string) string { return escapedKey }, HTTP: runner.HandlerDoer{Handler: h}})
		if err != nil {
			t.Fatal(err)
		}
		rec := &drafting.Recorder{}
		s, err := drafting.Suggest(context.Background(), drafting.Caller{Model: cl, Record: rec}, engine(t), drafting.SuggestRequest{Listing: l, Tool: 1, Tasks: tasks, K: 1})
		if err != nil {
			t.Fatalf("%s: suggest: %v", name, err)
		}
		tail := escapedKey[len(escapedKey)-12:] // what every spelling above leaves as written
		for what, v := range map[string]any{"problems": s.Problems, "recording": rec.Recording(runner.Spec{})} {
			if b, _ := json.Marshal(v); strings.Contains(string(b), tail) {
				t.Errorf("key spelt %s: the %s spell the key: %s", name, what, b)
			}
		}
		if len(s.Problems) == 0 {
			t.Errorf("key spelt %s: the cut-off answer was not named as a problem", name)
		}
	}
}
