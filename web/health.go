package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// HealthPath is where a proxy or an orchestrator probes the server.
//
// It is answered before the router's middleware, so that a probe needs no sign-in (token or
// header mode: a proxy's probe carries nobody's identity, and an orchestrator's may not come
// from the trusted proxy) and may name any Host (a probe names the address it dials). The
// Host check exists against DNS rebinding, a page of another site reading this server's
// answers under its own name; what /healthz answers is no one's data: whether the store
// answers, which kind it is, and nothing of its address, name or errors (those go to the
// log). It changes nothing, and one check at a time runs, its answer reused for a second,
// so that a flood of probes costs the store one cheap query a second.
const HealthPath = "/healthz"

// healthTimeout bounds the store's answer to a probe; a store slower than this is unhealthy.
const healthTimeout = 2 * time.Second

// healthReuse is how long one check's answer serves further probes.
const healthReuse = time.Second

// healthAnswer is the body of /healthz.
type healthAnswer struct {
	// Status is "ok" or "unavailable".
	Status string `json:"status"`
	// Store is "sqlite" or "postgres".
	Store string `json:"store"`
	// Listener, for PostgreSQL, is "connected" or "reconnecting": whether the edits of other
	// replicas reach this one's pages.
	Listener string `json:"listener,omitempty"`
	// Reason says what is wrong when Status is not ok.
	Reason string `json:"reason,omitempty"`
}

// health is the state of the server's checks.
type health struct {
	mu   sync.Mutex
	at   time.Time
	last healthAnswer
}

// Kinds of store, told apart by what they offer (as `workbench db check` does): SQLite checks
// its file's integrity, PostgreSQL reports its event listener.
type (
	integrityChecker interface {
		IntegrityCheck(ctx context.Context) (string, error)
	}
	listenerHealth interface{ Health() error }
)

// checkHealth asks the store for one workspace (a query through its pool, as any page does) and,
// for PostgreSQL, its event listener's state.
func (s *Server) checkHealth(ctx context.Context) healthAnswer {
	a := healthAnswer{Status: "ok", Store: "store"}
	switch s.db.(type) {
	case integrityChecker:
		a.Store = "sqlite"
	case listenerHealth:
		a.Store = "postgres"
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if _, err := s.db.Workspaces(ctx, 1); err != nil {
		s.log.Warn("health check: the store did not answer", "err", err)
		a.Status, a.Reason = "unavailable", "the store did not answer a query"
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			a.Reason = "the store did not answer within " + healthTimeout.String()
		}
		return a
	}
	if l, ok := s.db.(listenerHealth); ok {
		a.Listener = "connected"
		if err := l.Health(); err != nil {
			// The pages still work, but other replicas' edits do not reach them live: a proxy
			// should send people to a replica that hears them.
			s.log.Warn("health check: the PostgreSQL event listener is down", "err", err)
			a.Status, a.Listener, a.Reason = "unavailable", "reconnecting", "the event listener is reconnecting: edits made on other replicas do not reach this one's pages"
		}
	}
	return a
}

// serveHealth answers GET and HEAD /healthz: 200 when the store answers, 503 with the reason
// when not.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "a health probe uses GET or HEAD", http.StatusMethodNotAllowed)
		return
	}
	a := s.lastHealth(r)
	code := http.StatusOK
	if a.Status != "ok" {
		code = http.StatusServiceUnavailable
	}
	b, _ := json.Marshal(a) // strings only: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		_, _ = w.Write(append(b, '\n'))
	}
}

// lastHealth is the last check's answer, checking again when it is older than healthReuse. The
// lock is released even if a store driver panics (this path runs outside Echo's recoverer), so a
// panic cannot leave every later probe waiting.
func (s *Server) lastHealth(r *http.Request) healthAnswer {
	h := &s.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at.IsZero() || time.Since(h.at) >= healthReuse {
		// Not the probe's context: a probe that hangs up must not leave a failure for the next.
		h.last, h.at = s.checkHealth(context.WithoutCancel(r.Context())), time.Now()
	}
	return h.last
}
