package web

// "Improve with a model…" (issue 18): the Tasks tab's button opens a dialog that shows the
// plan of calls (drafting.PlanImprove, ImproveFloor) before it starts; Start runs
// drafting.Improve in the background (improve_jobs.go) and answers at once; the dialog polls
// the job's status, a small route, once a second while it runs. When it ends the dialog shows
// the report, and only when held-out accuracy rose an Apply button that stores the changed
// tools' descriptions as one ordinary, undoable revision, made under the store's lock from the
// head and refused when those tools changed since the loop read them.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/views"
)

const (
	// maxImproveRounds bounds the rounds a page may ask (the CLI allows drafting.MaxRounds).
	maxImproveRounds = 5
	// maxImproveSamples bounds the samples per task a page may ask.
	maxImproveSamples = 5
	// defaultImproveCalls is the budget unless the form gives another (or the plan is smaller).
	defaultImproveCalls = 200
	// maxImproveCalls bounds the budget a page may give.
	maxImproveCalls = 5000
)

func (s *Server) improveRoutes(w *echo.Group) {
	w.GET("/tasks/improve", s.improveDialog)
	w.POST("/tasks/improve/plan", s.improvePlan)
	w.POST("/tasks/improve", s.improveStart)
	w.GET("/tasks/improve/:jid", s.improveStatus)
	w.POST("/tasks/improve/:jid/cancel", s.improveCancel)
	w.POST("/tasks/improve/:jid/apply", s.improveApply)
}

// improveForm is what the Improve dialog's form asks.
type improveForm struct {
	endpoint string
	rounds   int
	samples  int
	heldOut  float64
	maxCalls int // 0: the default, min(plan, defaultImproveCalls)
}

// readImproveForm reads the form; problem says what was wrong and what would work.
func readImproveForm(c echo.Context) (f improveForm, problem string) {
	f = improveForm{rounds: drafting.DefaultRounds, samples: 1, heldOut: drafting.DefaultHeldOut}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 16<<10)
	if err := c.Request().ParseForm(); err != nil {
		return f, "The form could not be read: " + err.Error()
	}
	v := c.Request().PostForm
	f.endpoint = strings.TrimSpace(v.Get("endpoint"))
	for _, n := range []struct {
		field, what string
		to          *int
		lo, hi      int
	}{
		{"rounds", "Rounds", &f.rounds, 1, maxImproveRounds},
		{"samples", "Samples per task", &f.samples, 1, maxImproveSamples},
		{"maxcalls", "Max calls", &f.maxCalls, 1, maxImproveCalls},
	} {
		s := strings.TrimSpace(v.Get(n.field))
		if s == "" {
			continue
		}
		x, err := strconv.Atoi(s)
		if err != nil || x < n.lo || x > n.hi {
			return f, fmt.Sprintf("%s must be a whole number from %d to %d, not %q.", n.what, n.lo, n.hi, shortText(s))
		}
		*n.to = x
	}
	if s := strings.TrimSpace(v.Get("heldout")); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || x < 0.1 || x > 0.9 {
			return f, fmt.Sprintf("The held-out share must be a number from 0.1 to 0.9, such as 0.5, not %q.", shortText(s))
		}
		f.heldOut = x
	}
	if f.endpoint == "" {
		return f, "Choose an endpoint."
	}
	return f, ""
}

// options are the loop's options for the form, with the spec of the endpoint's runs.
func (f improveForm) options(ep runner.Endpoint) drafting.ImproveOptions {
	seed := int64(drafting.DefaultImproveSeed)
	return drafting.ImproveOptions{Rounds: f.rounds, Samples: f.samples, HeldOut: f.heldOut,
		Spec: runner.Spec{Endpoint: ep.Name, Model: ep.Model, Samples: f.samples, Seed: &seed, SystemPrompt: runner.DefaultSystemPrompt}}
}

// plan is the form's plan of calls, and the budget it gives (the default when it gives none).
func (f improveForm) plan(ws Workspace) (views.ImprovePlan, int) {
	o := f.options(runner.Endpoint{})
	p := drafting.PlanImprove(ws.Listing, ws.Tasks, o)
	base, final := drafting.ImproveFloor(ws.Tasks, o)
	budget := f.maxCalls
	if budget == 0 {
		budget = min(p.Calls, defaultImproveCalls)
	}
	v := views.ImprovePlan{Calls: p.Calls, Floor: base + final, Budget: budget, What: p.What}
	switch {
	case len(ws.Tasks) < 2:
		v.Problem = "The loop needs a task file of at least two tasks (two per tool is best): add tasks first."
	case budget < base+final:
		v.Problem = fmt.Sprintf("The budget of %d calls cannot pay for the baseline run of every task (%d calls) and the final run of the held-out tasks (%d calls); give %d or more, or fewer samples.",
			budget, base, final, base+final)
	}
	return v, budget
}

// improveDialog opens the Improve dialog: the form with its plan, and the workspace's
// improvement when one runs or ended lately.
func (s *Server) improveDialog(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f := views.ImproveForm{WS: ws.ID, Rounds: drafting.DefaultRounds, MaxRounds: maxImproveRounds, Samples: 1,
		MaxSample: maxImproveSamples, HeldOut: strconv.FormatFloat(drafting.DefaultHeldOut, 'g', -1, 64), Tasks: len(ws.Tasks)}
	if f.Refused, err = s.draftRefusal(c); err != nil {
		return err
	}
	f.Endpoints, f.Endpoint = s.endpointChoices(ws)
	if len(f.Endpoints) == 0 {
		f.Configure = configureRuns
	}
	if f.Refused == "" && f.Configure == "" {
		form := improveForm{rounds: f.Rounds, samples: 1, heldOut: drafting.DefaultHeldOut}
		f.Plan, f.MaxCalls = form.plan(ws)
		f.Status = views.ImproveStatus{WS: ws.ID}
		if j := s.drafts.improves.get(ws.ID, s.drafts.now()); j != nil {
			f.Status = s.improveView(j)
		}
	}
	return patchDraft(c, views.ImproveDialog(f))
}

// improvePlan answers a change of the form with the plan of what it now asks.
func (s *Server) improvePlan(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f, problem := readImproveForm(c)
	p, _ := f.plan(ws)
	if problem != "" {
		p.Problem = problem
	}
	_ = newSSE(c).PatchElementTempl(views.ImprovePlanLine(p))
	return nil
}

// patchImprove patches the dialog's status region.
func patchImprove(c echo.Context, st views.ImproveStatus) error {
	_ = newSSE(c).PatchElementTempl(views.ImproveStatusRegion(st))
	return nil
}

// improveStart starts the loop in the background and answers with its status at once.
func (s *Server) improveStart(c echo.Context) error {
	ws, refused, err := s.draftWorkspace(c)
	if err != nil {
		return err
	}
	f, problem := readImproveForm(c) // before the answer starts (draftask.go says why)
	plan, budget := f.plan(ws)
	client, noClient := s.runs.Client(f.endpoint)
	if p := firstProblem(refused, problem, plan.Problem, noClient); p != "" {
		return patchImprove(c, views.ImproveStatus{WS: ws.ID, Problem: p})
	}
	ctx := c.Request().Context()
	eng, err := s.engineFor(s.profileOf(ctx, ws.ID))
	if err != nil {
		return err
	}
	ep := client.Endpoint()
	life, done, open := s.drafts.improves.life.start()
	if !open {
		return patchImprove(c, views.ImproveStatus{WS: ws.ID, Problem: "The server is shutting down; start the improvement again once it is back."})
	}
	jctx, cancel := context.WithTimeout(s.runs.Context(), improveTimeout)
	stop := context.AfterFunc(life, cancel) // Server.Close ends the loop
	j := &improveJob{id: NewID(), ws: ws.ID, endpoint: ep.Name, orig: snapshotTools(ws.Listing), cancel: cancel, running: true}
	if why := s.drafts.improves.add(j, s.drafts.now()); why != "" {
		cancel()
		stop()
		done()
		// The workspace's own job, running, stays in view (its poll goes on) with why.
		st := views.ImproveStatus{WS: ws.ID}
		if o := s.drafts.improves.get(ws.ID, s.drafts.now()); o != nil {
			st = s.improveView(o)
		}
		st.Problem = why
		return patchImprove(c, st)
	}
	j.progress(fmt.Sprintf("plan: at most %d calls, budget %d", plan.Calls, budget))
	opts := f.options(ep)
	opts.Progress = j.progress
	caller := drafting.Caller{Model: client, Budget: drafting.NewBudget(budget)}
	l, tasks := ws.Listing, ws.Tasks
	go func() {
		defer done() // last: Close waits for this
		defer stop()
		defer cancel()
		rep, problem := s.runImprove(jctx, caller, eng, l, tasks, opts, ep.Name)
		j.finish(rep, problem, s.drafts.now())
		if rep != nil {
			s.log.Info("an improvement ended", "workspace", j.ws, "endpoint", ep.Name, "improved", rep.Improved, "calls", rep.Calls)
		}
	}()
	return patchImprove(c, s.improveView(j))
}

// runImprove runs the loop, and says in words what went wrong ("" when nothing did). A panic
// in the loop ends the job with a problem rather than the server.
func (s *Server) runImprove(ctx context.Context, caller drafting.Caller, eng *analysis.Engine, l *listing.Listing,
	tasks []selection.Task, opts drafting.ImproveOptions, name string) (rep *drafting.ImproveReport, problem string) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("the improvement loop panicked", "endpoint", name, "panic", fmt.Sprint(r))
			rep, problem = nil, "The improvement stopped on an internal error; the server's log has it."
		}
	}()
	rep, err := drafting.Improve(ctx, caller, eng, l, tasks, opts)
	switch {
	case err == nil:
		return rep, ""
	case errors.Is(ctx.Err(), context.Canceled):
		return rep, "Cancelled: the improvement was stopped before it ended, and nothing was changed."
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return rep, fmt.Sprintf("Stopped after %s, the most one improvement may take: try fewer rounds, samples or calls.", improveTimeout)
	case errors.Is(err, drafting.ErrCannotImprove):
		return rep, oneLine(err.Error(), 600)
	}
	return rep, draftProblem(ctx, err, name)
}

// improveJobOf is the job the request names, or nil when it is no longer kept.
func (s *Server) improveJobOf(c echo.Context) (*improveJob, error) {
	jid := c.Param("jid")
	if !wsIDPattern.MatchString(jid) {
		return nil, fail(NotFound, "no such improvement")
	}
	j := s.drafts.improves.get(c.Param("id"), s.drafts.now())
	if j == nil || j.id != jid {
		return nil, nil
	}
	return j, nil
}

// gone is the status of a job no longer kept.
func improveGone(ws string) views.ImproveStatus {
	return views.ImproveStatus{WS: ws, Problem: "This improvement is no longer kept (an ended one is kept for 30 minutes, and a new one replaces it); start again."}
}

// improveStatus answers the dialog's poll with the job's state.
func (s *Server) improveStatus(c echo.Context) error {
	if refused, err := s.draftRefusal(c); err != nil || refused != "" {
		if err == nil {
			err = fail(Forbidden, refused)
		}
		return err
	}
	j, err := s.improveJobOf(c)
	if err != nil {
		return err
	}
	if j == nil {
		return patchImprove(c, improveGone(c.Param("id")))
	}
	return patchImprove(c, s.improveView(j))
}

// improveCancel stops a running job; its report says so.
func (s *Server) improveCancel(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	j, err := s.improveJobOf(c)
	if err != nil {
		return err
	}
	if j == nil {
		return patchImprove(c, improveGone(c.Param("id")))
	}
	j.mu.Lock()
	if j.running {
		j.canceled = true
		j.addLine("cancelling…")
	}
	j.mu.Unlock()
	j.cancel()
	return patchImprove(c, s.improveView(j))
}
