package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// holdsKeyNested says whether the JSON text b, or a JSON text inside one of its strings (to a
// few levels), holds key once decoded: what a replay, which knows no key, would read back.
func holdsKeyNested(b []byte, key string, depth int) bool {
	var v any
	if depth > 3 || json.Unmarshal(b, &v) != nil {
		return false
	}
	found := false
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			found = found || strings.Contains(x, key) || holdsKeyNested([]byte(x), key, depth+1)
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return found
}

// A tool call's arguments are JSON text inside the completion's JSON: a key spelt there with an
// escape ("\\u0073k-…" in the body) survives one decode of the body still spelt. The exchange
// kept for a recording holds no key at any depth, and a replay of it (which knows no key)
// reads none into its call.
func TestExchangeScrubbedOfKeyInArguments(t *testing.T) {
	const key = "sk-args/0123456789abcdef"
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get"}]`)
	for _, spelt := range []string{`\\u0073k-args/0123456789abcdef`, `sk-args\\/0123456789abcdef`, `\\u0073k-args\\/0123456789abcdef`} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
				`"message":{"role":"assistant","content":"{\"note\":\"` + spelt + `\"}","tool_calls":[{"id":"c","type":"function",` +
				`"function":{"name":"tickets_get","arguments":"{\"ticket_id\":\"` + spelt + `\"}"}}]}}]}`))
		})
		c, err := NewClient(Endpoint{Name: "echo", BaseURL: "http://echo.invalid/v1", Model: "m", APIKeyEnv: "K"},
			ClientOptions{Getenv: func(string) string { return key }, HTTP: HandlerDoer{h}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
		if err != nil {
			t.Fatal(err)
		}
		rec := NewRecording(run)
		if len(rec.Exchanges) != 1 {
			t.Fatalf("spelt %s: %d exchanges recorded, want 1", spelt, len(rec.Exchanges))
		}
		if resp := rec.Exchanges[0].Response; holdsKeyNested(resp, key, 0) {
			t.Errorf("spelt %s: the recorded response reads the key one decode deeper: %s", spelt, resp)
		}
		rc, err := NewClient(Endpoint{Name: "echo", BaseURL: "http://replay.invalid/v1", Model: "m"},
			ClientOptions{HTTP: HandlerDoer{ReplayHandler(rec)}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Execute(context.Background(), rc, l, tasks, Options{Spec: Spec{Samples: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(again.Calls[0]); strings.Contains(string(b), key) || holdsKeyNested(b, key, 0) {
			t.Errorf("spelt %s: the replayed call holds the key: %s", spelt, b)
		}
		if again.Calls[0].Tool != "tickets_get" || !strings.Contains(again.Calls[0].Arguments, "[redacted]") {
			t.Errorf("spelt %s: the replay did not read the redacted call: tool %q, arguments %q", spelt, again.Calls[0].Tool, again.Calls[0].Arguments)
		}
	}
}
