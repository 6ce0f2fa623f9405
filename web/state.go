package web

// The analysis states a server keeps per workspace, what its pages were last shown, and the
// per-workspace lock that orders changes.

import (
	"context"
	"fmt"
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

// currentCtx returns the analysis of a workspace's current revision, from the last shown state
// when it is current. The analysis stops when ctx ends (a request's deadline, a browser that
// went), with ctx's error.
func (s *Server) currentCtx(ctx context.Context, ws Workspace) (*state, error) {
	s.mu.Lock()
	st := s.states[ws.ID]
	s.mu.Unlock()
	prof := s.profileOf(ctx, ws.ID)
	if st != nil && st.version == ws.Version && st.profile == prof && st.ws.ToolsShape == ws.ToolsShape && maps.Equal(st.ws.ParamsShapes, ws.ParamsShapes) {
		return st, nil
	}
	// (The same version with other shapes: one of two reads saw the shapes older than the
	// listing. The state renders them into every action, so it is built again.)
	eng, err := s.engineFor(prof)
	if err != nil {
		return nil, err
	}
	res, err := eng.AnalyzeKeyed(ctx, ws.ID, ws.Listing, ws.Tasks)
	if err != nil {
		return nil, fmt.Errorf("analyse workspace %s: %w", ws.ID, err)
	}
	base, err := s.baseline(ctx, ws)
	if err != nil {
		return nil, err
	}
	st = s.buildState(ws, res, base)
	st.profile, st.findings.Profile = prof, prof
	st.findings = withFixes(st.findings, pageRepairs(s.repairs, ws.Listing, res))
	s.mu.Lock()
	evictOne(s.states, ws.ID)
	s.states[ws.ID] = st
	s.mu.Unlock()
	return st, nil
}

// maxCached bounds the states kept per kind (analyses, baselines' analyses): a dropped one
// costs one analysis, an unbounded cache a server's memory.
const maxCached = 512

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
func (s *Server) shownState(id string) *state { return s.hub.shown(id) }

// setShown records st as sent to the workspace's pages (under the workspace's lock).
func (s *Server) setShown(id string, st *state) { s.hub.setShown(id, st) }

// shownIfNone records st as what the workspace's pages show when no change was sent to them yet
// (a page joining a room it opens).
func (s *Server) shownIfNone(id string, st *state) { s.hub.shownIfNone(id, st) }

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

// baseline returns the analysis of the listing as imported, which never changes.
func (s *Server) baseline(ctx context.Context, ws Workspace) (*analysis.Result, error) {
	s.mu.Lock()
	b := s.bases[ws.ID]
	s.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b, err := s.engine.AnalyzeContext(ctx, ws.Baseline, nil)
	if err != nil {
		return nil, fmt.Errorf("analyse baseline of %s: %w", ws.ID, err)
	}
	s.mu.Lock()
	evictOne(s.bases, ws.ID)
	s.bases[ws.ID] = b
	s.mu.Unlock()
	return b, nil
}
