package web

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// localRuns counts the runs this process stores, per workspace, so that the hub can tell the
// EventRuns of its own saves (whose progress watch publishes, fresher) from another replica's.
// Each PutRun or UpdateRun that succeeds makes one event (TouchRun none); the count is raised
// before the write, so that the event cannot be seen before it, and lowered by the hub as it
// sees the event, or by a write that failed (a Conflict included: it sent nothing).
type localRuns struct {
	RunStore
	mu      sync.Mutex
	pending map[string]int
}

func (l *localRuns) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	l.expect(r.Workspace)
	out, err := l.RunStore.PutRun(ctx, r)
	if err != nil {
		l.take(r.Workspace)
	}
	return out, err
}

func (l *localRuns) UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error) {
	l.expect(r.Workspace)
	out, err := l.RunStore.UpdateRun(ctx, r, prev)
	if err != nil {
		l.take(r.Workspace)
	}
	return out, err
}

// TouchRun is forwarded as is: it sends no event, so there is nothing to count.
func (l *localRuns) TouchRun(ctx context.Context, ws, id string, prev, at time.Time) error {
	return l.RunStore.TouchRun(ctx, ws, id, prev, at)
}

// expect counts one write on ws whose event is to come.
func (l *localRuns) expect(ws string) {
	l.mu.Lock()
	l.pending[ws]++
	l.mu.Unlock()
}

// take reports whether one of this process's puts on ws was still waiting for its event, and
// counts it as seen.
func (l *localRuns) take(ws string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[ws] == 0 {
		return false
	}
	l.pending[ws]--
	if l.pending[ws] == 0 {
		delete(l.pending, ws)
	}
	return true
}

// forget drops the count of ws when the hub subscribes to it: events of puts made while no page
// was open here were never delivered, and must not hide another replica's later ones.
func (l *localRuns) forget(ws string) {
	l.mu.Lock()
	delete(l.pending, ws)
	l.mu.Unlock()
}

// onRuns shows a run stored by another replica: the process running a run publishes its progress
// to its own pages as it goes (publishRuns), and saves it every RunsConfig.SaveEvery when some
// call finished; the pages of the other replicas learn of it only through the store's
// EventRuns, so each save re-renders their Runs list and progress bar from what the store holds.
// Cross-replica progress therefore moves in steps of SaveEvery, and ends with the final save.
// Heartbeats (TouchRun) send no event: the lease timer (recheckAt) reads them.
func (h *Hub) onRuns(r *room) {
	s := h.s
	if s.runs.local.take(r.ws) || s.runs.activeIn(r.ws) != nil {
		return // stored or running here: watch publishes fresher progress than the store holds
	}
	s.refreshRuns(r.ws)
}

// refreshRuns re-renders the Runs list and bar of ws on this process's pages from the store.
// It reads the list of runs without their bodies; a run alive on another replica is shown from
// its meta (the owner keeps its counts there), so a save there costs the other replicas no
// read of its calls. Only a run that has ended is read whole, once, for its final bar.
func (s *Server) refreshRuns(ws string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, rows, err := s.runList(ctx, ws)
	if err != nil {
		s.log.Warn("live update: list runs", "ws", ws, "err", err)
		return
	}
	s.watchLeases(ws, list)
	if len(rows) == 0 {
		s.publishRuns(ws, views.RunListRegion(ws, rows))
		return
	}
	// The newest run is the one the event is about (a start, a save or an end); the list is
	// newest first.
	newest := list[0]
	if _, elsewhere := s.runs.statusOf(newest); elsewhere || s.runs.get(newest.ID) != nil {
		s.publishRuns(ws, views.RunProgressRegion(s.storedProgress(newest)), views.RunListRegion(ws, rows))
		return
	}
	rec, body, err := s.loadRun(ctx, ws, newest.ID)
	if err != nil {
		s.log.Warn("live update: read run", "ws", ws, "run", newest.ID, "err", err)
		s.publishRuns(ws, views.RunListRegion(ws, rows))
		return
	}
	s.publishRuns(ws, views.RunProgressRegion(s.progressOf(ctx, rec, body)), views.RunListRegion(ws, rows))
}

// aliveElsewhere returns the IDs of the runs in list alive on another replica, and when the
// soonest of their leases would lapse if no heartbeat came.
func (r *runs) aliveElsewhere(list []store.Run) (ids []string, lapse time.Time) {
	for _, rec := range list {
		if _, elsewhere := r.statusOf(rec); elsewhere {
			ids = append(ids, rec.ID)
			if at := rec.Updated.Add(r.runLease(rec)); lapse.IsZero() || at.Before(lapse) {
				lapse = at
			}
		}
	}
	return ids, lapse
}

// watchLeases arranges for ws's pages to be told when a run alive on another replica stops
// being alive: the store sends no event for a process that died, and none for a heartbeat,
// so this process checks again when the soonest lease would lapse (recheck).
func (s *Server) watchLeases(ws string, list []store.Run) {
	ids, lapse := s.runs.aliveElsewhere(list)
	if len(ids) == 0 {
		s.recheckAt(ws, -1, nil)
		return
	}
	s.recheckAt(ws, max(time.Until(lapse), 0)+10*time.Millisecond, ids)
}

// recheckAt calls recheck for the runs ids of ws after d, unless a later refresh reschedules it
// first; one timer per workspace. A negative d only cancels the pending check.
func (s *Server) recheckAt(ws string, d time.Duration, ids []string) {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	if t := s.runs.lapse[ws]; t != nil {
		t.Stop()
		delete(s.runs.lapse, ws)
	}
	if d < 0 {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.runs.mu.Lock()
		if s.runs.lapse[ws] != t {
			s.runs.mu.Unlock()
			return // replaced by a later schedule after it fired
		}
		delete(s.runs.lapse, ws)
		s.runs.mu.Unlock()
		if s.runs.ctx.Err() != nil || s.hub.Pages(ws) == 0 || s.runs.activeIn(ws) != nil {
			return
		}
		s.recheck(ws, ids)
	})
	s.runs.lapse[ws] = t
}

// recheck runs when the lease of the runs ids, alive on another replica, would have lapsed had
// their process stopped. It reads the list of runs again (without bodies): if the same runs
// are still alive, their process touched them meanwhile and the pages already show them right,
// so it only checks again at the new lapse; otherwise (a lease lapsed, or the runs changed) it
// re-renders the pages' Runs regions.
func (s *Server) recheck(ws string, ids []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := s.runs.store.Runs(ctx, ws)
	if err != nil {
		s.log.Warn("live update: list runs for their leases", "ws", ws, "err", err)
		s.recheckAt(ws, runLeaseMin, ids) // try again shortly
		return
	}
	now, lapse := s.runs.aliveElsewhere(list)
	if slices.Equal(now, ids) {
		s.recheckAt(ws, max(time.Until(lapse), 0)+10*time.Millisecond, ids)
		return
	}
	s.refreshRuns(ws)
}
