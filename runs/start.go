package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// maxStarts bounds the attempts to start a run while others' edits keep landing first.
const maxStarts = 5

// Plan is what a run starts from: the workspace as read.
type Plan struct {
	Workspace string
	Revision  int   // the head revision, which the run names
	AsOf      int64 // the workspace's edit sequence number the listing and tasks were read at
	Author    string
	Listing   *listing.Listing
	Tasks     []selection.Task
}

// Request asks for a run of Plan's tasks on Endpoint.
type Request struct {
	Plan
	Endpoint string
	Spec     runner.Spec
	// NoCache sends every request even when the response cache has its answer.
	NoCache bool
	// Reread reads the workspace again, when an edit landed between the read of Plan and the
	// run's store: the run is started from that read instead, so that the revision it names
	// is the listing it sends.
	Reread func(context.Context) (Plan, error)
}

// Start stores a run of req and launches it in the background. It returns the run stored and
// the spec it runs with (a recording's endpoint imposes its own), also with a Refused error,
// whose message says why the run did not start.
func (s *Service) Start(ctx context.Context, req Request) (store.Run, runner.Spec, error) {
	spec := req.Spec
	client, msg := s.Client(req.Endpoint)
	if client == nil {
		return store.Run{}, spec, refused(msg)
	}
	var rec store.Run
	var src []byte
	plan := req.Plan
	for attempt := 1; ; attempt++ {
		var err error
		if spec, err = s.check(ctx, plan, req.Endpoint, spec, client); err != nil {
			return rec, spec, err
		}
		src = listing.Marshal(plan.Listing.Result(), "")
		rec, err = s.store.PutRun(ctx, s.newRecord(plan, client.Endpoint(), spec, src))
		if store.KindOf(err) == store.Conflict {
			if attempt == maxStarts {
				return rec, spec, refused("The workspace changed every time the run was about to start (others are typing). Try again in a moment.")
			}
			// An edit landed between the read and the start: the run would name a revision
			// holding something else. Read again and start from that.
			if plan, err = req.Reread(ctx); err != nil {
				return rec, spec, err
			}
			continue
		}
		if err != nil {
			return rec, spec, fmt.Errorf("store the run: %w", err)
		}
		break
	}
	ep := client.Endpoint()
	if err := s.launch(rec, src, plan.Listing, plan.Tasks, spec, client, nil, req.NoCache); err != nil {
		// Another run started in between: this one never ran; say so in the list too.
		prev := rec.Updated
		rec.Status, rec.Updated, rec.Meta = Failed, stampAfter(prev), MustJSON(Meta{Endpoint: ep.Name, Model: ep.Model, Samples: spec.Samples,
			Tasks: len(plan.Tasks), Total: len(plan.Tasks) * spec.Samples, Problem: err.Error()})
		if _, perr := s.store.UpdateRun(ctx, rec, prev); perr != nil {
			s.log.Warn("saving a run that did not start", "run", rec.ID, "err", perr)
		}
		return rec, spec, refused(err.Error())
	}
	s.log.Info("run started", "ws", plan.Workspace, "run", rec.ID, "endpoint", ep.Name, "tasks", len(plan.Tasks), "samples", spec.Samples)
	return rec, spec, nil
}

// check refuses a run of plan that cannot or should not start, and returns the spec it would
// run with.
func (s *Service) check(ctx context.Context, plan Plan, epName string, spec runner.Spec, client *runner.Client) (runner.Spec, error) {
	switch {
	case len(plan.Listing.Tools) == 0:
		return spec, refused("The listing has no tools to run the tasks against. Add a tool first.")
	case len(plan.Tasks) == 0:
		return spec, refused("The workspace has no tasks. Add tasks in the Tasks tab, or import a task file, then start the run.")
	}
	for i, t := range plan.Tasks {
		if strings.TrimSpace(t.Task) == "" {
			return spec, refused(fmt.Sprintf("Task %d has no text. Write it in the Tasks tab, or remove it.", i+1))
		}
	}
	if rec := client.Recording(); rec != nil && rec.Spec.Recorded() {
		// A run's recording answers only the requests it holds: its settings are the run's. (An
		// endpoint's "record" keeps no settings: each request it holds carries its own.)
		spec.Samples, spec.Temperature, spec.Seed = rec.Spec.Samples, rec.Spec.Temperature, rec.Spec.Seed
		spec.SystemPrompt, spec.Shuffle = rec.Spec.SystemPrompt, rec.Spec.Shuffle
		if h := runner.NewHeader(plan.Listing, plan.Tasks, spec); rec.Header.ListingHash != "" && h.ListingHash != rec.Header.ListingHash {
			return spec, refused(fmt.Sprintf("Endpoint %q answers from a recording made on other tools than this revision's, so it holds no answer to these requests. Import the listing the recording was made on (its tools: %s), or pick a live endpoint.",
				epName, strings.Join(rec.Header.Tools, ", ")))
		}
	}
	if n := len(plan.Tasks) * spec.Samples; n > s.cfg.MaxCalls {
		return spec, refused(fmt.Sprintf("%d tasks × %d samples is %d calls; the page runs up to %d at once. Lower the samples, or use 'workbench run' for a larger run.",
			len(plan.Tasks), spec.Samples, n, s.cfg.MaxCalls))
	}
	if a := s.ActiveIn(plan.Workspace); a != nil {
		return spec, refused("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
	}
	if other := s.aliveIn(ctx, plan.Workspace); other.ID != "" {
		return spec, refused("A run is already in progress on this workspace, on another server. Wait for it to finish, or cancel it.")
	}
	return spec, nil
}

// newRecord is the stored record of a run of plan about to start, claimed by this process.
func (s *Service) newRecord(plan Plan, ep runner.Endpoint, spec runner.Spec, src []byte) store.Run {
	now := time.Now().UTC()
	asOf := plan.AsOf
	return store.Run{Workspace: plan.Workspace, Revision: plan.Revision, AsOf: &asOf, Status: Running, Author: plan.Author,
		Label:   fmt.Sprintf("rev %d · %s · %d×%d", plan.Revision, ep.Name, len(plan.Tasks), spec.Samples),
		Created: now, Updated: now, Meta: MustJSON(Meta{Endpoint: ep.Name, Model: ep.Model, Samples: spec.Samples,
			Tasks: len(plan.Tasks), Total: len(plan.Tasks) * spec.Samples, Claim: store.NewID(), BeatMS: s.cfg.SaveEvery.Milliseconds()}),
		Body: MustJSON(Body{Listing: src})}
}

// Resume claims the stored run rec (read with its body) for this process and runs its missing
// calls. It returns the run as claimed and the spec it runs with. A Refused error says why it
// cannot be resumed; a Conflict, that the run is alive on another server (Notify was told
// that the workspace's runs are stale).
func (s *Service) Resume(ctx context.Context, rec store.Run, body Body) (store.Run, runner.Spec, error) {
	ws := rec.Workspace
	if s.ActiveIn(ws) != nil {
		return rec, runner.Spec{}, refused("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
	}
	if _, elsewhere := s.StatusOf(rec); elsewhere {
		// The page offered Resume from a stale view: bring it up to date as well as refusing.
		s.notify(ws, "", Stale)
		return rec, runner.Spec{}, conflict(s.aliveMessage(rec))
	}
	switch other := s.aliveIn(ctx, ws); {
	case other.ID == rec.ID:
		// Claimed by another replica since it was read.
		s.notify(ws, "", Stale)
		return rec, runner.Spec{}, conflict(s.aliveMessage(other))
	case other.ID != "":
		return rec, runner.Spec{}, refused("Another run on this workspace is in progress on another server. Wait for it to finish, or cancel it.")
	}
	if body.Run == nil {
		return rec, runner.Spec{}, refused("This run stopped before it sent anything; start a new run instead.")
	}
	spec := body.Run.Header.Spec
	client, msg := s.Client(spec.Endpoint)
	if client == nil {
		return rec, spec, refused(msg)
	}
	l, err := listing.Parse(body.Listing, listing.Options{Name: "run"})
	if err != nil {
		return rec, spec, refused("The stored listing of this run cannot be read back: " + err.Error())
	}
	if rec, err = s.claim(ctx, rec); err != nil {
		s.notify(ws, "", Stale)
		return rec, spec, err
	}
	if err := s.launch(rec, body.Listing, l, body.Run.Header.Tasks, spec, client, body.Run, false); err != nil {
		// Say so in the store too, or the claim would read as a live run for a lease.
		prev := rec.Updated
		rec.Status, rec.Updated = Interrupted, stampAfter(prev)
		if _, perr := s.store.UpdateRun(context.Background(), rec, prev); perr != nil {
			s.log.Warn("releasing a resume that did not start", "run", rec.ID, "err", perr)
		}
		return rec, spec, &Error{Kind: Refused, Msg: err.Error(), Run: &rec}
	}
	s.log.Info("run resumed", "ws", ws, "run", rec.ID, "kept", len(body.Run.Calls))
	return rec, spec, nil
}

// Cancel stops run id of workspace ws. Run here, it is stopped, and its end is saved and
// notified as it ends. Alive on another replica, a cancel is asked of it through the store
// (askCancel): the process running it learns of the request at its next write, ends the run
// as cancelled and saves it. Cancel returns the record of that request, or a zero one when
// nothing was written.
func (s *Service) Cancel(ctx context.Context, ws, id string) (store.Run, error) {
	if a := s.Get(id); a != nil && a.Workspace == ws {
		a.stop(errCancelled)
		return store.Run{}, nil
	}
	rec, err := s.askCancel(ctx, ws, id)
	if err != nil || rec.ID == "" {
		return rec, err
	}
	s.log.Info("run cancel requested of another server", "ws", ws, "run", rec.ID)
	return rec, nil
}

// Load reads a stored run of workspace ws with its body; a run in progress here is read as
// far as it got.
func (s *Service) Load(ctx context.Context, ws, id string) (store.Run, Body, error) {
	var body Body
	if a := s.Get(id); a != nil && a.Workspace == ws {
		rec := a.rec
		rec.Status = Running
		body = Body{Listing: a.listing, Run: a.Snapshot()}
		return rec, body, nil
	}
	rec, err := s.store.Run(ctx, ws, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return rec, body, errNoSuchRun
		}
		return rec, body, fmt.Errorf("read run: %w", err)
	}
	if rec.Workspace != ws {
		return rec, body, errNoSuchRun
	}
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return rec, body, fmt.Errorf("run %s: the stored body cannot be read: %w", id, err)
	}
	return rec, body, nil
}

// launch starts rec in the background; resume holds the calls of an earlier attempt, and
// noCache sends every request even when the response cache has its answer.
func (s *Service) launch(rec store.Run, src []byte, l *listing.Listing, tasks []selection.Task, spec runner.Spec, client *runner.Client, resume *runner.Run, noCache bool) error {
	ctx, stop := context.WithCancelCause(s.ctx)
	a := &Active{ID: rec.ID, Workspace: rec.Workspace, rec: rec, prev: rec.Updated, renewed: rec.Updated,
		claim: MetaOf(rec).Claim, listing: src, stop: stop, calls: map[[2]int]runner.Call{}}
	opts := runner.Options{Spec: spec, Resume: resume, Estimate: s.cfg.Estimate, NoCache: noCache}
	if resume != nil {
		for _, cl := range resume.Calls {
			a.calls[[2]int{cl.Task, cl.Sample}] = cl
		}
		h := resume.Header
		a.header = &h
	}
	opts.Start = a.started
	opts.Sink = func(cl runner.Call) error {
		a.finished(cl, s.cfg.FailFast)
		return nil
	}
	s.mu.Lock()
	if s.byWS[rec.Workspace] != nil {
		s.mu.Unlock()
		stop(nil)
		return errors.New("A run is already in progress on this workspace. Cancel it, or wait for it to finish.")
	}
	s.active[rec.ID] = a
	s.byWS[rec.Workspace] = a
	s.last[rec.Workspace] = rec.ID
	s.wg.Add(1)
	s.mu.Unlock()
	a.job = runner.Start(ctx, client, l, tasks, opts)
	// Every page, the one that asked included, learns of the run (Started), and before watch
	// can report anything: told in order, the end never arrives before the start. Told in the
	// start's own answer instead, a run quicker than the answer left the page showing it
	// running, with nothing more to come.
	s.notify(rec.Workspace, rec.ID, Started)
	go s.watch(ctx, a)
	return nil
}
