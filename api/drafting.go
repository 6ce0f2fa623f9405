package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// MaxCalls bounds the model calls of one drafting request: "maxCalls" may ask for at most this
// many, and a plan over it is refused before any call. It is drafting's, which the pages
// hold to as well.
const MaxCalls = drafting.MaxCalls

// MaxSamples bounds the samples per task of a suggestion's run, as the Runs tab's.
const MaxSamples = 100

// MaxDraftingTools bounds the tools of a drafting request's listing: a rubric makes a call per
// tool, and every candidate of a suggestion re-checks the whole listing.
const MaxDraftingTools = 2000

// The members of the drafting requests.
var (
	suggestFields  = []string{"listing", "name", "tasks", "tool", "endpoint", "k", "params", "run", "samples", "maxCalls"}
	generateFields = []string{"listing", "name", "tasks", "tool", "perTool", "endpoint", "maxCalls"}
	rubricFields   = []string{"listing", "name", "endpoint", "maxCalls"}
)

// noEndpointHint says how a server gets a model endpoint.
const noEndpointHint = "No model endpoint is configured on this server; start it with --endpoints FILE (the file `workbench run --endpoints` reads)"

// draftingInput is what every drafting request carries.
type draftingInput struct {
	listing *listing.Listing
	tasks   []selection.Task
	tool    int // -1 when absent
	model   drafting.Model
}

// draftingInput reads the listing, the tasks and the tool; needModel says whether an absent or
// unknown endpoint is an error (suggest, generate) or means offline (rubric).
func (a *API) draftingInput(req *request, needModel bool) (*draftingInput, error) {
	name, err := req.str("name", "listing")
	if err != nil {
		return nil, err
	}
	in := &draftingInput{tool: -1}
	if in.listing, err = req.listingOf("listing", name, a.opts.Limits, true, true); err != nil {
		return nil, err
	}
	if len(in.listing.Tools) == 0 {
		return nil, &Error{Code: CodeInvalidListing, Field: "listing", Message: "the listing has no tools to draft for",
			Hint: "send a listing with tools"}
	}
	if len(in.listing.Tools) > MaxDraftingTools {
		return nil, &Error{Code: CodeTooLarge, Field: "listing",
			Message: fmt.Sprintf("the listing holds %d tools; drafting takes up to %d at a time", len(in.listing.Tools), MaxDraftingTools),
			Hint:    "send the tools you are working on, or split the listing"}
	}
	if in.tasks, err = req.tasksOf("tasks"); err != nil {
		return nil, err
	}
	if in.tool, err = req.toolOf("tool", in.listing); err != nil {
		return nil, err
	}
	endpoint, err := req.str("endpoint", "")
	if err != nil {
		return nil, err
	}
	if req.get("endpoint") == nil && !needModel {
		return in, nil // the rubric without an endpoint: offline, labelled
	}
	m, why := a.model(endpoint)
	if m == nil {
		return nil, &Error{Code: CodeNoEndpoint, Field: "endpoint", Message: why,
			Hint: "name an endpoint this server has in \"endpoint\"; POST /api/v1/rubric without one answers the offline rubric"}
	}
	in.model = m
	return in, nil
}

// model returns the model endpoint name names ("" for the server's first), or why there is none.
func (a *API) model(name string) (drafting.Model, string) {
	if a.opts.Models == nil {
		return nil, noEndpointHint
	}
	m, why := a.opts.Models(name)
	if m == nil && why == "" {
		why = fmt.Sprintf("no endpoint is named %q on this server", name)
	}
	return m, why
}

// toolOf reads a tool by name (a string) or by 0-based index (a number); -1 when absent.
func (r *request) toolOf(key string, l *listing.Listing) (int, error) {
	v := r.get(key)
	if v == nil {
		return -1, nil
	}
	const hint = `name the tool ("tool": "get_weather") or give its 0-based index ("tool": 0)`
	switch v.Kind {
	case listing.String:
		for i, n := range l.Names() {
			if n == v.Str {
				return i, nil
			}
		}
		return -1, r.invalid(key, v, hint, "the listing has no tool named %q", clip(v.Str, 64))
	case listing.Number:
		i, err := strconv.Atoi(v.Str)
		if err != nil || i < 0 || i >= len(l.Tools) {
			return -1, r.invalid(key, v, hint, "tool %s is not an index of the listing's %d tools", clip(v.Str, 32), len(l.Tools))
		}
		return i, nil
	}
	return -1, r.invalid(key, v, hint, "%q must be a tool's name or index, not a %s", key, v.Kind)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// budget reads "maxCalls" (default the plan, at most MaxCalls) and refuses a plan over it
// before any call is made.
func (r *request) budget(plan drafting.Plan) (*drafting.Budget, error) {
	max, err := r.integer("maxCalls", min(plan.Calls, MaxCalls), 0)
	if err != nil {
		return nil, err
	}
	if max > MaxCalls {
		return nil, r.invalid("maxCalls", r.get("maxCalls"), fmt.Sprintf(`"maxCalls": %d at most`, MaxCalls),
			"maxCalls is %d; one request may make at most %d model calls", max, MaxCalls)
	}
	if plan.Calls > max {
		return nil, &Error{Code: CodeOverBudget, Field: "maxCalls",
			Message: fmt.Sprintf("the plan needs %d model calls (%s); the budget is %d, so no call was made", plan.Calls, plan.What, max),
			Hint:    fmt.Sprintf("raise \"maxCalls\" to %d (at most %d), or ask for less: fewer candidates, samples or tools", plan.Calls, MaxCalls)}
	}
	return drafting.NewBudget(max), nil
}

// engine is the drafting requests' analysis engine: the reference's rules and the extended
// ones with their defaults, counting tokens with o200k_base, its caches in the API's budget.
func (a *API) engine() (*analysis.Engine, error) {
	a.draftOnce.Do(func() {
		tok, err := a.opts.Tokenizers.Get("o200k_base")
		if err != nil {
			a.draftErr = err
			return
		}
		lt, err := a.linter("o200k_base", lint.Config{})
		if err != nil {
			a.draftErr = err
			return
		}
		a.draftEng, a.draftErr = analysis.New(analysis.Options{Tok: tok, Extended: lt, PlainVerdicts: true, CacheBytes: 16 << 20})
	})
	if a.draftErr != nil {
		return nil, fmt.Errorf("drafting engine: %w", a.draftErr)
	}
	return a.draftEng, nil
}

// draftingState is the API's drafting engine, built on first use.
type draftingState struct {
	draftOnce sync.Once
	draftEng  *analysis.Engine
	draftErr  error
}

// modelError maps what a drafting action returns: a spent budget is a 422, a model call that
// failed a 502 with the client's message (which never holds the key), and so is a request whose
// deadline passed while the model was still answering (ctx is the request's).
func modelError(ctx context.Context, err error) error {
	var ce *runner.CallError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, drafting.ErrBudget):
		return &Error{Code: CodeOverBudget, Field: "maxCalls", Message: err.Error(), err: err,
			Hint: "raise \"maxCalls\" (at most " + strconv.Itoa(MaxCalls) + ")"}
	case errors.As(err, &ce):
		return &Error{Code: CodeModelFailed, Message: "the model endpoint failed: " + ce.Msg, err: err,
			Hint: "check the endpoint (its key, model name and address) and try again"}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Code: CodeModelFailed, Message: "the model endpoint did not answer in time: " + err.Error(), err: err,
			Hint: "try again, or ask for less (fewer candidates, samples or tools)"}
	}
	return err
}

// draftRetryAfter is the Retry-After, in seconds, of a drafting request the gate refused.
const draftRetryAfter = "5"

// enterDraft lets a drafting request about to call a model through the drafting gate
// (Options.DraftGate), and then gives back its request slot (Options.Release) while it waits
// on the model. A full gate is a 429 at once, with Retry-After and the gate's words. leave must
// be called when the request is done.
func (a *API) enterDraft(c echo.Context) (leave func(), err error) {
	leave = func() {}
	r := c.Request()
	if a.opts.DraftGate != nil {
		l, busy := a.opts.DraftGate(r)
		if busy != "" {
			c.Response().Header().Set("Retry-After", draftRetryAfter)
			return nil, &Error{Code: CodeRateLimited, Message: busy,
				Hint: "wait for one of your drafting requests to end (or " + draftRetryAfter + " seconds) and send it again"}
		}
		leave = l
	}
	if a.opts.Release != nil {
		a.opts.Release(r)
	}
	return leave, nil
}

// answerDraft runs one drafting action and answers with its result: the budget ("maxCalls",
// refused before any call when the plan is over it), the drafting gate (only when there is a
// model: offline scoring calls none), and what went wrong as modelError says.
func answerDraft[T any](a *API, c echo.Context, req *request, model drafting.Model, plan drafting.Plan, what string,
	run func(ctx context.Context, caller drafting.Caller) (T, error)) error {
	b, err := req.budget(plan)
	if err != nil {
		return err
	}
	if model != nil {
		leave, err := a.enterDraft(c)
		if err != nil {
			return err
		}
		defer leave()
	}
	ctx := c.Request().Context()
	v, err := run(ctx, drafting.Caller{Model: model, Budget: b})
	if err != nil {
		return modelError(ctx, fmt.Errorf("%s: %w", what, err))
	}
	return c.JSON(http.StatusOK, v)
}

// suggest answers POST /suggest: k rewrites of one tool's description, each scored.
func (a *API) suggest(c echo.Context) error {
	req, err := a.read(c, suggestFields...)
	if err != nil {
		return err
	}
	in, err := a.draftingInput(req, true)
	if err != nil {
		return err
	}
	if in.tool < 0 {
		return &Error{Code: CodeMissingField, Field: "tool", Pointer: "/tool", Message: "the request has no \"tool\" to rewrite",
			Hint: `name the tool ("tool": "get_weather") or give its 0-based index`}
	}
	sr := drafting.SuggestRequest{Listing: in.listing, Tool: in.tool, Tasks: in.tasks}
	if sr.K, err = req.integer("k", drafting.DefaultK, 1); err != nil {
		return err
	}
	if sr.K > drafting.MaxK {
		return req.invalid("k", req.get("k"), fmt.Sprintf(`"k": %d at most`, drafting.MaxK), "k is %d; ask for at most %d candidates", sr.K, drafting.MaxK)
	}
	if sr.Params, err = req.boolean("params"); err != nil {
		return err
	}
	if sr.Run, err = req.boolean("run"); err != nil {
		return err
	}
	if sr.Samples, err = req.integer("samples", 1, 1); err != nil {
		return err
	}
	if sr.Samples > MaxSamples {
		return req.invalid("samples", req.get("samples"), fmt.Sprintf(`"samples": %d at most`, MaxSamples), "samples is %d; a run takes at most %d per task", sr.Samples, MaxSamples)
	}
	if sr.Run && len(in.tasks) == 0 {
		return &Error{Code: CodeMissingField, Field: "tasks", Pointer: "/tasks", Message: "\"run\" needs tasks to run",
			Hint: "send the task file in \"tasks\", or leave out \"run\""}
	}
	eng, err := a.engine()
	if err != nil {
		return err
	}
	return answerDraft(a, c, req, in.model, drafting.PlanSuggest(sr), "suggest", func(ctx context.Context, caller drafting.Caller) (*drafting.Suggestion, error) {
		return drafting.Suggest(ctx, caller, eng, sr)
	})
}

// generateTasks answers POST /tasks/generate: proposed tasks, each checked.
func (a *API) generateTasks(c echo.Context) error {
	req, err := a.read(c, generateFields...)
	if err != nil {
		return err
	}
	in, err := a.draftingInput(req, true)
	if err != nil {
		return err
	}
	tr := drafting.TasksRequest{Listing: in.listing, Existing: in.tasks}
	if tr.PerTool, err = req.integer("perTool", drafting.DefaultPerTool, 1); err != nil {
		return err
	}
	if tr.PerTool > drafting.MaxPerTool {
		return req.invalid("perTool", req.get("perTool"), fmt.Sprintf(`"perTool": %d at most`, drafting.MaxPerTool),
			"perTool is %d; ask for at most %d tasks of each kind per tool", tr.PerTool, drafting.MaxPerTool)
	}
	if in.tool >= 0 {
		tr.Tools = []string{in.listing.Names()[in.tool]}
	}
	return answerDraft(a, c, req, in.model, drafting.PlanTasks(tr), "generate tasks", func(ctx context.Context, caller drafting.Caller) (*drafting.Proposals, error) {
		return drafting.GenerateTasks(ctx, caller, tr)
	})
}

// rubric answers POST /rubric: every tool's rubric and the listing's score; offline, labelled,
// without an endpoint.
func (a *API) rubric(c echo.Context) error {
	req, err := a.read(c, rubricFields...)
	if err != nil {
		return err
	}
	in, err := a.draftingInput(req, false)
	if err != nil {
		return err
	}
	eng, err := a.engine()
	if err != nil {
		return err
	}
	cache := a.opts.Rubrics
	plan := drafting.PlanRubric(in.listing, drafting.ModelKey(in.model), cache)
	return answerDraft(a, c, req, in.model, plan, "rubric", func(ctx context.Context, caller drafting.Caller) (*drafting.Rubric, error) {
		return drafting.ScoreRubric(ctx, caller, eng, in.listing, cache)
	})
}
