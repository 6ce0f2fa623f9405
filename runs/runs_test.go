package runs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

const testKey = "sk-test-runs-5b2a4c6e8f0a1b3c5d7e9f21"

// events records what a Service notifies, in order.
type events struct {
	mu  sync.Mutex
	got []Event
}

func (e *events) notify(_, _ string, ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
}

func (e *events) list() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.got...)
}

// rig is a Service over a fresh SQLite store holding the library example, whose one endpoint
// "fake" is the fake model in process; key is the key the endpoint is given.
type rig struct {
	svc    *Service
	db     store.Store
	plan   Plan
	events *events
}

func newRig(t *testing.T, f *fake.Server, key string, configure func(*Config)) *rig {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ex, _ := examples.Get("library-2-draft")
	l, err := listing.Parse(ex.Listing, listing.Options{Name: "library"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(ex.Tasks, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := db.CreateWorkspace(ctx, store.NewWorkspace{Title: "t", Author: "t", Listing: l, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	f.Key = testKey
	cfg := Config{Endpoints: []runner.Endpoint{{Name: "fake", BaseURL: "http://fake.invalid/v1", Model: "fake-model", APIKeyEnv: "KEY", Concurrency: 2}},
		Getenv: func(string) string { return key }, HTTP: runner.HandlerDoer{Handler: f}, Retries: -1,
		ProgressEvery: time.Millisecond, SaveEvery: 20 * time.Millisecond}
	if configure != nil {
		configure(&cfg)
	}
	ev := &events{}
	svc := New(cfg, db, ev.notify, nil)
	t.Cleanup(svc.Wait)
	plan := Plan{Workspace: w.ID, Revision: w.Head, AsOf: w.Seq, Author: "t", Listing: l, Tasks: tasks}
	return &rig{svc: svc, db: db, plan: plan, events: ev}
}

// start starts a run of the rig's plan with samples per task, and fails the test if it did not.
func (r *rig) start(t *testing.T, samples int) store.Run {
	t.Helper()
	rec, _, err := r.svc.Start(context.Background(), Request{Plan: r.plan, Endpoint: "fake", Spec: runner.Spec{Samples: samples}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return rec
}

// stored reads a run back from the store with its meta.
func (r *rig) stored(t *testing.T, id string) (store.Run, Meta) {
	t.Helper()
	rec, err := r.db.Run(context.Background(), r.plan.Workspace, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec, MetaOf(rec)
}

// TestRunToTheEnd: a run is announced (Started) before any of its progress, its end is stored
// with every call, and announced last.
func TestRunToTheEnd(t *testing.T) {
	r := newRig(t, &fake.Server{}, testKey, nil)
	rec := r.start(t, 2)
	r.svc.Wait()
	got, meta := r.stored(t, rec.ID)
	want := 2 * len(r.plan.Tasks)
	if got.Status != Done || meta.Done != want || meta.Total != want || meta.Accuracy == nil {
		t.Errorf("stored: status %s, %d of %d calls (want %d), accuracy %v", got.Status, meta.Done, meta.Total, want, meta.Accuracy)
	}
	ev := r.events.list()
	if len(ev) < 2 || ev[0] != Started || ev[len(ev)-1] != Ended {
		t.Errorf("events %v: want Started first and Ended last", ev)
	}
	if r.svc.Get(rec.ID) != nil || r.svc.ActiveIn(r.plan.Workspace) != nil || r.svc.Last(r.plan.Workspace) != rec.ID {
		t.Error("the ended run is still active, or not the workspace's last")
	}
}

// TestStartRefusals: a run that cannot start says why, and stores nothing.
func TestStartRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint string
		samples  int
		change   func(*Plan)
		want     string
	}{
		{"no such endpoint", "other", 1, nil, `No endpoint is named "other"; this server has fake.`},
		{"no tools", "fake", 1, func(p *Plan) { p.Listing = &listing.Listing{} }, "The listing has no tools"},
		{"no tasks", "fake", 1, func(p *Plan) { p.Tasks = nil }, "The workspace has no tasks."},
		{"a blank task", "fake", 1, func(p *Plan) { p.Tasks = append(p.Tasks[:1:1], selection.Task{Task: "  "}) }, "Task 2 has no text."},
		{"too many calls", "fake", 100, nil, "the page runs up to 20 at once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, &fake.Server{}, testKey, func(c *Config) { c.MaxCalls = 20 })
			plan := r.plan
			if tc.change != nil {
				tc.change(&plan)
			}
			_, _, err := r.svc.Start(context.Background(), Request{Plan: plan, Endpoint: tc.endpoint, Spec: runner.Spec{Samples: tc.samples}})
			var re *Error
			if !errors.As(err, &re) || re.Kind != Refused || !strings.Contains(re.Msg, tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
			if list, _ := r.svc.List(context.Background(), plan.Workspace); len(list) != 0 {
				t.Errorf("a refused run was stored: %d runs", len(list))
			}
		})
	}
}

// TestEndings: how a run ends decides its stored status: a cancel here, a wrong key (fail-fast
// after the first calls), the server's context ending.
func TestEndings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     string
		stop    func(t *testing.T, r *rig, id string, cancel context.CancelFunc)
		status  string
		problem string
	}{
		{"cancelled here", testKey, func(t *testing.T, r *rig, id string, _ context.CancelFunc) {
			if _, err := r.svc.Cancel(context.Background(), r.plan.Workspace, id); err != nil {
				t.Fatal(err)
			}
		}, Cancelled, ""},
		{"wrong key", "sk-wrong", nil, Failed, "the first 3 calls failed, so the run was stopped"},
		{"server stopping", testKey, func(_ *testing.T, _ *rig, _ string, cancel context.CancelFunc) { cancel() }, Interrupted, "The server stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := newRig(t, &fake.Server{Delay: 20 * time.Millisecond}, tc.key, func(c *Config) { c.Context = ctx })
			rec := r.start(t, 4)
			if tc.stop != nil {
				tc.stop(t, r, rec.ID, cancel)
			}
			r.svc.Wait()
			got, meta := r.stored(t, rec.ID)
			if got.Status != tc.status || !strings.Contains(meta.Problem, tc.problem) {
				t.Errorf("stored %s (%q), want %s (%q)", got.Status, meta.Problem, tc.status, tc.problem)
			}
		})
	}
}

// TestAnotherReplica: a second process on the same store reads a run in progress here as alive
// elsewhere: it refuses to resume it (a Conflict), and a cancel asked there is recorded in the
// store and ends the run here as cancelled.
func TestAnotherReplica(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, &fake.Server{Delay: 50 * time.Millisecond}, testKey, nil)
	other := New(r.svc.Config(), r.db, nil, nil)
	rec := r.start(t, 4)
	stored, body, err := other.Load(ctx, r.plan.Workspace, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if status, elsewhere := other.StatusOf(stored); status != Running || !elsewhere {
		t.Errorf("the other process reads the run as %s (elsewhere %v), want running elsewhere", status, elsewhere)
	}
	if _, _, err := other.Resume(ctx, stored, body); KindOf(err) != Conflict {
		t.Errorf("resume from the other process: %v, want a Conflict", err)
	}
	asked, err := other.Cancel(ctx, r.plan.Workspace, rec.ID)
	if err != nil || asked.Status != Cancelling {
		t.Fatalf("cancel from the other process: %q, %v; want the run stored as cancelling", asked.Status, err)
	}
	r.svc.Wait()
	if got, _ := r.stored(t, rec.ID); got.Status != Cancelled {
		t.Errorf("the run ended %s, want cancelled", got.Status)
	}
	if _, err := other.Cancel(ctx, r.plan.Workspace, rec.ID); KindOf(err) != Conflict {
		t.Errorf("cancelling the ended run: %v, want a Conflict", err)
	}
}

// An endpoint whose recording cannot be read or written is unavailable, with why; the reason,
// shown on the pages, names the file but not the server's folders.
func TestEndpointProblemNamesNoFolder(t *testing.T) {
	dir := t.TempDir()
	svc := New(Config{Endpoints: []runner.Endpoint{
		{Name: "tape", BaseURL: "http://h.invalid/v1", Model: "m", Record: filepath.Join(dir, "missing", "tape.json")},
		{Name: "show", Model: "m", Replay: filepath.Join(dir, "absent.json")},
	}}, nil, nil, nil)
	for _, name := range []string{"tape", "show"} {
		p := svc.Problem(name)
		if p == "" || strings.Contains(p, dir) {
			t.Errorf("%s: problem %q; want one that names no folder of %s", name, p, dir)
		}
	}
}
