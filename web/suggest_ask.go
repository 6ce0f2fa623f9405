package web

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/views"
)

// draftRoutes adds the drafting routes (suggest, propose tasks, rubric). The POST routes ask
// the edit capability (the guard, and requireEdit in each); a participant's copy is refused
// (teacherOnly): asking spends the server's endpoints and key.
func (s *Server) draftRoutes(w *echo.Group) {
	w.GET("/suggest/form", s.suggestDialog)
	w.POST("/suggest/plan", s.suggestPlan)
	w.POST("/suggest", s.suggestAsk)
	w.POST("/suggest/:sid/:n/accept", s.suggestAccept)
	w.GET("/tasks/propose", s.proposeDialog)
	w.POST("/tasks/propose", s.proposeAsk)
	w.POST("/tasks/propose/:sid/add", s.proposeAdd)
	w.GET("/rubric", s.rubricDialog)
	w.POST("/rubric", s.rubricScore)
	s.improveRoutes(w)
}

// patchSuggest patches the Suggest dialog's result region.
func patchSuggest(sse *datastar.ServerSentEventGenerator, r views.SuggestResult) {
	_ = sse.PatchElementTempl(views.SuggestResultRegion(r))
}

// draftContext is the context a drafting call runs in: the request's, ending suggestMargin
// before its deadline so that the answer can still say what happened.
func draftContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-suggestMargin))
	}
	return context.WithCancel(ctx)
}

// draftProblem says why a drafting call failed, in words, with what would work. The errors
// of the endpoint client never carry the key (runner.Client scrubs them).
func draftProblem(ctx context.Context, err error, name string) string {
	switch {
	case errors.Is(err, drafting.ErrBudget):
		return "The call budget was spent before the answer was complete: " + err.Error() + "."
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s did not answer in time, so the request was stopped. Ask for fewer candidates, without the model run, or try again when the endpoint is less busy.", name)
	}
	return fmt.Sprintf("%s: %s", name, oneLine(err.Error(), 400))
}

// oneLine is s on one line, at most n bytes (a model's error text can be long).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// suggestAsk asks the endpoint for rewrites of the tool and answers over SSE: first "Asking…"
// with the plan, then the scored candidates or what went wrong.
func (s *Server) suggestAsk(c echo.Context) error {
	ws, refused, err := s.draftWorkspace(c)
	if err != nil {
		return err
	}
	f, problem := readSuggestForm(c)
	sse := newSSE(c)
	show := func(r views.SuggestResult) { r.WS = ws.ID; patchSuggest(sse, r) }
	t, why := draftTool(c, ws)
	client, noClient := s.runs.Client(f.endpoint)
	if p := firstProblem(refused, problem, why, noClient); p != "" {
		show(views.SuggestResult{Problem: p})
		return nil
	}
	eng, err := s.engineFor(s.profileOf(c.Request().Context(), ws.ID))
	if err != nil {
		return err
	}
	req := f.request(ws, t)
	plan := drafting.PlanSuggest(req)
	var sug *drafting.Suggestion
	if p := s.askModel(c, modelAsk{job: "a suggestion", ws: ws.ID, client: client, calls: plan.Calls,
		overCap: suggestOverCap(req, plan.Calls), asking: func(line string) { show(views.SuggestResult{Asking: line}) }},
		func(ctx context.Context, caller drafting.Caller) (err error) {
			sug, err = drafting.Suggest(ctx, caller, eng, req)
			return err
		}); p != "" {
		show(views.SuggestResult{Problem: p})
		return nil
	}
	tool := ws.Listing.Tools[t]
	sid := NewID()
	s.drafts.putSuggestion(ws.ID, sid, &suggestEntry{tool: t, name: tool.Get("name").String(),
		hash: listing.HashOf(tool), cands: keep(sug.Candidates)})
	patchSuggest(sse, suggestResult(ws.ID, sid, tool, sug))
	return nil
}

func callsWord(n int) string {
	if n == 1 {
		return "1 call"
	}
	return strconv.Itoa(n) + " calls"
}

var candidateN = regexp.MustCompile(`^[0-9]{1,2}$`)

// suggestAccept applies candidate n of a suggestion as one revision, made from the head under
// the store's lock and refused there when the tool's description is no longer the one the
// suggestion rewrote. Undo takes it back.
func (s *Server) suggestAccept(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	id, sid := c.Param("id"), c.Param("sid")
	if !wsIDPattern.MatchString(sid) || !candidateN.MatchString(c.Param("n")) {
		return fail(NotFound, "no such suggestion")
	}
	n, _ := strconv.Atoi(c.Param("n"))
	e := s.drafts.suggestion(id, sid)
	if e == nil {
		patchSuggest(newSSE(c), views.SuggestResult{WS: id, Problem: "This suggestion is no longer kept (suggestions are kept for 30 minutes, and a busy server forgets the oldest first); ask again."})
		return nil
	}
	if n >= len(e.cands) || e.cands[n].Refused != "" {
		return fail(NotFound, "no such candidate")
	}
	cand := e.cands[n]
	ch := change{edit: acceptEdit(e, cand), tool: e.tool, structure: true, select_: e.tool, click: true}
	out, err := s.record(c, sg, ch)
	switch {
	case errors.Is(err, errSuggestStale):
		patchSuggest(newSSE(c), views.SuggestResult{WS: id, Problem: fmt.Sprintf(
			"%s changed since the suggestion (someone edited or moved it: its description, a parameter or its schema), so the candidate was not applied: it was scored against the old tool. Ask again.", e.name)})
		return nil
	case errors.Is(err, errAlreadyAccepted):
		patchSuggest(newSSE(c), views.SuggestResult{WS: id, Problem: fmt.Sprintf(
			"Already accepted: %s already reads as candidate %d, so nothing was stored.", e.name, n+1)})
		return nil
	case errors.As(err, new(acceptError)):
		patchSuggest(newSSE(c), views.SuggestResult{WS: id, Problem: "The candidate cannot be applied to the tool as it stands: " +
			oneLine(errors.Unwrap(err).Error(), 300) + ". Ask again."})
		return nil
	case err != nil:
		return s.refused(c, sg, ch, out.ws, err)
	case out == nil:
		patchSuggest(newSSE(c), views.SuggestResult{WS: id, Problem: "The description already reads as this candidate: nothing to change."})
		return nil
	}
	s.follow(id, sg, ch, out)
	if err := s.answer(c, sg, ch, out); err != nil {
		return err
	}
	// The dialog closes, saying what was stored (the editor shows the new text).
	_ = newSSE(c).PatchElementTempl(views.DraftDone(fmt.Sprintf("Accepted candidate %d for %s: 1 revision stored. Undo takes it back.", n+1, e.name)),
		datastar.WithModeReplace())
	return nil
}

// errSuggestStale is an Accept whose tool changed since the suggestion.
var errSuggestStale = errors.New("the tool changed since the suggestion")

// errAlreadyAccepted is an Accept of the candidate the tool already reads as (accepted
// before, by this person or another): nothing to store, and nobody to blame.
var errAlreadyAccepted = errors.New("the tool already reads as the candidate")

// readsAs reports whether tool t reads as cand: its description, and every parameter
// description the candidate sets.
func readsAs(t *listing.Value, cand keptCandidate) bool {
	if t.Get("description").String() != cand.Description {
		return false
	}
	props := t.Get("inputSchema").Get("properties")
	for k, v := range cand.Params {
		if props.Get(k).Get("description").String() != v {
			return false
		}
	}
	return true
}

// acceptError is a candidate drafting.Ops cannot make into edits of the tool as it stands
// (a parameter it describes is gone, say).
type acceptError struct{ err error }

func (a acceptError) Error() string { return "accept the candidate: " + a.err.Error() }
func (a acceptError) Unwrap() error { return a.err }

// acceptEdit sets the candidate's text, made from the head under the store's lock: the tool
// must still be at its place with its name and, whole, the content the suggestion rewrote (its
// hash): a parameter description edited since would otherwise be overwritten without a word.
func acceptEdit(e *suggestEntry, cand keptCandidate) *Edit {
	return &Edit{Message: "Accept suggested rewrite of " + e.name, Alone: true,
		Make: func(head *listing.Listing) ([]listing.Op, []lint.Rename, error) {
			if e.tool >= len(head.Tools) {
				return nil, nil, errSuggestStale
			}
			t := head.Tools[e.tool]
			if t.Get("name").String() == e.name && readsAs(t, cand) {
				return nil, nil, errAlreadyAccepted
			}
			if t.Get("name").String() != e.name || listing.HashOf(t) != e.hash {
				return nil, nil, errSuggestStale
			}
			ops, err := drafting.Ops(head, e.tool, cand.Description, cand.Params)
			if err != nil {
				return nil, nil, acceptError{err}
			}
			return ops, nil, nil
		}}
}

// suggestResult is the view of a suggestion.
func suggestResult(ws, sid string, tool *listing.Value, sug *drafting.Suggestion) views.SuggestResult {
	r := views.SuggestResult{WS: ws, SID: sid, Tool: sug.Tool, Problems: sug.Problems, Calls: sug.Calls,
		Current: scoresView(sug.Current.Scores)}
	for i, c := range sug.Candidates {
		r.Cards = append(r.Cards, cardView(i, tool, sug.Current.Scores, c))
	}
	if len(r.Cards) == 0 {
		r.Problem = "The model sent no usable candidate."
		if len(sug.Problems) > 0 {
			r.Problem += " See why below; ask again, perhaps with another endpoint."
		}
	}
	return r
}

// maxFindingLines bounds the findings a card lists.
const maxFindingLines = 6

func scoresView(sc drafting.Scores) views.SuggestScores {
	v := views.SuggestScores{Errors: sc.Errors, Warnings: sc.Warnings, Tokens: sc.Tokens, Won: sc.Won, Ambiguous: sc.Ambiguous,
		Lost: sc.Lost, Stolen: sc.Stolen, Tasks: sc.Tasks, Clear: sc.Clear}
	for _, f := range sc.Findings[:min(len(sc.Findings), maxFindingLines)] {
		v.FindingLines = append(v.FindingLines, f.Severity+": "+f.Message)
	}
	return v
}

// markWords say what each mark means, in the page's words.
var markWords = map[string]string{
	"promotional-wording":   "adds promotional wording",
	"instructions-to-model": "adds instructions to the model",
	"hidden-unicode":        "adds hidden characters",
}

func cardView(i int, tool *listing.Value, cur drafting.Scores, c drafting.Candidate) views.SuggestCard {
	v := views.SuggestCard{N: i, Rationale: c.Rationale, Refused: c.Refused, RunError: c.RunError}
	for _, m := range c.Marks {
		w, ok := markWords[m.Rule]
		if !ok {
			w = "adds wording that persuades (" + m.Rule + ")"
		}
		v.Marks = append(v.Marks, w+": "+m.Message)
	}
	if c.Refused != "" {
		return v
	}
	v.Diff = diffRuns(tool.Get("description").String(), c.Description)
	names := make([]string, 0, len(c.Params))
	for k := range c.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	props := tool.Get("inputSchema").Get("properties")
	for _, k := range names {
		v.Params = append(v.Params, views.SuggestParam{Name: k, Runs: diffRuns(props.Get(k).Get("description").String(), c.Params[k])})
	}
	v.Scores, v.TokensDelta = scoresView(c.Scores), c.Scores.Tokens-cur.Tokens
	for _, f := range c.Flips {
		if f > 0 {
			v.Fixed = append(v.Fixed, f)
		} else if f < 0 {
			v.Broken = append(v.Broken, -f)
		}
	}
	if r := c.Run; r != nil {
		v.Run = &views.SuggestRun{Before: r.BaselineAccuracy, After: r.CurrentAccuracy, Low: r.Interval.Low, High: r.Interval.High,
			P: r.McNemarP, Pairs: r.Pairs.N()}
		for _, p := range r.Persuasive {
			v.Run.Persuasive = append(v.Run.Persuasive, p.Tool)
		}
	}
	return v
}

// diffRuns is the word diff of a to b as the page shows it (whitespace changes made visible).
func diffRuns(a, b string) []views.DiffRun {
	var out []views.DiffRun
	for _, e := range export.WordDiff(a, b) {
		text := visible(e.Text)
		if e.Op != '=' && strings.TrimSpace(e.Text) == "" {
			text = strings.NewReplacer(" ", "·", "\n", "↵", "\t", "→").Replace(text)
		}
		out = append(out, views.DiffRun{Op: string(e.Op), Text: text})
	}
	return out
}
