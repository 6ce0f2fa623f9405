package drafting_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// flaky stands for a model that samples: the first `times` tool-choice requests whose task
// holds `match` get `cue` appended (a selection/fake cue such as " [[wrong]]" or
// " [[fail:1]]"), and are then answered by the fake model as usual.
type flaky struct {
	s     *fakemodel.Server
	match string
	cue   string
	times int
	mu    sync.Mutex
	seen  int
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		if _, ok := m["tools"]; ok {
			msgs, _ := m["messages"].([]any)
			for _, x := range msgs {
				mm, _ := x.(map[string]any)
				content, _ := mm["content"].(string)
				if mm["role"] == "user" && strings.Contains(content, f.match) {
					f.mu.Lock()
					if f.seen < f.times {
						mm["content"] = content + f.cue
					}
					f.seen++
					f.mu.Unlock()
				}
			}
			body, _ = json.Marshal(m)
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	f.s.ServeHTTP(w, r)
}

// flakyCaller is a caller whose model is f, with no retries (a failed call stays failed).
func flakyCaller(t *testing.T, f *flaky, budget int) drafting.Caller {
	t.Helper()
	cl, err := runner.NewClient(runner.Endpoint{Name: "fake", BaseURL: "http://fake/v1", Model: "fake-model"},
		runner.ClientOptions{HTTP: runner.HandlerDoer{Handler: f}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return drafting.Caller{Model: cl, Budget: drafting.NewBudget(budget), Record: &drafting.Recorder{}}
}

// twoTools is a listing of two plain tools and four tasks, two per tool: tasks 1 and 2 train,
// 3 and 4 are held out.
func twoTools(t *testing.T, tasks ...string) (*listing.Listing, []selection.Task) {
	t.Helper()
	src := `[{"name":"read_file","description":"Read a file from the disk and return its text.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"file path"}}}},
{"name":"send_email","description":"Send an email message to a person.","inputSchema":{"type":"object","properties":{"to":{"type":"string","description":"address"}}}}]`
	l, err := listing.Parse([]byte(src), listing.Options{Name: "small.json"})
	if err != nil {
		t.Fatal(err)
	}
	var out []selection.Task
	for i, text := range tasks {
		e := "read_file"
		if i%2 == 1 {
			e = "send_email"
		}
		out = append(out, selection.Task{Task: text, Expect: &e})
	}
	return l, out
}

func logReport(t *testing.T, r *drafting.ImproveReport) {
	t.Helper()
	if t.Failed() && r != nil {
		var b strings.Builder
		_ = r.WriteText(&b)
		t.Log("the report:\n" + b.String())
	}
}

// When no rewrite is kept the listing is the one measured at the start: a held-out run that
// comes out better is the model's sampling, and the report does not call it an improvement.
func TestImproveUnchangedIsNotImproved(t *testing.T) {
	l, tasks := twoTools(t, "read the file notes from the disk", "send an email message to bob",
		"read the file todo from the disk", "send an email message to alice")
	// The baseline's call on held-out task 4 picks the wrong tool; the final run's does not.
	f := &flaky{s: &fakemodel.Server{Mode: fakemodel.Malformed}, match: "alice", cue: " [[wrong]]", times: 1}
	r, err := drafting.Improve(context.Background(), flakyCaller(t, f, 200), engine(t), l, tasks, drafting.ImproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer logReport(t, r)
	if len(r.Changed) != 0 || r.HeldAfter <= r.HeldBefore {
		t.Fatalf("the setup should keep nothing and see held-out %d → %d; changed %v", r.HeldBefore, r.HeldAfter, r.Changed)
	}
	if r.Improved {
		t.Errorf("nothing changed, yet improved %v", r.Improved)
	}
	if !strings.Contains(r.Verdict, "no rewrite was kept") || !strings.Contains(r.Verdict, "sampling") {
		t.Errorf("verdict %q; want it to say no rewrite was kept and the difference is sampling", r.Verdict)
	}
}

// cancelOnBrief cancels the context when the first rewrite brief (a request with no tools)
// arrives, then answers it: the loop's rewrite call took its call from the budget and was sent.
type cancelOnBrief struct {
	s      *fakemodel.Server
	cancel context.CancelFunc
	briefs int
}

func (c *cancelOnBrief) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !bytes.Contains(body, []byte(`"tools"`)) {
		c.briefs++
		c.cancel()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.s.ServeHTTP(w, r)
}

// A rewrite call cut short by an interruption was sent and paid for: the report counts it
// among the calls made.
func TestImproveInterruptedAskCounts(t *testing.T) {
	l, tasks := confusing(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &cancelOnBrief{s: &fakemodel.Server{Rewrites: ticketRewrites}, cancel: cancel}
	cl, err := runner.NewClient(runner.Endpoint{Name: "fake", BaseURL: "http://fake/v1", Model: "fake-model"},
		runner.ClientOptions{HTTP: runner.HandlerDoer{Handler: h}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := drafting.Caller{Model: cl, Budget: drafting.NewBudget(200)}
	r, _ := drafting.Improve(ctx, c, engine(t), l, tasks, drafting.ImproveOptions{})
	if r == nil {
		t.Fatal("no report")
	}
	defer logReport(t, r)
	// The baseline's 8 calls and the rewrite call; the final run is reserved (4 calls) and
	// may not send them all once interrupted.
	if h.briefs != 1 || !strings.HasPrefix(r.Stopped, "interrupted") || r.Calls < 9 {
		t.Errorf("%d briefs, stopped %q, %d calls counted; want 1 brief, interrupted, and at least the baseline's 8 and the rewrite call", h.briefs, r.Stopped, r.Calls)
	}
}

// A baseline call that failed is not a wrong answer: a rewrite that changes nothing that
// matters does not "win" that training task and is not kept, and the report says how many
// baseline calls failed.
func TestImproveBaselineErrorIsNotAWin(t *testing.T) {
	l, tasks := twoTools(t, "read the file notes from the disk", "mail the file notes to bob",
		"read the file todo from the disk", "send an email message to alice")
	srv := &fakemodel.Server{Rewrites: map[string][]string{
		"send_email": {"Send an email message to a person, given the address."},
		"read_file":  {"Read a file from the disk and return its text, given its path."}}}
	// The baseline's call on training task 1 fails once (HTTP 500, no retry).
	f := &flaky{s: srv, match: "read the file notes", cue: " [[fail:1]]", times: 1}
	r, err := drafting.Improve(context.Background(), flakyCaller(t, f, 200), engine(t), l, tasks, drafting.ImproveOptions{Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer logReport(t, r)
	for _, a := range r.Attempts {
		if a.Kept {
			t.Errorf("kept a rewrite of %s (training %d → %d) where the baseline's training call had failed, not answered wrong", a.Tool, a.TrainBefore, a.TrainAfter)
		}
	}
	if r.BaselineErrors != 1 {
		t.Errorf("the report counts %d failed baseline calls, want 1", r.BaselineErrors)
	}
}
