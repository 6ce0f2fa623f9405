package web

// The Rubric dialog (issue 18): the selected tool's six dimension scores with reasons and the
// listing's score weighted toward its worst tool. Offline (from the findings, no model) by
// default, labelled so; "Score with ENDPOINT" asks the endpoint, one call per tool the
// server-wide RubricCache does not hold for that model and the tool's content.

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/views"
)

// offlineLabel is how an offline rubric is labelled on the page.
const offlineLabel = "offline: from the findings"

// rubricDialog opens the Rubric dialog for a tool, scored offline.
func (s *Server) rubricDialog(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	t, why := draftTool(c, ws)
	if why != "" {
		return patchDraft(c, views.RubricDialog(views.RubricView{WS: ws.ID, Problem: why}))
	}
	ctx := c.Request().Context()
	eng, err := s.engineFor(s.profileOf(ctx, ws.ID))
	if err != nil {
		return err
	}
	rb, err := drafting.ScoreRubric(ctx, drafting.Caller{}, eng, ws.Listing, nil)
	if err != nil {
		return fmt.Errorf("offline rubric of workspace %s: %w", ws.ID, err)
	}
	v := rubricView(ws.ID, t, ws.Listing.Tools[t].Get("name").String(), rb)
	if refused, err := s.draftRefusal(c); err != nil {
		return err
	} else if refused == "" {
		v.Endpoints = s.rubricEndpoints(ws)
	}
	return patchDraft(c, views.RubricDialog(v))
}

// rubricEndpoints are the usable endpoints and the plan of scoring ws's listing with each.
func (s *Server) rubricEndpoints(ws Workspace) []views.RubricEndpoint {
	var out []views.RubricEndpoint
	eps, _ := s.endpointChoices(ws)
	for _, e := range eps {
		if client, _ := s.runs.Client(e.Name); client != nil {
			p := drafting.PlanRubric(ws.Listing, drafting.ModelKey(client), s.drafts.rubricCache())
			out = append(out, views.RubricEndpoint{Name: e.Name, Calls: p.Calls})
		}
	}
	return out
}

// rubricScore scores the listing with the form's endpoint and shows tool t's rubric.
func (s *Server) rubricScore(c echo.Context) error {
	ws, refused, err := s.draftWorkspace(c)
	if err != nil {
		return err
	}
	// The form is read before the answer starts (draftask.go says why), up to 16 KiB as the
	// other drafting forms are: it holds an endpoint's name and nothing more.
	why := ""
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 16<<10)
	if err := c.Request().ParseForm(); err != nil {
		why = "The form could not be read: " + err.Error()
	}
	client, noClient := s.runs.Client(c.Request().PostForm.Get("endpoint"))
	sse := newSSE(c)
	show := func(r views.RubricView) { r.WS = ws.ID; _ = sse.PatchElementTempl(views.RubricResultRegion(r)) }
	t, err := strconv.Atoi(c.QueryParam("t"))
	if why == "" && (err != nil || t < 0 || t >= len(ws.Listing.Tools)) {
		why = "That tool no longer exists; pick a tool and open the rubric again."
	}
	if p := firstProblem(refused, why, noClient); p != "" {
		show(views.RubricView{Problem: p})
		return nil
	}
	eng, err := s.engineFor(s.profileOf(c.Request().Context(), ws.ID))
	if err != nil {
		return err
	}
	cache := s.drafts.rubricCache()
	plan := drafting.PlanRubric(ws.Listing, drafting.ModelKey(client), cache)
	var rb *drafting.Rubric
	if p := s.askModel(c, modelAsk{job: "a rubric", ws: ws.ID, client: client, calls: plan.Calls, what: plan.What,
		overCap: rubricOverCap(plan.Calls), asking: func(line string) { show(views.RubricView{Problem: line}) }},
		func(ctx context.Context, caller drafting.Caller) (err error) {
			rb, err = drafting.ScoreRubric(ctx, caller, eng, ws.Listing, cache)
			return err
		}); p != "" {
		show(views.RubricView{Problem: p})
		return nil
	}
	_ = sse.PatchElementTempl(views.RubricResultRegion(rubricView(ws.ID, t, ws.Listing.Tools[t].Get("name").String(), rb)))
	// The tools scored are kept now: each endpoint's "at most N calls" says so at once.
	for i, e := range s.rubricEndpoints(ws) {
		_ = sse.PatchElementTempl(views.RubricPlanLine(i, e))
	}
	return nil
}

// rubricOverCap refuses a rubric of more unscored tools than drafting.MaxCalls: it is one
// call per tool the cache does not hold, and the listing's score needs every tool, so the page
// refuses rather than score a part (the offline rubric stays on the page).
func rubricOverCap(calls int) string {
	return overCap(calls, fmt.Sprintf("the listing has %d tools not scored by this model before, one call each; "+
		"the offline rubric above needs no call, or score a smaller listing (split it into workspaces of at most %d tools)",
		calls, drafting.MaxCalls))
}

// rubricView is tool t's rubric and the listing's score.
func rubricView(ws string, t int, name string, rb *drafting.Rubric) views.RubricView {
	v := views.RubricView{WS: ws, Tool: name, ToolIndex: t, Score: rb.Score, Worst: rb.Worst, Label: rb.Label, Offline: rb.Offline, Calls: rb.Calls}
	if v.Label == "" || strings.HasPrefix(v.Label, "offline") {
		v.Label = offlineLabel // no model was asked
	}
	var tr *drafting.ToolRubric
	if t < len(rb.Tools) && rb.Tools[t].Tool == name {
		tr = &rb.Tools[t]
	} else {
		for i := range rb.Tools {
			if rb.Tools[i].Tool == name {
				tr = &rb.Tools[i]
				break
			}
		}
	}
	if tr == nil {
		v.Problem = "This tool has no rubric score."
		return v
	}
	v.Mean = tr.Mean
	if tr.Offline && !rb.Offline {
		v.Label = offlineLabel + " (the model's score is missing for this tool)"
	}
	if tr.Problem != "" {
		v.Problem = tr.Problem
	}
	names := map[string]drafting.Dimension{}
	for _, d := range drafting.Dimensions {
		names[d.ID] = d
	}
	for _, d := range tr.Dims {
		dim := names[d.ID]
		v.Dims = append(v.Dims, views.RubricDim{Name: dim.Name, Question: dim.Question, Reason: d.Reason, Score: d.Score})
	}
	return v
}
