package web

// The analysis states a server keeps per workspace, what its pages were last shown, and the
// per-workspace lock that orders changes.

import (
	"maps"
	"sync"

	"github.com/tool-workbench/workbench/analysis"
)

// lock serialises changes to one workspace so that patches follow each other in order.
func (s *Server) lock(id string) func() {
	s.mu.Lock()
	m, ok := s.locks[id]
	if !ok {
		m = &sync.Mutex{}
		s.locks[id] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// current returns the analysis of a workspace's current revision, from the last shown state
// when it is current.
func (s *Server) current(ws Workspace) *state {
	s.mu.Lock()
	st := s.states[ws.ID]
	s.mu.Unlock()
	if st != nil && st.version == ws.Version && st.ws.ToolsShape == ws.ToolsShape && maps.Equal(st.ws.ParamsShapes, ws.ParamsShapes) {
		return st
	}
	// (The same version with other shapes: one of two reads saw the shapes older than the
	// listing. The state renders them into every action, so it is built again.)
	st = s.buildState(ws, s.engine.Analyze(ws.Listing, ws.Tasks))
	s.mu.Lock()
	evictOne(s.states, ws.ID)
	s.states[ws.ID] = st
	s.mu.Unlock()
	return st
}

// evictOne makes room for key in a per-workspace cache bounded by maxCached, dropping any one
// other entry (map order is random): a dropped state costs the next change of that workspace
// one full render, an unbounded cache a server's memory.
func evictOne[V any](m map[string]V, key string) {
	if _, ok := m[key]; ok || len(m) < maxCached {
		return
	}
	for k := range m {
		delete(m, k)
		return
	}
}

// shownState is what the workspace's pages were last sent as a change (room.shown); nil when no
// page is open.
func (s *Server) shownState(id string) *state {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if r := s.hub.rooms[id]; r != nil {
		return r.shown
	}
	return nil
}

// setShown records st as sent to the workspace's pages (under the workspace's lock).
func (s *Server) setShown(id string, st *state) {
	s.hub.mu.Lock()
	if r := s.hub.rooms[id]; r != nil {
		r.shown = st
	}
	s.hub.mu.Unlock()
}

// shownIfNone records st as what the workspace's pages show when no change was sent to them yet
// (a page joining a room it opens).
func (s *Server) shownIfNone(id string, st *state) {
	s.hub.mu.Lock()
	if r := s.hub.rooms[id]; r != nil && r.shown == nil {
		r.shown = st
	}
	s.hub.mu.Unlock()
}

// namesState is the newest state known for a workspace, for the tool names presence shows.
func (s *Server) namesState(id string) *state {
	st := s.shownState(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.states[id]; c != nil && (st == nil || c.version > st.version) {
		st = c
	}
	return st
}

// baseline returns the analysis of the listing as imported.
func (s *Server) baseline(ws Workspace) *analysis.Result {
	s.mu.Lock()
	b := s.bases[ws.ID]
	s.mu.Unlock()
	if b != nil {
		return b
	}
	b = s.engine.Analyze(ws.Baseline, nil)
	s.mu.Lock()
	evictOne(s.bases, ws.ID)
	s.bases[ws.ID] = b
	s.mu.Unlock()
	return b
}
