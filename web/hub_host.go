package web

import (
	"context"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// The server's side of the live hub: what the hub asks of it (hubHost), in one place.

var _ hubHost = (*Server)(nil)

// subscribe opens the store's event feed of ws.
func (s *Server) subscribe(ctx context.Context, ws string) (<-chan store.Event, error) {
	events, err := s.db.Subscribe(ctx, ws)
	if err != nil {
		return nil, workspace.StoreErr(err)
	}
	// After subscribing: a put between the two then shows twice here, rather than a count
	// left over from a put whose event never came hiding another replica's.
	s.runs.local.forget(ws)
	return events, nil
}

// announcePresence sends a presence event to every replica; a failure costs only the roster's
// accuracy until the next heartbeat, so it is logged.
func (s *Server) announcePresence(ev store.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.db.Announce(ctx, ev); err != nil {
		s.log.Warn("announce presence", "ws", ev.Workspace, "err", err)
	}
}

// keepAlive is the live streams' heartbeat interval.
func (s *Server) keepAlive() time.Duration { return s.alive }

// presencePatch renders the presence region of ws, naming the tools from its newest state.
func (s *Server) presencePatch(ws string, list []presence) Patch {
	var names []string
	if st := s.namesState(ws); st != nil {
		names = st.names
	}
	return Patch{HTML: render(context.Background(), presenceView(list, names))}
}

// changeNotice renders the shared regions of a change made elsewhere that differ from what this
// process last showed the workspace's pages; tasks says the task table must be rendered whole.
// ok is false when a change sent since carried this one's state (or a later one).
func (s *Server) changeNotice(id string, n Notice, tasks bool) (_ Notice, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock := s.lock(id)
	defer unlock()
	ws, err := s.store.Get(ctx, id, Author{})
	if err != nil {
		s.log.Warn("live update: read workspace", "ws", id, "err", err)
		return Notice{Full: true}, true
	}
	old := s.shownState(id)
	if old != nil && old.version >= ws.Version {
		return n, false
	}
	st, err := s.currentCtx(ctx, ws)
	if err != nil {
		s.log.Warn("live update: analyse workspace", "ws", id, "err", err)
		return Notice{Full: true}, true
	}
	s.setShown(id, st)
	n.Version = ws.Version
	n.State, n.cache = st, &renders{}
	// Tools moved since this process last sent a change (the edit's field does not say: a
	// restore is one set of the tools). Moved parameters are the edited tool's: the pages
	// showing it render it again, as for any edit of it.
	if old == nil || old.ws.ToolsShape != st.ws.ToolsShape {
		n.Structure = true
	}
	n.Tools, n.ParamsMoved = changedTools(old, st), paramsMoved(old, st)
	rows, reshaped := changedTaskRows(old, st)
	n.Shared = sharedPatches(ctx, old, st, tasks || reshaped)
	if !tasks && !reshaped {
		n.TaskRows = rows
	}
	return n, true
}

// changedTools lists the tools whose content differs between two states of one listing shape
// (nil when the shapes differ: everything is rendered again then).
func changedTools(old, st *state) []int {
	if old == nil || len(old.ws.Listing.Tools) != len(st.ws.Listing.Tools) {
		return nil
	}
	var out []int
	for i, t := range st.ws.Listing.Tools {
		if o := old.ws.Listing.Tools[i]; o != t && listing.HashOf(o) != listing.HashOf(t) {
			out = append(out, i)
		}
	}
	return out
}

// paramsMoved lists the tools whose parameters' shape differs between two states of one tools
// shape.
func paramsMoved(old, st *state) []int {
	if old == nil || old.ws.ToolsShape != st.ws.ToolsShape {
		return nil
	}
	var out []int
	for t, v := range st.ws.ParamsShapes {
		if old.ws.ParamsShapes[t] != v {
			out = append(out, t)
		}
	}
	return out
}
