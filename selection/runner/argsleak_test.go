package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A model's tool call whose arguments name the key, plainly or spelt with JSON escapes inside
// the arguments' own JSON ("\u0073k-…", "\/"), leaves no key in the run: not in the tool's
// name, its arguments, nor in the problems the schema check writes about them (which quote the
// decoded property names and values).
func TestArgsProblemsHoldNoKey(t *testing.T) {
	const key = "sk-args/0123456789abcdef"
	escaped := `\\u0073k-args\\/0123456789abcdef` // as it stands in the completion's JSON
	cases := []struct{ name, tool, args string }{
		{"the key as an unknown tool's name", "leak_" + key, `{}`},
		{"the key as a property the schema refuses", "tickets_get", `{\"ticket_id\":1,\"` + escaped + `\":1}`},
		{"the key as a value of the wrong type", "tickets_get", `{\"ticket_id\":\"` + escaped + `\"}`},
		{"the key as a value outside an enum", "tickets_search", `{\"status\":\"` + escaped + `\"}`},
	}
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get", "args": {"ticket_id": 1}}]`)
	for _, tc := range cases {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
				`"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function",` +
				`"function":{"name":"` + tc.tool + `","arguments":"` + tc.args + `"}}]}}]}`))
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
		b, _ := json.Marshal(run)
		if strings.Contains(string(b), key) {
			cl := run.Calls[0]
			t.Errorf("%s: the run holds the key: tool %q, arguments %q, problems %q", tc.name, cl.Tool, cl.Arguments, cl.Args.Problems)
		}
		if len(run.Calls[0].Args.Problems) == 0 {
			t.Errorf("%s: no problem was reported", tc.name)
		}
	}
}
