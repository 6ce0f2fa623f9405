package runs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// Active is a run in progress in this process.
type Active struct {
	ID, Workspace string

	rec     store.Run
	claim   string    // the nonce in the stored meta that says this process holds the run
	prev    time.Time // the Updated this process last wrote (or read, after a refused write)
	renewed time.Time // the stamp of this process's last save or touch of the run: its lease runs from it
	listing []byte
	job     *runner.Job
	stop    context.CancelCauseFunc

	mu      sync.Mutex
	header  *runner.Header
	calls   map[[2]int]runner.Call
	lastErr string
	fails   int // failed calls before the first answer
	answers int
}

// Counts is how far a run in progress got.
type Counts struct {
	Done, Total, Errors, Cached, Resumed int
	// LastErr is the error of the latest failed call.
	LastErr string
}

// Counts returns how far the run got.
func (a *Active) Counts() Counts {
	p := a.job.Latest()
	a.mu.Lock()
	defer a.mu.Unlock()
	total := p.Total
	if total == 0 && a.header != nil {
		total = len(a.header.Tasks) * a.header.Spec.Samples
	}
	return Counts{Done: p.Done, Total: total, Errors: p.Errors, Cached: p.Cached, Resumed: p.Resumed, LastErr: a.lastErr}
}

// Claim is the nonce in the stored meta that says this process holds the run.
func (a *Active) Claim() string { return a.claim }

// started keeps the run's header as the job starts.
func (a *Active) started(h runner.Header) error {
	a.mu.Lock()
	a.header = &h
	a.mu.Unlock()
	return nil
}

// finished keeps a finished call, and stops the run when its first failFast calls all failed.
func (a *Active) finished(cl runner.Call, failFast int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[[2]int{cl.Task, cl.Sample}] = cl
	if cl.Outcome != runner.OutError {
		a.answers++
		return
	}
	a.lastErr = cl.Error
	if a.answers == 0 {
		a.fails++
		if a.fails >= failFast {
			a.stop(fmt.Errorf("the first %d calls failed, so the run was stopped: %s", a.fails, cl.Error))
		}
	}
}

// Snapshot is the run as far as it got (nil before its job started).
func (a *Active) Snapshot() *runner.Run {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.header == nil {
		return nil
	}
	r := &runner.Run{Header: *a.header, Calls: make([]runner.Call, 0, len(a.calls))}
	for _, c := range a.calls {
		r.Calls = append(r.Calls, c)
	}
	sort.Slice(r.Calls, func(i, j int) bool {
		x, y := r.Calls[i], r.Calls[j]
		return x.Task < y.Task || x.Task == y.Task && x.Sample < y.Sample
	})
	return r
}

// record is the run's stored record with its finished calls; final, when given, is what
// Execute returned.
func (a *Active) record(status, problem string, final *runner.Run) store.Run {
	run := final
	if run == nil {
		run = a.Snapshot()
	}
	rec := a.rec
	rec.Status = status
	meta := MetaOf(rec)
	meta.Problem = problem
	if run != nil {
		sc := runner.ScoreRun(run)
		meta.Endpoint, meta.Model, meta.Samples = run.Header.Spec.Endpoint, run.Header.Spec.Model, run.Header.Spec.Samples
		meta.Tasks, meta.Done, meta.Total, meta.Errors = len(run.Header.Tasks), len(run.Calls), len(run.Header.Tasks)*run.Header.Spec.Samples, sc.Errors
		meta.TasksHash, meta.ListingHash, meta.Cached = run.Header.TasksHash, run.Header.ListingHash, sc.Cached
		meta.Accuracy = nil
		if sc.Scored > 0 {
			acc := sc.Accuracy
			meta.Accuracy = &acc
		}
	}
	a.mu.Lock()
	meta.LastErr = shortError(a.lastErr)
	a.mu.Unlock()
	rec.Meta = MustJSON(meta)
	rec.Body = MustJSON(Body{Listing: a.listing, Run: run})
	return rec
}

// watch notifies a run's progress a few times a second, saves it every SaveEvery (its finished
// calls, or else only its heartbeat), and saves and notifies its end. Each write is a
// compare-and-swap on the Updated this process last wrote (Active.prev): one that fails tells
// the process that another wrote the run since (a cancel asked from another replica, or a
// resume there after this one missed its lease), so no write of either is lost.
func (s *Service) watch(ctx context.Context, a *Active) {
	defer s.wg.Done()
	s.follow(a)
	run, err := a.job.Wait()
	cause := context.Cause(ctx)
	status, problem := endStatus(cause, err, run)
	kept := !errors.Is(cause, errTakenOver)
	if kept {
		status, kept = s.saveFinal(a, status, problem, run)
	}
	s.mu.Lock()
	delete(s.active, a.ID)
	if s.byWS[a.Workspace] == a {
		delete(s.byWS, a.Workspace)
	}
	s.mu.Unlock()
	if !kept {
		s.log.Warn("run taken over by another server; stopped here without saving", "ws", a.Workspace, "run", a.ID)
		return
	}
	s.log.Info("run ended", "ws", a.Workspace, "run", a.ID, "status", status, "problem", problem)
	s.notify(a.Workspace, a.ID, Ended)
}

// follow notifies the run's progress and saves it until its job's events end.
func (s *Service) follow(a *Active) {
	tick := time.NewTicker(s.cfg.ProgressEvery)
	defer tick.Stop()
	beat := time.NewTicker(s.cfg.SaveEvery)
	defer beat.Stop()
	saved, stopping := -1, false
	dirty := true
	events := a.job.Events()
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
			dirty = true
		case <-tick.C:
			if dirty {
				s.notify(a.Workspace, a.ID, Progress)
				dirty = false
			}
		case <-beat.C:
			if stopping {
				continue // the job is ending; its end is saved by watch
			}
			// Saving re-encodes every finished call, so only when some call finished since;
			// otherwise only Updated moves: the heartbeat, one small write whatever the run's
			// size.
			done := a.job.Latest().Done
			if cause := s.persist(a, done != saved); cause != nil {
				a.stop(cause)
				stopping = true
				continue
			}
			saved = done
		}
	}
}

// endStatus is the status and problem a run ends with, from why its context ended (cause) and
// what its job returned.
func endStatus(cause, err error, run *runner.Run) (status, problem string) {
	status = Done
	switch {
	case errors.Is(cause, errTakenOver):
		// Another replica holds the run now: it saves and announces it, not this process.
	case err == nil:
	case errors.Is(cause, errCancelled):
		status = Cancelled
	case errors.Is(cause, errLeaseLost):
		status, problem = Interrupted, "This server could not save the run for several seconds, so it stopped it rather than risk another server running it too; resume it to finish."
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		// The server's context ended (a shutdown); the fail-fast rule's cause is an error of
		// its own and lands below.
		status, problem = Interrupted, "The server stopped while the run was in progress; resume it to finish."
	default:
		status, problem = Failed, err.Error()
	}
	if run != nil && status == Done {
		if sc := runner.ScoreRun(run); sc.Scored == 0 && sc.Errors > 0 {
			status, problem = Failed, fmt.Sprintf("Every call failed; the run measured nothing. %s", FirstError(run))
		}
	}
	return status, problem
}

// write stores rec over the record this process last wrote (a compare-and-swap on a.prev). Only
// the run's watch goroutine calls it, so a.prev needs no lock.
func (s *Service) write(ctx context.Context, a *Active, rec store.Run) error {
	rec.Updated = stampAfter(a.prev)
	out, err := s.store.UpdateRun(ctx, rec, a.prev)
	if err != nil {
		return err
	}
	a.prev, a.renewed = out.Updated, out.Updated
	return nil
}

// touch is the heartbeat: it moves the run's Updated on, which renews its lease, without
// rewriting the run.
func (s *Service) touch(ctx context.Context, a *Active) error {
	at := stampAfter(a.prev)
	if err := s.store.TouchRun(ctx, a.Workspace, a.ID, a.prev, at); err != nil {
		return err
	}
	a.prev, a.renewed = at, at
	return nil
}

// persist saves the running run (full: its finished calls; else only its heartbeat) and
// returns why it must stop, if another process said so: errCancelled for a cancel asked from
// another replica, errTakenOver for a claim that is no longer this process's. A store that
// cannot be written leaves the run going while its lease holds (the next beat tries again),
// and stops it (errLeaseLost) one beat before other replicas would read it as interrupted.
func (s *Service) persist(a *Active, full bool) error {
	// Other replicas time the lease from the last stamp written (a.renewed): past the lease but
	// one beat, this process stops the run rather than keep calling the endpoint, so a write
	// may not wait longer than that.
	keepUntil := a.renewed.Add(s.ownLease() - s.cfg.SaveEvery)
	wait := min(s.cfg.SaveEvery+5*time.Second, max(time.Until(keepUntil), 100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for attempt := 0; ; attempt++ {
		var err error
		if full {
			err = s.write(ctx, a, a.record(Running, "", nil))
		} else {
			err = s.touch(ctx, a)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt > 0 {
			s.log.Error("saving a run in progress", "run", a.ID, "heartbeatOnly", !full, "err", err)
			if !time.Now().Before(keepUntil) {
				return errLeaseLost
			}
			return nil
		}
		if cause, ok := s.reconcile(ctx, a); !ok || cause != nil {
			return cause
		}
		// Still this process's run, written by this process (a write the store made although
		// it answered with an error): write again over what it holds.
	}
}

// saveFinal writes the run's end and returns the status stored, and false if it was not
// stored because the run is no longer this process's. A cancel asked from another replica
// while the run was ending makes it cancelled, unless every call was made (done: nothing was
// left to cancel, as when the run ends here just as Cancel is clicked).
func (s *Service) saveFinal(a *Active, status, problem string, run *runner.Run) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.SaveEvery+10*time.Second)
	defer cancel()
	for attempt := 0; attempt < 3; attempt++ {
		err := s.write(ctx, a, a.record(status, problem, run))
		if err == nil {
			return status, true
		}
		if !errors.Is(err, store.ErrConflict) {
			s.log.Error("saving a run's end", "run", a.ID, "status", status, "err", err)
			return status, true // its lease lapses and it reads as interrupted, with its last saved calls
		}
		cause, ok := s.reconcile(ctx, a)
		switch {
		case !ok:
			return status, true
		case errors.Is(cause, errTakenOver):
			return status, false
		case errors.Is(cause, errCancelled) && status != Done:
			status, problem = Cancelled, ""
		}
	}
	s.log.Error("saving a run's end: the run kept changing under this server", "run", a.ID, "status", status)
	return status, true
}

// reconcile reads the run again after one of this process's writes was refused because the
// run changed since (a Conflict), and says why it changed: errTakenOver if it is no longer this
// process's (another replica resumed it after this one missed its lease, or it is gone),
// errCancelled if a page on another replica asked to cancel it, nil if it is still this
// process's, as it wrote it. a.prev becomes the stored Updated, so that the next write (the
// cancelled run's end, or a retry) swaps against what the store holds. ok is false when the
// run could not be read; the run then goes on, and the next beat tries again.
func (s *Service) reconcile(ctx context.Context, a *Active) (cause error, ok bool) {
	rec, err := s.store.Run(ctx, a.Workspace, a.ID)
	if errors.Is(err, store.ErrNotFound) {
		return errTakenOver, true
	}
	if err != nil {
		s.log.Warn("reading a run after a refused save", "run", a.ID, "err", err)
		return nil, false
	}
	if MetaOf(rec).Claim != a.claim {
		return errTakenOver, true
	}
	a.prev = rec.Updated
	if rec.Status == Cancelling {
		return errCancelled, true
	}
	return nil, true
}
