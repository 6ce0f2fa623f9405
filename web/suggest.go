package web

// Suggested rewrites (issue 18): the tool editor's "Suggest rewrites…" opens a dialog that asks
// a configured endpoint (the Runs tab's) for k rewrites of the tool's description, each scored
// by package drafting before anyone reads it. The candidates stay on the server (draftCache):
// the page names one by a random suggestion id and its number, so that no text a model wrote
// ever passes through a Datastar expression, and Accept applies drafting.Ops as one ordinary,
// undoable revision, refused when the tool changed since the suggestion.
//
// Time: the ask runs inside the request's deadline (Config.RequestTimeout, 60 s by default)
// rather than being exempt from it: the drafting context ends suggestMargin before the
// request's, so the answer always has time to say what happened; the endpoint client's own
// per-call timeout, its retries and the drafting.Budget bound the calls within that. A run of
// many tasks that cannot finish in time is stopped and said so, with what would work. While it
// waits on the model the ask holds a place in the drafting gate (draftgate.go: two per
// workspace, four per server, "busy" at once past them), not one of the server's request slots.

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// suggestMargin is the time the answer keeps for itself before the request's deadline.
const suggestMargin = 3 * time.Second

// suggestForm is what the Suggest dialog's form asks.
type suggestForm struct {
	endpoint string
	k        int
	params   bool
	run      bool
	samples  int
}

// readSuggestForm reads the form; problem says what was wrong and what would work.
func readSuggestForm(c echo.Context) (f suggestForm, problem string) {
	f = suggestForm{k: drafting.DefaultK, samples: 1}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 16<<10)
	if err := c.Request().ParseForm(); err != nil {
		return f, "The form could not be read: " + err.Error()
	}
	v := c.Request().PostForm
	f.endpoint = strings.TrimSpace(v.Get("endpoint"))
	f.params, f.run = v.Get("params") == "on", v.Get("run") == "on"
	if s := strings.TrimSpace(v.Get("k")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > drafting.MaxK {
			return f, fmt.Sprintf("Candidates must be a whole number from 1 to %d, not %q.", drafting.MaxK, shortText(s))
		}
		f.k = n
	}
	if s := strings.TrimSpace(v.Get("samples")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxRunSamples {
			return f, fmt.Sprintf("Samples per task must be a whole number from 1 to %d, not %q.", MaxRunSamples, shortText(s))
		}
		f.samples = n
	}
	if f.endpoint == "" {
		return f, "Choose an endpoint."
	}
	return f, ""
}

// request is the drafting request the form asks for tool t of ws.
func (f suggestForm) request(ws Workspace, t int) drafting.SuggestRequest {
	return drafting.SuggestRequest{Listing: ws.Listing, Tool: t, Tasks: ws.Tasks, K: f.k, Params: f.params, Run: f.run,
		Samples: f.samples, Spec: runner.Spec{Samples: f.samples, SystemPrompt: runner.DefaultSystemPrompt}}
}

// draftTool reads the tool a drafting request names (t, at the tools' shape g): its index, or
// why it cannot be used in words.
func draftTool(c echo.Context, ws Workspace) (int, string) {
	t, err := strconv.Atoi(c.QueryParam("t"))
	if err != nil || t < 0 || t >= len(ws.Listing.Tools) {
		return -1, "That tool no longer exists; pick a tool and ask again."
	}
	g, _, err := shapes(c, false)
	if err != nil || workspace.Stale(ws, g, nil, -1) {
		return -1, "Someone added, removed or moved a tool since this page was drawn; pick the tool again and ask again."
	}
	return t, ""
}

// draftRefusal says why this request may not ask a model ("" when it may): a view link, or a
// workshop participant's copy (teacherOnly: the server's endpoints and key are the teacher's).
func (s *Server) draftRefusal(c echo.Context) (string, error) {
	if err := s.requireEdit(c); err != nil {
		return "This workspace was shared with you read-only: a view link cannot ask a model for rewrites.", nil
	}
	var we *Error
	if err := s.teacherOnly(c); errors.As(err, &we) {
		return "This is your copy in a workshop: it is scored as it is, and asking a model is for the teacher.", nil
	} else if err != nil {
		return "", err
	}
	return "", nil
}

// endpointChoices are the configured endpoints as a page may see them, and the first usable.
func (s *Server) endpointChoices(ws Workspace) ([]views.RunEndpoint, string) {
	eps := s.runForm(ws, runner.Spec{}, "").Endpoints
	first := ""
	for _, e := range eps {
		if e.Problem == "" && first == "" {
			first = e.Name
		}
	}
	return eps, first
}

// suggestDialog opens the Suggest dialog for a tool, with the plan of the default ask.
func (s *Server) suggestDialog(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f := views.SuggestForm{WS: ws.ID, K: drafting.DefaultK, MaxK: drafting.MaxK, Samples: 1, MaxSamples: MaxRunSamples,
		Tasks: len(ws.Tasks), G: ws.ToolsShape}
	f.Refused, err = s.draftRefusal(c)
	if err != nil {
		return err
	}
	t, why := draftTool(c, ws)
	if f.Refused == "" {
		f.Refused = why
	}
	if t >= 0 {
		f.Tool, f.ToolName = t, ws.Listing.Tools[t].Get("name").String()
	}
	f.Endpoints, f.Endpoint = s.endpointChoices(ws)
	if len(f.Endpoints) == 0 {
		f.Configure = configureRuns
	}
	if f.Refused == "" && f.Configure == "" {
		f.Plan = planLine(suggestForm{k: f.K, samples: 1}.request(ws, t))
	}
	return patchDraft(c, views.SuggestDialog(f))
}

// planLine is the plan of a request, in the page's words; a plan over drafting.MaxCalls says
// so and what to lower.
func planLine(req drafting.SuggestRequest) views.SuggestPlan {
	p := drafting.PlanSuggest(req)
	return views.SuggestPlan{Calls: p.Calls, What: p.What, Problem: suggestOverCap(req, p.Calls)}
}

// overCap says why a plan of calls is refused ("" when it is within drafting.MaxCalls), with
// lower, what the person can lower.
func overCap(calls int, lower string) string {
	if calls <= drafting.MaxCalls {
		return ""
	}
	return fmt.Sprintf("This asks for %d model calls, more than the %d one ask may make, so nothing was asked: %s.",
		calls, drafting.MaxCalls, lower)
}

// suggestOverCap is overCap for a suggestion: a model run costs tasks × samples × (k+1) calls.
func suggestOverCap(req drafting.SuggestRequest, calls int) string {
	return overCap(calls, fmt.Sprintf("lower the candidates (now %d), the samples per task (now %d), or untick the model run "+
		"(it makes %d tasks × samples × (candidates + 1) calls)", req.K, max(req.Samples, 1), len(req.Tasks)))
}

// suggestPlan answers a change of the form with the plan of what it now asks.
func (s *Server) suggestPlan(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f, problem := readSuggestForm(c)
	p := views.SuggestPlan{Problem: problem}
	t, why := draftTool(c, ws)
	if p.Problem == "" {
		p.Problem = why
	}
	if p.Problem == "" {
		p = planLine(f.request(ws, t))
	}
	_ = newSSE(c).PatchElementTempl(views.SuggestPlanLine(p))
	return nil
}

// patchDraft opens a drafting dialog: a new one each time (replace mode, as the Fix preview).
func patchDraft(c echo.Context, comp templ.Component) error {
	_ = newSSE(c).PatchElementTempl(comp, datastar.WithModeReplace())
	return nil
}
