package web

import (
	"context"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// localRuns counts the runs this process stores, per workspace, so that the hub can tell the
// EventRuns of its own saves (whose progress watch publishes, fresher) from another replica's.
// Each PutRun makes one event; the count is raised before the put, so that the event cannot be
// seen before it, and lowered by the hub as it sees the event, or by a put that failed.
type localRuns struct {
	RunStore
	mu      sync.Mutex
	pending map[string]int
}

func (l *localRuns) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	l.mu.Lock()
	l.pending[r.Workspace]++
	l.mu.Unlock()
	out, err := l.RunStore.PutRun(ctx, r)
	if err != nil {
		l.take(r.Workspace)
	}
	return out, err
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
// to its own pages as it goes (publishRuns), and saves it every RunsConfig.SaveEvery; the pages
// of the other replicas learn of it only through the store's EventRuns, so each save re-renders
// their Runs list and progress bar from what the store holds. Cross-replica progress therefore
// moves in steps of SaveEvery, and ends with the final save.
func (h *Hub) onRuns(r *room) {
	s := h.s
	if s.runs.local.take(r.ws) || s.runs.activeIn(r.ws) != nil {
		return // stored or running here: watch publishes fresher progress than the store holds
	}
	s.refreshRuns(r.ws)
}

// refreshRuns re-renders the Runs list and bar of ws on this process's pages from the store.
// While the newest run is alive on another replica, it comes back when that run's lease would
// lapse: if no save renewed it by then, its process has stopped, and the pages show it as
// interrupted, with Resume, without waiting for a reload.
func (s *Server) refreshRuns(ws string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.runRows(ctx, ws)
	if err != nil {
		s.log.Warn("live update: list runs", "ws", ws, "err", err)
		return
	}
	if len(rows) == 0 {
		s.publishRuns(ws, views.RunListRegion(ws, rows))
		return
	}
	// The newest run is the one the event is about (a start, a save or an end); the list is
	// newest first.
	rec, body, err := s.loadRun(ctx, ws, rows[0].ID)
	if err != nil {
		s.log.Warn("live update: read run", "ws", ws, "run", rows[0].ID, "err", err)
		s.publishRuns(ws, views.RunListRegion(ws, rows))
		return
	}
	// progressOf and runRows read a stored running run by its lease (runs.go): alive on
	// another replica while it keeps saving, interrupted once it has stopped.
	p := s.progressOf(ctx, rec, body)
	if p.Elsewhere {
		s.recheckAt(ws, max(time.Until(rec.Updated.Add(s.runs.runLease(rec)))+10*time.Millisecond, 0))
	} else {
		s.recheckAt(ws, -1)
	}
	s.publishRuns(ws, views.RunProgressRegion(p), views.RunListRegion(ws, rows))
}

// recheckAt refreshes ws's Runs regions after d, unless a later save reschedules it first; one
// timer per workspace. A negative d only cancels the pending refresh.
func (s *Server) recheckAt(ws string, d time.Duration) {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	if t := s.runs.lapse[ws]; t != nil {
		t.Stop()
		delete(s.runs.lapse, ws)
	}
	if d < 0 {
		return
	}
	s.runs.lapse[ws] = time.AfterFunc(d, func() {
		s.runs.mu.Lock()
		delete(s.runs.lapse, ws)
		s.runs.mu.Unlock()
		if s.runs.ctx.Err() != nil || s.hub.Pages(ws) == 0 || s.runs.activeIn(ws) != nil {
			return
		}
		s.refreshRuns(ws)
	})
}
