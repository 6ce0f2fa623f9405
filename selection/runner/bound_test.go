package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A run keeps each call's exchange for its recording, and an endpoint may answer every call
// with up to MaxResponseBytes: a run keeps at most MaxRecordedBytes of each, and the call is
// still scored from the whole answer. A replay of the recording fails the call that was left
// out with words that say so.
func TestRunKeepsBoundedExchanges(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}, {"task": "Find open tickets", "expect": "tickets_search"}]`)
	cases := []struct {
		name string
		pad  string // what follows the answer's last member
		kept bool   // the response is kept whole (compacted)
	}{
		{"a small answer", "", true},
		{"whitespace to 2 MiB", strings.Repeat(" ", 2<<20), true},
		{"a 2 MiB member", `,"system_fingerprint":"` + strings.Repeat("x", 2<<20) + `"`, false},
	}
	for _, tc := range cases {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
				`"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"tickets_get","arguments":"{}"}}]}}]` +
				tc.pad + `}`))
		})
		c, err := NewClient(Endpoint{Name: "big", BaseURL: "http://big.invalid/v1", Model: "m"}, ClientOptions{HTTP: HandlerDoer{h}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, call := range run.Calls {
			if call.Outcome != OutTool || call.Tool != "tickets_get" {
				t.Errorf("%s: task %d: outcome %q, tool %q (%s); want tickets_get", tc.name, call.Task, call.Outcome, call.Tool, call.Error)
			}
			if n := len(call.Exchange.Response); n > MaxRecordedBytes {
				t.Errorf("%s: task %d keeps a %d-byte response", tc.name, call.Task, n)
			}
			if kept := json.Valid(call.Exchange.Response) && !strings.Contains(string(call.Exchange.Response), "not_recorded"); kept != tc.kept {
				t.Errorf("%s: task %d: response kept %v, want %v", tc.name, call.Task, kept, tc.kept)
			}
		}
		rec := NewRecording(run)
		replay, err := NewClient(Endpoint{Name: "replay", BaseURL: "http://replay.invalid/v1", Model: "m"},
			ClientOptions{HTTP: HandlerDoer{ReplayHandler(rec)}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Execute(context.Background(), replay, l, tasks, Options{Spec: Spec{Samples: 1}})
		if err != nil {
			t.Fatalf("%s: replay: %v", tc.name, err)
		}
		for _, call := range again.Calls {
			switch {
			case tc.kept && call.Tool != "tickets_get":
				t.Errorf("%s: replayed task %d: %q (%s), want tickets_get", tc.name, call.Task, call.Tool, call.Error)
			case !tc.kept && (call.Outcome != OutError || !strings.Contains(call.Error, "left out this answer")):
				t.Errorf("%s: replayed task %d: %q %q; want an error that says the answer was left out", tc.name, call.Task, call.Outcome, call.Error)
			}
		}
	}
}

// Beside the exchange, a call keeps the model's tool name and arguments: bounded too, after the
// arguments were checked whole.
func TestRunKeepsBoundedToolCall(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}]`)
	big := strings.Repeat("x", 4<<20)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",` +
			`"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"` + big + `","arguments":"{\"a\":\"` + big + `\"}"}}]}}]}`))
	})
	c, err := NewClient(Endpoint{Name: "big", BaseURL: "http://big.invalid/v1", Model: "m"}, ClientOptions{HTTP: HandlerDoer{h}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1}})
	if err != nil {
		t.Fatal(err)
	}
	call := run.Calls[0]
	b, _ := json.Marshal(call)
	if len(b) > MaxRecordedBytes+MaxArgumentsBytes+4*MaxToolNameBytes+4096 || call.Known || !call.Args.JSON {
		t.Errorf("the call keeps %d bytes (tool %d, arguments %d, exchange %d); known %v, arguments read as JSON %v",
			len(b), len(call.Tool), len(call.Arguments), len(call.Exchange.Response), call.Known, call.Args.JSON)
	}
}
