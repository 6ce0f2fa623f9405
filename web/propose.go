package web

// Proposed tasks (issue 18): the Tasks tab's "Propose tasks…" asks a configured endpoint for
// tasks that never name their tool, confusion tasks and tasks no tool should take
// (drafting.GenerateTasks). The proposals stay on the server (draftCache); the page sends back
// the indexes it ticked, and the ticked ones land in the task file as one revision.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// maxPerTool bounds the tasks of each kind asked per tool from the page.
const maxPerTool = 5

// proposeReq reads the Propose form: the endpoint, and the request it asks.
func proposeReq(c echo.Context, ws Workspace) (string, drafting.TasksRequest, string) {
	req := drafting.TasksRequest{Listing: ws.Listing, Existing: ws.Tasks, PerTool: drafting.DefaultPerTool}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 16<<10)
	if err := c.Request().ParseForm(); err != nil {
		return "", req, "The form could not be read: " + err.Error()
	}
	f := c.Request().PostForm
	if s := strings.TrimSpace(f.Get("per")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPerTool {
			return "", req, fmt.Sprintf("Tasks of each kind per tool must be a whole number from 1 to %d, not %q.", maxPerTool, shortText(s))
		}
		req.PerTool = n
	}
	if f.Get("only") == "on" {
		name := f.Get("tool")
		if !slices.Contains(ws.Listing.Names(), name) {
			return "", req, "That tool is no longer in the listing; untick “only for” or pick the tool again."
		}
		req.Tools = []string{name}
	}
	ep := strings.TrimSpace(f.Get("endpoint"))
	if ep == "" {
		return "", req, "Choose an endpoint."
	}
	return ep, req, ""
}

// proposeDialog opens the Propose tasks dialog, offering the selected tool ($tool) as a scope.
func (s *Server) proposeDialog(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		sg.Tool = -1 // no selection sent: the whole listing is the only scope offered
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f := views.ProposeForm{WS: ws.ID, PerTool: drafting.DefaultPerTool, Result: views.ProposeResult{WS: ws.ID}}
	if f.Refused, err = s.draftRefusal(c); err != nil {
		return err
	}
	if sg.Tool >= 0 && sg.Tool < len(ws.Listing.Tools) {
		f.Tool = ws.Listing.Tools[sg.Tool].Get("name").String()
	}
	f.Endpoints, f.Endpoint = s.endpointChoices(ws)
	if len(f.Endpoints) == 0 {
		f.Configure = configureRuns
	}
	if f.Refused == "" && f.Configure == "" {
		p := drafting.PlanTasks(drafting.TasksRequest{Listing: ws.Listing, Existing: ws.Tasks, PerTool: f.PerTool})
		f.Plan = views.SuggestPlan{Calls: p.Calls, What: p.What}
	}
	return patchDraft(c, views.ProposeDialog(f))
}

// proposeAsk answers the form: its plan (plan=1, as the form changes), or the proposals.
func (s *Server) proposeAsk(c echo.Context) error {
	ws, refused, err := s.draftWorkspace(c)
	if err != nil {
		return err
	}
	ep, req, problem := proposeReq(c, ws) // before the answer starts (draftask.go says why)
	sse := newSSE(c)
	plan := drafting.PlanTasks(req)
	if c.QueryParam("plan") == "1" {
		_ = sse.PatchElementTempl(views.ProposePlanLine(views.SuggestPlan{Calls: plan.Calls, What: plan.What, Problem: problem}))
		return nil
	}
	show := func(r views.ProposeResult) { r.WS = ws.ID; _ = sse.PatchElementTempl(views.ProposeResultRegion(r)) }
	client, noClient := s.runs.Client(ep)
	if p := firstProblem(refused, problem, noClient); p != "" {
		show(views.ProposeResult{Problem: p})
		return nil
	}
	var props *drafting.Proposals
	if p := s.askModel(c, modelAsk{job: "a task proposal", ws: ws.ID, client: client, calls: plan.Calls,
		overCap: overCap(plan.Calls, "ask for fewer tasks per tool, or only for one tool"),
		asking:  func(line string) { show(views.ProposeResult{Asking: line}) }},
		func(ctx context.Context, caller drafting.Caller) (err error) {
			props, err = drafting.GenerateTasks(ctx, caller, req)
			return err
		}); p != "" {
		show(views.ProposeResult{Problem: p})
		return nil
	}
	pid := NewID()
	s.drafts.putProposal(ws.ID, pid, &proposeEntry{tasks: props.Tasks})
	r := views.ProposeResult{WS: ws.ID, PID: pid, Problems: props.Problems, Calls: props.Calls}
	for i, p := range props.Tasks {
		r.Tasks = append(r.Tasks, views.ProposeTask{N: i, Text: p.Task.Task, Expect: expectName(p.Task.Expect), Kind: p.Kind,
			Neighbour: p.Neighbour, Refused: p.Refused, Verdict: p.Verdict})
	}
	if len(r.Tasks) == 0 && len(r.Problems) == 0 {
		r.Problem = "The model proposed no task. Ask again, or with another endpoint."
	}
	_ = sse.PatchElementTempl(views.ProposeResultRegion(r))
	return nil
}

func expectName(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// proposeAdd adds the ticked proposals after the task file's tasks, as one revision.
func (s *Server) proposeAdd(c echo.Context) error {
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	id, pid := c.Param("id"), c.Param("sid")
	if !wsIDPattern.MatchString(pid) {
		return fail(NotFound, "no such proposal")
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, 64<<10)
	if err := c.Request().ParseForm(); err != nil {
		return fail(BadRequest, "the ticked tasks could not be read: "+err.Error())
	}
	e := s.drafts.proposal(id, pid)
	if e == nil {
		_ = newSSE(c).PatchElementTempl(views.ProposeResultRegion(views.ProposeResult{WS: id,
			Problem: "These proposals are no longer kept (they are kept for 30 minutes); ask again."}))
		return nil
	}
	picked, problem := pickProposals(c.Request().PostForm["pick"], e.tasks)
	if problem == "" && e.added.Load() {
		problem = alreadyAdded
	}
	if problem != "" {
		_ = newSSE(c).PatchElementTempl(views.ProposeResultRegion(views.ProposeResult{WS: id, Problem: problem}))
		return nil
	}
	sg := signals{PID: c.Request().PostForm.Get("pid"), Tool: -1}
	if sg.PID != "" && !wsIDPattern.MatchString(sg.PID) {
		return fail(BadRequest, "malformed page id")
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	if err := uniqueTaskIDs(ws.Tasks, picked); err != nil {
		return fail(Conflict, "the proposals repeat a task id of the workspace; ask again")
	}
	if problem := stillFits(ws, picked); problem != "" {
		_ = newSSE(c).PatchElementTempl(views.ProposeResultRegion(views.ProposeResult{WS: id, Problem: problem}))
		return nil
	}
	if !e.added.CompareAndSwap(false, true) {
		_ = newSSE(c).PatchElementTempl(views.ProposeResultRegion(views.ProposeResult{WS: id, Problem: alreadyAdded}))
		return nil
	}
	tasks := append(slices.Clip(ws.Tasks), picked...)
	ch := change{edit: &Edit{Tasks: tasks, SetTasks: true, Message: fmt.Sprintf("Add %d proposed tasks", len(picked))},
		tool: -1, tasks: true, select_: -1, click: true}
	out, err := s.record(c, sg, ch)
	if err != nil {
		e.added.Store(false) // nothing was added: the proposals may be added again
		return s.refused(c, sg, ch, out.ws, err)
	}
	if out != nil {
		s.follow(id, sg, ch, out)
		if err := s.answer(c, sg, ch, out); err != nil {
			return err
		}
	}
	_ = patchDraft(c, views.DraftDone(fmt.Sprintf("Added %d proposed tasks to the task file: 1 revision. Undo takes it back.", len(picked))))
	return nil
}

// alreadyAdded answers a second "Add ticked" on the same proposals.
const alreadyAdded = "These proposals were already added to the task file; Undo takes them back, or ask again for more."

// stillFits says why picked tasks may not be added to ws as it is now ("" when they may): a
// task whose text the task file already holds (added from another proposal, or typed since),
// or one that expects a tool the listing no longer has (renamed or removed since the proposal).
func stillFits(ws Workspace, picked []selection.Task) string {
	have := map[string]bool{}
	for _, t := range ws.Tasks {
		have[taskText(t.Task)] = true
	}
	names := ws.Listing.Names()
	for _, p := range picked {
		if have[taskText(p.Task)] {
			return fmt.Sprintf("The task %q is already in the task file; untick it and add the others.", drafting.Excerpt(p.Task))
		}
		if x := expectName(p.Expect); x != "" && !slices.Contains(names, x) {
			return fmt.Sprintf("The task %q expects %s, which the listing no longer has (renamed or removed since the proposal); untick it, or ask again.",
				drafting.Excerpt(p.Task), drafting.Excerpt(x))
		}
	}
	return ""
}

// taskText is a task's text as compared for repeats: case and spacing aside.
func taskText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// pickProposals reads the ticked indexes: each a proposal that is not refused, each once.
func pickProposals(ticks []string, props []drafting.Proposed) ([]selection.Task, string) {
	if len(ticks) == 0 {
		return nil, "Tick the tasks to add first."
	}
	if len(ticks) > len(props) {
		return nil, "More tasks were ticked than were proposed; ask again."
	}
	seen := map[int]bool{}
	var out []selection.Task
	for _, t := range ticks {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 || n >= len(props) || seen[n] {
			return nil, "The ticked tasks do not match the proposals; ask again."
		}
		seen[n] = true
		if props[n].Refused != "" {
			return nil, fmt.Sprintf("Proposal %d cannot be added: %s", n+1, props[n].Refused)
		}
		out = append(out, props[n].Task)
	}
	return out, ""
}
