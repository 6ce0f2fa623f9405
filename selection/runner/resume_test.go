package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
)

// A run cancelled part way keeps its finished calls in the run file; resuming sends only the
// calls that were not finished, and the result is complete.
func TestResumeAfterCancel(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("concurrency %d", n), func(t *testing.T) { testResumeAfterCancel(t, n) })
	}
}

func testResumeAfterCancel(t *testing.T, concurrency int) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[
 {"task": "Show me ticket 4521", "expect": "tickets_get"},
 {"task": "Find open tickets", "expect": "tickets_search"},
 {"task": "Remove ticket 9", "expect": "tickets_delete"},
 {"task": "Look up user Maria", "expect": "users_find"},
 {"task": "What is the weather like?", "expect": null}
]`)
	seed := int64(3)
	spec := Spec{Samples: 4, Seed: &seed, Shuffle: true}
	srv := &fake.Server{}
	c := fakeClient(t, srv, ClientOptions{Concurrency: concurrency})
	path := filepath.Join(t.TempDir(), "run.jsonl")
	var w *RunWriter
	start := func(h Header) (err error) {
		w, err = CreateRunFile(path, h)
		return err
	}
	sink := func(c Call) error { return w.Write(c) }
	ctx, cancel := context.WithCancel(context.Background())
	partial, err := Execute(ctx, c, l, tasks, Options{Spec: spec, Start: start, Sink: sink, Progress: func(p Progress) {
		if p.Done == 7 {
			cancel()
		}
	}})
	w.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v, want context.Canceled", err)
	}
	if len(partial.Calls) < 7 || len(partial.Calls) >= 20 {
		t.Fatalf("cancelled run kept %d calls, want at least 7 and fewer than 20", len(partial.Calls))
	}
	// A kill while writing leaves a torn line at the end.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"task": 4, "sample": 3, "outc`)
	f.Close()

	rf, err := OpenRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !rf.Torn || len(rf.Run.Calls) != len(partial.Calls) {
		t.Fatalf("read back %d calls (torn %v), want %d and a torn line", len(rf.Run.Calls), rf.Torn, len(partial.Calls))
	}
	logged := len(srv.Log())
	w2, err := AppendRunFile(path, rf.Size)
	if err != nil {
		t.Fatal(err)
	}
	var resumed int
	full, err := Execute(context.Background(), c, l, tasks, Options{Spec: spec, Resume: rf.Run, Sink: w2.Write, NoCache: true,
		Progress: func(p Progress) { resumed = p.Resumed }})
	w2.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resumed != len(partial.Calls) {
		t.Errorf("progress says %d resumed, want %d", resumed, len(partial.Calls))
	}
	// No finished call is sent again. (A request in flight when the run was cancelled may
	// reach the server late, so the log after the snapshot may hold more than the resume's
	// own requests, but never a finished call: its answer came after it arrived.)
	finished := map[string]bool{}
	for _, cl := range partial.Calls {
		finished[fmt.Sprintf("%s/%d", tasks[cl.Task].Task, seed+int64(cl.Sample))] = true
	}
	after := srv.Log()[logged:]
	for _, r := range after {
		if k := fmt.Sprintf("%s/%d", r.User, *r.Seed); finished[k] {
			t.Errorf("resume sent the finished call %s again", k)
		}
	}
	if concurrency == 1 && len(after) != 20-len(partial.Calls) {
		// One call at a time: nothing was in flight at the cancel, so the count is exact.
		t.Errorf("resume sent %d requests, want %d", len(after), 20-len(partial.Calls))
	}
	if len(full.Calls) != 20 {
		t.Fatalf("resumed run has %d calls, want 20", len(full.Calls))
	}
	// The file now holds the whole run, and reads back to the same score.
	rf2, err := OpenRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rf2.Torn || len(rf2.Run.Calls) != 20 {
		t.Fatalf("run file holds %d calls (torn %v), want 20", len(rf2.Run.Calls), rf2.Torn)
	}
	a, b := ScoreRun(full), ScoreRun(rf2.Run)
	if a.Accuracy != b.Accuracy || a.Correct != b.Correct || a.Missing != 0 || b.Missing != 0 {
		t.Errorf("in memory %d/%d missing %d, from file %d/%d missing %d", a.Correct, a.Scored, a.Missing, b.Correct, b.Scored, b.Missing)
	}
}

func TestResumeRefusesOtherInputs(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 4521", "expect": "tickets_get"}]`)
	other := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get"}]`)
	old := &Run{Header: NewHeader(l, tasks, Spec{Endpoint: "fake", Model: "fake-model", Samples: 1})}
	c := fakeClient(t, &fake.Server{}, ClientOptions{})
	_, err := Execute(context.Background(), c, l, other, Options{Spec: Spec{Samples: 1}, Resume: old})
	if err == nil || !strings.Contains(err.Error(), "the task file") {
		t.Errorf("error = %v, want one naming the task file", err)
	}
	_, err = Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 1, Temperature: 1}, Resume: old})
	if err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("error = %v, want one naming the temperature", err)
	}
}

func TestReadRunFileErrors(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "a", "expect": null}]`)
	var hdr bytes.Buffer
	h := NewHeader(l, tasks, Spec{Samples: 2})
	path := filepath.Join(t.TempDir(), "r.jsonl")
	rw, err := CreateRunFile(path, h)
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	b, _ := os.ReadFile(path)
	hdr.Write(b)
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "empty"},
		{"not a run", `{"kind": "other"}` + "\n", "not a workbench run file"},
		{"bad line", hdr.String() + "{\"task\": 0, \"sample\": 0}\nnot json\n", "line 3 is not a call"},
		{"outside", hdr.String() + "{\"task\": 5, \"sample\": 0}\n", "task 5 sample 0 is outside the run"},
		{"sample outside", hdr.String() + "{\"task\": 0, \"sample\": 2}\n", "sample 2 is outside"},
	}
	for _, tt := range tests {
		if _, err := ReadRunFile(strings.NewReader(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// A later line for the same call replaces the earlier (a failed call redone on resume).
	rf, err := ReadRunFile(strings.NewReader(hdr.String() + `{"task": 0, "sample": 0, "outcome": "error"}` + "\n" + `{"task": 0, "sample": 0, "outcome": "text"}` + "\n"))
	if err != nil || len(rf.Run.Calls) != 1 || rf.Run.Calls[0].Outcome != OutText {
		t.Errorf("got %+v, %v; want the later call only", rf, err)
	}
}

func FuzzReadRunFile(f *testing.F) {
	l := mustListing(f, ticketTools)
	h := NewHeader(l, mustTasks(f, `[{"task": "a", "expect": null}]`), Spec{Samples: 2})
	path := filepath.Join(f.TempDir(), "r.jsonl")
	rw, err := CreateRunFile(path, h)
	if err != nil {
		f.Fatal(err)
	}
	rw.Write(Call{Task: 0, Sample: 1, Outcome: OutText})
	rw.Close()
	b, _ := os.ReadFile(path)
	f.Add(b)
	f.Add(b[:len(b)-5])
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		rf, err := ReadRunFile(bytes.NewReader(src))
		if err != nil {
			return
		}
		if rf.Size > int64(len(src)) {
			t.Fatalf("size %d beyond the input's %d bytes", rf.Size, len(src))
		}
		s := ScoreRun(rf.Run)
		if s.Scored+s.Errors != len(rf.Run.Calls) {
			t.Fatalf("scored %d + errors %d != %d calls", s.Scored, s.Errors, len(rf.Run.Calls))
		}
	})
}
