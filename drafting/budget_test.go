package drafting_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/runner"
)

func fakeCaller(t testing.TB, s *fakemodel.Server, budget *drafting.Budget, opts runner.ClientOptions) drafting.Caller {
	t.Helper()
	if opts.Retries == 0 {
		opts.Retries = -1
	}
	c, err := fakemodel.NewClient(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return drafting.Caller{Model: c, Budget: budget, Record: &drafting.Recorder{}}
}

var askBrief = drafting.Brief{Job: drafting.JobRewrite, K: 2,
	Tool: &drafting.BriefTool{Name: "get_data", Description: "Get ticket data by id."}}

// Ask takes a call from the budget before it sends anything, keeps the exchange it made, and
// keeps nothing of a call that failed.
func TestAsk(t *testing.T) {
	for _, tc := range []struct {
		name    string
		server  *fakemodel.Server
		budget  *drafting.Budget
		timeout time.Duration
		err     string // part of the error; "" for none
		sent    int    // requests that reached the server
		kept    int    // exchanges recorded
	}{
		{"answers", &fakemodel.Server{}, drafting.NewBudget(1), 0, "", 1, 1},
		{"no budget", &fakemodel.Server{}, drafting.NewBudget(0), 0, "budget is spent", 0, 0},
		{"zero budget value", &fakemodel.Server{}, &drafting.Budget{}, 0, "budget is spent", 0, 0},
		{"slow", &fakemodel.Server{Delay: time.Minute}, nil, 30 * time.Millisecond, `asking endpoint "fake" for rewrites of "get_data": endpoint "fake" did not answer within 30ms`, 1, 0},
		{"refused key", &fakemodel.Server{Key: "sk-right-key-0123456789"}, nil, 0, "refused the credentials (HTTP 401)", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := runner.ClientOptions{Timeout: tc.timeout}
			if tc.name == "refused key" {
				opts.Getenv = func(string) string { return "sk-wrong-key-0123456789" }
			}
			c := fakeCaller(t, tc.server, tc.budget, opts)
			text, err := c.Ask(context.Background(), askBrief)
			switch {
			case tc.err == "" && (err != nil || !strings.Contains(text, "candidates")):
				t.Errorf("%q, %v: want an answer", text, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
			if got := tc.server.Requests(); got != tc.sent {
				t.Errorf("%d requests reached the server, want %d", got, tc.sent)
			}
			if got := len(c.Record.Recording(runner.Spec{}).Exchanges); got != tc.kept {
				t.Errorf("%d exchanges kept, want %d", got, tc.kept)
			}
			if err != nil && tc.budget != nil && tc.budget.Max() == 0 && !errors.Is(err, drafting.ErrBudget) {
				t.Errorf("error %v is not ErrBudget", err)
			}
		})
	}
}

// With no endpoint configured, Ask says how to configure one.
func TestAskWithoutModel(t *testing.T) {
	_, err := drafting.Caller{}.Ask(context.Background(), askBrief)
	if err == nil || !strings.Contains(err.Error(), "no endpoint is configured") {
		t.Errorf("error %v", err)
	}
}
