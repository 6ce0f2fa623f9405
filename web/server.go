// Package web is the workbench's browser interface: an Echo server whose pages are rendered with
// templ (package views) and made live with Datastar. Inputs post their changes (debounced); the
// server applies each as listing operations to a store.Store (web/store.go adapts it), recomputes findings, cost
// and ranking with the analysis engine, and answers with patches for the regions that changed.
// The same patches go through the Hub to every other browser open on the workspace, each over
// one long-lived SSE stream.
//
// Patches never replace the field being typed in: a field edit patches result regions only, and
// the editor is re-rendered only when its structure changes, another tool is selected, or
// someone else changed the tool it shows while nobody types in it.
//
// Every action that names a tool or parameter by its position carries the shape of the listing
// it was rendered from (views.editExpr): a change sent from a place someone has since moved is
// refused, with the typed text given back and the listing as it stands (staleToolsAnswer).
package web

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/static"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// DatastarCDN is the pinned Datastar client the pages load by default.
const DatastarCDN = "https://cdn.jsdelivr.net/gh/starfederation/datastar@1.0.2/bundles/datastar.js"

// Config wires a Server.
type Config struct {
	// Store keeps the workspaces, their history and tasks (store/sqlite, store/postgres); the
	// server does not close it.
	Store  store.Store
	Engine *analysis.Engine
	Log    *slog.Logger
	// DatastarJS, when set, is served as the Datastar client instead of the CDN copy (offline
	// workshops, browser tests).
	DatastarJS []byte
	// MaxListingBytes bounds an imported listing (default 4 MiB).
	MaxListingBytes int
	// Fetch says what "Fetch from server" may reach; the zero value is the strict policy.
	Fetch FetchConfig
	// KeepAlive is how often an idle live stream gets an SSE comment, so that proxies and
	// browsers do not close it (default 25 s).
	KeepAlive time.Duration
	// Mount, when set, adds routes to the server's router before it serves: the JSON API
	// mounts itself under /api/v1 here, with its own middleware. Routes under /api/ must
	// refuse cross-origin requests themselves: the pages' check (sameOrigin) leaves them alone.
	Mount func(e *echo.Echo)
	// Identity says who makes a request: a display name and an ID that tells apart two people
	// of one name. Nil: the auth mode's identity (Server.identity in auth.go).
	Identity func(c echo.Context) (name, id string)
	// APIErrors, when set, answers errors of requests under /api/ (the API's one error shape)
	// instead of the HTML error page.
	APIErrors echo.HTTPErrorHandler
	// Auth says who may do what (auth.go); the zero value is local mode. Its Store defaults to
	// Store when that keeps sessions and share links.
	Auth AuthConfig
	// Runs configures model runs from the Runs tab (runs.go): the endpoints and their keys'
	// environment. The zero value offers no endpoint.
	Runs RunsConfig
}

// Server is the browser workbench.
type Server struct {
	echo   *echo.Echo
	db     store.Store
	store  *workspaces
	ident  func(c echo.Context) (name, id string)
	engine *analysis.Engine
	log    *slog.Logger
	hub    *Hub
	assets *static.Set
	page   views.Page
	max    int
	fetch  FetchConfig
	alive  time.Duration
	apiErr echo.HTTPErrorHandler
	auth   *access // identity and capabilities (auth.go)
	runs   *runs   // model runs (runs.go)

	mu     sync.Mutex
	states map[string]*state // the last analysed state per workspace (a cache: any read sets it)
	bases  map[string]*analysis.Result
	locks  map[string]*sync.Mutex
}

// New builds a Server and its routes.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Engine == nil {
		return nil, errors.New("web: a store and an analysis engine are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxListingBytes <= 0 {
		cfg.MaxListingBytes = 4 << 20
	}
	assets, err := static.Load()
	if err != nil {
		return nil, fmt.Errorf("web: load static files: %w", err)
	}
	s := &Server{db: cfg.Store, store: newWorkspaces(cfg.Store), ident: cfg.Identity, engine: cfg.Engine, log: cfg.Log, assets: assets,
		max: cfg.MaxListingBytes, states: map[string]*state{}, bases: map[string]*analysis.Result{},
		locks: map[string]*sync.Mutex{}, fetch: cfg.Fetch, alive: cfg.KeepAlive, apiErr: cfg.APIErrors}
	if s.alive <= 0 {
		s.alive = 25 * time.Second
	}
	if cfg.Auth.Store == nil {
		if as, ok := any(cfg.Store).(AccessStore); ok {
			cfg.Auth.Store = as
		}
	}
	if s.auth, err = newAccess(cfg.Auth, cfg.Log); err != nil {
		return nil, err
	}
	s.hub = newHub(s)
	if s.ident == nil {
		// The guard's identity (auth.go): session, proxy header, or the name a browser chose.
		s.ident = s.identity
	}
	s.page = views.Page{Title: "Tool Workbench", DatastarJS: DatastarCDN, CSS: assets.URL("app.css"), Script: assets.URL("app.js")}
	if cfg.DatastarJS != nil {
		s.page.DatastarJS = assets.Add("datastar.js", cfg.DatastarJS).URL()
	}
	s.runs = newRuns(cfg.Runs, cfg.Store, cfg.Log)
	s.echo = s.routes()
	if cfg.Mount != nil {
		cfg.Mount(s.echo)
	}
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Hub returns the live hub (tests count pages with it).
func (s *Server) Hub() *Hub { return s.hub }

var wsIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(s.recoverer, securityHeaders, sameOrigin, s.guard)
	s.authRoutes(e)
	e.GET("/", s.home)
	e.POST("/workspaces", s.importListing)
	e.POST("/examples/:example", s.openExample)
	e.POST("/fetch", s.fetchHome)
	e.GET("/rules", s.rules)
	e.GET("/static/*", echo.WrapHandler(s.assets))
	w := e.Group("/w/:id", s.workspaceID)
	w.GET("", s.workspacePage)
	w.GET("/stream", s.stream)
	w.GET("/listing.json", s.downloadListing)
	w.GET("/tasks.json", s.exportTasks)
	w.GET("/tasks/panel", s.tasksPanel)
	w.POST("/tasks/import", s.importTasks)
	w.POST("/select", s.selectTool)
	w.POST("/edit", s.editField)
	w.POST("/tool", s.toolOp)
	w.POST("/param", s.paramOp)
	w.POST("/task", s.taskOp)
	w.POST("/undo", s.undo)
	w.POST("/redo", s.redo)
	w.POST("/fetch", s.fetchWorkspace)
	w.GET("/export", s.exportFile)
	w.POST("/export/notes", s.exportNotes)
	s.historyRoutes(w)
	s.runRoutes(w)
	// The JSON API (/api/v1) is not mounted here: cmd passes it in Config.Mount, so that this
	// package does not depend on it.
	return e
}

// workspaceID refuses malformed ids before any handler sees them.
func (s *Server) workspaceID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !wsIDPattern.MatchString(c.Param("id")) {
			return echo.NewHTTPError(http.StatusNotFound, "no such workspace")
		}
		return next(c)
	}
}

// securityHeaders keeps user text inert even if an escaping bug slipped through: no inline
// scripts run, scripts come only from this server or the pinned CDN. Datastar evaluates its
// attribute expressions with Function, hence 'unsafe-eval'.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' https://cdn.jsdelivr.net 'unsafe-eval'; "+
			"style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "+
			"form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on form posts.
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// sameOrigin refuses state-changing requests that a browser made on behalf of another site.
// Requests without Origin or Sec-Fetch-Site come from non-browser clients, which cannot be
// tricked into carrying someone's session (whose cookies are SameSite=Lax besides).
// Routes under /api/ are the mounted JSON API's: it makes the same check itself and answers
// in its own error shape (code cross_origin, its allowed origins), so it is left to it here.
func sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			return next(c)
		}
		// c.Path() is the matched route (this middleware runs after routing), so only routes
		// that Mount registered under /api/ skip the check, whatever the raw URL says.
		if strings.HasPrefix(c.Path(), "/api/") {
			return next(c)
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			return echo.NewHTTPError(http.StatusForbidden, "cross-site request refused: edits must come from the workbench's own pages")
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !strings.EqualFold(u.Host, r.Host) {
				return echo.NewHTTPError(http.StatusForbidden, "cross-origin request refused: edits must come from the workbench's own pages")
			}
		}
		return next(c)
	}
}

func (s *Server) recoverer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.Error("handler panic", "path", c.Request().URL.Path, "panic", r)
				err = echo.NewHTTPError(http.StatusInternalServerError, "internal error")
			}
		}()
		return next(c)
	}
}

// errorHandler renders errors as a page for browsers and as text for Datastar requests.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		s.log.Warn("error after response started", "path", c.Request().URL.Path, "err", err)
		return
	}
	if s.apiErr != nil && strings.HasPrefix(c.Request().URL.Path, "/api/") {
		s.apiErr(err, c)
		return
	}
	code, msg, hint := http.StatusInternalServerError, "internal error", ""
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		code = he.Code
		msg = fmt.Sprint(he.Message)
	case errors.Is(err, ErrNotFound):
		code, msg = http.StatusNotFound, "no such workspace"
	case store.KindOf(err) == store.Conflict:
		// Another change landed first and retrying did not help: say so, not "internal error".
		code, msg = http.StatusConflict, "the workspace changed under this change; it was not applied. Reload the page and try again."
	case store.KindOf(err) == store.Invalid:
		code, msg = http.StatusBadRequest, err.Error()
	}
	if code == http.StatusNotFound && msg == "no such workspace" {
		hint = "The link may be mistyped, or the workspace was deleted. Start a new one from the start page."
	}
	if code >= 500 {
		s.log.Error("request failed", "path", c.Request().URL.Path, "err", err)
	}
	if c.Request().Header.Get("Datastar-Request") != "" {
		_ = c.String(code, msg)
		return
	}
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(code)
	_ = views.ErrorPage(s.page, code, msg, hint).Render(c.Request().Context(), c.Response())
}

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
