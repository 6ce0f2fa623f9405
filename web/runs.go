package web

// Model runs from the workspace page: the Runs tab starts a run of the workspace's tasks on its
// current revision against an endpoint configured on the server, shows its progress on every
// page on the workspace, shows the scores, compares two runs, and hands out a run's recording.
// The lifecycle (start, watch, save, lease, resume, cancel) is package runs; this file is its
// HTTP: it reads the form, calls the service and renders the answer. The browser only ever sees
// runner.Endpoint.Info: names, models and hosts, never a key or a header value.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// RunStore is what runs need of the store: store.Store is one.
type RunStore = runsvc.Store

// RunsConfig configures model runs from the workspace page. The zero value offers no endpoint:
// the Runs tab then says how to configure one.
type RunsConfig = runsvc.Config

// MaxRunSamples bounds the samples per task from the page.
const MaxRunSamples = runsvc.MaxSamples

// runs is the Server's model runs: the lifecycle, and the timers that tell the pages when a
// run alive on another replica may have stopped (runs_live.go).
type runs struct {
	*runsvc.Service
	local localEvents // the hub forgets a workspace's pending events as it subscribes

	mu    sync.Mutex
	lapse map[string]*time.Timer // workspace → when a run alive elsewhere may lapse
}

// localEvents is the hub's handle on the count of this process's own run events.
type localEvents struct{ svc *runsvc.Service }

func (l localEvents) forget(ws string) { l.svc.ForgetEvents(ws) }

// newRuns returns the runs of this server over st; they tell its pages of changes (runsChanged).
func (s *Server) newRuns(cfg RunsConfig, st RunStore) *runs {
	svc := runsvc.New(cfg, st, s.runsChanged, s.log)
	return &runs{Service: svc, local: localEvents{svc}, lapse: map[string]*time.Timer{}}
}

// WaitRuns blocks until every run in progress has ended and been saved (tests, shutdown).
func (s *Server) WaitRuns() { s.runs.Wait() }

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
			return fail(NotFound, "no such run")
		}
		return next(c)
	}
}

// runFail gives an error of the runs service its kind of page failure; other errors pass.
func runFail(err error) error {
	var re *runsvc.Error
	if !errors.As(err, &re) {
		return err
	}
	switch re.Kind {
	case runsvc.NotFound:
		return fail(NotFound, re.Msg)
	case runsvc.Conflict:
		return fail(Conflict, re.Msg)
	}
	return fail(BadRequest, re.Msg)
}

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

// startRun reads the run form and starts a run on the workspace's current revision. A refusal
// comes back in the form; the run's progress reaches every page over its stream.
func (s *Server) startRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 256<<10)
	spec, epName, problem := readRunForm(c)
	if problem != "" {
		return s.refuseStart(c, ws, spec, epName, problem)
	}
	author, _ := s.identity(c)
	req := runsvc.Request{Plan: runPlan(ws, author), Endpoint: epName, Spec: spec,
		NoCache: c.Request().PostForm.Get("nocache") == "on"}
	req.Reread = func(context.Context) (runsvc.Plan, error) {
		// The refusal or the answer shows the workspace as last read.
		if ws, err = s.getWS(c); err != nil {
			return runsvc.Plan{}, err
		}
		return runPlan(ws, author), nil
	}
	rec, spec, err := s.runs.Start(ctx, req)
	var re *runsvc.Error
	if errors.As(err, &re) && re.Kind == runsvc.Refused {
		return s.refuseStart(c, ws, spec, epName, re.Msg)
	}
	if err != nil {
		return runFail(err)
	}
	return s.answerRunsChanged(c, ws, spec, epName, rec)
}

// runPlan is what a run of ws starts from.
func runPlan(ws Workspace, author string) runsvc.Plan {
	return runsvc.Plan{Workspace: ws.ID, Revision: ws.Head, AsOf: int64(ws.Version), Author: author,
		Listing: ws.Listing, Tasks: ws.Tasks}
}

// refuseStart answers a start that did not happen with the form, as sent, saying why.
func (s *Server) refuseStart(c echo.Context, ws Workspace, spec runner.Spec, epName, msg string) error {
	p, err := s.runsModel(c.Request().Context(), ws, spec, epName)
	if err != nil {
		return err
	}
	p.Form.Problem = msg
	_ = newSSE(c).PatchElementTempl(views.RunFormRegion(p.Form))
	return nil
}

// answerRunsChanged answers a start or resume of rec with the form, its problem cleared and
// naming the run; the progress bar and the list reach every page over its stream (runsChanged).
func (s *Server) answerRunsChanged(c echo.Context, ws Workspace, spec runner.Spec, epName string, rec store.Run) error {
	p, err := s.runsModel(c.Request().Context(), ws, spec, epName)
	if err != nil {
		return err
	}
	p.Form.Started, p.Form.StartedLabel = rec.ID, rec.Label
	_ = newSSE(c).PatchElementTempl(views.RunFormRegion(p.Form))
	return nil
}

// cancelRun stops a run here, or asks its server to through the store. The page learns of the
// end from its stream.
func (s *Server) cancelRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	rec, err := s.runs.Cancel(ctx, ws.ID, c.Param("run"))
	if err != nil {
		return runFail(err)
	}
	if rec.ID != "" {
		// This process's own write raises no page update here (its event is counted as its
		// own): show the request now.
		if rows, err := s.runRows(ctx, ws.ID); err == nil {
			s.publishRuns(ws.ID, views.RunProgressRegion(s.storedProgress(rec)), views.RunListRegion(ws.ID, rows))
		}
	}
	return c.NoContent(http.StatusNoContent)
}

// resumeRun runs a stored run's missing calls here. A refusal comes back in its bar.
func (s *Server) resumeRun(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
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
	claimed, spec, err := s.runs.Resume(ctx, rec, body)
	var re *runsvc.Error
	if errors.As(err, &re) && re.Kind == runsvc.Refused {
		if re.Run != nil {
			rec = *re.Run
		}
		p := s.progressOf(ctx, rec, body)
		p.Message = re.Msg
		_ = newSSE(c).PatchElementTempl(views.RunProgressRegion(p))
		return nil
	}
	if err != nil {
		return runFail(err)
	}
	return s.answerRunsChanged(c, ws, spec, spec.Endpoint, claimed)
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
		return fail(NotFound, "this run made no calls, so it has no recording")
	}
	b, err := json.MarshalIndent(runner.NewRecording(body.Run), "", " ")
	if err != nil {
		return fmt.Errorf("encode the recording: %w", err)
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="recording-%s.json"`, rec.ID[:8]))
	return c.Blob(http.StatusOK, "application/json", append(b, '\n'))
}

// loadRun reads a stored run of the workspace; a run in progress is read as far as it got.
func (s *Server) loadRun(ctx context.Context, ws, id string) (store.Run, runsvc.Body, error) {
	rec, body, err := s.runs.Load(ctx, ws, id)
	return rec, body, runFail(err)
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

func shortText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
