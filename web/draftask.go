package web

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
)

// Every ask to a model from a dialog (Suggest rewrites, Propose tasks, Rubric) goes the same
// way: the workspace and the page's right to ask, the dialog's form read before the answer
// starts (HTTP/1 ends the request body once the response is flushed), its problems, then
// askModel: the call cap, the drafting gate, "Asking…", and the call under the drafting
// deadline. The Improve button shares the first step; its loop runs in the background.

// draftWorkspace is the request's workspace and why the page may not ask a model ("" when it
// may); err only for a workspace that cannot be read.
func (s *Server) draftWorkspace(c echo.Context) (ws Workspace, refused string, err error) {
	if ws, err = s.getWS(c); err != nil {
		return ws, "", err
	}
	refused, err = s.draftRefusal(c)
	return ws, refused, err
}

// firstProblem is the first non-empty problem, or "": a dialog shows one at a time.
func firstProblem(problems ...string) string {
	for _, p := range problems {
		if p != "" {
			return p
		}
	}
	return ""
}

// modelAsk is one ask once the dialog's own checks passed.
type modelAsk struct {
	job     string // for the log: "a suggestion"
	ws      string
	client  *runner.Client
	calls   int    // the plan's calls: the budget, and what "Asking…" promises
	what    string // what the calls are for, shown after their count ("" for nothing)
	overCap string // why the plan is refused before any call ("" when it is not)
	asking  func(line string)
}

// askModel runs ask and says what went wrong in the dialog's words ("" when nothing did): the
// plan over the cap, the gate full (no waiting: the dialog says the model is busy), or ask's
// error. A waiting ask gives back its request slot (draftgate.go says why).
func (s *Server) askModel(c echo.Context, a modelAsk, ask func(ctx context.Context, caller drafting.Caller) error) string {
	if a.overCap != "" {
		return a.overCap
	}
	leave, busy := s.draftGate.enter(a.ws)
	if busy != "" {
		return busy
	}
	defer leave()
	ctx := c.Request().Context()
	releaseSlot(ctx)
	name := a.client.Endpoint().Name
	line := fmt.Sprintf("Asking %s… (%s at most)", name, callsWord(a.calls))
	if a.what != "" {
		line = fmt.Sprintf("Asking %s… (%s at most: %s)", name, callsWord(a.calls), a.what)
	}
	a.asking(line)
	dctx, cancel := draftContext(ctx)
	defer cancel()
	if err := ask(dctx, drafting.Caller{Model: a.client, Budget: drafting.NewBudget(a.calls)}); err != nil {
		s.log.Info(a.job+" failed", "workspace", a.ws, "endpoint", name, "err", err)
		return draftProblem(dctx, err, name)
	}
	return ""
}
