package web

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// runAcross starts a run on a server on store runOn and checks that a page on a second server,
// on store watchOn, shows it: the bar while it runs (as "running", not "interrupted"), then the
// list and the bar at its end. Only the store's events carry it from one server to the other.
func runAcross(t *testing.T, runOn, watchOn store.Store) {
	t.Setenv(keyEnv, testKey)
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	f := &fake.Server{Key: testKey, Delay: 50 * time.Millisecond}
	as, err := New(Config{Store: runOn, Engine: eng, DatastarJS: []byte("// test client"), Log: slog.New(slog.NewTextHandler(&syncBuf{}, nil)),
		Runs: RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f},
			ProgressEvery: 10 * time.Millisecond, SaveEvery: 20 * time.Millisecond, Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.WaitRuns)
	bs, err := New(Config{Store: watchOn, Engine: eng, DatastarJS: []byte("// test client"),
		Log: slog.New(slog.NewTextHandler(&syncBuf{}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	a, b := &runEnv{s: as, db: runOn, fake: f}, &runEnv{s: bs, db: watchOn}
	ws := openExample(t, a.s, "library-2-draft")
	st := b.openStream(t, ws)
	id := a.start(t, ws, runForm("samples", "3"))
	st.waitFor(t, `data-testid="run-progress" data-status="running"`)
	a.s.WaitRuns()
	body := st.waitFor(t, `data-testid="run-progress" data-status="done"[\s\S]*data-run="`+id+`" data-status="done"`)
	if !strings.Contains(body, `value="27"`) || !strings.Contains(body, `max="27"`) {
		t.Errorf("the other server's page does not show 27 of 27 calls at the end:\n%s", body)
	}
	if strings.Contains(body, `data-status="interrupted"`) {
		t.Errorf("a run in progress on the other server showed as interrupted:\n%s", body)
	}
}

// TestRunProgressCrossesServers: two servers on one SQLite store (its events are in-process
// only, so both share the store value) stand for two replicas.
func TestRunProgressCrossesServers(t *testing.T) {
	st := newTestStore(t)
	runAcross(t, st, st)
}

// TestRunProgressCrossesReplicasPostgres: two servers on two PostgreSQL store instances, where
// the events cross by LISTEN/NOTIFY as between real replicas.
func TestRunProgressCrossesReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	runAcross(t, sts[0], sts[1])
}

// crashable is a store whose run writes can be cut off, as if its process had died (or lost the
// database) while the run goes on in memory: its saves, heartbeats included, stop arriving.
type crashable struct {
	store.Store
	dead atomic.Bool
	// The run writes asked of it: whole records (UpdateRun) and heartbeats (TouchRun).
	updates, touches atomic.Int64
}

var errCutOff = errors.New("test: this process is cut off from the store")

func (c *crashable) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	if c.dead.Load() {
		return store.Run{}, errCutOff
	}
	return c.Store.PutRun(ctx, r)
}

func (c *crashable) UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error) {
	c.updates.Add(1)
	if c.dead.Load() {
		return store.Run{}, errCutOff
	}
	return c.Store.UpdateRun(ctx, r, prev)
}

func (c *crashable) TouchRun(ctx context.Context, ws, id string, prev, at time.Time) error {
	c.touches.Add(1)
	if c.dead.Load() {
		return errCutOff
	}
	return c.Store.TouchRun(ctx, ws, id, prev, at)
}

// gate answers the first `pass` requests at once and holds the rest until open is closed or
// the request is abandoned: a run that stalls part way, so that only heartbeats keep it alive.
type gate struct {
	h    http.Handler
	pass int64
	n    atomic.Int64
	open chan struct{}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.n.Add(1) > g.pass {
		select {
		case <-g.open:
		case <-r.Context().Done():
			http.Error(w, "abandoned", http.StatusServiceUnavailable)
			return
		}
	}
	g.h.ServeHTTP(w, r)
}

// replica is a server on st offering the fake endpoint through doer, with short intervals.
func replica(t *testing.T, st store.Store, doer runner.Doer, saveEvery time.Duration) *runEnv {
	t.Helper()
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	cfg := RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: doer,
		ProgressEvery: 10 * time.Millisecond, SaveEvery: saveEvery, Retries: -1}
	cfg.Endpoints[0].Concurrency = 1
	buf := &syncBuf{}
	s, err := New(Config{Store: st, Engine: eng, DatastarJS: []byte("// test client"), Runs: cfg,
		Log: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.WaitRuns)
	return &runEnv{s: s, db: st, log: buf}
}

// eventually polls cond until it holds, with a generous deadline (never a timing assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runRowOf is the run's row in a Runs panel, or "".
func runRowOf(panel, id string) string {
	return regexp.MustCompile(`<tr data-testid="run-row" data-run="` + id + `"[^>]*>[\s\S]*?</tr>`).FindString(panel)
}

// leaseAcross: a run alive on replica A reads as running on replica B across full reloads of
// B's panel, even while it makes no progress (A's heartbeats renew its lease); B refuses to
// resume it or start another; once A's saves stop arriving, B reads it as interrupted and
// resumes it; and A, back in touch with the store, finds the run claimed by B and stops
// without writing it.
func leaseAcross(t *testing.T, stA, stB store.Store) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey}
	held := &gate{h: f, pass: 4, open: make(chan struct{})}
	cut := &crashable{Store: stA}
	a := replica(t, cut, runner.HandlerDoer{Handler: held}, 30*time.Millisecond)
	b := replica(t, stB, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
	// Registered after the replicas, so it runs before their WaitRuns when a check fails.
	t.Cleanup(func() { close(held.open) })
	ws := openExample(t, a.s, "library-2-draft")
	id := a.start(t, ws, runForm("samples", "3"))
	page := b.openStream(t, ws) // a page open on B all along

	// A has saved its 4 calls and stalls on the fifth.
	var first store.Run
	eventually(t, "A saves the run's first calls", func() bool {
		rec, _, meta := a.stored(t, ws, id)
		first = rec
		return meta.Done == 4
	})
	lease := a.s.runs.Lease(first)
	updates, touches := cut.updates.Load(), cut.touches.Load()
	// Without progress, only heartbeats move Updated: wait until they have carried it past a
	// whole lease beyond the last save with progress.
	eventually(t, "A's heartbeat renews the run's lease", func() bool {
		rec, _, meta := a.stored(t, ws, id)
		return meta.Done == 4 && rec.Status == runsvc.Running && rec.Updated.Sub(first.Updated) > lease
	})
	// Those heartbeats only touched the run: none wrote its calls again.
	if n := cut.updates.Load() - updates; n != 0 || cut.touches.Load() == touches {
		t.Errorf("while the run made no progress, A rewrote it %d times and touched it %d times; want touches only",
			n, cut.touches.Load()-touches)
	}
	if code, panel := b.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil); code != http.StatusOK {
		t.Fatalf("B's panel: %d %s", code, panel)
	} else {
		row := runRowOf(panel, id)
		if !strings.Contains(row, `data-status="running" data-elsewhere`) || !strings.Contains(row, "on another server") {
			t.Errorf("on B, after a reload, the run alive on A does not read as running on another server:\n%s", row)
		}
		if strings.Contains(panel, "/runs/"+id+"/resume") {
			t.Error("B offers Resume for a run alive on A")
		}
		if !strings.Contains(panel, `data-testid="run-progress" data-status="running"`) || !strings.Contains(panel, "Run in progress on another server") ||
			!strings.Contains(panel, "/runs/"+id+"/cancel") {
			t.Errorf("B's progress bar does not show the run on A with its Cancel:\n%s", panel)
		}
	}
	if code, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/resume", nil); code != http.StatusConflict || !strings.Contains(body, "in progress on another server") {
		t.Errorf("B's Resume of a run alive on A answered %d %q; want 409 saying it runs on another server", code, body)
	}
	if _, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs", runForm()); !strings.Contains(body, "on another server") {
		t.Errorf("B started a second run on a workspace whose run is alive on A: %s", body)
	}

	// A is cut off: its heartbeats stop arriving, and after the lease B offers Resume.
	if strings.Contains(page.text(), `data-status="interrupted"`) {
		t.Errorf("the page on B showed the run alive on A as interrupted:\n%s", page.text())
	}
	claimA := a.s.runs.Get(id).Claim()
	cut.dead.Store(true)
	// The page open on B turns to interrupted by itself once the lease lapses: no save comes to
	// tell it, so B checks again when the lease would end.
	page.waitFor(t, `data-run="`+id+`" data-status="interrupted"`)
	eventually(t, "B reads the run as interrupted once A's lease lapsed", func() bool {
		_, panel := b.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
		return strings.Contains(runRowOf(panel, id), `data-status="interrupted"`) && strings.Contains(panel, "/runs/"+id+"/resume")
	})
	if code, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/resume", nil); code != http.StatusOK || strings.Contains(body, "run-failure") {
		t.Fatalf("B's resume after the lease lapsed: %d %s", code, body)
	}
	// A comes back (if it has not stopped the run already, its next heartbeat finds B's claim
	// and stops the run without saving it).
	cut.dead.Store(false)
	eventually(t, "A stops the run B took over", func() bool { return a.s.runs.Get(id) == nil })
	b.s.WaitRuns()
	a.s.WaitRuns()
	rec, body, meta := b.stored(t, ws, id)
	if rec.Status != runsvc.Done || meta.Done != 27 || len(body.Run.Calls) != 27 || meta.Claim == claimA || meta.Claim == "" {
		t.Errorf("after B resumed: status %s, %d of 27 calls, claim %q (A's %q)", rec.Status, meta.Done, meta.Claim, claimA)
	}
	// A stopped the run itself a beat before its lease lapsed (it could not save it), or, if it
	// was slower than that, on finding B's claim: either way it no longer runs it.
	if l := a.log.String(); !strings.Contains(l, "taken over") && !strings.Contains(l, "could not save the run") {
		t.Errorf("A's log does not say why it stopped the run:\n%s", l)
	}
}

// TestRunLeaseAcrossServers: two servers on one SQLite store stand for two replicas.
func TestRunLeaseAcrossServers(t *testing.T) {
	st := newTestStore(t)
	leaseAcross(t, st, st)
}

// TestRunLeaseAcrossReplicasPostgres: the same on two PostgreSQL store instances.
func TestRunLeaseAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	leaseAcross(t, sts[0], sts[1])
}

// cancelAcross: a page on replica B cancels a run alive on replica A through the store; A
// notices at its next heartbeat and ends the run as cancelled, resumable.
func cancelAcross(t *testing.T, stA, stB store.Store) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey}
	held := &gate{h: f, pass: 2, open: make(chan struct{})}
	a := replica(t, stA, runner.HandlerDoer{Handler: held}, 30*time.Millisecond)
	b := replica(t, stB, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
	t.Cleanup(func() { close(held.open) }) // before the replicas' WaitRuns
	ws := openExample(t, a.s, "library-2-draft")
	id := a.start(t, ws, runForm("samples", "2"))
	eventually(t, "A saves the run's first calls", func() bool {
		_, _, meta := a.stored(t, ws, id)
		return meta.Done == 2
	})
	st := b.openStream(t, ws)
	if code, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/cancel", nil); code != http.StatusNoContent {
		t.Fatalf("B's cancel of the run on A: %d %s", code, body)
	}
	eventually(t, "A ends the run as cancelled", func() bool {
		rec, _, _ := a.stored(t, ws, id)
		return rec.Status == runsvc.Cancelled && a.s.runs.Get(id) == nil
	})
	// B's page learns of the end through the store's event.
	st.waitFor(t, `data-run="`+id+`" data-status="cancelled"`)
	_, panel := b.call(t, http.MethodGet, "/w/"+ws+"/runs/panel", nil)
	if !strings.Contains(panel, "/runs/"+id+"/resume") {
		t.Errorf("B does not offer Resume for the cancelled run:\n%s", runRowOf(panel, id))
	}
	if code, _ := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/cancel", nil); code != http.StatusConflict {
		t.Errorf("a second cancel from B answered %d, want 409", code)
	}
	if !strings.Contains(a.log.String(), "cancelled") {
		t.Errorf("A's log does not record the cancel:\n%s", a.log.String())
	}
}

// TestRunCancelAcrossServers: two servers on one SQLite store.
func TestRunCancelAcrossServers(t *testing.T) {
	st := newTestStore(t)
	cancelAcross(t, st, st)
}

// TestRunCancelAcrossReplicasPostgres: the same on two PostgreSQL store instances.
func TestRunCancelAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	cancelAcross(t, sts[0], sts[1])
}

// claimRace holds each replica's first claim of run (its UpdateRun of it as running) until
// every one of n replicas has reached its own: all of them read the run, interrupted, at the
// same Updated before any claims it, so their compare-and-swaps really race. It records what
// the store answered each claim.
type claimRace struct {
	mu      sync.Mutex
	n       int
	run     string
	all     chan struct{}
	answers []error
}

func newClaimRace(n int) *claimRace { return &claimRace{n: n, all: make(chan struct{})} }

// racer is one replica's store, whose first claim of the run waits for the others'.
type racer struct {
	store.Store
	race  *claimRace
	armed atomic.Bool
}

func (r *racer) UpdateRun(ctx context.Context, rec store.Run, prev time.Time) (store.Run, error) {
	if rec.ID != r.race.run || rec.Status != runsvc.Running || !r.armed.CompareAndSwap(true, false) {
		return r.Store.UpdateRun(ctx, rec, prev)
	}
	r.race.mu.Lock()
	if r.race.n--; r.race.n == 0 {
		close(r.race.all)
	}
	r.race.mu.Unlock()
	select {
	case <-r.race.all:
	case <-time.After(20 * time.Second): // a replica never claimed: the test reports it
	}
	out, err := r.Store.UpdateRun(ctx, rec, prev)
	r.race.mu.Lock()
	r.race.answers = append(r.race.answers, err)
	r.race.mu.Unlock()
	return out, err
}

// resumeRace: two replicas resume the same interrupted run at the same moment; exactly one
// runs it, the other answers 409, and no call is made twice. The store's compare-and-swap
// decides: no wait is involved, and both claims are held until both replicas have read the
// run, so that they cannot be told apart by timing.
func resumeRace(t *testing.T, stA, stB, stC store.Store) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey}
	held := &gate{h: f, pass: 4, open: make(chan struct{})}
	cut := &crashable{Store: stA}
	race := newClaimRace(2)
	rb, rc := &racer{Store: stB, race: race}, &racer{Store: stC, race: race}
	a := replica(t, cut, runner.HandlerDoer{Handler: held}, 30*time.Millisecond)
	b := replica(t, rb, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
	c := replica(t, rc, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
	t.Cleanup(func() { close(held.open) })
	ws := openExample(t, a.s, "library-2-draft")
	id := a.start(t, ws, runForm("samples", "3"))
	eventually(t, "A saves the run's first calls", func() bool {
		_, _, meta := a.stored(t, ws, id)
		return meta.Done == 4
	})
	claimA := a.s.runs.Get(id).Claim()
	cut.dead.Store(true) // A's writes stop arriving
	eventually(t, "the run's lease lapses", func() bool {
		rec, _, _ := b.stored(t, ws, id)
		st, _ := b.s.runs.StatusOf(rec)
		return st == runsvc.Interrupted
	})
	sent := f.Requests()
	race.run = id
	rb.armed.Store(true)
	rc.armed.Store(true)
	type answer struct {
		code int
		body string
	}
	answers := make(chan answer, 2)
	for _, r := range []*runEnv{b, c} {
		go func() {
			code, body := r.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/resume", nil)
			answers <- answer{code, body}
		}()
	}
	x, y := <-answers, <-answers
	if x.code+y.code != http.StatusOK+http.StatusConflict || strings.Contains(x.body+y.body, "run-failure") {
		t.Fatalf("two replicas resuming at once answered %d %q and %d %q; want one 200 and one 409", x.code, x.body, y.code, y.body)
	}
	if loser := x.body + y.body; !strings.Contains(loser, "another server resumed it at the same moment") {
		t.Errorf("the refused resume does not say why: %q", loser)
	}
	race.mu.Lock()
	got := race.answers
	race.mu.Unlock()
	if len(got) != 2 || (got[0] == nil) == (got[1] == nil) || !errors.Is(got[0], store.ErrConflict) && !errors.Is(got[1], store.ErrConflict) {
		t.Errorf("the store answered the two claims %v; want one success and one Conflict", got)
	}
	// A comes back: its next heartbeat is refused (the claim moved Updated), it reads the
	// run, finds another's claim, and stops without writing it.
	cut.dead.Store(false)
	eventually(t, "A stops the run the others took over", func() bool { return a.s.runs.Get(id) == nil })
	b.s.WaitRuns()
	c.s.WaitRuns()
	rec, _, meta := b.stored(t, ws, id)
	if rec.Status != runsvc.Done || meta.Done != 27 || meta.Claim == claimA {
		t.Errorf("after the resume: status %s, %d of 27 calls, claim %q (A's %q)", rec.Status, meta.Done, meta.Claim, claimA)
	}
	if n := f.Requests() - sent; n != 27-4 {
		t.Errorf("the resumes sent %d requests for %d missing calls: the run ran twice", n, 27-4)
	}
	if l := a.log.String(); !strings.Contains(l, "taken over") && !strings.Contains(l, "could not save the run") {
		t.Errorf("A's log does not say why it stopped the run:\n%s", l)
	}
}

// TestRunResumeRaceAcrossServers: three servers on one SQLite store.
func TestRunResumeRaceAcrossServers(t *testing.T) {
	st := newTestStore(t)
	resumeRace(t, st, st, st)
}

// TestRunResumeRaceAcrossReplicasPostgres: the same on three PostgreSQL store instances.
func TestRunResumeRaceAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 3)
	resumeRace(t, sts[0], sts[1], sts[2])
}

// hooked is a store that runs before, once, right before the first UpdateRun of a record that
// match accepts, and records what the store then answered that write.
type hooked struct {
	store.Store
	mu     sync.Mutex // the hook is set while the run's writes go on
	match  func(store.Run) bool
	before func(store.Run)
	fired  atomic.Bool
	answer chan error
}

func newHooked(st store.Store) *hooked { return &hooked{Store: st, answer: make(chan error, 1)} }

// hook sets the write to intercept and what to do before it.
func (h *hooked) hook(match func(store.Run) bool, before func(store.Run)) {
	h.mu.Lock()
	h.match, h.before = match, before
	h.mu.Unlock()
}

func (h *hooked) UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error) {
	h.mu.Lock()
	match, before := h.match, h.before
	h.mu.Unlock()
	if match == nil || !match(r) || !h.fired.CompareAndSwap(false, true) {
		return h.Store.UpdateRun(ctx, r, prev)
	}
	before(r)
	out, err := h.Store.UpdateRun(ctx, r, prev)
	h.answer <- err
	return out, err
}

// hookAnswer is what the store answered the hooked write.
func hookAnswer(t *testing.T, h *hooked) error {
	t.Helper()
	select {
	case err := <-h.answer:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the hooked write never happened")
		return nil
	}
}

func metaOf(r store.Run) runsvc.Meta {
	m := runsvc.Meta{}
	_ = json.Unmarshal(r.Meta, &m)
	return m
}

// cancelRaces drives the writes of a run's owner (replica A) and of a replica asking to cancel
// it (B) into the orders that a blind replace would get wrong, each deterministically, by
// running one write inside the other's read-then-write:
//   - a cancel lands between the owner's read of the run (its last write) and its next save:
//     the save is refused, the owner reads the request and ends the run as cancelled, with its
//     calls; the cancel is not lost.
//   - the owner heartbeats between B's read and B's write: B's write is refused, B reads the
//     run again and asks once more, and the run ends as cancelled.
//   - the owner's final save lands between B's read and B's write: B's write is refused, B
//     reads the run again, finds it done, and answers 409; the final save is not overwritten.
func cancelRaces(t *testing.T, stA, stB func() store.Store) {
	t.Setenv(keyEnv, testKey)
	for _, tc := range []struct {
		name string
		// arm sets the hook, on A's store (ha) or B's (hb), before the run starts.
		arm        func(t *testing.T, a, b *runEnv, ha, hb *hooked, release func())
		hookedA    bool
		wantCode   int
		wantStatus string
		wantDone   int
	}{
		{
			name:    "cancel between the owner's read and save",
			hookedA: true,
			arm: func(t *testing.T, a, b *runEnv, ha, hb *hooked, release func()) {
				// A's save of its first two calls (the third is held): B's cancel lands first.
				ha.hook(func(r store.Run) bool { return r.Status == runsvc.Running && metaOf(r).Done == 2 }, func(r store.Run) {
					if code, body := b.call(t, http.MethodPost, "/w/"+r.Workspace+"/runs/"+r.ID+"/cancel", nil); code != http.StatusNoContent {
						t.Errorf("B's cancel inside A's save: %d %s", code, body)
					}
				})
			},
			wantCode: http.StatusNoContent, wantStatus: runsvc.Cancelled, wantDone: 2,
		},
		{
			name: "owner's heartbeat between the cancel's read and write",
			arm: func(t *testing.T, a, b *runEnv, ha, hb *hooked, release func()) {
				hb.hook(func(r store.Run) bool { return r.Status == runsvc.Cancelling }, func(r store.Run) {
					before, _, _ := a.stored(t, r.Workspace, r.ID)
					eventually(t, "A heartbeats", func() bool {
						now, _, _ := a.stored(t, r.Workspace, r.ID)
						return !now.Updated.Equal(before.Updated)
					})
				})
			},
			wantCode: http.StatusNoContent, wantStatus: runsvc.Cancelled, wantDone: 2,
		},
		{
			name: "owner's final save between the cancel's read and write",
			arm: func(t *testing.T, a, b *runEnv, ha, hb *hooked, release func()) {
				hb.hook(func(r store.Run) bool { return r.Status == runsvc.Cancelling }, func(store.Run) {
					release() // the held calls go through, and the run ends
					a.s.WaitRuns()
				})
			},
			wantCode: http.StatusConflict, wantStatus: runsvc.Done, wantDone: 18,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake.Server{Key: testKey}
			held := &gate{h: f, pass: 2, open: make(chan struct{})}
			var once sync.Once
			release := func() { once.Do(func() { close(held.open) }) }
			ha, hb := newHooked(stA()), newHooked(stB())
			a := replica(t, ha, runner.HandlerDoer{Handler: held}, 30*time.Millisecond)
			b := replica(t, hb, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
			t.Cleanup(release) // before the replicas' WaitRuns
			ws := openExample(t, a.s, "library-2-draft")
			tc.arm(t, a, b, ha, hb, release)
			id := a.start(t, ws, runForm("samples", "2"))
			if !tc.hookedA {
				eventually(t, "A saves the run's first calls", func() bool {
					_, _, meta := a.stored(t, ws, id)
					return meta.Done == 2
				})
				if code, body := b.call(t, http.MethodPost, "/w/"+ws+"/runs/"+id+"/cancel", nil); code != tc.wantCode {
					t.Errorf("B's cancel: %d %s, want %d", code, body, tc.wantCode)
				}
			}
			h := ha
			if !tc.hookedA {
				h = hb
			}
			if err := hookAnswer(t, h); !errors.Is(err, store.ErrConflict) {
				t.Errorf("the write overtaken by the other's answered %v, want a Conflict", err)
			}
			eventually(t, "A's run ends", func() bool { return a.s.runs.Get(id) == nil })
			a.s.WaitRuns()
			rec, body, meta := a.stored(t, ws, id)
			if rec.Status != tc.wantStatus || meta.Done != tc.wantDone || body.Run == nil || len(body.Run.Calls) != tc.wantDone {
				t.Errorf("stored at the end: status %s, %d calls in meta; want %s with %d calls", rec.Status, meta.Done, tc.wantStatus, tc.wantDone)
			}
			if strings.Contains(a.log.String(), "taken over") {
				t.Errorf("A took a cancel for a take-over:\n%s", a.log.String())
			}
		})
	}
}

// TestRunCancelRacesAcrossServers: two servers on one SQLite store.
func TestRunCancelRacesAcrossServers(t *testing.T) {
	st := newTestStore(t)
	one := func() store.Store { return st }
	cancelRaces(t, one, one)
}

// TestRunCancelRacesAcrossReplicasPostgres: the same on two PostgreSQL store instances.
func TestRunCancelRacesAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	cancelRaces(t, func() store.Store { return sts[0] }, func() store.Store { return sts[1] })
}

// bodyReads counts the reads of whole runs (their calls included), the heavy reads.
type bodyReads struct {
	store.Store
	n atomic.Int64
}

func (b *bodyReads) Run(ctx context.Context, ws, id string) (store.Run, error) {
	b.n.Add(1)
	return b.Store.Run(ctx, ws, id)
}

// TestRunLeaseRecheck: heartbeats send no event, so a page on another replica learns that a run
// stopped only from the check made when its lease would lapse (recheck, which the lapse timer
// calls). While the run's owner touches it, the check finds it alive, shows nothing new, and
// only checks again later; once the heartbeats stop, the page turns it interrupted. Neither
// the check nor the refresh on a save reads the run's calls while it is alive.
func TestRunLeaseRecheck(t *testing.T) {
	st := &bodyReads{Store: newTestStore(t)}
	b := replica(t, st, runner.HandlerDoer{Handler: &fake.Server{Key: testKey}}, 30*time.Millisecond)
	ws := openExample(t, b.s, "library-2-draft")
	ctx := context.Background()
	// A run stored by another process that beats every 30 s: a lease of 90 s.
	now := store.Now()
	rec, err := st.PutRun(ctx, store.Run{Workspace: ws, Label: "elsewhere", Status: runsvc.Running, Created: now, Updated: now,
		Meta: runsvc.MustJSON(runsvc.Meta{Endpoint: "fake", Done: 3, Total: 18, Errors: 1, Cached: 2, LastErr: "HTTP 500 from the endpoint", Claim: "other", BeatMS: 30000}),
		Body: runsvc.MustJSON(runsvc.Body{Listing: json.RawMessage(`{"tools": []}`)})})
	if err != nil {
		t.Fatal(err)
	}
	page := b.openStream(t, ws)
	pending := func() bool {
		b.s.runs.mu.Lock()
		defer b.s.runs.mu.Unlock()
		return b.s.runs.lapse[ws] != nil
	}
	reads := st.n.Load()
	// A save of the run elsewhere: the pages show it from its meta, and a check is set.
	b.s.refreshRuns(ws)
	body := page.waitFor(t, `data-testid="run-progress" data-status="running"`)
	if !strings.Contains(body, "1 failed") || !strings.Contains(body, "2 from the cache") || !strings.Contains(body, "HTTP 500 from the endpoint") {
		t.Errorf("the bar of a run elsewhere does not show the counts its meta keeps:\n%s", body)
	}
	if !pending() {
		t.Error("no lease check is set for a run alive elsewhere")
	}
	// The owner's heartbeat: only Updated moves, and no event is sent.
	touched := now.Add(time.Second)
	if err := st.TouchRun(ctx, ws, rec.ID, now, touched); err != nil {
		t.Fatal(err)
	}
	b.s.recheck(ws, []string{rec.ID})
	if !pending() {
		t.Error("a check that found the run touched did not check again later")
	}
	if n := st.n.Load() - reads; n != 0 {
		t.Errorf("showing and checking a run alive elsewhere read it whole %d times; its meta is enough", n)
	}
	// The owner stops: no heartbeat for over an hour (the run's time set back by hand: the
	// store moves a run's time only forward), and no event.
	db := st.Store.(interface{ DBHandle() *sql.DB }).DBHandle()
	if _, err := db.ExecContext(ctx, `UPDATE runs SET updated_at = ? WHERE id = ?`, store.Micros(now.Add(-time.Hour)), rec.ID); err != nil {
		t.Fatal(err)
	}
	b.s.recheck(ws, []string{rec.ID})
	page.waitFor(t, `data-run="`+rec.ID+`" data-status="interrupted"`)
	if pending() {
		t.Error("a check is still set although no run is alive elsewhere")
	}
}

// TestRunStopsWhenItCannotSave: a process that cannot save its run for most of the run's lease
// stops the run itself, before another replica could read it as interrupted and resume it, so
// that no two processes call the endpoint for the same tasks. The run stays resumable.
func TestRunStopsWhenItCannotSave(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	f := &fake.Server{Key: testKey, Delay: 20 * time.Millisecond}
	st := newTestStore(t)
	cut := &crashable{Store: st}
	a := replica(t, cut, runner.HandlerDoer{Handler: f}, 30*time.Millisecond)
	ws := openExample(t, a.s, "library-2-draft")
	id := a.start(t, ws, runForm("samples", "20"))
	eventually(t, "the run saves its first calls", func() bool {
		_, _, meta := a.stored(t, ws, id)
		return meta.Done > 0
	})
	cut.dead.Store(true)
	eventually(t, "the run stops itself", func() bool { return a.s.runs.Get(id) == nil })
	a.s.WaitRuns() // every call the run made has ended
	if !strings.Contains(a.log.String(), "could not save the run") {
		t.Errorf("the log does not say why the run stopped:\n%s", a.log.String())
	}
	cut.dead.Store(false)
	eventually(t, "the stopped run reads as interrupted, with calls left", func() bool {
		rec, _, meta := a.stored(t, ws, id)
		status, _ := a.s.runs.StatusOf(rec)
		return status == runsvc.Interrupted && meta.Done < meta.Total
	})
}
