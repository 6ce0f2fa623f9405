// Package api is the workbench's JSON HTTP API under /api/v1: check, cost and export over the
// same engines the CLI uses (packages lint, cost, export), drafting with a model (suggest,
// tasks/generate, rubric; package drafting), the workspace endpoints over a store, and an
// OpenAPI 3.1 document that describes them all.
//
// Every failure answers with one shape, {"error": {"code", "message", "hint", ...}}, and the
// HTTP status follows from the code in one table (statusOf). Request bodies are JSON objects
// (Content-Type application/json, UTF-8, at most Options.MaxBodyBytes); unknown members are
// refused, so that a misspelt option is an error rather than a silent default. The PUTs of a
// workspace's listing and task file also take the document itself, as their GET answers it
// (roundtrip.go).
//
// The API mounts on any Echo group (Register); the web server mounts it at /api/v1.
package api

import (
	_ "embed"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/workspace"
)

// Prefix is where the web server mounts the API.
const Prefix = "/api/v1"

// DefaultMaxBodyBytes bounds a request body: room for the largest public listings (a few
// hundred kilobytes) many times over, with a baseline beside them.
const DefaultMaxBodyBytes = 16 << 20

// Options configure an API.
type Options struct {
	// Workspaces keeps workspaces; nil makes the workspace endpoints answer 404 (not_found).
	Workspaces Workspaces
	// Access decides whether the request may read (write false) or change (write true) a
	// workspace ("" when creating one), and returns the author name edits are recorded under.
	// A returned *Error is sent as it is; any other error is a 403. nil lets everyone in as
	// "api" (local mode, where the unguessable workspace id is the capability).
	Access func(r *http.Request, workspace string, write bool) (author string, err error)
	// MaxBodyBytes bounds a request body (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Limits bound a listing (default listing.DefaultLimits; the body limit bounds its bytes first).
	Limits listing.Limits
	// AllowedOrigins are other origins ("https://workbench.example.com") whose browser pages
	// may change state, for a proxy that rewrites the Host header. The request's own host is
	// always allowed.
	AllowedOrigins []string
	// Log receives server errors (5xx); nil discards them.
	Log *slog.Logger
	// Now is the clock for workspace records (default time.Now).
	Now func() time.Time
	// CacheBytes bounds the bytes of the per-tool caches of all the API's check and cost
	// engines together (default lru.DefaultBytes, 64 MiB), least recently used first out.
	CacheBytes int64
	// Tokenizers are the tokenizers a request may name (its "tokenizer" member): nil offers
	// the built-in encodings. A request names one, never a file.
	Tokenizers *cost.Tokenizers
	// Review answers the workspaces' reviews (/workspaces/{id}/review…); nil makes those
	// endpoints answer 404 (not_found), as the workspace endpoints do without Workspaces.
	Review *review.Service
	// Identity is the author of a comment or sign-off on a workspace, asked after Access let
	// the request write: the same person as on the workspace's pages, so that one person's
	// page and API sign-offs count once (web.Server.ReviewIdentity). An error is a 403 as for
	// Access. nil records Access's author name with no ID.
	Identity func(r *http.Request, workspace string) (review.Author, error)
	// Models returns the model endpoint a drafting request names ("" for the server's first),
	// or nil and why there is none, in words for the person who asked. nil: no endpoint, so
	// /suggest and /tasks/generate answer 422 (no_endpoint) and /rubric scores offline.
	Models func(name string) (drafting.Model, string)
	// Rubrics keeps tool rubrics between requests, so that only edited tools are scored again;
	// nil keeps none.
	Rubrics *drafting.RubricCache
	// DraftGate lets a drafting request that is about to call a model in, or says in words why
	// not (the model is busy): the gate the pages' drafting asks pass too, so that the API
	// cannot call past their bound. leave is called when the request is done. nil lets every
	// request in (a server with no pages).
	DraftGate func(r *http.Request) (leave func(), busy string)
	// Release gives back the request slot the server's middleware holds for r, called once a
	// drafting request passed DraftGate and before it waits on the model: the gate, not the
	// slots, bounds those requests, and the slots stay for the pages. nil does nothing.
	Release func(r *http.Request)
}

// API serves the endpoints.
type API struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	linters  map[string]*lint.Linter
	counters map[string]*cost.Counter
	// cache is the byte budget every engine's caches share.
	cache *lru.Budget
	// listings serves the workspace endpoints (nil without Options.Workspaces).
	listings *workspace.Listings
	draftingState
}

// maxEngines bounds the engines kept per option set: a client that varies its options on
// every request gets fresh, uncached engines instead of growing the map.
const maxEngines = 32

// New returns an API.
func New(opts Options) *API {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Limits.Bytes == 0 {
		opts.Limits.Bytes = listing.DefaultLimits.Bytes
	}
	if opts.Limits.Tools == 0 {
		opts.Limits.Tools = listing.DefaultLimits.Tools
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	a := &API{opts: opts, log: opts.Log, linters: map[string]*lint.Linter{}, counters: map[string]*cost.Counter{},
		cache: lru.NewBudget(opts.CacheBytes)}
	if opts.Workspaces != nil {
		a.listings = workspace.NewListings(opts.Workspaces)
	}
	return a
}

// route is one endpoint. The OpenAPI document has an operation for each, with the same
// operationId (tests hold the two together).
type route struct {
	method, path, id string
	h                func(c echo.Context) error
}

func (a *API) routes() []route {
	return []route{
		{http.MethodGet, "/openapi.json", "getOpenAPI", a.openapi},
		{http.MethodPost, "/check", "check", a.check},
		{http.MethodPost, "/fix", "fix", a.fix},
		{http.MethodPost, "/cost", "cost", a.cost},
		{http.MethodPost, "/export", "export", a.export},
		{http.MethodPost, "/tasks/convert", "convertTasks", a.convertTasks},
		{http.MethodPost, "/tasks/generate", "generateTasks", a.generateTasks},
		{http.MethodPost, "/suggest", "suggest", a.suggest},
		{http.MethodPost, "/rubric", "rubric", a.rubric},
		{http.MethodPost, "/workspaces", "createWorkspace", a.createWorkspace},
		{http.MethodPatch, "/workspaces/:id", "renameWorkspace", a.renameWorkspace},
		{http.MethodGet, "/workspaces/:id/listing", "getWorkspaceListing", a.getListing},
		{http.MethodPut, "/workspaces/:id/listing", "putWorkspaceListing", a.putListing},
		{http.MethodGet, "/workspaces/:id/revisions", "listWorkspaceRevisions", a.revisions},
		{http.MethodGet, "/workspaces/:id/tasks", "getWorkspaceTasks", a.getTasks},
		{http.MethodPut, "/workspaces/:id/tasks", "putWorkspaceTasks", a.putTasks},
		{http.MethodGet, "/workspaces/:id/review", "getWorkspaceReview", a.getReview},
		{http.MethodPost, "/workspaces/:id/review/signoffs", "signOffWorkspace", a.postSignoff},
		{http.MethodPost, "/workspaces/:id/review/comments", "commentWorkspace", a.postComment},
	}
}

// methodNotAllowedName names the routes that answer 405 for the methods a path does not take.
const methodNotAllowedName = "api.methodNotAllowed"

// Register adds the API's routes to g, which the caller mounts at Prefix:
//
//	a.Register(e.Group(api.Prefix))
//
// Errors never reach the server's error handler: the API answers them in its own shape, also
// for unknown paths and methods under the group.
func (a *API) Register(g *echo.Group) {
	g.Use(a.answerErrors, a.sameOrigin)
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range a.routes() {
		r := g.Add(rt.method, rt.path, rt.h)
		r.Name = rt.id
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	// Echo answers a known path with an unknown method itself, past the group's middleware;
	// explicit routes keep that answer in the API's error shape, with an Allow header.
	for _, p := range paths {
		allow := strings.Join(allowed[p], ", ")
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
			if slices.Contains(allowed[p], m) {
				continue
			}
			r := g.Add(m, p, func(c echo.Context) error {
				c.Response().Header().Set(echo.HeaderAllow, allow)
				return echo.ErrMethodNotAllowed
			})
			r.Name = methodNotAllowedName
		}
	}
}

// answerErrors answers every error of the handlers below it in the API's shape, a panic
// included (as a 500 whose details go to the log only).
func (a *API) answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = a.answer(c, fmt.Errorf("panic: %v", r))
			}
		}()
		if err := next(c); err != nil {
			return a.answer(c, err)
		}
		return nil
	}
}

// HTTPErrorHandler answers an error that arises outside the API's own routes but under its
// prefix (the web server's middleware, an unknown path) in the API's one error shape.
func (a *API) HTTPErrorHandler(err error, c echo.Context) { _ = a.answer(c, err) }

// answer writes err as an error response.
func (a *API) answer(c echo.Context, err error) error {
	e := toError(err)
	status := e.Code.Status()
	if status >= 500 {
		a.log.Error("api request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if c.Response().Committed {
		return nil
	}
	return c.JSON(status, errorBody{Error: e})
}

// sameOrigin refuses state-changing requests that a browser sends on behalf of another site.
// Browsers send Sec-Fetch-Site and Origin with such requests; API clients (curl, CI scripts)
// send neither and are let through, since they cannot be made to carry someone else's cookies.
// Both headers must pass: the browser's Sec-Fetch-Site is checked first, because a matching
// Origin alone proves little (a DNS-rebinding page's Origin matches the Host it sends, and a
// proxy that rewrites Host is what AllowedOrigins is for). same-site is refused too: another
// origin of the same site (a sibling subdomain, another port) is another application.
func (a *API) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		const hint = "call the API from the workbench's own pages, or from a client that is not a browser"
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && !strings.EqualFold(site, "same-origin") && !strings.EqualFold(site, "none") {
			return &Error{Code: CodeCrossOrigin, Hint: hint, Message: "cross-site request refused (Sec-Fetch-Site: " + strings.ToValidUTF8(site, "?") +
				"): the browser says another site made it"}
		}
		if o := r.Header.Get(echo.HeaderOrigin); o != "" && !a.originAllowed(o, r.Host) {
			return &Error{Code: CodeCrossOrigin, Hint: hint,
				Message: "cross-origin request refused: Origin " + strings.ToValidUTF8(o, "?") + " is not this server"}
		}
		return next(c)
	}
}

func (a *API) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, o := range a.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), u.Scheme+"://"+u.Host) {
			return true
		}
	}
	return false
}

// read reads and decodes a request body whose members are among fields.
func (a *API) read(c echo.Context, fields ...string) (*request, error) {
	body, err := readBody(c, a.opts.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	return decodeRequest(body, fields)
}

//go:embed openapi.json
var openapiDoc []byte

func (a *API) openapi(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/json", openapiDoc)
}
