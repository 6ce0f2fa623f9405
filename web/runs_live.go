package web

// How the pages learn of runs: the runs service tells this server of the runs it runs here
// (runsChanged), and the store's events tell it of the runs of the other replicas (onRuns).

import (
	"context"
	"slices"
	"time"

	"github.com/a-h/templ"

	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// runsChanged shows the pages of ws what the runs service says changed: a run started or ended
// here, its progress, or runs a page saw stale.
func (s *Server) runsChanged(ws, id string, ev runsvc.Event) {
	switch ev {
	case runsvc.Started:
		// Every page, the one that asked included, learns of the run over its stream, and
		// before its progress can: a stream is ordered, so the end never arrives before the
		// start.
		a := s.runs.Get(id)
		if a == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rows, err := s.runRows(ctx, ws)
		cancel()
		if err != nil {
			s.log.Warn("announce a run: list runs", "ws", ws, "err", err)
		}
		s.publishRuns(ws, views.RunProgressRegion(activeProgress(a)), views.RunListRegion(ws, rows))
	case runsvc.Progress:
		if a := s.runs.Get(id); a != nil {
			s.publishRuns(ws, views.RunProgressRegion(activeProgress(a)))
		}
	case runsvc.Ended:
		// The end: the bar's final state and the list with the new accuracy, on every page.
		bg := context.Background()
		rec, body, err := s.loadRun(bg, ws, id)
		if err != nil {
			s.log.Warn("run ended but cannot be read back", "run", id, "err", err)
			return
		}
		rows, _ := s.runRows(bg, ws)
		s.publishRuns(ws, views.RunProgressRegion(s.progressOf(bg, rec, body)), views.RunListRegion(ws, rows))
	case runsvc.Stale:
		s.refreshRuns(ws)
	}
}

// publishRuns sends Runs regions to every page open on the workspace.
func (s *Server) publishRuns(ws string, comps ...templ.Component) {
	ctx := context.Background()
	n := Notice{EditorTool: -1}
	if w, err := s.db.Workspace(ctx, ws); err == nil {
		n.Version = int(w.Seq)
	}
	for _, c := range comps {
		n.Shared = append(n.Shared, Patch{HTML: render(ctx, c)})
	}
	s.hub.Publish(ws, n)
}

// onRuns shows a run stored by another replica: the process running a run tells its own pages
// of its progress as it goes (runsChanged), and saves it every RunsConfig.SaveEvery when some
// call finished; the pages of the other replicas learn of it only through the store's
// EventRuns, so each save re-renders their Runs list and progress bar from what the store holds.
// Cross-replica progress therefore moves in steps of SaveEvery, and ends with the final save.
// Heartbeats (TouchRun) send no event: the lease timer (recheckAt) reads them.
func (s *Server) onRuns(ws string) {
	if s.runs.OwnEvent(ws) || s.runs.ActiveIn(ws) != nil {
		return // stored or running here: its progress here is fresher than the store holds
	}
	s.refreshRuns(ws)
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
	if _, elsewhere := s.runs.StatusOf(newest); elsewhere || s.runs.Get(newest.ID) != nil {
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

// watchLeases arranges for ws's pages to be told when a run alive on another replica stops
// being alive: the store sends no event for a process that died, and none for a heartbeat,
// so this process checks again when the soonest lease would lapse (recheck).
func (s *Server) watchLeases(ws string, list []store.Run) {
	ids, lapse := s.runs.AliveElsewhere(list)
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
		if s.runs.Context().Err() != nil || s.hub.Pages(ws) == 0 || s.runs.ActiveIn(ws) != nil {
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
	list, err := s.runs.List(ctx, ws)
	if err != nil {
		s.log.Warn("live update: list runs for their leases", "ws", ws, "err", err)
		s.recheckAt(ws, runsvc.LeaseMin, ids) // try again shortly
		return
	}
	now, lapse := s.runs.AliveElsewhere(list)
	if slices.Equal(now, ids) {
		s.recheckAt(ws, max(time.Until(lapse), 0)+10*time.Millisecond, ids)
		return
	}
	s.refreshRuns(ws)
}
