// Package runs is the lifecycle of model runs started from the workspace page, across the
// replicas that share one store: it starts a run of a workspace's tasks against a configured
// endpoint (selection/runner), watches it, saves it as it goes, claims, leases, resumes and
// cancels it, and defines the run's stored format. It knows nothing of HTTP or HTML: it tells
// its caller what changed through a Notify callback, and the web layer renders and publishes.
package runs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// Store is what runs need of the store: store.Store is one.
type Store interface {
	// PutRun creates the run when r.ID is empty and replaces it otherwise.
	PutRun(ctx context.Context, r store.Run) (store.Run, error)
	// UpdateRun replaces a stored run only while its Updated is still prev (a Conflict
	// otherwise): every write to a run that exists goes through it, so that the process
	// running a run and another cancelling or resuming it never overwrite each other.
	UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error)
	// TouchRun moves a run's Updated from prev to at without rewriting it: the heartbeat of a
	// run in progress. It sends no event.
	TouchRun(ctx context.Context, workspace, id string, prev, at time.Time) error
	// Run returns a run with its body.
	Run(ctx context.Context, workspace, id string) (store.Run, error)
	// Runs lists a workspace's runs, newest first, without bodies.
	Runs(ctx context.Context, workspace string) ([]store.Run, error)
}

// Config configures model runs. The zero value offers no endpoint.
type Config struct {
	// Endpoints are the configured models (workbench serve --endpoints FILE).
	Endpoints []runner.Endpoint
	// Getenv reads the keys' environment variables (os.Getenv in the command).
	Getenv func(string) string
	// Cache answers identical requests from earlier runs; nil sends every request.
	Cache runner.Cache
	// Estimate gives the offline token estimate of the listing's tools, shown beside the
	// prompt tokens the endpoint reports; nil leaves it out.
	Estimate func(*listing.Listing) (tokens int, method string, err error)
	// Context bounds every run (the server's lifetime); nil means context.Background. A run
	// stopped by it is kept as interrupted and can be resumed.
	Context context.Context
	// HTTP sends the endpoints' requests; nil means real HTTP (tests pass a fake in process).
	HTTP runner.Doer
	// Retries and Timeout override the client defaults when non-zero (negative Retries: none).
	Retries int
	Timeout time.Duration
	// ProgressEvery is the least time between two progress notices (default 250 ms).
	ProgressEvery time.Duration
	// SaveEvery is how often a running run is written to the store (default 5 s): its
	// finished calls when some finished since, so that a crash loses little, and otherwise its
	// heartbeat (a TouchRun of its Updated alone), which tells the other replicas on the same
	// store that the run is alive (see the lease in lease.go).
	SaveEvery time.Duration
	// MaxCalls bounds tasks × samples of one run (default 2000). A stored run keeps every
	// call's raw request, the whole listing included, for its recording: this bounds its size.
	MaxCalls int
	// FailFast stops a run whose first FailFast calls all failed (default 3): a wrong key or a
	// server that is down should not take every retry of every call to say so.
	FailFast int
}

// MaxSamples bounds the samples per task of one run.
const MaxSamples = 100

// Event says what changed about a run, for Notify.
type Event int

// The events.
const (
	// Started: a run was stored and launched here. It comes before any Progress or Ended of
	// the run, from the goroutine that started it, so every page can learn of the start
	// before its progress.
	Started Event = iota
	// Progress: calls of a run in progress here finished (at most once per ProgressEvery).
	Progress
	// Ended: a run run here ended and its end is stored.
	Ended
	// Stale: the runs of the workspace changed in a way no store event of this process will
	// announce (a page acted on a stale view): show them as stored. The id is empty.
	Stale
)

// Notify is told of changes to the runs of workspace ws (see Event). It must not block for
// long: Progress and Ended come from a run's watch goroutine.
type Notify func(ws, id string, ev Event)

// Service runs model runs for one process.
type Service struct {
	cfg      Config
	store    Store
	local    *localRuns // store, counting this process's writes (local.go)
	clients  map[string]*runner.Client
	problems map[string]string // endpoint → why it cannot be used
	ctx      context.Context
	notify   Notify
	log      *slog.Logger

	mu     sync.Mutex
	active map[string]*Active // by run id
	byWS   map[string]*Active // the running run of each workspace
	last   map[string]string  // workspace → id of its last started run
	wg     sync.WaitGroup
}

// New returns the runs of this process over st. notify may be nil; log nil logs nothing.
func New(cfg Config, st Store, notify Notify, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if notify == nil {
		notify = func(string, string, Event) {}
	}
	local := &localRuns{Store: st, pending: map[string]int{}}
	s := &Service{cfg: cfg, store: local, local: local, clients: map[string]*runner.Client{},
		problems: map[string]string{}, ctx: cfg.Context, notify: notify, log: log,
		active: map[string]*Active{}, byWS: map[string]*Active{}, last: map[string]string{}}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if s.cfg.ProgressEvery <= 0 {
		s.cfg.ProgressEvery = 250 * time.Millisecond
	}
	if s.cfg.SaveEvery <= 0 {
		s.cfg.SaveEvery = 5 * time.Second
	}
	if s.cfg.MaxCalls <= 0 {
		s.cfg.MaxCalls = 2000
	}
	if s.cfg.FailFast <= 0 {
		s.cfg.FailFast = 3
	}
	// One client per endpoint, shared by every run on it: it holds the endpoint's bound on
	// calls in flight.
	for _, ep := range cfg.Endpoints {
		c, err := runner.NewClient(ep, runner.ClientOptions{Getenv: cfg.Getenv, Cache: cfg.Cache, HTTP: cfg.HTTP,
			Retries: cfg.Retries, Timeout: cfg.Timeout})
		if err != nil {
			// The message names the variable, never its value; and the file, never the server's
			// folders (it is shown on the pages; the log has it whole).
			s.problems[ep.Name] = withoutFolders(err.Error(), ep.Replay, ep.Record)
			log.Warn("endpoint unavailable", "endpoint", ep.Name, "err", err)
			continue
		}
		s.clients[ep.Name] = c
	}
	return s
}

// withoutFolders is msg with the folders of paths left out.
func withoutFolders(msg string, paths ...string) string {
	for _, p := range paths {
		if d := filepath.Dir(p); p != "" && d != "." {
			msg = strings.ReplaceAll(msg, d+string(filepath.Separator), "")
		}
	}
	return msg
}

// Config is the configuration in force, defaults filled in.
func (s *Service) Config() Config { return s.cfg }

// Context is the context that bounds every run.
func (s *Service) Context() context.Context { return s.ctx }

// Wait blocks until every run in progress has ended and been saved (tests, shutdown).
func (s *Service) Wait() { s.wg.Wait() }

// Close writes the recordings of endpoints that keep one ("record"), and says what could not
// be written. The clients stay usable.
func (s *Service) Close() error {
	var errs []error
	for _, c := range s.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Endpoints are the configured endpoints, usable or not.
func (s *Service) Endpoints() []runner.Endpoint { return s.cfg.Endpoints }

// Problem says why endpoint name cannot be used ("" when it can, or is unknown).
func (s *Service) Problem(name string) string { return s.problems[name] }

// Client returns the shared client of a configured endpoint, or why there is none, in words
// for the person who chose it.
func (s *Service) Client(name string) (*runner.Client, string) {
	if c, ok := s.clients[name]; ok {
		return c, ""
	}
	if p, ok := s.problems[name]; ok {
		return nil, fmt.Sprintf("Endpoint %q cannot be used: %s", name, p)
	}
	if len(s.cfg.Endpoints) == 0 {
		return nil, "No model endpoint is configured on this server."
	}
	names := make([]string, 0, len(s.cfg.Endpoints))
	for _, e := range s.cfg.Endpoints {
		names = append(names, e.Name)
	}
	return nil, fmt.Sprintf("No endpoint is named %q; this server has %s.", name, strings.Join(names, ", "))
}

// ActiveIn returns the run in progress here on workspace ws, or nil.
func (s *Service) ActiveIn(ws string) *Active {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byWS[ws]
}

// Get returns the run id if it is in progress here, or nil.
func (s *Service) Get(id string) *Active {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[id]
}

// Last is the id of the last run started here on workspace ws ("" for none).
func (s *Service) Last(ws string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[ws]
}

// List lists ws's runs, newest first, without their bodies.
func (s *Service) List(ctx context.Context, ws string) ([]store.Run, error) {
	list, err := s.store.Runs(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return list, nil
}

// OwnEvent reports whether a store EventRuns on ws is one of this process's writes still
// waiting for its event, and counts it as seen (see localRuns).
func (s *Service) OwnEvent(ws string) bool { return s.local.take(ws) }

// ForgetEvents drops the count of ws's writes waiting for their events: the caller has just
// subscribed to ws, and events of writes made before were never delivered to it.
func (s *Service) ForgetEvents(ws string) { s.local.forget(ws) }
