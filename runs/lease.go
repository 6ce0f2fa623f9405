package runs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// The liveness lease. Several processes may serve one store; a run executes in the process that
// started (or resumed) it, which writes it every SaveEvery whether or not a call finished: its
// heartbeat (a save with its calls, or a touch of Updated alone). Any other process reads a
// stored "running" run as alive elsewhere while its Updated is less than its lease old, and as
// interrupted (resumable) only after that.
//
// Every write to an existing run is a compare-and-swap on its Updated (store.UpdateRun,
// TouchRun), so the lease decides only what is offered (Resume or not), never who wins: of
// the owner, a replica asking to cancel and replicas resuming, each write is made over the
// record its writer read, or refused.
//
// leaseBeats is 3 so that one or two late or failed saves (a slow store, a GC pause, a
// redeploy's brief stall) do not make a live run look dead, while a crashed process's run is
// resumable a few saves later (15 s with the default SaveEvery of 5 s). LeaseMin keeps very
// short SaveEvery settings from making the lease shorter than store latency.
//
// Clock skew: Updated is the saving process's clock and the age is taken on the reader's, so
// the replicas' clocks are assumed to agree to well within the lease's slack,
// (leaseBeats-1)×SaveEvery (10 s by default; NTP keeps them within milliseconds). A reader
// whose clock runs ahead by more would see live runs as interrupted; one behind only waits
// longer before offering Resume. An Updated in the future reads as alive.
const (
	leaseBeats = 3
	// LeaseMin is the shortest lease.
	LeaseMin = time.Second
)

// ownLease is the lease of the runs this process runs.
func (s *Service) ownLease() time.Duration { return max(leaseBeats*s.cfg.SaveEvery, LeaseMin) }

// Lease is how long after its Updated a stored running run counts as alive: leaseBeats of the
// beat its owner wrote in its meta (this process's SaveEvery if none).
func (s *Service) Lease(rec store.Run) time.Duration {
	beat := time.Duration(MetaOf(rec).BeatMS) * time.Millisecond
	if beat <= 0 {
		beat = s.cfg.SaveEvery
	}
	return max(leaseBeats*beat, LeaseMin)
}

// StatusOf is how this process reads a stored run: run here, it is running; stored as running
// (or cancelling) by a process whose lease is live, it is alive elsewhere; once the lease has
// lapsed, it is interrupted (or cancelled, if a cancel was asked of it).
func (s *Service) StatusOf(rec store.Run) (status string, elsewhere bool) {
	if s.Get(rec.ID) != nil {
		return Running, false
	}
	if rec.Status != Running && rec.Status != Cancelling {
		return rec.Status, false
	}
	if time.Since(rec.Updated) < s.Lease(rec) {
		return rec.Status, true
	}
	if rec.Status == Cancelling {
		return Cancelled, false
	}
	return Interrupted, false
}

// AliveElsewhere returns the IDs of the runs in list alive on another replica, and when the
// soonest of their leases would lapse if no heartbeat came.
func (s *Service) AliveElsewhere(list []store.Run) (ids []string, lapse time.Time) {
	for _, rec := range list {
		if _, elsewhere := s.StatusOf(rec); elsewhere {
			ids = append(ids, rec.ID)
			if at := rec.Updated.Add(s.Lease(rec)); lapse.IsZero() || at.Before(lapse) {
				lapse = at
			}
		}
	}
	return ids, lapse
}

// aliveMessage says why a run alive elsewhere cannot be resumed here.
func (s *Service) aliveMessage(rec store.Run) string {
	lease := s.Lease(rec)
	return fmt.Sprintf("This run is in progress on another server (last saved %s ago). It can be resumed here only after that server has not saved it for %s.",
		max(time.Since(rec.Updated), 0).Round(time.Second/10), lease.Round(time.Second/10))
}

// aliveIn returns a run of ws alive on another replica (without its body), if any.
func (s *Service) aliveIn(ctx context.Context, ws string) store.Run {
	list, err := s.store.Runs(ctx, ws)
	if err != nil {
		return store.Run{} // the start itself reports a store that cannot be read
	}
	for _, rec := range list {
		if _, elsewhere := s.StatusOf(rec); elsewhere {
			return rec
		}
	}
	return store.Run{}
}

// claim takes a stored run for this process before resuming it: a compare-and-swap from the
// record as read (its Updated, which the lapsed lease says is stale) to running with a fresh
// claim. Two replicas resuming at once both read the same Updated, so only the first swap
// succeeds and the other is refused (Conflict); the same holds against the old owner coming
// back (its heartbeat moves Updated). No wait and no read-back: the store decides.
func (s *Service) claim(ctx context.Context, rec store.Run) (store.Run, error) {
	meta := MetaOf(rec)
	meta.Claim, meta.BeatMS, meta.Problem = store.NewID(), s.cfg.SaveEvery.Milliseconds(), ""
	prev := rec.Updated
	rec.Status, rec.Updated, rec.Meta = Running, stampAfter(prev), MustJSON(meta)
	out, err := s.store.UpdateRun(ctx, rec, prev)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, store.ErrConflict):
		return rec, conflict("This run changed while it was being resumed: another server resumed it at the same moment, or its own server saved it again. It was not resumed here; the list shows it as it is now.")
	case errors.Is(err, store.ErrNotFound):
		return rec, errNoSuchRun
	}
	return rec, fmt.Errorf("claim the run: %w", err)
}

// askCancel records a cancel request on a run alive on another replica: its status becomes
// cancelling, by a compare-and-swap against the record it read. The request moves Updated on by
// one microsecond only: enough that the owner's next write, which swaps against the Updated it
// wrote itself, fails and makes it read the request, while the lease of a run whose process
// may be gone is not extended. If the owner wrote the run between the read and the swap, the
// run is read again and the request made again, up to cancelAttempts times: a busy owner that
// saves often (or a slow store) can win the race more than once. It returns the record stored,
// or a zero one when a cancel was asked already.
// cancelAttempts bounds askCancel's retries; each costs one read and one swap.
const cancelAttempts = 8

func (s *Service) askCancel(ctx context.Context, ws, id string) (store.Run, error) {
	for attempt := 0; ; attempt++ {
		rec, err := s.store.Run(ctx, ws, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return rec, errNoSuchRun
			}
			return rec, fmt.Errorf("read run: %w", err)
		}
		switch st, elsewhere := s.StatusOf(rec); {
		case elsewhere && st == Cancelling:
			return store.Run{}, nil
		case !elsewhere:
			s.notify(ws, "", Stale) // the page's view was stale: show it the run as it is
			return rec, conflict("that run is not in progress")
		}
		prev := rec.Updated
		rec.Status, rec.Updated = Cancelling, prev.Add(time.Microsecond)
		out, err := s.store.UpdateRun(ctx, rec, prev)
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, store.ErrConflict) && attempt+1 < cancelAttempts:
			continue // its server saved it meanwhile: ask again over that save
		case errors.Is(err, store.ErrConflict):
			s.notify(ws, "", Stale)
			return rec, conflict("The run's server kept saving it while the cancel was being recorded, so the cancel was not recorded; the run is still going. Click Cancel again.")
		case errors.Is(err, store.ErrNotFound):
			return rec, errNoSuchRun
		}
		return rec, fmt.Errorf("ask for the run to be cancelled: %w", err)
	}
}
