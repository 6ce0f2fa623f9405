package drafting

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// refusedRules are the findings that refuse a candidate outright, whatever it scores: wording
// that persuades the model instead of informing it, or text a person cannot see.
var refusedRules = map[string]string{
	"promotional-wording":   "promotional wording",
	"instructions-to-model": "instructions to the model",
	"hidden-unicode":        "hidden characters",
}

// rounds rewrites, round after round, the tools that lose or steal training tasks.
func (lp *loop) rounds(ctx context.Context) {
	for r := 1; r <= lp.opts.Rounds; r++ {
		targets := lp.targets()
		if len(targets) == 0 {
			lp.stop(fmt.Sprintf("before round %d the model picks the expected tool for every training task: nothing to rewrite", r))
			break
		}
		lp.rep.Rounds = r
		if len(targets) > MaxToolsPerRound {
			lp.progress("round %d: %d tools lose or steal training tasks; the first %d are rewritten", r, len(targets), MaxToolsPerRound)
			targets = targets[:MaxToolsPerRound]
		}
		kept := 0
		for _, i := range targets {
			if lp.rep.Stopped != "" {
				break
			}
			if !lp.stillTarget(i) {
				lp.progress("round %d: %s no longer loses or steals a training task; not rewritten", r, strconv.Quote(toolName(lp.cur, i)))
				continue
			}
			if lp.tryTool(ctx, r, i) {
				kept++
			}
		}
		if lp.rep.Stopped != "" {
			break
		}
		if kept == 0 {
			if r < lp.opts.Rounds {
				lp.stop(fmt.Sprintf("round %d kept no rewrite, and another round would send the same briefs", r))
			}
			break
		}
	}
}

// targets are the tools (indexes in cur) whose training tasks the model's most common choice
// gets wrong (every right answer's tool, for a task several tools answer), then the tools it
// chose instead, most tasks first, then in listing order.
func (lp *loop) targets() []int {
	index := map[string]int{}
	for i, n := range lp.cur.Names() {
		if _, dup := index[n]; !dup {
			index[n] = i
		}
	}
	lost, stole := map[int]int{}, map[int]int{}
	for _, t := range lp.trainIdx {
		tr := lp.state.score.PerTask[t]
		if tr.Scored == 0 || tr.Right(tr.Modal) {
			continue
		}
		// A task that several tools answer is lost by each of them: any may be the one whose
		// text fails to claim it.
		seen := map[int]bool{}
		for _, name := range append([]string{tr.Expected}, tr.Answers...) {
			if i, ok := index[name]; ok && !seen[i] {
				seen[i] = true
				lost[i]++
			}
		}
		if i, ok := index[tr.Modal]; ok {
			stole[i]++
		}
	}
	out := ranked(lost)
	for _, i := range ranked(stole) {
		if _, ok := lost[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// ranked orders tool indexes by count, most first, then by index.
func ranked(counts map[int]int) []int {
	out := make([]int, 0, len(counts))
	for i := range counts {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool {
		if counts[out[a]] != counts[out[b]] {
			return counts[out[a]] > counts[out[b]]
		}
		return out[a] < out[b]
	})
	return out
}

func (lp *loop) stillTarget(i int) bool {
	for _, t := range lp.targets() {
		if t == i {
			return true
		}
	}
	return false
}

func toolName(l *listing.Listing, i int) string { return l.Tools[i].Get("name").String() }
func toolDescription(l *listing.Listing, i int) string {
	return l.Tools[i].Get("description").String()
}

// runCalls is the calls of one model run of every task.
func (lp *loop) runCalls() int { return len(lp.tasks) * lp.opts.Samples }

// trial is a candidate that went through a model run.
type trial struct {
	at      int // its attempt's index in the tool's attempts
	listing *listing.Listing
	state   *runState
	tokens  int
}

// tryTool asks for rewrites of tool i, tries each candidate, and keeps the best one that wins
// training tasks and loses no held-out task. It reports whether it kept one.
func (lp *loop) tryTool(ctx context.Context, round, i int) bool {
	name := strconv.Quote(toolName(lp.cur, i))
	if left := lp.c.Budget.Left(); left < 1+lp.runCalls() {
		lp.stop(fmt.Sprintf("the call budget is spent: %d calls left, and a rewrite of a tool needs 1 call to draft it and %d to run one candidate", left, lp.runCalls()))
		return false
	}
	lp.progress("round %d: asking for %d rewrites of %s", round, lp.opts.K, name)
	cands, ok := lp.draft(ctx, round, i)
	if !ok {
		return false
	}
	cur, err := lp.current(ctx, i)
	if err != nil {
		lp.problem("round %d, %s: the current text could not be scored: %v", round, name, err)
		return false
	}
	var attempts []Attempt
	var best *trial
	for _, cand := range cands {
		a, t := lp.trial(ctx, round, i, cand, cur)
		attempts = append(attempts, a)
		if t != nil {
			t.at = len(attempts) - 1
			if best == nil || better(t, best, lp.isHeld) {
				best = t
			}
		}
		if lp.rep.Stopped != "" {
			break
		}
	}
	if best != nil {
		lp.keep(attempts, best)
	}
	lp.rep.Attempts = append(lp.rep.Attempts, attempts...)
	return best != nil
}

// keep makes the best trial the listing as it stands and says so in the attempts.
func (lp *loop) keep(attempts []Attempt, best *trial) {
	for k := range attempts {
		if k == best.at {
			a := &attempts[k]
			a.Kept = true
			a.Reason = fmt.Sprintf("kept: training %d → %d right, held-out %d → %d, no held-out task lost",
				a.TrainBefore, a.TrainAfter, a.HeldBefore, a.HeldAfter)
			lp.progress("kept a rewrite of %s: training %d → %d right", strconv.Quote(a.Tool), a.TrainBefore, a.TrainAfter)
		} else if attempts[k].Reason == "" {
			attempts[k].Reason = "not kept: it qualified, but the kept candidate won more training calls, or as many in fewer tokens"
		}
	}
	lp.cur, lp.state = best.listing, best.state
}

// better prefers more right training calls, then fewer tokens. The held-out tasks only veto
// (a candidate that loses one is out); they never pick between candidates, which would fit
// the rewrites to the very tasks that judge them.
func better(a, b *trial, isHeld []bool) bool {
	at, _ := a.state.sums(isHeld)
	bt, _ := b.state.sums(isHeld)
	if at != bt {
		return at > bt
	}
	return a.tokens < b.tokens
}

// draft asks the model for rewrites of tool i with a brief built from the training tasks only.
func (lp *loop) draft(ctx context.Context, round, i int) ([]Candidate, bool) {
	name := strconv.Quote(toolName(lp.cur, i))
	brief, err := RewriteBrief(ctx, lp.eng, lp.cur, lp.train, i, lp.opts.K, false)
	if err != nil {
		lp.problem("round %d, %s: the rewrite brief could not be built: %v", round, name, err)
		return nil, false
	}
	cachedBefore := lp.asks.cached
	text, err := lp.c.Ask(ctx, brief)
	switch {
	case errors.Is(err, ErrBudget):
		// Refused before its call: the budget was not taken.
		lp.stop("the call budget is spent")
		return nil, false
	case lp.asks.cached > cachedBefore:
		lp.rep.Cached++
	default:
		lp.rep.Calls++
	}
	switch {
	case ctx.Err() != nil:
		lp.stop("interrupted: " + ctx.Err().Error())
		return nil, false
	case err != nil:
		lp.problem("round %d, %s: the rewrite call failed: %v", round, name, err)
		return nil, false
	}
	cands, problems := Candidates(text, lp.opts.K, toolDescription(lp.cur, i), false)
	for _, p := range problems {
		lp.problem("round %d, %s: %s", round, name, p)
	}
	if len(cands) == 0 {
		lp.problem("round %d, %s: the model's answer held no usable rewrite", round, name)
		return nil, false
	}
	return cands, true
}

// lintScores are the error and warning findings of a listing by rule and place.
type lintScores struct {
	counts  map[string]int
	samples map[string]analysis.Finding
}

// has says whether the listing has a finding of rule.
func (s lintScores) has(rule string) bool {
	for _, f := range s.samples {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// standing is what a candidate is held against: the lint of the listing as it stands and its
// tokens (ScoreText of the current text).
type standing struct {
	lint   lintScores
	tokens int
	mk     marker  // finds the marks of a candidate's tool, as the page's marks do
	marks  markSet // what marks the tool as it stands
}

func (lp *loop) current(ctx context.Context, i int) (standing, error) {
	sc, _, err := ScoreText(ctx, lp.eng, lp.cur, lp.train, i, toolDescription(lp.cur, i), nil)
	if err != nil {
		return standing{}, err
	}
	ls, err := lp.lintOf(ctx, lp.cur)
	if err != nil {
		return standing{}, err
	}
	mk := newMarker()
	ms, err := mk.findings(ctx, lp.cur.Tools[i])
	return standing{lint: ls, tokens: sc.Tokens, mk: mk, marks: ms}, err
}

// markRefusal says why a candidate is refused for its wording: it adds a persuasive phrase
// (lint.Persuasion, counted per phrase against the current text) or hidden characters. The
// workspace's lint may not report these (a rule turned off, one finding per string), and the
// loop must not keep what the page would mark.
func markRefusal(ctx context.Context, cur standing, tool *listing.Value) (string, error) {
	cand, err := cur.mk.findings(ctx, tool)
	if err != nil {
		return "", err
	}
	ms := marks(cur.marks, cand)
	if len(ms) == 0 {
		return "", nil
	}
	why := make([]string, len(ms))
	for n, m := range ms {
		why[n] = fmt.Sprintf("%s (%s)", m.Message, m.Rule)
	}
	return "refused: it adds " + strings.Join(why, "; "), nil
}

// tokenRefusal says why a candidate breaks the token bound: over MaxTokens when one is given;
// otherwise longer than the text it replaces while the listing-token-budget rule reports the
// listing (a new report of the rule is an added lint finding).
func (lp *loop) tokenRefusal(cur standing, tokens int, ls lintScores) string {
	switch {
	case lp.opts.MaxTokens > 0 && tokens > lp.opts.MaxTokens:
		return fmt.Sprintf("refused: the listing would take %d tokens, over the bound of %d", tokens, lp.opts.MaxTokens)
	case lp.opts.MaxTokens <= 0 && ls.has("listing-token-budget") && tokens > cur.tokens:
		return fmt.Sprintf("refused: the listing is over its token budget (listing-token-budget) and the candidate makes it longer (%d → %d tokens)", cur.tokens, tokens)
	}
	return ""
}

func (lp *loop) lintOf(ctx context.Context, l *listing.Listing) (lintScores, error) {
	res, err := lp.eng.AnalyzeContext(ctx, l, nil)
	if err != nil {
		return lintScores{}, err
	}
	s := lintScores{counts: map[string]int{}, samples: map[string]analysis.Finding{}}
	for _, f := range res.AllFindings() {
		if f.Severity != analysis.Error && f.Severity != analysis.Warning {
			continue
		}
		k := f.Rule + "\x00" + f.Pointer
		s.counts[k]++
		s.samples[k] = f
	}
	return s, nil
}

// lintRefusal says why a candidate's listing is refused by the lint: a finding that refuses
// outright on the rewritten tool, or any error or warning the current listing does not have.
func lintRefusal(cur, cand lintScores, tool string) string {
	var refused, added []string
	for k, n := range cand.counts {
		f := cand.samples[k]
		if what, ok := refusedRules[f.Rule]; ok && (f.Tool == tool || f.Tool == "") {
			refused = append(refused, fmt.Sprintf("%s (%s: %s)", what, f.Rule, f.Message))
			continue
		}
		if n > cur.counts[k] {
			added = append(added, fmt.Sprintf("%s %s (%s)", f.Severity, f.Rule, f.Message))
		}
	}
	sort.Strings(refused)
	sort.Strings(added)
	switch {
	case len(refused) > 0:
		return "refused: it has " + strings.Join(refused, "; ")
	case len(added) > 0:
		return "refused: it adds lint findings: " + strings.Join(added, "; ")
	}
	return ""
}

// trial scores one candidate and, when the lint and the token bound let it, runs every task
// with it. It returns the attempt, and the trial when the candidate qualifies to be kept.
func (lp *loop) trial(ctx context.Context, round, i int, cand Candidate, cur standing) (Attempt, *trial) {
	a := Attempt{Round: round, Tool: toolName(lp.cur, i), Description: cand.Description}
	if cand.Refused != "" {
		a.Reason = "refused: " + cand.Refused
		return a, nil
	}
	sc, revised, err := ScoreText(ctx, lp.eng, lp.cur, lp.train, i, cand.Description, nil) // the brief asked for no parameters
	if err != nil {
		a.Reason = "not scored: " + err.Error()
		return a, nil
	}
	ls, err := lp.lintOf(ctx, revised)
	if err != nil {
		a.Reason = "not scored: " + err.Error()
		return a, nil
	}
	if why := lintRefusal(cur.lint, ls, a.Tool); why != "" {
		a.Reason = why
		return a, nil
	}
	if why, err := markRefusal(ctx, cur, revised.Tools[i]); err != nil || why != "" {
		a.Reason = why
		if err != nil {
			a.Reason = "not scored: " + err.Error()
		}
		return a, nil
	}
	if why := lp.tokenRefusal(cur, sc.Tokens, ls); why != "" {
		a.Reason = why
		return a, nil
	}
	lp.progress("round %d: running the tasks with candidate %q", round, shortText(cand.Description, 60))
	run, err := lp.execute(ctx, revised, lp.tasks, false, false)
	if errors.Is(err, ErrBudget) {
		a.Reason = "not run: the call budget is spent"
		lp.stop("the call budget is spent")
		return a, nil
	}
	if err != nil {
		a.Reason = "not kept: its model run failed: " + err.Error()
		if ctx.Err() != nil {
			lp.stop("interrupted: " + ctx.Err().Error())
		}
		return a, nil
	}
	a.Ran = true
	st := newRunState(run, lp.tasks)
	a.TrainAfter, a.TrainBefore, a.HeldAfter, a.HeldBefore = st.pairedSums(lp.state, lp.isHeld)
	if why := lp.judge(st); why != "" {
		a.Reason = why
		return a, nil
	}
	return a, &trial{listing: revised, state: st, tokens: sc.Tokens}
}

// judge says why a candidate's run does not qualify ("" when it does): a failed call, no gain
// on the training tasks, a held-out task with fewer right calls than before, or one moved to a
// tool it rejects. Each task is compared only on the samples both runs answered: a call that
// failed as things stand is not a wrong answer a candidate could "win".
func (lp *loop) judge(st *runState) string {
	if st.score.Errors > 0 {
		return fmt.Sprintf("not kept: %d of its calls failed, so the run cannot be compared", st.score.Errors)
	}
	var lost, rejected []string
	for _, h := range lp.heldIdx {
		t := st.against(lp.state, h)
		if t.right < t.baseRight {
			lost = append(lost, fmt.Sprintf("%d (%d → %d right)", h+1, t.baseRight, t.right))
		}
		if t.rejected > t.baseRejected {
			rejected = append(rejected, strconv.Itoa(h+1))
		}
	}
	ta, tb, _, _ := st.pairedSums(lp.state, lp.isHeld)
	switch {
	case len(lost) > 0:
		return fmt.Sprintf("not kept: it loses held-out task %s (training %d → %d right)", strings.Join(lost, ", task "), tb, ta)
	case len(rejected) > 0:
		return fmt.Sprintf("not kept: it moves held-out task %s to a tool the task rejects (training %d → %d right)", strings.Join(rejected, ", task "), tb, ta)
	case ta <= tb:
		return fmt.Sprintf("not kept: it wins no more training calls (%d → %d right)", tb, ta)
	}
	return ""
}

func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// finish runs the listing as kept on the held-out tasks and compares it, pair by pair, with the
// baseline's calls on the same tasks.
func (lp *loop) finish(ctx context.Context) error {
	heldTasks := pick(lp.tasks, lp.heldIdx)
	lp.progress("final: running the revised listing on the %d held-out tasks", len(heldTasks))
	// The final run is sent afresh: the kept candidate's trial run sent these very requests,
	// and an answer from the cache would repeat it rather than measure again.
	run, err := lp.execute(ctx, lp.cur, heldTasks, true, true)
	lp.rep.Revised = lp.cur
	lp.rep.Changed = changed(lp.orig, lp.cur)
	lp.rep.TrainAfter, _ = lp.state.sums(lp.isHeld)
	if err != nil {
		lp.rep.Verdict = "No verdict: the final run of the held-out tasks failed (" + err.Error() + ")."
		return fmt.Errorf("the final held-out run: %w", err)
	}
	base := restrict(lp.base, lp.orig, lp.heldIdx, heldTasks)
	cmp, err := runner.Compare(base, run)
	if err != nil {
		lp.rep.Verdict = "No verdict: the held-out runs could not be compared (" + err.Error() + ")."
		return fmt.Errorf("comparing the held-out runs: %w", err)
	}
	lp.conclude(cmp)
	return nil
}

// conclude fills the report's held-out figures and verdict from the paired comparison.
func (lp *loop) conclude(cmp *runner.Comparison) {
	r := lp.rep
	r.Compare, r.Pairs = cmp, cmp.Pairs
	r.HeldPairs = cmp.Pairs.N()
	r.HeldBefore = cmp.Pairs.BothRight + cmp.Pairs.BaseOnly
	r.HeldAfter = cmp.Pairs.BothRight + cmp.Pairs.CurrentOnly
	r.Before, r.After = cmp.BaselineAccuracy, cmp.CurrentAccuracy
	// Without a kept rewrite the final run measured the baseline's listing again.
	r.Improved = r.HeldPairs > 0 && r.HeldAfter > r.HeldBefore && len(r.Changed) > 0
	r.Significant = significant(r)
	for _, a := range r.Attempts {
		if a.Ran {
			r.Caveat = "The held-out tasks vetoed candidates (one that lost a held-out task was not kept), so this comparison is not an independent test of the kept rewrites."
			break
		}
	}
	r.Verdict = verdict(r, len(lp.heldIdx))
	lp.progress("final: %s", r.Verdict)
}

func pick[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = xs[i]
	}
	return out
}

// restrict is the part of run on the tasks at idx, as if it had been a run of tasks alone (the
// same spec and listing), so that runner.Compare pairs it with a run of those tasks.
func restrict(run *runner.Run, l *listing.Listing, idx []int, tasks []selection.Task) *runner.Run {
	at := make(map[int]int, len(idx))
	for k, i := range idx {
		at[i] = k
	}
	out := &runner.Run{Header: runner.NewHeader(l, tasks, run.Header.Spec)}
	out.Header.Started = run.Header.Started
	for _, c := range run.Calls {
		if k, ok := at[c.Task]; ok {
			c.Task = k
			out.Calls = append(out.Calls, c)
		}
	}
	return out
}

// changed names the tools whose JSON the revised listing changed.
func changed(a, b *listing.Listing) []string {
	out := []string{}
	for i := range min(len(a.Tools), len(b.Tools)) {
		if string(listing.Marshal(a.Tools[i], "")) != string(listing.Marshal(b.Tools[i], "")) {
			out = append(out, toolName(b, i))
		}
	}
	return out
}
