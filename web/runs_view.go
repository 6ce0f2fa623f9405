package web

// The view models of the Runs tab: the form, the list, the progress bar, a run's results and
// the comparison of two runs, from the runs service and the runs it stored.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// activeProgress is the bar of a run in progress here.
func activeProgress(a *runsvc.Active) views.RunProgress {
	n := a.Counts()
	return views.RunProgress{WS: a.Workspace, RunID: a.ID, Active: true, Status: runsvc.Running, Done: n.Done, Total: n.Total,
		Errors: n.Errors, Cached: n.Cached, Resumed: n.Resumed, LastErr: n.LastErr}
}

// progressOf is the bar of a stored run.
func (s *Server) progressOf(_ context.Context, rec store.Run, body runsvc.Body) views.RunProgress {
	if a := s.runs.Get(rec.ID); a != nil {
		return activeProgress(a)
	}
	meta := runsvc.MetaOf(rec)
	status, elsewhere := s.runs.StatusOf(rec)
	p := views.RunProgress{WS: rec.Workspace, RunID: rec.ID, Status: status, Elsewhere: elsewhere, Total: meta.Total, Done: meta.Done,
		Errors: meta.Errors, Cached: meta.Cached, Message: meta.Problem}
	if meta.Errors > 0 && p.Message == "" {
		p.LastErr = meta.LastErr
	}
	if body.Run != nil {
		sc := runner.ScoreRun(body.Run)
		p.Done, p.Errors, p.Cached = len(body.Run.Calls), sc.Errors, sc.Cached
		if sc.Errors > 0 && p.Message == "" && p.LastErr == "" {
			p.LastErr = runsvc.FirstError(body.Run) // a run saved before its meta kept the latest
		}
	}
	return p
}

// storedProgress is the bar of a stored run read without its body: the counts its meta keeps.
func (s *Server) storedProgress(rec store.Run) views.RunProgress {
	rec.Body = nil
	return s.progressOf(context.Background(), rec, runsvc.Body{})
}

// configureRuns says how to configure an endpoint, on a server with none.
const configureRuns = "No model endpoint is configured on this server. Start it with --endpoints FILE (or set WORKBENCH_ENDPOINTS), " +
	`a JSON file such as {"endpoints": [{"name": "local", "baseURL": "http://127.0.0.1:8080/v1", "model": "qwen3", "apiKeyEnv": ""}]}; ` +
	`a recording made with 'workbench run --record FILE' serves as an endpoint with no key: {"name": "workshop", "replay": "FILE"}.`

// runsModel is the whole Runs panel of a workspace.
func (s *Server) runsModel(ctx context.Context, ws Workspace, spec runner.Spec, epName string) (views.RunsPanel, error) {
	p := views.RunsPanel{WS: ws.ID, Form: s.runForm(ws, spec, epName)}
	if len(s.runs.Endpoints()) == 0 {
		p.Configure = configureRuns
	}
	a := s.runs.ActiveIn(ws.ID)
	lastID := s.runs.Last(ws.ID)
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
		p.Progress = activeProgress(a)
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

// runForm is the form that starts a run, filled from spec once one was sent.
func (s *Server) runForm(ws Workspace, spec runner.Spec, epName string) views.RunForm {
	f := views.RunForm{WS: ws.ID, Cache: s.runs.Config().Cache != nil, Samples: 1, MaxSamples: MaxRunSamples, Temperature: "0", SystemPrompt: runner.DefaultSystemPrompt,
		Tasks: len(ws.Tasks), Tools: len(ws.Listing.Tools), Endpoint: epName}
	if spec.Samples > 0 {
		f.Samples, f.Temperature, f.Shuffle, f.SystemPrompt = spec.Samples, strconv.FormatFloat(spec.Temperature, 'f', -1, 64), spec.Shuffle, spec.SystemPrompt
		if spec.Seed != nil {
			f.Seed = strconv.FormatInt(*spec.Seed, 10)
		}
	}
	for _, e := range s.runs.Endpoints() {
		info := e.Info()
		re := views.RunEndpoint{Name: info.Name, Model: info.Model, Host: info.Host, Replay: info.Replay, Records: info.Records, Problem: s.runs.Problem(e.Name)}
		if c, _ := s.runs.Client(e.Name); c != nil {
			// A replay's model comes from its recording.
			re.Model = c.Endpoint().Model
		}
		f.Endpoints = append(f.Endpoints, re)
	}
	return f
}

func (s *Server) runRows(ctx context.Context, ws string) ([]views.RunRow, error) {
	_, rows, err := s.runList(ctx, ws)
	return rows, err
}

// runList reads ws's runs (without bodies) and their rows in the list.
func (s *Server) runList(ctx context.Context, ws string) ([]store.Run, []views.RunRow, error) {
	list, err := s.runs.List(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]views.RunRow, 0, len(list))
	for _, r := range list {
		rows = append(rows, s.runRow(r))
	}
	return list, rows, nil
}

// runRow is a stored run's row in the list.
func (s *Server) runRow(r store.Run) views.RunRow {
	meta := runsvc.MetaOf(r)
	row := views.RunRow{ID: r.ID, Label: r.Label, Endpoint: meta.Endpoint, Model: meta.Model, Status: r.Status,
		Created: r.Created.UTC().Format("2006-01-02 15:04:05 UTC"), Revision: r.Revision, Tasks: meta.Tasks, Samples: meta.Samples,
		Done: meta.Done, Total: meta.Total, Accuracy: stats.NoValue, Problem: meta.Problem}
	if meta.Accuracy != nil {
		row.Accuracy = stats.FormatProportion(*meta.Accuracy)
	}
	if a := s.runs.Get(r.ID); a != nil {
		row.Active, row.Status = true, runsvc.Running
		n := a.Counts()
		row.Done, row.Total = n.Done, n.Total
	} else {
		row.Status, row.Elsewhere = s.runs.StatusOf(r)
	}
	idle := !row.Active && !row.Elsewhere
	row.Resumable = idle && meta.Done > 0 && (meta.Done < meta.Total || meta.Errors > 0) && row.Status != runsvc.Done ||
		idle && row.Status == runsvc.Done && meta.Errors > 0 && meta.Errors < meta.Done
	row.Replayable = meta.Done > 0
	return row
}

// resultModel formats a run's score for the page.
func (s *Server) resultModel(ctx context.Context, ws string, rec store.Run, body runsvc.Body) (views.RunResult, error) {
	m := views.RunResult{WS: ws, ID: rec.ID, Label: rec.Label}
	var elsewhere bool
	m.Status, elsewhere = s.runs.StatusOf(rec)
	if elsewhere {
		m.Status += " on another server"
	}
	m.Problem = runsvc.MetaOf(rec).Problem
	if body.Run == nil {
		if m.Problem == "" {
			m.Problem = "This run made no calls."
		}
		return m, nil
	}
	sc := runner.ScoreRun(body.Run)
	resultSettings(&m, sc)
	resultFigures(&m, sc)
	m.ErrorKinds = errorKinds(body.Run)
	resultTables(&m, sc)
	// Baselines: other runs on the same tasks, endpoint and model.
	list, err := s.runs.List(ctx, ws)
	if err != nil {
		return m, err
	}
	for _, r := range list {
		om := runsvc.MetaOf(r)
		if r.ID != rec.ID && om.Done > 0 && om.TasksHash == body.Run.Header.TasksHash && om.Endpoint == sc.Spec.Endpoint && om.Model == sc.Spec.Model {
			m.Baselines = append(m.Baselines, views.RunOption{ID: r.ID, Label: r.Label + " (" + r.Created.UTC().Format("15:04:05") + ")"})
		}
	}
	return m, nil
}

// resultSettings shows what the run was asked: endpoint, model, samples and sampling.
func resultSettings(m *views.RunResult, sc *runner.Score) {
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
}

// resultFigures shows the run's summary figures, "n/a" where it measured nothing.
func resultFigures(m *views.RunResult, sc *runner.Score) {
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
	if sc.Spec.Shuffle && len(sc.ByPosition) > 0 {
		parts := make([]string, len(sc.ByPosition))
		for i, n := range sc.ByPosition {
			parts[i] = fmt.Sprintf("%d: %d", i+1, n)
		}
		m.ByPosition = strings.Join(parts, ", ")
	}
}

// errorKinds counts the run's failed calls by message, in order of first appearance.
func errorKinds(run *runner.Run) []views.RunErrorKind {
	kinds := map[string]int{}
	var order []string
	for _, c := range run.Calls {
		if c.Outcome == runner.OutError {
			if kinds[c.Error] == 0 {
				order = append(order, c.Error)
			}
			kinds[c.Error]++
		}
	}
	var out []views.RunErrorKind
	for _, k := range order {
		out = append(out, views.RunErrorKind{Message: k, Count: kinds[k]})
	}
	return out
}

// resultTables fills the per-tool table, the confusion matrix and the per-task rows.
func resultTables(m *views.RunResult, sc *runner.Score) {
	for _, t := range sc.PerTool {
		m.PerTool = append(m.PerTool, views.RunToolRow{Name: t.Name, Known: t.Known, Expected: t.Expected, Chosen: t.Chosen,
			Correct: t.Correct, Precision: stats.FormatOptional(t.Precision), Recall: stats.FormatOptional(t.Recall), Share: stats.FormatProportion(t.Share)})
	}
	m.Labels, m.Matrix = sc.Confusion.Labels, sc.Confusion.Counts
	for _, t := range sc.PerTask {
		row := views.RunTaskRow{Index: t.Index, ID: t.ID, Task: t.Task, Expected: answersText(t.Answers, t.Expected), Correct: t.Correct, Scored: t.Scored,
			Agreement: strconv.FormatFloat(t.Agreement, 'f', 2, 64)}
		for _, ch := range t.Choices {
			row.Choices = append(row.Choices, views.RunChoice{Name: ch, Empty: ch == "", Error: ch == runner.ErrorChoice, Right: t.Right(ch)})
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
}

// compareModel sets cur against base.
func compareModel(base store.Run, baseBody runsvc.Body, cur store.Run, curBody runsvc.Body) views.RunCompare {
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
