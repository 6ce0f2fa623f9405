package web

// Model runs from the workspace page: the Runs tab starts a run of the workspace's tasks on its
// current revision against an endpoint configured on the server (selection/runner), streams its
// progress to every page on the workspace, shows the scores, compares two runs, and hands out a
// run's recording. The browser only ever sees runner.Endpoint.Info: names, models and hosts,
// never a key or a header value.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// RunStore is what runs need of the store: store.Store is one.
type RunStore interface {
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

// RunsConfig configures model runs from the workspace page. The zero value offers no endpoint:
// the Runs tab then says how to configure one.
type RunsConfig struct {
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
	// ProgressEvery is the least time between two progress patches (default 250 ms).
	ProgressEvery time.Duration
	// SaveEvery is how often a running run is written to the store (default 5 s): its
	// finished calls when some finished since, so that a crash loses little, and otherwise its
	// heartbeat (a TouchRun of its Updated alone), which tells the other replicas on the same
	// store that the run is alive (see runLease).
	SaveEvery time.Duration
	// MaxCalls bounds tasks × samples of one run (default 2000). A stored run keeps every
	// call's raw request, the whole listing included, for its recording: this bounds its size.
	MaxCalls int
	// FailFast stops a run whose first FailFast calls all failed (default 3): a wrong key or a
	// server that is down should not take every retry of every call to say so.
	FailFast int
}

// MaxRunSamples bounds the samples per task from the page.
const MaxRunSamples = 100

// runs is the Server's model-run state.
type runs struct {
	cfg      RunsConfig
	store    RunStore
	local    *localRuns // store, counting this process's puts (runs_live.go)
	eps      []runner.Endpoint
	clients  map[string]*runner.Client
	problems map[string]string // endpoint → why it cannot be used
	ctx      context.Context

	mu     sync.Mutex
	active map[string]*activeRun  // by run id
	byWS   map[string]*activeRun  // the running run of each workspace
	last   map[string]string      // workspace → id of its last started run
	lapse  map[string]*time.Timer // workspace → when a run alive elsewhere may lapse (runs_live.go)
	wg     sync.WaitGroup
}

// activeRun is a run in progress.
type activeRun struct {
	id, ws  string
	rec     store.Run
	claim   string    // the nonce in the stored meta that says this process holds the run
	prev    time.Time // the Updated this process last wrote (or read, after a refused write)
	renewed time.Time // the stamp of this process's last save or touch of the run: its lease runs from it
	listing []byte
	job     *runner.Job
	stop    context.CancelCauseFunc

	mu      sync.Mutex
	header  *runner.Header
	calls   map[[2]int]runner.Call
	lastErr string
	fails   int // failed calls before the first answer
	answers int
}

// runBody is what a stored run's body holds: the listing it ran against (to resume it after
// the workspace has moved on) and the run itself.
type runBody struct {
	Listing json.RawMessage `json:"listing"`
	Run     *runner.Run     `json:"run,omitempty"`
}

// runMeta is a stored run's summary, for lists.
type runMeta struct {
	Endpoint    string   `json:"endpoint"`
	Model       string   `json:"model"`
	Samples     int      `json:"samples"`
	Tasks       int      `json:"tasks"`
	Done        int      `json:"done"`
	Total       int      `json:"total"`
	Errors      int      `json:"errors"`
	Accuracy    *float64 `json:"accuracy,omitempty"`
	Problem     string   `json:"problem,omitempty"`
	TasksHash   string   `json:"tasksHash,omitempty"`
	ListingHash string   `json:"listingHash,omitempty"`
	// Claim names the process holding a running run (a random nonce per start or resume), and
	// BeatMS is how often that process saves it: the lease (runLease) is read from it, so
	// replicas configured with other SaveEvery values agree on it.
	Claim  string `json:"claim,omitempty"`
	BeatMS int64  `json:"beatMs,omitempty"`
	// Cached and LastErr complete the counts of a running run, so that other replicas show
	// its bar from the meta alone, without reading its calls at each save.
	Cached  int    `json:"cached,omitempty"`
	LastErr string `json:"lastErr,omitempty"`
}

// Run statuses.
const (
	runRunning     = "running"
	runDone        = "done"
	runCancelled   = "cancelled"
	runFailed      = "failed"
	runInterrupted = "interrupted"
	// runCancelling is a running run that a page on another replica asked to cancel: the
	// process running it finds its next write (heartbeat or save) refused, because the request
	// moved Updated, reads the request, and ends the run as cancelled.
	runCancelling = "cancelling"
)

// The liveness lease. Several processes may serve one store; a run executes in the process that
// started (or resumed) it, which writes it every SaveEvery whether or not a call finished: its
// heartbeat (a save with its calls, or a touch of Updated alone). Any other process reads a
// stored "running" run as alive elsewhere while its Updated is less than runLease old, and as
// interrupted (resumable) only after that.
//
// Every write to an existing run is a compare-and-swap on its Updated (store.UpdateRun,
// TouchRun), so the lease decides only what is offered (Resume or not), never who wins: of
// the owner, a replica asking to cancel and replicas resuming, each write is made over the
// record its writer read, or refused.
//
// runLeaseBeats is 3 so that one or two late or failed saves (a slow store, a GC pause, a
// redeploy's brief stall) do not make a live run look dead, while a crashed process's run is
// resumable a few saves later (15 s with the default SaveEvery of 5 s). runLeaseMin keeps very
// short SaveEvery settings from making the lease shorter than store latency.
//
// Clock skew: Updated is the saving process's clock and the age is taken on the reader's, so
// the replicas' clocks are assumed to agree to well within the lease's slack,
// (runLeaseBeats-1)×SaveEvery (10 s by default; NTP keeps them within milliseconds). A reader
// whose clock runs ahead by more would see live runs as interrupted; one behind only waits
// longer before offering Resume. An Updated in the future reads as alive.
const (
	runLeaseBeats = 3
	runLeaseMin   = time.Second
)

var (
	// errCancelled is the cause of a run cancelled from the page.
	errCancelled = errors.New("cancelled from the page")
	// errTakenOver is the cause of a run whose stored claim is no longer this process's:
	// another replica resumed it after this one missed its lease (a long pause, a partition).
	// This process stops without saving, so that the run is never written by two.
	errTakenOver = errors.New("another server took the run over")
	// errLeaseLost is the cause of a run stopped because this process could not save it for
	// as long as its lease lasts but one beat: other replicas may soon read it as interrupted
	// and resume it, and a run going on here as well would call the endpoint twice for the
	// same tasks. It is left resumable.
	errLeaseLost = errors.New("could not save the run for most of its lease")
)

func newRuns(cfg RunsConfig, st RunStore, log interface {
	Warn(string, ...any)
}) *runs {
	local := &localRuns{RunStore: st, pending: map[string]int{}}
	r := &runs{cfg: cfg, store: local, local: local, eps: cfg.Endpoints, clients: map[string]*runner.Client{},
		problems: map[string]string{}, ctx: cfg.Context, active: map[string]*activeRun{},
		byWS: map[string]*activeRun{}, last: map[string]string{}, lapse: map[string]*time.Timer{}}
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	if r.cfg.ProgressEvery <= 0 {
		r.cfg.ProgressEvery = 250 * time.Millisecond
	}
	if r.cfg.SaveEvery <= 0 {
		r.cfg.SaveEvery = 5 * time.Second
	}
	if r.cfg.MaxCalls <= 0 {
		r.cfg.MaxCalls = 2000
	}
	if r.cfg.FailFast <= 0 {
		r.cfg.FailFast = 3
	}
	// One client per endpoint, shared by every run on it: it holds the endpoint's bound on
	// calls in flight.
	for _, ep := range cfg.Endpoints {
		c, err := runner.NewClient(ep, runner.ClientOptions{Getenv: cfg.Getenv, Cache: cfg.Cache, HTTP: cfg.HTTP,
			Retries: cfg.Retries, Timeout: cfg.Timeout})
		if err != nil {
			// The message names the variable, never its value.
			r.problems[ep.Name] = err.Error()
			log.Warn("endpoint unavailable", "endpoint", ep.Name, "err", err)
			continue
		}
		r.clients[ep.Name] = c
	}
	return r
}

// WaitRuns blocks until every run in progress has ended and been saved (tests, shutdown).
func (s *Server) WaitRuns() { s.runs.wg.Wait() }

// runRoutes adds the Runs tab's routes. The POST routes change what is stored, so the guard
// (auth.go) already asks the edit capability of them; each handler checks it again before it
// writes (requireEdit), so a view link can watch runs but never start, cancel or resume one.
func (s *Server) runRoutes(w *echo.Group) {
	w.GET("/runs/panel", s.runsPanel)
	w.POST("/runs", s.startRun)
	w.GET("/runs/:run", s.showRun, runID)
	w.GET("/runs/:run/compare", s.compareRuns, runID)
	w.GET("/runs/:run/recording.json", s.downloadRecording, runID)
	w.POST("/runs/:run/cancel", s.cancelRun, runID)
	w.POST("/runs/:run/resume", s.resumeRun, runID)
}

// runID refuses malformed run ids before any handler sees them.
func runID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !wsIDPattern.MatchString(c.Param("run")) {
			return echo.NewHTTPError(http.StatusNotFound, "no such run")
		}
		return next(c)
	}
}

// ---- handlers ----

func (s *Server) runsPanel(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	p, err := s.runsModel(c.Request().Context(), ws, runner.Spec{}, "")
	if err != nil {
		return err
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.RunsRegion(p))
	return nil
}

// maxRunStarts bounds the attempts to start a run while others' edits keep landing first.
const maxRunStarts = 5

// startRun reads the run form and starts a run on the workspace's current revision.
func (s *Server) startRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 256<<10)
	spec, epName, problem := readRunForm(c)
	refuse := func(msg string) error {
		p, err := s.runsModel(ctx, ws, spec, epName)
		if err != nil {
			return err
		}
		p.Form.Problem = msg
		sse := newSSE(c)
		_ = sse.PatchElementTempl(views.RunFormRegion(p.Form))
		return nil
	}
	if problem != "" {
		return refuse(problem)
	}
	client, msg := s.runClient(epName)
	if client == nil {
		return refuse(msg)
	}
	var rec store.Run
	var src []byte
	var ep runner.Endpoint
	for attempt := 1; ; attempt++ {
		switch {
		case len(ws.Listing.Tools) == 0:
			return refuse("The listing has no tools to run the tasks against. Add a tool first.")
		case len(ws.Tasks) == 0:
			return refuse("The workspace has no tasks. Add tasks in the Tasks tab, or import a task file, then start the run.")
		}
		for i, t := range ws.Tasks {
			if strings.TrimSpace(t.Task) == "" {
				return refuse(fmt.Sprintf("Task %d has no text. Write it in the Tasks tab, or remove it.", i+1))
			}
		}
		if rec := client.Recording(); rec != nil {
			// A recording answers only the requests it holds: its settings are the run's.
			spec.Samples, spec.Temperature, spec.Seed = rec.Spec.Samples, rec.Spec.Temperature, rec.Spec.Seed
			spec.SystemPrompt, spec.Shuffle = rec.Spec.SystemPrompt, rec.Spec.Shuffle
			if h := runner.NewHeader(ws.Listing, ws.Tasks, spec); rec.Header.ListingHash != "" && h.ListingHash != rec.Header.ListingHash {
				return refuse(fmt.Sprintf("Endpoint %q answers from a recording made on other tools than this revision's, so it holds no answer to these requests. Import the listing the recording was made on (its tools: %s), or pick a live endpoint.",
					epName, strings.Join(rec.Header.Tools, ", ")))
			}
		}
		if n := len(ws.Tasks) * spec.Samples; n > s.runs.cfg.MaxCalls {
			return refuse(fmt.Sprintf("%d tasks × %d samples is %d calls; the page runs up to %d at once. Lower the samples, or use 'workbench run' for a larger run.",
				len(ws.Tasks), spec.Samples, n, s.runs.cfg.MaxCalls))
		}
		if a := s.runs.activeIn(ws.ID); a != nil {
			return refuse("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
		}
		if other := s.runs.aliveIn(ctx, ws.ID); other.ID != "" {
			return refuse("A run is already in progress on this workspace, on another server. Wait for it to finish, or cancel it.")
		}
		src = listing.Marshal(ws.Listing.Result(), "")
		ep = client.Endpoint()
		now := time.Now().UTC()
		author, _ := s.identity(c)
		asOf := int64(ws.Version)
		rec, err = s.runs.store.PutRun(ctx, store.Run{Workspace: ws.ID, Revision: ws.Head, AsOf: &asOf, Status: runRunning, Author: author,
			Label:   fmt.Sprintf("rev %d · %s · %d×%d", ws.Head, ep.Name, len(ws.Tasks), spec.Samples),
			Created: now, Updated: now, Meta: mustJSON(runMeta{Endpoint: ep.Name, Model: ep.Model, Samples: spec.Samples,
				Tasks: len(ws.Tasks), Total: len(ws.Tasks) * spec.Samples, Claim: store.NewID(), BeatMS: s.runs.cfg.SaveEvery.Milliseconds()}),
			Body: mustJSON(runBody{Listing: src})})
		if store.KindOf(err) == store.Conflict {
			if attempt == maxRunStarts {
				return refuse("The workspace changed every time the run was about to start (others are typing). Try again in a moment.")
			}
			// An edit landed between the read and the start: the run would name a revision
			// holding something else. Read again and start from that.
			if ws, err = s.getWS(c); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("store the run: %w", err)
		}
		break
	}
	noCache := c.Request().PostForm.Get("nocache") == "on"
	if err := s.launch(rec, src, ws.Listing, ws.Tasks, spec, client, nil, noCache); err != nil {
		// Another run started in between: this one never ran; say so in the list too.
		prev := rec.Updated
		rec.Status, rec.Updated, rec.Meta = runFailed, stampAfter(prev), mustJSON(runMeta{Endpoint: ep.Name, Model: ep.Model, Samples: spec.Samples,
			Tasks: len(ws.Tasks), Total: len(ws.Tasks) * spec.Samples, Problem: err.Error()})
		if _, perr := s.runs.store.UpdateRun(ctx, rec, prev); perr != nil {
			s.log.Warn("saving a run that did not start", "run", rec.ID, "err", perr)
		}
		return refuse(err.Error())
	}
	s.log.Info("run started", "ws", ws.ID, "run", rec.ID, "endpoint", ep.Name, "tasks", len(ws.Tasks), "samples", spec.Samples)
	return s.answerRunsChanged(c, ws, spec, epName, rec)
}

// answerRunsChanged answers a start or resume of rec with the form, its problem cleared and
// naming the run; the progress bar and the list reach every page over its stream (launch).
func (s *Server) answerRunsChanged(c echo.Context, ws Workspace, spec runner.Spec, epName string, rec store.Run) error {
	p, err := s.runsModel(c.Request().Context(), ws, spec, epName)
	if err != nil {
		return err
	}
	p.Form.Started, p.Form.StartedLabel = rec.ID, rec.Label
	_ = newSSE(c).PatchElementTempl(views.RunFormRegion(p.Form))
	return nil
}

func (s *Server) cancelRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	if a := s.runs.get(c.Param("run")); a != nil && a.ws == ws.ID {
		a.stop(errCancelled)
		// The run's watcher saves it and tells every page; this page waits for that patch.
		return c.NoContent(http.StatusNoContent)
	}
	// Not run here: perhaps on another replica. Ask through the store; the process running it
	// learns of the request at its next write (a heartbeat or a save), ends the run as
	// cancelled and saves it, and that save reaches every page through the store's events.
	rec, err := s.askCancel(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return err
	}
	if rec.ID == "" {
		return c.NoContent(http.StatusNoContent) // asked already
	}
	s.log.Info("run cancel requested of another server", "ws", ws.ID, "run", rec.ID)
	// This process's own put raises no page update here (localRuns): show the request now.
	if rows, err := s.runRows(ctx, ws.ID); err == nil {
		s.publishRuns(ws.ID, views.RunProgressRegion(s.storedProgress(rec)), views.RunListRegion(ws.ID, rows))
	}
	return c.NoContent(http.StatusNoContent)
}

// askCancel records a cancel request on a run alive on another replica: its status becomes
// cancelling, by a compare-and-swap against the record it read. The request moves Updated on by
// one microsecond only: enough that the owner's next write, which swaps against the Updated it
// wrote itself, fails and makes it read the request, while the lease of a run whose process
// may be gone is not extended. If the owner wrote the run between the read and the swap, the
// run is read again and the request made once more. It returns the record stored, or a zero
// one when a cancel was asked already.
func (s *Server) askCancel(ctx context.Context, ws, id string) (store.Run, error) {
	for attempt := 0; ; attempt++ {
		rec, err := s.runs.store.Run(ctx, ws, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return rec, echo.NewHTTPError(http.StatusNotFound, "no such run")
			}
			return rec, fmt.Errorf("read run: %w", err)
		}
		switch st, elsewhere := s.runs.statusOf(rec); {
		case elsewhere && st == runCancelling:
			return store.Run{}, nil
		case !elsewhere:
			s.refreshRuns(ws) // the page's view was stale: show it the run as it is
			return rec, echo.NewHTTPError(http.StatusConflict, "that run is not in progress")
		}
		prev := rec.Updated
		rec.Status, rec.Updated = runCancelling, prev.Add(time.Microsecond)
		out, err := s.runs.store.UpdateRun(ctx, rec, prev)
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, store.ErrConflict) && attempt == 0:
			continue // its server saved it meanwhile: ask again over that save
		case errors.Is(err, store.ErrConflict):
			s.refreshRuns(ws)
			return rec, echo.NewHTTPError(http.StatusConflict,
				"The run's server saved it twice while the cancel was being recorded, so the cancel was not recorded; the run is still going. Click Cancel again.")
		case errors.Is(err, store.ErrNotFound):
			return rec, echo.NewHTTPError(http.StatusNotFound, "no such run")
		}
		return rec, fmt.Errorf("ask for the run to be cancelled: %w", err)
	}
}

// storedProgress is the bar of a stored run read without its body: the counts its meta keeps.
func (s *Server) storedProgress(rec store.Run) views.RunProgress {
	rec.Body = nil
	return s.progressOf(context.Background(), rec, runBody{})
}

func (s *Server) resumeRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	rec, body, err := s.loadRun(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return err
	}
	refuse := func(msg string) error {
		sse := newSSE(c)
		p := s.progressOf(ctx, rec, body)
		p.Message = msg
		_ = sse.PatchElementTempl(views.RunProgressRegion(p))
		return nil
	}
	if s.runs.activeIn(ws.ID) != nil {
		return refuse("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
	}
	if _, elsewhere := s.runs.statusOf(rec); elsewhere {
		// The page offered Resume from a stale view: bring its Runs regions up to date (over its
		// stream) as well as refusing.
		s.refreshRuns(ws.ID)
		return echo.NewHTTPError(http.StatusConflict, s.runs.aliveMessage(rec))
	}
	switch other := s.runs.aliveIn(ctx, ws.ID); {
	case other.ID == rec.ID:
		// Claimed by another replica since it was read above.
		s.refreshRuns(ws.ID)
		return echo.NewHTTPError(http.StatusConflict, s.runs.aliveMessage(other))
	case other.ID != "":
		return refuse("Another run on this workspace is in progress on another server. Wait for it to finish, or cancel it.")
	}
	if body.Run == nil {
		return refuse("This run stopped before it sent anything; start a new run instead.")
	}
	spec := body.Run.Header.Spec
	client, msg := s.runClient(spec.Endpoint)
	if client == nil {
		return refuse(msg)
	}
	l, err := listing.Parse(body.Listing, listing.Options{Name: "run"})
	if err != nil {
		return refuse("The stored listing of this run cannot be read back: " + err.Error())
	}
	tasks := body.Run.Header.Tasks
	rec, err = s.claimRun(ctx, rec)
	if err != nil {
		s.refreshRuns(ws.ID)
		return err
	}
	if err := s.launch(rec, body.Listing, l, tasks, spec, client, body.Run, false); err != nil {
		// Say so in the store too, or the claim would read as a live run for a lease.
		prev := rec.Updated
		rec.Status, rec.Updated = runInterrupted, stampAfter(prev)
		if _, perr := s.runs.store.UpdateRun(context.Background(), rec, prev); perr != nil {
			s.log.Warn("releasing a resume that did not start", "run", rec.ID, "err", perr)
		}
		return refuse(err.Error())
	}
	s.log.Info("run resumed", "ws", ws.ID, "run", rec.ID, "kept", len(body.Run.Calls))
	return s.answerRunsChanged(c, ws, spec, spec.Endpoint, rec)
}

func (s *Server) showRun(c echo.Context) error {
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	rec, body, err := s.loadRun(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return err
	}
	m, err := s.resultModel(ctx, ws.ID, rec, body)
	if err != nil {
		return err
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.RunResultRegion(m))
	return nil
}

func (s *Server) compareRuns(c echo.Context) error {
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	cur, curBody, err := s.loadRun(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return err
	}
	baseID := c.QueryParam("base")
	out := views.RunCompare{BaseLabel: "the baseline"}
	if !wsIDPattern.MatchString(baseID) {
		out.Problem = "Pick a baseline run from the list."
	} else if base, baseBody, err := s.loadRun(ctx, ws.ID, baseID); err != nil {
		out.Problem = "That baseline run no longer exists; pick another."
	} else {
		out = compareModel(base, baseBody, cur, curBody)
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.RunCompareRegion(out))
	return nil
}

// downloadRecording hands out a run's raw exchanges. Requests are kept without their headers
// and every body was scrubbed of the key by the client, so the file holds no key.
func (s *Server) downloadRecording(c echo.Context) error {
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	rec, body, err := s.loadRun(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return err
	}
	if body.Run == nil {
		return echo.NewHTTPError(http.StatusNotFound, "this run made no calls, so it has no recording")
	}
	b, err := json.MarshalIndent(runner.NewRecording(body.Run), "", " ")
	if err != nil {
		return fmt.Errorf("encode the recording: %w", err)
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="recording-%s.json"`, rec.ID[:8]))
	return c.Blob(http.StatusOK, "application/json", append(b, '\n'))
}

// ---- running ----

// runClient returns the shared client of a configured endpoint, or why there is none.
func (s *Server) runClient(name string) (*runner.Client, string) {
	if c, ok := s.runs.clients[name]; ok {
		return c, ""
	}
	if p, ok := s.runs.problems[name]; ok {
		return nil, fmt.Sprintf("Endpoint %q cannot be used: %s", name, p)
	}
	if len(s.runs.eps) == 0 {
		return nil, "No model endpoint is configured on this server."
	}
	names := make([]string, 0, len(s.runs.eps))
	for _, e := range s.runs.eps {
		names = append(names, e.Name)
	}
	return nil, fmt.Sprintf("No endpoint is named %q; this server has %s.", name, strings.Join(names, ", "))
}

func (r *runs) activeIn(ws string) *activeRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byWS[ws]
}

func (r *runs) get(id string) *activeRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active[id]
}

// launch starts rec in the background; resume holds the calls of an earlier attempt, and
// noCache sends every request even when the response cache has its answer.
func (s *Server) launch(rec store.Run, src []byte, l *listing.Listing, tasks []selection.Task, spec runner.Spec, client *runner.Client, resume *runner.Run, noCache bool) error {
	ctx, stop := context.WithCancelCause(s.runs.ctx)
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	a := &activeRun{id: rec.ID, ws: rec.Workspace, rec: rec, prev: rec.Updated, renewed: rec.Updated, claim: meta.Claim, listing: src, stop: stop, calls: map[[2]int]runner.Call{}}
	opts := runner.Options{Spec: spec, Resume: resume, Estimate: s.runs.cfg.Estimate, NoCache: noCache}
	if resume != nil {
		for _, cl := range resume.Calls {
			a.calls[[2]int{cl.Task, cl.Sample}] = cl
		}
		h := resume.Header
		a.header = &h
	}
	opts.Start = func(h runner.Header) error {
		a.mu.Lock()
		a.header = &h
		a.mu.Unlock()
		return nil
	}
	opts.Sink = func(cl runner.Call) error {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.calls[[2]int{cl.Task, cl.Sample}] = cl
		if cl.Outcome == runner.OutError {
			a.lastErr = cl.Error
			if a.answers == 0 {
				a.fails++
				if a.fails >= s.runs.cfg.FailFast {
					stop(fmt.Errorf("the first %d calls failed, so the run was stopped: %s", a.fails, cl.Error))
				}
			}
		} else {
			a.answers++
		}
		return nil
	}
	s.runs.mu.Lock()
	if s.runs.byWS[rec.Workspace] != nil {
		s.runs.mu.Unlock()
		stop(nil)
		return errors.New("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
	}
	s.runs.active[rec.ID] = a
	s.runs.byWS[rec.Workspace] = a
	s.runs.last[rec.Workspace] = rec.ID
	s.runs.wg.Add(1)
	s.runs.mu.Unlock()
	a.job = runner.Start(ctx, client, l, tasks, opts)
	// Every page, the one that asked included, learns of the run over its stream, and before
	// watch can publish: a stream is ordered, so the end never arrives before the start. Sent in
	// the start's own answer instead, a run quicker than the answer left the page showing it
	// running, with nothing more to come.
	rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	rows, err := s.runRows(rctx, rec.Workspace)
	cancel()
	if err != nil {
		s.log.Warn("announce a run: list runs", "ws", rec.Workspace, "err", err)
	}
	s.publishRuns(rec.Workspace, views.RunProgressRegion(s.activeProgress(a)), views.RunListRegion(rec.Workspace, rows))
	go s.watch(ctx, a)
	return nil
}

// watch forwards a run's progress to the workspace's pages a few times a second, saves it every
// SaveEvery (its finished calls, or else only its heartbeat), and saves and announces its end.
// Each write is a compare-and-swap on the Updated this process last wrote (activeRun.prev): one
// that fails tells the process that another wrote the run since (a cancel asked from another
// replica, or a resume there after this one missed its lease), so no write of either is lost.
func (s *Server) watch(ctx context.Context, a *activeRun) {
	defer s.runs.wg.Done()
	tick := time.NewTicker(s.runs.cfg.ProgressEvery)
	defer tick.Stop()
	beat := time.NewTicker(s.runs.cfg.SaveEvery)
	defer beat.Stop()
	saved, stopping := -1, false
	dirty := true
	events := a.job.Events()
loop:
	for {
		select {
		case _, ok := <-events:
			if !ok {
				break loop
			}
			dirty = true
		case <-tick.C:
			if dirty {
				s.publishRuns(a.ws, views.RunProgressRegion(s.activeProgress(a)))
				dirty = false
			}
		case <-beat.C:
			if stopping {
				continue // the job is ending; its end is saved below
			}
			// Saving re-encodes every finished call, so only when some call finished since;
			// otherwise only Updated moves: the heartbeat, one small write whatever the run's
			// size.
			done := a.job.Latest().Done
			if cause := s.persist(a, done != saved); cause != nil {
				a.stop(cause)
				stopping = true
				continue
			}
			saved = done
		}
	}
	run, err := a.job.Wait()
	status, problem := runDone, ""
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errTakenOver):
		// Another replica holds the run now: it saves and announces it, not this process.
	case err == nil:
	case errors.Is(cause, errCancelled):
		status = runCancelled
	case errors.Is(cause, errLeaseLost):
		status, problem = runInterrupted, "This server could not save the run for several seconds, so it stopped it rather than risk another server running it too; resume it to finish."
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		// The server's context ended (a shutdown); the fail-fast rule's cause is an error of
		// its own and lands below.
		status, problem = runInterrupted, "The server stopped while the run was in progress; resume it to finish."
	default:
		status, problem = runFailed, err.Error()
	}
	if run != nil && status == runDone {
		if sc := runner.ScoreRun(run); sc.Scored == 0 && sc.Errors > 0 {
			status, problem = runFailed, fmt.Sprintf("Every call failed; the run measured nothing. %s", firstError(run))
		}
	}
	kept := !errors.Is(cause, errTakenOver)
	if kept {
		status, kept = s.saveFinal(a, status, problem, run)
	}
	s.runs.mu.Lock()
	delete(s.runs.active, a.id)
	if s.runs.byWS[a.ws] == a {
		delete(s.runs.byWS, a.ws)
	}
	s.runs.mu.Unlock()
	if !kept {
		s.log.Warn("run taken over by another server; stopped here without saving", "ws", a.ws, "run", a.id)
		return
	}
	s.log.Info("run ended", "ws", a.ws, "run", a.id, "status", status, "problem", problem)
	// The end: the bar's final state and the list with the new accuracy, on every page.
	bg := context.Background()
	rec, body, lerr := s.loadRun(bg, a.ws, a.id)
	if lerr != nil {
		s.log.Warn("run ended but cannot be read back", "run", a.id, "err", lerr)
		return
	}
	rows, _ := s.runRows(bg, a.ws)
	s.publishRuns(a.ws, views.RunProgressRegion(s.progressOf(bg, rec, body)), views.RunListRegion(a.ws, rows))
}

func firstError(r *runner.Run) string {
	for _, c := range r.Calls {
		if c.Outcome == runner.OutError {
			return c.Error
		}
	}
	return ""
}

// snapshot is the run as far as it got.
func (a *activeRun) snapshot() *runner.Run {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.header == nil {
		return nil
	}
	r := &runner.Run{Header: *a.header, Calls: make([]runner.Call, 0, len(a.calls))}
	for _, c := range a.calls {
		r.Calls = append(r.Calls, c)
	}
	sort.Slice(r.Calls, func(i, j int) bool {
		x, y := r.Calls[i], r.Calls[j]
		return x.Task < y.Task || x.Task == y.Task && x.Sample < y.Sample
	})
	return r
}

// stampAfter is the Updated of a write that follows one at prev: now at the store's precision,
// and later than prev even when the clock has not moved on (or stepped back), so that every
// write is told apart from the one before it.
func stampAfter(prev time.Time) time.Time {
	if t := store.Now(); t.After(prev) {
		return t
	}
	return prev.UTC().Truncate(time.Microsecond).Add(time.Microsecond)
}

// record is the run's stored record with its finished calls; final, when given, is what
// Execute returned.
func (a *activeRun) record(status, problem string, final *runner.Run) store.Run {
	run := final
	if run == nil {
		run = a.snapshot()
	}
	rec := a.rec
	rec.Status = status
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	meta.Problem = problem
	if run != nil {
		sc := runner.ScoreRun(run)
		meta.Endpoint, meta.Model, meta.Samples = run.Header.Spec.Endpoint, run.Header.Spec.Model, run.Header.Spec.Samples
		meta.Tasks, meta.Done, meta.Total, meta.Errors = len(run.Header.Tasks), len(run.Calls), len(run.Header.Tasks)*run.Header.Spec.Samples, sc.Errors
		meta.TasksHash, meta.ListingHash, meta.Cached = run.Header.TasksHash, run.Header.ListingHash, sc.Cached
		meta.Accuracy = nil
		if sc.Scored > 0 {
			acc := sc.Accuracy
			meta.Accuracy = &acc
		}
	}
	a.mu.Lock()
	meta.LastErr = shortError(a.lastErr)
	a.mu.Unlock()
	rec.Meta = mustJSON(meta)
	rec.Body = mustJSON(runBody{Listing: a.listing, Run: run})
	return rec
}

// write stores rec over the record this process last wrote (a compare-and-swap on a.prev). Only
// the run's watch goroutine calls it, so a.prev needs no lock.
func (s *Server) write(ctx context.Context, a *activeRun, rec store.Run) error {
	rec.Updated = stampAfter(a.prev)
	out, err := s.runs.store.UpdateRun(ctx, rec, a.prev)
	if err != nil {
		return err
	}
	a.prev, a.renewed = out.Updated, out.Updated
	return nil
}

// touch is the heartbeat: it moves the run's Updated on, which renews its lease (runLease),
// without rewriting the run.
func (s *Server) touch(ctx context.Context, a *activeRun) error {
	at := stampAfter(a.prev)
	if err := s.runs.store.TouchRun(ctx, a.ws, a.id, a.prev, at); err != nil {
		return err
	}
	a.prev, a.renewed = at, at
	return nil
}

// persist saves the running run (full: its finished calls; else only its heartbeat) and
// returns why it must stop, if another process said so: errCancelled for a cancel asked from
// another replica, errTakenOver for a claim that is no longer this process's. A store that
// cannot be written leaves the run going while its lease holds (the next beat tries again),
// and stops it (errLeaseLost) one beat before other replicas would read it as interrupted.
func (s *Server) persist(a *activeRun, full bool) error {
	// Other replicas time the lease from the last stamp written (a.renewed): past the lease but
	// one beat, this process stops the run rather than keep calling the endpoint, so a write
	// may not wait longer than that.
	keepUntil := a.renewed.Add(s.runs.ownLease() - s.runs.cfg.SaveEvery)
	wait := min(s.runs.cfg.SaveEvery+5*time.Second, max(time.Until(keepUntil), 100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for attempt := 0; ; attempt++ {
		var err error
		if full {
			err = s.write(ctx, a, a.record(runRunning, "", nil))
		} else {
			err = s.touch(ctx, a)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt > 0 {
			s.log.Error("saving a run in progress", "run", a.id, "heartbeatOnly", !full, "err", err)
			if !time.Now().Before(keepUntil) {
				return errLeaseLost
			}
			return nil
		}
		if cause, ok := s.reconcile(ctx, a); !ok || cause != nil {
			return cause
		}
		// Still this process's run, written by this process (a write the store made although
		// it answered with an error): write again over what it holds.
	}
}

// saveFinal writes the run's end and returns the status stored, and false if it was not
// stored because the run is no longer this process's. A cancel asked from another replica
// while the run was ending makes it cancelled, unless every call was made (done: nothing was
// left to cancel, as when the run ends here just as Cancel is clicked).
func (s *Server) saveFinal(a *activeRun, status, problem string, run *runner.Run) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), s.runs.cfg.SaveEvery+10*time.Second)
	defer cancel()
	for attempt := 0; attempt < 3; attempt++ {
		err := s.write(ctx, a, a.record(status, problem, run))
		if err == nil {
			return status, true
		}
		if !errors.Is(err, store.ErrConflict) {
			s.log.Error("saving a run's end", "run", a.id, "status", status, "err", err)
			return status, true // its lease lapses and it reads as interrupted, with its last saved calls
		}
		cause, ok := s.reconcile(ctx, a)
		switch {
		case !ok:
			return status, true
		case errors.Is(cause, errTakenOver):
			return status, false
		case errors.Is(cause, errCancelled) && status != runDone:
			status, problem = runCancelled, ""
		}
	}
	s.log.Error("saving a run's end: the run kept changing under this server", "run", a.id, "status", status)
	return status, true
}

// reconcile reads the run again after one of this process's writes was refused because the
// run changed since (a Conflict), and says why it changed: errTakenOver if it is no longer this
// process's (another replica resumed it after this one missed its lease, or it is gone),
// errCancelled if a page on another replica asked to cancel it, nil if it is still this
// process's, as it wrote it. a.prev becomes the stored Updated, so that the next write (the
// cancelled run's end, or a retry) swaps against what the store holds. ok is false when the
// run could not be read; the run then goes on, and the next beat tries again.
func (s *Server) reconcile(ctx context.Context, a *activeRun) (cause error, ok bool) {
	rec, err := s.runs.store.Run(ctx, a.ws, a.id)
	if errors.Is(err, store.ErrNotFound) {
		return errTakenOver, true
	}
	if err != nil {
		s.log.Warn("reading a run after a refused save", "run", a.id, "err", err)
		return nil, false
	}
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	if meta.Claim != a.claim {
		return errTakenOver, true
	}
	a.prev = rec.Updated
	if rec.Status == runCancelling {
		return errCancelled, true
	}
	return nil, true
}

// claimRun takes a stored run for this process before resuming it: a compare-and-swap from the
// record as read (its Updated, which the lapsed lease says is stale) to running with a fresh
// claim. Two replicas resuming at once both read the same Updated, so only the first swap
// succeeds and the other answers 409; the same holds against the old owner coming back (its
// heartbeat moves Updated). No wait and no read-back: the store decides.
func (s *Server) claimRun(ctx context.Context, rec store.Run) (store.Run, error) {
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	meta.Claim, meta.BeatMS, meta.Problem = store.NewID(), s.runs.cfg.SaveEvery.Milliseconds(), ""
	prev := rec.Updated
	rec.Status, rec.Updated, rec.Meta = runRunning, stampAfter(prev), mustJSON(meta)
	out, err := s.runs.store.UpdateRun(ctx, rec, prev)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, store.ErrConflict):
		return rec, echo.NewHTTPError(http.StatusConflict,
			"This run changed while it was being resumed: another server resumed it at the same moment, or its own server saved it again. It was not resumed here; the list shows it as it is now.")
	case errors.Is(err, store.ErrNotFound):
		return rec, echo.NewHTTPError(http.StatusNotFound, "no such run")
	}
	return rec, fmt.Errorf("claim the run: %w", err)
}

// runLease is how long after its Updated a stored running run counts as alive.
// ownLease is the lease of the runs this process runs.
func (r *runs) ownLease() time.Duration { return max(runLeaseBeats*r.cfg.SaveEvery, runLeaseMin) }

func (r *runs) runLease(rec store.Run) time.Duration {
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	beat := time.Duration(meta.BeatMS) * time.Millisecond
	if beat <= 0 {
		beat = r.cfg.SaveEvery
	}
	return max(runLeaseBeats*beat, runLeaseMin)
}

// statusOf is how this process reads a stored run: run here, it is running; stored as running
// (or cancelling) by a process whose lease is live, it is alive elsewhere; once the lease has
// lapsed, it is interrupted (or cancelled, if a cancel was asked of it).
func (r *runs) statusOf(rec store.Run) (status string, elsewhere bool) {
	if r.get(rec.ID) != nil {
		return runRunning, false
	}
	if rec.Status != runRunning && rec.Status != runCancelling {
		return rec.Status, false
	}
	if time.Since(rec.Updated) < r.runLease(rec) {
		return rec.Status, true
	}
	if rec.Status == runCancelling {
		return runCancelled, false
	}
	return runInterrupted, false
}

// aliveMessage says why a run alive elsewhere cannot be resumed here.
func (r *runs) aliveMessage(rec store.Run) string {
	lease := r.runLease(rec)
	return fmt.Sprintf("This run is in progress on another server (last saved %s ago). It can be resumed here only after that server has not saved it for %s.",
		max(time.Since(rec.Updated), 0).Round(time.Second/10), lease.Round(time.Second/10))
}

// aliveIn returns a run of ws alive on another replica (without its body), if any.
func (r *runs) aliveIn(ctx context.Context, ws string) store.Run {
	list, err := r.store.Runs(ctx, ws)
	if err != nil {
		return store.Run{} // the start itself reports a store that cannot be read
	}
	for _, rec := range list {
		if _, elsewhere := r.statusOf(rec); elsewhere {
			return rec
		}
	}
	return store.Run{}
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

// ---- view models ----

func (s *Server) activeProgress(a *activeRun) views.RunProgress {
	p := a.job.Latest()
	a.mu.Lock()
	lastErr := a.lastErr
	total := p.Total
	if total == 0 && a.header != nil {
		total = len(a.header.Tasks) * a.header.Spec.Samples
	}
	a.mu.Unlock()
	return views.RunProgress{WS: a.ws, RunID: a.id, Active: true, Status: runRunning, Done: p.Done, Total: total,
		Errors: p.Errors, Cached: p.Cached, Resumed: p.Resumed, LastErr: lastErr}
}

// progressOf is the bar of a stored run.
func (s *Server) progressOf(_ context.Context, rec store.Run, body runBody) views.RunProgress {
	if a := s.runs.get(rec.ID); a != nil {
		return s.activeProgress(a)
	}
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	status, elsewhere := s.runs.statusOf(rec)
	p := views.RunProgress{WS: rec.Workspace, RunID: rec.ID, Status: status, Elsewhere: elsewhere, Total: meta.Total, Done: meta.Done,
		Errors: meta.Errors, Cached: meta.Cached, Message: meta.Problem}
	if meta.Errors > 0 && p.Message == "" {
		p.LastErr = meta.LastErr
	}
	if body.Run != nil {
		sc := runner.ScoreRun(body.Run)
		p.Done, p.Errors, p.Cached = len(body.Run.Calls), sc.Errors, sc.Cached
		if sc.Errors > 0 && p.Message == "" && p.LastErr == "" {
			p.LastErr = firstError(body.Run) // a run saved before its meta kept the latest
		}
	}
	return p
}

// runsModel is the whole Runs panel of a workspace.
func (s *Server) runsModel(ctx context.Context, ws Workspace, spec runner.Spec, epName string) (views.RunsPanel, error) {
	p := views.RunsPanel{WS: ws.ID}
	if len(s.runs.eps) == 0 {
		p.Configure = "No model endpoint is configured on this server. Start it with --endpoints FILE (or set WORKBENCH_ENDPOINTS), " +
			`a JSON file such as {"endpoints": [{"name": "local", "baseURL": "http://127.0.0.1:8080/v1", "model": "qwen3", "apiKeyEnv": ""}]}; ` +
			`a recording made with 'workbench run --record FILE' serves as an endpoint with no key: {"name": "workshop", "replay": "FILE"}.`
	}
	f := views.RunForm{WS: ws.ID, Cache: s.runs.cfg.Cache != nil, Samples: 1, MaxSamples: MaxRunSamples, Temperature: "0", SystemPrompt: runner.DefaultSystemPrompt,
		Tasks: len(ws.Tasks), Tools: len(ws.Listing.Tools), Endpoint: epName}
	if spec.Samples > 0 {
		f.Samples, f.Temperature, f.Shuffle, f.SystemPrompt = spec.Samples, strconv.FormatFloat(spec.Temperature, 'f', -1, 64), spec.Shuffle, spec.SystemPrompt
		if spec.Seed != nil {
			f.Seed = strconv.FormatInt(*spec.Seed, 10)
		}
	}
	for _, e := range s.runs.eps {
		info := e.Info()
		re := views.RunEndpoint{Name: info.Name, Model: info.Model, Host: info.Host, Replay: info.Replay, Problem: s.runs.problems[e.Name]}
		if c := s.runs.clients[e.Name]; c != nil {
			// A replay's model comes from its recording.
			re.Model = c.Endpoint().Model
		}
		f.Endpoints = append(f.Endpoints, re)
	}
	p.Form = f
	s.runs.mu.Lock()
	a := s.runs.byWS[ws.ID]
	lastID := s.runs.last[ws.ID]
	s.runs.mu.Unlock()
	list, rows, err := s.runList(ctx, ws.ID)
	if err != nil {
		return p, err
	}
	p.Runs = rows
	// A page that shows a run alive on another replica must see it turn interrupted if that
	// replica stops; no event would say so.
	s.watchLeases(ws.ID, list)
	var remote *store.Run // a run alive on another replica: the newest such is the bar's
	for i, r := range rows {
		if r.Elsewhere {
			remote = &list[i]
			break
		}
	}
	switch {
	case a != nil:
		p.Progress = s.activeProgress(a)
	case remote != nil:
		// From its meta: its calls are not needed for the bar, and may be megabytes.
		p.Progress = s.storedProgress(*remote)
	case lastID != "":
		if rec, body, err := s.loadRun(ctx, ws.ID, lastID); err == nil {
			p.Progress = s.progressOf(ctx, rec, body)
		}
	}
	return p, nil
}

func (s *Server) runRows(ctx context.Context, ws string) ([]views.RunRow, error) {
	_, rows, err := s.runList(ctx, ws)
	return rows, err
}

// runList reads ws's runs (without bodies) and their rows in the list.
func (s *Server) runList(ctx context.Context, ws string) ([]store.Run, []views.RunRow, error) {
	list, err := s.runs.store.Runs(ctx, ws)
	if err != nil {
		return nil, nil, fmt.Errorf("list runs: %w", err)
	}
	rows := make([]views.RunRow, 0, len(list))
	for _, r := range list {
		meta := runMeta{}
		_ = json.Unmarshal(r.Meta, &meta)
		row := views.RunRow{ID: r.ID, Label: r.Label, Endpoint: meta.Endpoint, Model: meta.Model, Status: r.Status,
			Created: r.Created.UTC().Format("2006-01-02 15:04:05 UTC"), Revision: r.Revision, Tasks: meta.Tasks, Samples: meta.Samples,
			Done: meta.Done, Total: meta.Total, Accuracy: stats.NoValue, Problem: meta.Problem}
		if meta.Accuracy != nil {
			row.Accuracy = stats.FormatProportion(*meta.Accuracy)
		}
		if a := s.runs.get(r.ID); a != nil {
			row.Active, row.Status = true, runRunning
			p := s.activeProgress(a)
			row.Done, row.Total = p.Done, p.Total
		} else {
			row.Status, row.Elsewhere = s.runs.statusOf(r)
		}
		idle := !row.Active && !row.Elsewhere
		row.Resumable = idle && meta.Done > 0 && (meta.Done < meta.Total || meta.Errors > 0) && row.Status != runDone ||
			idle && row.Status == runDone && meta.Errors > 0 && meta.Errors < meta.Done
		row.Replayable = meta.Done > 0
		rows = append(rows, row)
	}
	return list, rows, nil
}

// loadRun reads a stored run of the workspace; a run in progress is read as far as it got.
func (s *Server) loadRun(ctx context.Context, ws, id string) (store.Run, runBody, error) {
	var body runBody
	if a := s.runs.get(id); a != nil && a.ws == ws {
		rec := a.rec
		rec.Status = runRunning
		body = runBody{Listing: a.listing, Run: a.snapshot()}
		return rec, body, nil
	}
	rec, err := s.runs.store.Run(ctx, ws, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return rec, body, echo.NewHTTPError(http.StatusNotFound, "no such run")
		}
		return rec, body, fmt.Errorf("read run: %w", err)
	}
	if rec.Workspace != ws {
		return rec, body, echo.NewHTTPError(http.StatusNotFound, "no such run")
	}
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return rec, body, fmt.Errorf("run %s: the stored body cannot be read: %w", id, err)
	}
	return rec, body, nil
}

// resultModel formats a run's score for the page.
func (s *Server) resultModel(ctx context.Context, ws string, rec store.Run, body runBody) (views.RunResult, error) {
	m := views.RunResult{WS: ws, ID: rec.ID, Label: rec.Label}
	var elsewhere bool
	m.Status, elsewhere = s.runs.statusOf(rec)
	if elsewhere {
		m.Status += " on another server"
	}
	meta := runMeta{}
	_ = json.Unmarshal(rec.Meta, &meta)
	m.Problem = meta.Problem
	if body.Run == nil {
		if m.Problem == "" {
			m.Problem = "This run made no calls."
		}
		return m, nil
	}
	sc := runner.ScoreRun(body.Run)
	sp := sc.Spec
	m.Endpoint, m.Model, m.Samples, m.TaskCount = sp.Endpoint, sp.Model, sp.Samples, sc.Tasks
	m.Temperature = strconv.FormatFloat(sp.Temperature, 'f', -1, 64)
	m.Seed = "none"
	if sp.Seed != nil {
		m.Seed = strconv.FormatInt(*sp.Seed, 10)
	}
	m.Order = "as listed"
	if sp.Shuffle {
		m.Order = "shuffled per sample"
	}
	m.SystemPrompt = sp.SystemPrompt
	if sp.SystemPrompt == "" {
		m.SystemPrompt = "(none)"
	}
	m.Correct, m.Scored = sc.Correct, sc.Scored
	m.Accuracy, m.Interval = "n/a", "n/a"
	if sc.Scored > 0 {
		m.Accuracy = stats.FormatProportion(sc.Accuracy)
		m.Interval = stats.FormatRange(sc.Interval)
	}
	m.NoTool, m.NoToolDetail = "n/a", "no task expects no tool"
	if sc.NoTool.N > 0 {
		m.NoTool = stats.FormatProportion(sc.NoTool.Rate)
		m.NoToolDetail = fmt.Sprintf("%d/%d, 95%% CI %s", sc.NoTool.K, sc.NoTool.N, stats.FormatRange(sc.NoTool.Interval))
	}
	m.ArgsCalls, m.ArgsJSON, m.ArgsValid, m.ArgsMatched = sc.Args.Calls, sc.Args.JSON.String(), sc.Args.Valid.String(), sc.Args.Matched.String()
	m.Consistency, m.Unanimous = stats.FormatProportion(sc.Consistency), sc.Unanimous
	m.PromptTokens, m.PromptDetail = "n/a", "the endpoint reported no usage"
	if sc.Tokens.Calls > 0 {
		m.PromptTokens = fmt.Sprintf("%.0f", sc.Tokens.PromptMean)
		m.PromptDetail = fmt.Sprintf("mean per call, as the endpoint counts them (min %d, max %d, over %d calls)", sc.Tokens.PromptMin, sc.Tokens.PromptMax, sc.Tokens.Calls)
	}
	m.Estimate = "not computed"
	if sc.Tokens.Estimated != nil {
		m.Estimate = fmt.Sprintf("%d (%s)", *sc.Tokens.Estimated, sc.Tokens.EstimateFrom)
	}
	m.Latency = "n/a"
	if sc.Latency.Calls > 0 {
		m.Latency = fmt.Sprintf("mean %.0f ms, p50 %.0f ms, p95 %.0f ms", sc.Latency.MeanMS, sc.Latency.P50MS, sc.Latency.P95MS)
	}
	m.Errors, m.Cached, m.Missing = sc.Errors, sc.Cached, sc.Missing
	if sp.Shuffle && len(sc.ByPosition) > 0 {
		parts := make([]string, len(sc.ByPosition))
		for i, n := range sc.ByPosition {
			parts[i] = fmt.Sprintf("%d: %d", i+1, n)
		}
		m.ByPosition = strings.Join(parts, ", ")
	}
	kinds := map[string]int{}
	var order []string
	for _, c := range body.Run.Calls {
		if c.Outcome == runner.OutError {
			if kinds[c.Error] == 0 {
				order = append(order, c.Error)
			}
			kinds[c.Error]++
		}
	}
	for _, k := range order {
		m.ErrorKinds = append(m.ErrorKinds, views.RunErrorKind{Message: k, Count: kinds[k]})
	}
	for _, t := range sc.PerTool {
		m.PerTool = append(m.PerTool, views.RunToolRow{Name: t.Name, Known: t.Known, Expected: t.Expected, Chosen: t.Chosen,
			Correct: t.Correct, Precision: stats.FormatOptional(t.Precision), Recall: stats.FormatOptional(t.Recall), Share: stats.FormatProportion(t.Share)})
	}
	m.Labels, m.Matrix = sc.Confusion.Labels, sc.Confusion.Counts
	for _, t := range sc.PerTask {
		row := views.RunTaskRow{Index: t.Index, ID: t.ID, Task: t.Task, Expected: t.Expected, Correct: t.Correct, Scored: t.Scored,
			Agreement: strconv.FormatFloat(t.Agreement, 'f', 2, 64)}
		for _, ch := range t.Choices {
			row.Choices = append(row.Choices, views.RunChoice{Name: ch, Empty: ch == "", Error: ch == runner.ErrorChoice, Right: ch == t.Expected})
		}
		switch {
		case t.Scored == 0:
			row.Verdict = "error"
		case t.Correct == t.Scored:
			row.Verdict = "pass"
		case t.Correct*2 > t.Scored:
			row.Verdict = "warn"
		default:
			row.Verdict = "fail"
		}
		m.Tasks = append(m.Tasks, row)
	}
	// Baselines: other runs on the same tasks, endpoint and model.
	list, err := s.runs.store.Runs(ctx, ws)
	if err != nil {
		return m, fmt.Errorf("list runs: %w", err)
	}
	for _, r := range list {
		om := runMeta{}
		_ = json.Unmarshal(r.Meta, &om)
		if r.ID != rec.ID && om.Done > 0 && om.TasksHash == body.Run.Header.TasksHash && om.Endpoint == sp.Endpoint && om.Model == sp.Model {
			m.Baselines = append(m.Baselines, views.RunOption{ID: r.ID, Label: r.Label + " (" + r.Created.UTC().Format("15:04:05") + ")"})
		}
	}
	return m, nil
}

// compareModel sets cur against base.
func compareModel(base store.Run, baseBody runBody, cur store.Run, curBody runBody) views.RunCompare {
	out := views.RunCompare{BaseLabel: base.Label}
	if base.ID == cur.ID {
		out.Problem = "Pick another run than this one as the baseline."
		return out
	}
	if baseBody.Run == nil || curBody.Run == nil {
		out.Problem = "One of the runs made no calls, so there is nothing to compare."
		return out
	}
	cmp, err := runner.Compare(baseBody.Run, curBody.Run)
	if err != nil {
		out.Problem = "These runs cannot be compared: " + err.Error() + "."
		return out
	}
	out.Notes, out.SameListing = cmp.Notes, cmp.SameListing
	out.BaseAcc = stats.FormatProportion(cmp.BaselineAccuracy)
	out.CurAcc = stats.FormatProportion(cmp.CurrentAccuracy)
	out.Difference = fmt.Sprintf("%+.3f", cmp.Difference)
	out.Interval = stats.FormatDifference(cmp.Interval, cmp.Pairs.N())
	out.P = strconv.FormatFloat(cmp.McNemarP, 'g', 4, 64)
	out.Pairs, out.Fixed, out.Broken = cmp.Pairs.N(), cmp.Pairs.CurrentOnly, cmp.Pairs.BaseOnly
	for _, f := range cmp.Flipped {
		out.Flips = append(out.Flips, views.RunFlip{Index: f.Index, Task: f.Task, Expected: f.Expected, Before: f.Before, After: f.After, Fixed: f.Fixed})
	}
	for _, p := range cmp.Persuasive {
		out.Persuasive = append(out.Persuasive, views.RunShift{Tool: p.Tool, ShareBefore: stats.FormatProportion(p.ShareBefore),
			ShareAfter: stats.FormatProportion(p.ShareAfter), PrecisionBefore: stats.FormatOptional(p.PrecisionBefore), PrecisionAfter: stats.FormatOptional(p.PrecisionAfter)})
	}
	return out
}

// ---- the form ----

// readRunForm reads the run form's fields; problem says what was wrong and what would work.
func readRunForm(c echo.Context) (spec runner.Spec, endpoint, problem string) {
	spec = runner.Spec{Samples: 1, SystemPrompt: runner.DefaultSystemPrompt}
	if err := c.Request().ParseForm(); err != nil {
		return spec, "", "The run form could not be read: " + err.Error()
	}
	f := c.Request().PostForm
	endpoint = strings.TrimSpace(f.Get("endpoint"))
	if endpoint == "" {
		return spec, endpoint, "Choose an endpoint."
	}
	if v := strings.TrimSpace(f.Get("samples")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxRunSamples {
			return spec, endpoint, fmt.Sprintf("Samples per task must be a whole number from 1 to %d, not %q.", MaxRunSamples, shortText(v))
		}
		spec.Samples = n
	}
	if v := strings.TrimSpace(f.Get("temperature")); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(t) || t < 0 || t > 2 {
			return spec, endpoint, fmt.Sprintf("Temperature must be a number from 0 to 2, not %q.", shortText(v))
		}
		spec.Temperature = t
	}
	if v := strings.TrimSpace(f.Get("seed")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return spec, endpoint, fmt.Sprintf("The seed must be a whole number (or empty for none), not %q.", shortText(v))
		}
		spec.Seed = &n
	}
	spec.Shuffle = f.Get("shuffle") == "on"
	if _, ok := f["system"]; ok {
		spec.SystemPrompt = f.Get("system")
		if len(spec.SystemPrompt) > 16<<10 {
			return spec, endpoint, "The system prompt is over 16 KB; shorten it."
		}
	}
	return spec, endpoint, ""
}

// shortError bounds an error message kept in a run's meta.
func shortError(s string) string {
	if r := []rune(s); len(r) > 500 {
		return string(r[:500]) + "…"
	}
	return s
}

func shortText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err)) // only our own types, which always encode
	}
	return b
}
