package web

// Profiles in the browser (issue 15): the findings panel's selector turns on the rules a
// directory or platform enforces (lint.Profiles). The choice is the workspace's, stored beside it
// (store meta "profile", which forks copy), so that every page of the workspace shows the same
// findings, counts and marks: a profile changes what "clean" means for the listing everyone
// edits, and a page that counted other findings than its neighbours would make the shared
// regions (tool list marks, tab counts) disagree between pages.
//
// Replicas share the store, not their memory: the profile is kept in memory only in the room of
// a workspace with pages open here, whose store subscription hears every change of it (the
// store's meta event, from any replica) and drops it; elsewhere each read goes to the store.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

const profileMetaKey = "profile"

// profiles holds an engine per profile.
type profiles struct {
	mu      sync.Mutex
	engines map[string]*analysis.Engine
}

// profileOf returns the profile of workspace id ("" for none): the one its room keeps, else the
// store's. An unreadable or unknown stored name counts as none (and is logged).
func (s *Server) profileOf(ctx context.Context, id string) string {
	p, ok, key := s.hub.profile(id)
	if ok {
		return p
	}
	b, err := s.db.Meta(ctx, id, profileMetaKey)
	switch {
	case err != nil && store.KindOf(err) != store.NotFound:
		s.log.Warn("read the workspace's profile", "ws", id, "err", err)
		return "" // not kept: the next read tries again
	case err == nil:
		if err := json.Unmarshal(b, &p); err != nil {
			s.log.Warn("read the workspace's profile", "ws", id, "err", err)
		} else if _, err := lint.LookupProfile(p); err != nil {
			s.log.Warn("the workspace's profile is unknown", "ws", id, "err", err)
			p = ""
		}
	}
	s.hub.keepProfile(id, key, p)
	return p
}

// profileKey is what a profile was read from the store under: the workspace's room then (nil:
// no page open here, nothing is kept) and the profile events it had heard.
type profileKey struct {
	r   *room
	gen uint64
}

// profile returns the profile the room of ws keeps, if it keeps one, and the key to keep one
// read from the store now.
func (h *Hub) profile(ws string) (p string, ok bool, key profileKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[ws]
	if r == nil {
		return "", false, profileKey{}
	}
	return r.profile, r.profileKnown, profileKey{r, r.profileGen}
}

// keepProfile keeps p, read under key, while key's room stands and has heard of no profile
// change since: one that arrived during the read may have come after what the read saw.
func (h *Hub) keepProfile(ws string, key profileKey, p string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil && r == key.r && r.profileGen == key.gen {
		r.profile, r.profileKnown = p, true
	}
}

// forgetProfile sends the room's next read of the profile to the store.
func (h *Hub) forgetProfile(r *room) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.profileGen++
	r.profile, r.profileKnown = "", false
}

// engineFor returns the engine that analyses a workspace of profile p: the server's for none,
// else one made like it (o200k_base, as serveEngine) whose extended rules follow p.
func (s *Server) engineFor(p string) (*analysis.Engine, error) {
	if p == "" {
		return s.engine, nil
	}
	s.profiles.mu.Lock()
	defer s.profiles.mu.Unlock()
	if e := s.profiles.engines[p]; e != nil {
		return e, nil
	}
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		return nil, fmt.Errorf("profile engine: %w", err)
	}
	// A quarter of the default cache budget each: a server holds one engine per profile used.
	e, err := analysis.New(analysis.Options{Tokenizer: tok.Name(), Extended: lint.New(lint.Config{Tokens: tok.Count, Profile: p}), CacheBytes: 16 << 20})
	if err != nil {
		return nil, fmt.Errorf("profile engine: %w", err)
	}
	if s.profiles.engines == nil {
		s.profiles.engines = map[string]*analysis.Engine{}
	}
	s.profiles.engines[p] = e
	return e, nil
}

// setProfile keeps the profile the findings panel's selector sent ("" for none); the store's
// meta event shows every page of the workspace, on every replica, its findings under it.
func (s *Server) setProfile(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the profile could not be read; send it as the page does (a profile field)")
	}
	id, p := c.Param("id"), r.PostFormValue("profile")
	if _, err := lint.LookupProfile(p); err != nil {
		return fail(BadRequest, err.Error())
	}
	if _, err := s.db.Workspace(r.Context(), id); err != nil {
		return workspace.StoreErr(err)
	}
	var val json.RawMessage // nil deletes: no profile
	if p != "" {
		val, _ = json.Marshal(p)
	}
	if err := s.db.PutMeta(r.Context(), id, profileMetaKey, val); err != nil {
		return fmt.Errorf("set the workspace's profile: %w", workspace.StoreErr(err))
	}
	return c.NoContent(http.StatusNoContent)
}
