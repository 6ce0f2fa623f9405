// Package web is the workbench's browser interface: an Echo server whose pages are rendered with
// templ (package views) and made live with Datastar. Inputs post their changes (debounced); the
// server hands each to the workspace service (package workspace) as data, recomputes findings,
// cost and ranking with the analysis engine, and answers with patches for the regions that
// changed. Model runs are package runs'; web renders them. Files are named for the feature they
// serve (pages, stream, edits, commit, tasks, history, runs, share, auth, fetch, export), and
// errors.go is the one place a failure becomes an HTTP status.
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
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/static"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
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
	// AllowedHosts are the names (with an optional :port) that requests may give in their Host
	// header besides the loopback names local mode always accepts. In local mode nothing else
	// is served; in the auth modes an empty list accepts any Host (see checkHost).
	AllowedHosts []string
	// RequestTimeout is the deadline of every request but the live stream (default
	// DefaultRequestTimeout; negative: none).
	RequestTimeout time.Duration
	// MaxInFlight bounds the requests served at once, the live stream and static files aside
	// (default 4×GOMAXPROCS, at least 8; negative: no bound).
	MaxInFlight int
	// QueueWait is how long a request over MaxInFlight may wait for a slot before it is
	// answered 503 (default 5 s; negative: no waiting). At most queueFactor×MaxInFlight
	// requests wait; past that a request is answered 503 at once.
	QueueWait time.Duration
	// CacheBytes bounds the bytes of the server's own caches together: the Cost tab's
	// counters and the Fix buttons' repairs (default lru.DefaultBytes, 64 MiB; the analysis
	// engine has its own, analysis.Options.CacheBytes).
	CacheBytes int64
	// Tokenizers are those the Cost tab offers, by name (nil: the built-in encodings).
	Tokenizers *cost.Tokenizers
	// Review answers the Review panel (review.go); nil: New builds one over Store that counts
	// error findings with ReviewErrors.
	Review *review.Service
	// Challenges runs workshop challenges (challenge.go); nil: New builds one over Store and
	// the server's workspace service.
	Challenges *challenge.Service
	// Rubrics keeps the Rubric dialog's tool scores by model and tool content (rubric.go); pass
	// the JSON API's so that pages and API share one (nil: the server makes its own, bounded).
	Rubrics *drafting.RubricCache
}

// Server is the browser workbench.
type Server struct {
	echo   *echo.Echo
	db     store.Store
	store  *workspace.Service
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
	hosts  hostRules
	limit  *limiter      // request deadlines and the in-flight bound (bound)
	boards *boardStreams // open leaderboard streams, bounded per client and per challenge
	// stdioToken is a per-process secret the stdio launch form carries (--allow-stdio only):
	// a page of another site can neither read it nor guess it, so a forged launch fails even
	// if the Host and origin checks were ever bypassed ("" when stdio is off).
	stdioToken string
	costs      costCounters // the Cost tab's counters for the tokenizers and renderings pages choose (cost.go)
	profiles   profiles     // each workspace's profile and an engine per profile (profile.go)
	repairs    *repairCache // the Fix buttons' repairs per tool (fixcache.go), in the costs' budget (CacheBytes)
	review     *review.Service
	challenges *challenge.Service
	drafts     *drafts   // the drafting dialogs' answers and the rubric cache (draftcache.go)
	draftGate  draftGate // the drafting asks in flight (draftgate.go)

	// health is the last answer of HealthPath (health.go).
	health health

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
	s := &Server{db: cfg.Store, store: workspace.New(cfg.Store), ident: cfg.Identity, engine: cfg.Engine, log: cfg.Log, assets: assets,
		max: cfg.MaxListingBytes, states: map[string]*state{}, bases: map[string]*analysis.Result{},
		locks: map[string]*sync.Mutex{}, fetch: cfg.Fetch, alive: cfg.KeepAlive, apiErr: cfg.APIErrors}
	if s.alive <= 0 {
		s.alive = 25 * time.Second
	}
	s.costs.budget = lru.NewBudget(cfg.CacheBytes)
	s.costs.toks = cfg.Tokenizers
	s.repairs = newRepairCache(s.costs.budget)
	s.drafts = newDrafts(s.costs.budget)
	s.drafts.rubrics = cfg.Rubrics
	if cfg.Auth.Store == nil {
		if as, ok := any(cfg.Store).(AccessStore); ok {
			cfg.Auth.Store = as
		}
	}
	if s.auth, err = newAccess(cfg.Auth, cfg.Log); err != nil {
		return nil, err
	}
	hosts := cfg.AllowedHosts
	if cfg.Auth.Mode == AuthLocal {
		hosts = append(slices.Clip(hosts), testHosts...)
	}
	if s.hosts, err = newHostRules(cfg.Auth.Mode, hosts); err != nil {
		return nil, err
	}
	s.limit = newLimiter(cfg.RequestTimeout, cfg.MaxInFlight, cfg.QueueWait)
	s.boards = newBoardStreams()
	if cfg.Fetch.AllowStdio {
		s.stdioToken = NewID()
	}
	s.hub = newHub(s)
	if s.ident == nil {
		// The guard's identity (auth.go): session, proxy header, or the name a browser chose.
		s.ident = s.identity
	}
	s.page = views.Page{Title: "Tool Workbench", DatastarJS: DatastarCDN, CSS: assets.URL("app.css"), Script: assets.URL("app.js"),
		Scripts: []string{assets.URL("marks.js"), assets.URL("findings.js")}}
	if cfg.DatastarJS != nil {
		s.page.DatastarJS = assets.Add("datastar.js", cfg.DatastarJS).URL()
	}
	s.runs = s.newRuns(cfg.Runs, cfg.Store)
	if s.review = cfg.Review; s.review == nil {
		s.review = review.New(cfg.Store, review.Options{Errors: s.ReviewErrors})
	}
	if s.challenges = cfg.Challenges; s.challenges == nil {
		s.challenges = challenge.New(cfg.Store, s.store, challenge.Options{})
	}
	s.echo = s.routes()
	if cfg.Mount != nil {
		cfg.Mount(s.echo)
	}
	return s, nil
}

// Handler returns the server's HTTP handler: HealthPath before the router and its
// middleware (see HealthPath for why), everything else through them.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == HealthPath {
			s.serveHealth(w, r)
			return
		}
		s.echo.ServeHTTP(w, r)
	})
}

// Close stops the server's background work that outlives requests: the challenges' watchers
// (their scores are stored; the next server starts watching again when asked) and the
// improvement loops, cancelled (their reports say so) and waited for, up to improveCloseWait,
// so that none calls a model after Close.
func (s *Server) Close() {
	s.challenges.Close()
	if !s.drafts.improves.life.close(improveCloseWait) {
		s.log.Warn("an improvement loop had not ended when the server closed", "waited", improveCloseWait)
	}
	if err := s.runs.Close(); err != nil {
		s.log.Warn("an endpoint's recording could not be written", "err", err)
	}
}

// Hub returns the live hub (tests count pages with it).
func (s *Server) Hub() *Hub { return s.hub }

var wsIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	// Echo runs these after routing, on every request, a mounted route's (the API's) and an
	// unknown path's included: the Host check first, so that a DNS-rebinding page's request
	// reaches nothing; the in-flight bound before anything that costs (the guard's session
	// lookups included); localNext before the handlers that redirect to a "next" path.
	e.Use(s.recoverer, securityHeaders, s.checkHost, s.bound, sameOrigin, s.guard, s.localNext)
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
	w.GET("/overlap", s.overlapPanel)
	w.POST("/tasks/export", s.taskExportChoice)
	w.POST("/tasks/import", s.importTasks)
	w.POST("/select", s.selectTool)
	w.POST("/tools", s.toolSearch)
	w.POST("/edit", s.editField)
	w.POST("/tool", s.toolOp)
	w.POST("/param", s.paramOp)
	w.POST("/task", s.taskOp)
	w.POST("/undo", s.undo)
	w.POST("/redo", s.redo)
	w.POST("/name", s.renameWorkspace)
	w.POST("/profile", s.setProfile)
	w.POST("/fetch", s.fetchWorkspace)
	w.GET("/export", s.exportFile)
	w.POST("/export/notes", s.exportNotes)
	w.POST("/fix", s.fixPreview)
	w.POST("/fix/apply", s.fixApply)
	s.historyRoutes(w)
	s.costRoutes(w)
	s.runRoutes(w)
	s.reviewRoutes(w)
	s.draftRoutes(w)
	s.challengeRoutes(e)
	// The JSON API (/api/v1) is not mounted here: cmd passes it in Config.Mount, so that this
	// package does not depend on it.
	return e
}

// workspaceID refuses malformed ids before any handler sees them.
func (s *Server) workspaceID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !wsIDPattern.MatchString(c.Param("id")) {
			return fail(NotFound, "no such workspace")
		}
		return next(c)
	}
}

// securityHeaders keeps user text inert even if an escaping bug slipped through: no inline
// scripts run, scripts come only from this server or the pinned CDN. 'unsafe-eval' stays: the
// Datastar client (1.0.2) compiles every data-* expression with Function and has no build
// without it. What keeps user text out of expressions is that it is only ever escaped content
// (never in a data-* attribute) and that no CR reaches the event stream (sseWriter).
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
			return fail(Forbidden, "cross-site request refused: edits must come from the workbench's own pages")
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !strings.EqualFold(u.Host, r.Host) {
				return fail(Forbidden, "cross-origin request refused: edits must come from the workbench's own pages")
			}
		}
		return next(c)
	}
}

// ---- the Host check ----

// testHosts are Host names the package's tests add to every local-mode server's AllowedHosts:
// httptest's requests name example.com. Nothing else sets it.
var testHosts []string

// hostRules say which Host headers a server answers to. A page on another site can make a
// browser send requests to this server under the other site's name (DNS rebinding: the name
// resolves to this machine after the page has loaded), with that name in Host and a matching
// Origin; the Host check is what tells those apart. MCP Inspector shipped without it
// (CVE-2025-49596).
type hostRules struct {
	loopback bool       // loopback names are served (local mode)
	any      bool       // every Host is served (the auth modes without a list)
	named    []hostRule // the operator's names
}

type hostRule struct{ host, port string } // port "" matches any

// newHostRules builds the rules of a mode from the operator's list (Config.AllowedHosts).
// Local mode serves loopback names and the list. The auth modes serve the list; with none
// they serve any Host, as before: there every request must sign in, and a rebinding page
// carries no session (cookies follow the name, not the address) and knows no token, so
// accepting any Host costs only what the network position of a visitor's browser gives,
// while a default guessed from the listen address would refuse the public name a proxy
// forwards.
func newHostRules(mode AuthMode, allowed []string) (hostRules, error) {
	hr := hostRules{loopback: mode == AuthLocal, any: mode != AuthLocal && len(allowed) == 0}
	for _, h := range allowed {
		rule, err := parseAllowedHost(h)
		if err != nil {
			return hr, fmt.Errorf("web: %w", err)
		}
		hr.named = append(hr.named, rule)
	}
	return hr, nil
}

// CheckAllowedHost reports whether h can be an entry of Config.AllowedHosts, and if not, why.
func CheckAllowedHost(h string) error {
	_, err := parseAllowedHost(h)
	return err
}

func parseAllowedHost(h string) (hostRule, error) {
	host, port, ok := splitHost(strings.TrimSpace(h))
	if !ok || !validHost(host) {
		return hostRule{}, fmt.Errorf("allowed host %q is not a host name: give a name or address, with an optional :port "+
			"(workbench.example.com, 10.0.0.5:8443, [fd00::5])", h)
	}
	return hostRule{host, port}, nil
}

// splitHost reads a Host header: a name or address in lower case without a trailing dot,
// and the port ("" if none).
func splitHost(h string) (host, port string, ok bool) {
	switch {
	case strings.HasPrefix(h, "["):
		i := strings.IndexByte(h, ']')
		if i < 0 {
			return "", "", false
		}
		host, port = h[1:i], h[i+1:]
		if port != "" {
			if port[0] != ':' {
				return "", "", false
			}
			port = port[1:]
		} else if i+1 < len(h) {
			return "", "", false
		}
		if _, err := netip.ParseAddr(host); err != nil || !strings.Contains(host, ":") {
			return "", "", false
		}
	case strings.Count(h, ":") > 1:
		return "", "", false // an IPv6 address without brackets
	default:
		host, port, _ = strings.Cut(h, ":")
		if strings.Contains(h, ":") && port == "" {
			return "", "", false
		}
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return "", "", false
		}
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host, port, host != "" && len(port) <= 5
}

// validHost accepts a DNS name (letters, digits, '-', '_', dots) or an IP address.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// isLoopbackHost is a name every browser resolves to this machine by itself: localhost and
// its subdomains (RFC 6761; no DNS answer moves them) and loopback addresses.
func isLoopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}

func (hr hostRules) allows(h string) bool {
	if hr.any {
		return true
	}
	host, port, ok := splitHost(h)
	if !ok {
		return false
	}
	if hr.loopback && isLoopbackHost(host) {
		return true
	}
	for _, n := range hr.named {
		if n.host == host && (n.port == "" || n.port == port) {
			return true
		}
	}
	return false
}

// checkHost refuses, with 421 Misdirected Request, every request whose Host this server does
// not answer to, before any other middleware or handler sees it.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if s.hosts.allows(r.Host) {
			return next(c)
		}
		shown := r.Host
		if len(shown) > 100 {
			shown = shown[:100] + "…"
		}
		shown = strconv.Quote(strings.ToValidUTF8(shown, "?"))
		s.log.Warn("refused a request for a host this server does not answer to", "host", shown, "path", r.URL.Path)
		if s.hosts.loopback {
			_, port, _ := splitHost(r.Host)
			if port == "" {
				port = "PORT"
			}
			return fail(WrongHost, "this workbench runs in local mode and answers only to loopback names "+
				"(localhost, 127.0.0.1, [::1]); this request named the host "+shown+", as a page of another site does when it "+
				"points its own name at this machine (DNS rebinding). Open http://127.0.0.1:"+port+"/ instead; if you reach this "+
				"machine by that name on purpose, start the workbench with --allowed-host NAME")
		}
		names := make([]string, len(s.hosts.named))
		for i, n := range s.hosts.named {
			names[i] = n.host
			if n.port != "" {
				names[i] += ":" + n.port
			}
		}
		return fail(WrongHost, "this workbench answers only to "+strings.Join(names, ", ")+
			"; this request named the host "+shown+". Use one of those names; if this name is the server's too, add --allowed-host NAME")
	}
}

// stdioTokenOK reports whether got is this process's stdio launch token: never when stdio is
// off. The form's hidden field carries it (views.FetchForm.StdioToken).
func (s *Server) stdioTokenOK(got string) bool {
	return s.stdioToken != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.stdioToken)) == 1
}

// ---- deadlines and the in-flight bound ----

// DefaultRequestTimeout is a request's deadline: room for a server-side fetch, which stops
// itself at 30 s (remote.DefaultLimits) and must still answer with what went wrong.
const DefaultRequestTimeout = 60 * time.Second

// queueFactor sizes the waiting room of the in-flight bound: a waiting request holds no
// more than a parked goroutine, so it may be several times the slots, which absorbs a burst
// (twenty people typing at once) without turning anyone away, and still bounds the queue.
const queueFactor = 8

// limiter holds the request deadline and the slots of the in-flight bound.
type limiter struct {
	timeout time.Duration // 0: none
	slots   chan struct{} // nil: no bound
	wait    time.Duration // how long a request waits for a slot (0: not at all)
	waiting atomic.Int64  // requests waiting now, at most queueFactor×cap(slots)
}

func newLimiter(timeout time.Duration, inFlight int, wait time.Duration) *limiter {
	l := &limiter{timeout: timeout, wait: wait}
	if timeout == 0 {
		l.timeout = DefaultRequestTimeout
	} else if timeout < 0 {
		l.timeout = 0
	}
	if wait == 0 {
		l.wait = 5 * time.Second
	} else if wait < 0 {
		l.wait = 0
	}
	if inFlight == 0 {
		inFlight = max(8, 4*runtime.GOMAXPROCS(0))
	}
	if inFlight > 0 {
		l.slots = make(chan struct{}, inFlight)
	}
	return l
}

// acquire takes a slot, waiting for one no longer than l.wait, and only while the waiting
// room has space: it is bounded too, so a flood is answered at once.
func (l *limiter) acquire(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	if l.wait <= 0 {
		return false
	}
	if l.waiting.Add(1) > int64(queueFactor*cap(l.slots)) {
		l.waiting.Add(-1)
		return false
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (l *limiter) release() { <-l.slots }

// unbounded are the routes that hold their request for as long as a page is open: the live
// stream (which carries run progress too). They get neither a deadline nor a slot; static files
// get no slot (they cost a copy from memory). The leaderboard's stream, open to anyone, has a
// bound of its own (boardStreams).
func unbounded(path string) bool {
	return path == "/w/:id/stream" || path == "/c/:cid/stream" || path == "/board/:cid/stream"
}

// bound gives every request but the live stream a deadline (its context's, which handlers
// and the engines honour) and serves at most cap(slots) of them at once. A request over that
// waits for a slot up to l.wait in a bounded waiting room; past either it is answered 503 with
// Retry-After, so a flood of expensive requests (large listings, many findings) cannot pile
// up without end.
func (s *Server) bound(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Path()
		if unbounded(path) {
			return next(c)
		}
		l := s.limit
		r := c.Request()
		if l.slots != nil && path != "/static/*" {
			if !l.acquire(r.Context()) {
				s.log.Warn("request refused: every request slot is taken", "path", r.URL.Path, "slots", cap(l.slots))
				c.Response().Header().Set("Retry-After", "1")
				return failf(Unavailable, "the workbench is busy: it serves at most %d requests at once, "+
					"and all of them are taken. Try again in a second", cap(l.slots))
			}
			h := &heldSlot{l: l} // a drafting ask gives it back while it waits on a model (draftgate.go)
			defer h.release()
			r = r.WithContext(context.WithValue(r.Context(), slotKey{}, h))
			c.SetRequest(r)
		}
		if l.timeout <= 0 {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(r.Context(), l.timeout)
		defer cancel()
		c.SetRequest(r.WithContext(ctx))
		err := next(c)
		if err != nil {
			// Echo's error handler renders the error page after this returns, with the
			// request's context: keep its values (the viewer), not its deadline, which ends
			// here (templ renders nothing under a context that has ended).
			c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
		}
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
			s.log.Warn("request stopped at its deadline", "path", r.URL.Path, "timeout", l.timeout)
			return failf(Unavailable, "the request took longer than %s and was stopped; "+
				"try again, or with a smaller listing", l.timeout)
		}
		return err
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
				err = &Error{Kind: Internal, Msg: "internal error", Err: fmt.Errorf("handler panic: %v", r)}
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
		s.apiErr(forAPI(err), c)
		return
	}
	code, msg, hint := classify(err)
	if code >= 500 && code != Unavailable.Status() {
		// (A 503 is the server shedding load or a deadline, which bound logs; and the handlers
		// that answer 503 for an outage log it themselves.)
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
