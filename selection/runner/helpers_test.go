package runner

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
)

// ticketTools is a small listing in the shape of the reference's fixtures; the schema of
// tickets_get carries a keyword chat APIs do not know, to show it is sent as written.
const ticketTools = `{"tools": [
 {"name": "tickets_get", "description": "Show one support ticket when you know its numeric id.", "inputSchema": {"type": "object", "properties": {"ticket_id": {"type": "integer", "description": "Numeric ticket id.", "x-order": 1}}, "required": ["ticket_id"], "additionalProperties": false}},
 {"name": "tickets_search", "description": "Find support tickets by status or assignee.", "inputSchema": {"type": "object", "properties": {"status": {"type": "string", "enum": ["open", "resolved", "closed"]}, "assignee": {"type": "string"}}, "required": []}},
 {"name": "tickets_delete", "description": "Permanently remove one ticket.", "inputSchema": {"type": "object", "properties": {"ticket_id": {"type": "integer"}}, "required": ["ticket_id"]}},
 {"name": "users_find", "description": "Look up users by name or email.", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
]}`

func mustListing(t testing.TB, src string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(src), listing.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustTasks(t testing.TB, src string) []selection.Task {
	t.Helper()
	tasks, err := selection.ParseTasks([]byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// waits records the backoff waits instead of sleeping them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// fakeClient starts the fake server on loopback and a client for it.
func fakeClient(t testing.TB, srv *fake.Server, opts ClientOptions) *Client {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ep := Endpoint{Name: "fake", BaseURL: ts.URL + "/v1", Model: "fake-model", Concurrency: 4}
	if srv.Key != "" {
		ep.APIKeyEnv = "FAKE_KEY"
		opts.Getenv = func(k string) string {
			if k == "FAKE_KEY" {
				return srv.Key
			}
			return ""
		}
	}
	c, err := NewClient(ep, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
