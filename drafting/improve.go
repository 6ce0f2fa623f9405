package drafting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

// Limits and defaults of the improvement loop.
const (
	DefaultRounds = 2
	MaxRounds     = 10
	// MaxToolsPerRound bounds the tools rewritten in one round: the ones that lose or steal
	// the most training tasks come first.
	MaxToolsPerRound = 10
	DefaultHeldOut   = 0.5
	// DefaultImproveSeed is the seed of the loop's model runs when the spec gives none, so that
	// the same listing and tasks send the same requests (and a recording replays them).
	DefaultImproveSeed = 1
)

// ImproveOptions tune the improvement loop.
type ImproveOptions struct {
	Rounds  int // default 2
	K       int // candidates per rewrite (default DefaultK)
	Samples int // samples per task of each model run (default 1)
	// HeldOut is the share of tasks held out (default 0.5); the split is deterministic: by
	// expected tool, every other task of each, so both parts see every tool when they can.
	HeldOut float64
	// MaxTokens bounds the revised listing's tokens (0: the listing-token-budget rule's bound,
	// which lint clean already holds).
	MaxTokens int
	Spec      runner.Spec
	// Progress is told what happens, a line at a time (nil: nothing).
	Progress func(string)
}

// Attempt is one candidate rewrite of one tool tried in a round.
type Attempt struct {
	Round       int    `json:"round"`
	Tool        string `json:"tool"`
	Description string `json:"description"`
	// TrainBefore/After and HeldBefore/After are correct calls on each part with the tool as it
	// was and with the candidate (all zero when the candidate was refused before a run).
	TrainBefore int    `json:"trainBefore"`
	TrainAfter  int    `json:"trainAfter"`
	HeldBefore  int    `json:"heldBefore"`
	HeldAfter   int    `json:"heldAfter"`
	Ran         bool   `json:"ran"` // the candidate went through a model run
	Kept        bool   `json:"kept"`
	Reason      string `json:"reason"` // why kept or not, in words
}

// ImproveReport is what the loop found.
type ImproveReport struct {
	Plan     Plan      `json:"plan"`
	Train    []int     `json:"train"`   // 0-based task indexes
	HeldOut  []int     `json:"heldOut"` // 0-based task indexes
	Attempts []Attempt `json:"attempts"`
	// Before and After are the held-out accuracy of the original and revised listing over the
	// paired calls, with the paired comparison of the two runs (interval, McNemar p).
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// HeldBefore and HeldAfter count the right calls among HeldPairs paired held-out calls.
	HeldBefore int                `json:"heldBefore"`
	HeldAfter  int                `json:"heldAfter"`
	HeldPairs  int                `json:"heldPairs"`
	Compare    *runner.Comparison `json:"compare,omitempty"`
	Pairs      stats.Paired       `json:"pairs"`
	// TrainBefore and TrainAfter count right calls on the training tasks in the baseline run
	// and in the run of the listing as kept (out of TrainCalls).
	TrainBefore int `json:"trainBefore"`
	TrainAfter  int `json:"trainAfter"`
	TrainCalls  int `json:"trainCalls"`
	// BaselineErrors counts the baseline's failed calls. A failed call is not a wrong answer:
	// candidates are judged, task by task, only on the samples both runs answered.
	BaselineErrors int `json:"baselineErrors"`
	// Improved is true only when a rewrite was kept (Changed is not empty) and held-out
	// accuracy rose; the report never claims more. With nothing changed, a held-out difference
	// is the model's sampling.
	Improved bool `json:"improved"`
	// Significant is true when the paired 95% interval of the held-out difference lies above 0.
	Significant bool   `json:"significant"`
	Verdict     string `json:"verdict"` // one sentence
	Rounds      int    `json:"rounds"`  // rounds begun
	// Stopped says why the loop ended before its last round ("" when it did not).
	Stopped string `json:"stopped,omitempty"`
	// Calls counts the calls sent to the model; Cached the answers taken from the response
	// cache instead (both took their call from the budget). The final held-out run never reads
	// the cache: the kept candidate's trial run sent the very same requests.
	Calls  int `json:"calls"`
	Cached int `json:"cached"`
	// Caveat says, when candidates went through a model run, that the held-out tasks vetoed
	// them, so the final comparison is not an independent test.
	Caveat   string           `json:"caveat,omitempty"`
	Budget   int              `json:"budget,omitempty"` // the budget's limit (0: none)
	Revised  *listing.Listing `json:"-"`
	Changed  []string         `json:"changed"` // tools whose text the revised listing changed
	Problems []string         `json:"problems,omitempty"`
}

func (o ImproveOptions) withDefaults() ImproveOptions {
	if o.Rounds <= 0 {
		o.Rounds = DefaultRounds
	}
	o.Rounds = min(o.Rounds, MaxRounds)
	if o.K <= 0 {
		o.K = DefaultK
	}
	o.K = min(o.K, MaxK)
	if o.Samples <= 0 {
		o.Samples = max(o.Spec.Samples, 1)
	}
	o.Samples = min(o.Samples, runner.MaxSamples)
	o.Spec.Samples = o.Samples
	if !(o.HeldOut > 0 && o.HeldOut < 1) {
		o.HeldOut = DefaultHeldOut
	}
	if o.Spec.Seed == nil {
		s := int64(DefaultImproveSeed)
		o.Spec.Seed = &s
	}
	return o
}

// improvePlan counts the calls of the loop's steps.
type improvePlan struct {
	tasks, held, samples, k, rounds, tools int
}

func planOf(l *listing.Listing, tasks []selection.Task, o ImproveOptions) improvePlan {
	_, held := Split(tasks, o.HeldOut)
	return improvePlan{tasks: len(tasks), held: len(held), samples: o.Samples, k: o.K, rounds: o.Rounds,
		tools: min(len(l.Tools), MaxToolsPerRound)}
}

func (p improvePlan) baseline() int { return p.tasks * p.samples }
func (p improvePlan) final() int    { return p.held * p.samples }

// perTool is one rewrite: the call that drafts it and a run of every task per candidate.
func (p improvePlan) perTool() int { return 1 + p.k*p.tasks*p.samples }
func (p improvePlan) calls() int {
	return p.baseline() + p.final() + p.rounds*p.tools*p.perTool()
}

func (p improvePlan) plan() Plan {
	return Plan{Calls: p.calls(), What: fmt.Sprintf(
		"%d calls for the baseline run (%d tasks, %s each), at most %d rounds × %d tools × %d calls "+
			"(1 to draft %d rewrites, %d × %d to run each on the tasks), and %d calls for the final run of the %d held-out tasks",
		p.baseline(), p.tasks, samplesText(p.samples), p.rounds, p.tools, p.perTool(), p.k, p.k, p.tasks*p.samples, p.final(), p.held)}
}

func samplesText(n int) string {
	if n == 1 {
		return "1 sample"
	}
	return fmt.Sprintf("%d samples", n)
}

// PlanImprove is the most calls Improve makes with these tasks and options.
func PlanImprove(l *listing.Listing, tasks []selection.Task, opts ImproveOptions) Plan {
	return planOf(l, tasks, opts.withDefaults()).plan()
}

// ImproveFloor is what Improve cannot do without: the calls of the baseline run of every task
// and of the final run of the held-out tasks. A budget smaller than their sum is refused before
// any call.
func ImproveFloor(tasks []selection.Task, opts ImproveOptions) (baseline, final int) {
	o := opts.withDefaults()
	_, held := Split(tasks, o.HeldOut)
	return len(tasks) * o.Samples, len(held) * o.Samples
}

// Split divides tasks into training and held-out indexes as ImproveOptions.HeldOut says.
//
// It is deterministic and uses nothing but the task file's order. Tasks are grouped by their
// expected tool ("no tool" is a group too), groups in the order they first appear. A group of
// n ≥ 2 tasks holds out ⌊n × share⌋ of them, at least one and at most n−1, spread evenly and
// starting with a training task (with the default share of one half: train, held-out, train,
// …), so that both parts see every tool that has two tasks. Tools with a single task take turns
// across groups the same way: the first single task trains, the second is held out, and so on.
// A share outside (0, 1) means the default, one half.
func Split(tasks []selection.Task, heldOut float64) (train, held []int) {
	if !(heldOut > 0 && heldOut < 1) {
		heldOut = DefaultHeldOut
	}
	var order []string
	groups := map[string][]int{}
	for i, t := range tasks {
		k := t.Expected()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	isHeld := make([]bool, len(tasks))
	singles := 0
	for _, k := range order {
		g := groups[k]
		if len(g) == 1 {
			isHeld[g[0]] = takesTurn(singles, heldOut)
			singles++
			continue
		}
		n := len(g)
		h := min(max(int(math.Floor(float64(n)*heldOut+1e-9)), 1), n-1)
		for j, i := range g {
			// Task j is held out when the running count of held-out tasks steps up at it.
			isHeld[i] = (j+1)*h/n > j*h/n
		}
	}
	for i, h := range isHeld {
		if h {
			held = append(held, i)
		} else {
			train = append(train, i)
		}
	}
	return train, held
}

// takesTurn says whether the k-th single-task group is held out: when the running share
// k × share steps over a whole number.
func takesTurn(k int, share float64) bool {
	return math.Floor(float64(k+1)*share+1e-9) > math.Floor(float64(k)*share+1e-9)
}

// Improve runs the loop: a baseline run of every task, then for each round the tools that lose
// training tasks are rewritten (the prompt shows training tasks only, never held-out ones), and
// a candidate is kept only if it wins more training tasks, loses no held-out task, adds no lint
// finding and keeps the token bound. It ends with a run of the revised listing and the held-out
// comparison. The budget bounds every call; a spent budget ends the loop early and says so.
//
// The calls of the final run are reserved from the budget before the first call, so that a loop
// that spends its budget on rewrites still measures what it kept. Improve returns an error, and
// no report, when it cannot start (no tasks, no held-out part, a budget too small for the
// baseline and final runs, a baseline run with no answer); a report with an error when the
// final run failed.
func Improve(ctx context.Context, c Caller, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, opts ImproveOptions) (*ImproveReport, error) {
	lp, err := newLoop(c, eng, l, tasks, opts)
	if err != nil {
		return nil, err
	}
	if err := lp.baseline(ctx); err != nil {
		return nil, err
	}
	lp.rounds(ctx)
	if err := lp.finish(ctx); err != nil {
		return lp.rep, err
	}
	return lp.rep, nil
}

// ErrCannotImprove wraps the reasons Improve cannot start.
var ErrCannotImprove = errors.New("cannot improve")

func newLoop(c Caller, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, opts ImproveOptions) (*loop, error) {
	o := opts.withDefaults()
	client, ok := c.Model.(*runner.Client)
	if !ok {
		return nil, fmt.Errorf("%w: the loop runs tasks through a *runner.Client, not a %T", ErrCannotImprove, c.Model)
	}
	if eng == nil || l == nil || len(l.Tools) == 0 {
		return nil, fmt.Errorf("%w: the listing has no tools to rewrite", ErrCannotImprove)
	}
	train, held := Split(tasks, o.HeldOut)
	if len(train) == 0 || len(held) == 0 {
		return nil, fmt.Errorf("%w: the loop needs at least one training and one held-out task, and the %d tasks split into %d and %d; add tasks (two per tool is best)",
			ErrCannotImprove, len(tasks), len(train), len(held))
	}
	p := planOf(l, tasks, o)
	if left := c.Budget.Left(); left < p.baseline()+p.final() {
		return nil, fmt.Errorf("%w: the baseline run needs %d calls and the final held-out run %d, %d in all, and the budget has %d left; allow at least %d (or fewer samples or tasks): %w",
			ErrCannotImprove, p.baseline(), p.final(), p.baseline()+p.final(), left, p.baseline()+p.final(), ErrBudget)
	}
	if err := c.Budget.Take(p.final()); err != nil {
		return nil, fmt.Errorf("%w: reserving the final run's %d calls: %w", ErrCannotImprove, p.final(), err)
	}
	// Rewrite calls go through a counter, so that an answer from the response cache is
	// reported apart from the calls sent.
	asks := &cacheCounter{Model: c.Model}
	c.Model = asks
	lp := &loop{c: c, asks: asks, client: client, eng: eng, opts: o, plan: p, tasks: tasks, orig: l, cur: l,
		trainIdx: train, heldIdx: held, isHeld: make([]bool, len(tasks)),
		rep: &ImproveReport{Plan: p.plan(), Train: train, HeldOut: held, Attempts: []Attempt{}, Changed: []string{}, Budget: c.Budget.Max()}}
	for _, i := range held {
		lp.isHeld[i] = true
	}
	for _, i := range train {
		lp.train = append(lp.train, tasks[i])
	}
	return lp, nil
}

// loop is the state of one Improve.
type loop struct {
	c        Caller
	asks     *cacheCounter // c.Model: counts the rewrite calls answered from the cache
	client   *runner.Client
	eng      *analysis.Engine
	opts     ImproveOptions
	plan     improvePlan
	tasks    []selection.Task
	train    []selection.Task // the training tasks: the only ones a brief may show
	trainIdx []int
	heldIdx  []int
	isHeld   []bool
	orig     *listing.Listing
	cur      *listing.Listing // the listing as kept so far
	state    *runState        // the model's choices on every task with cur
	base     *runner.Run
	rep      *ImproveReport
}

func (lp *loop) progress(format string, args ...any) {
	if lp.opts.Progress != nil {
		lp.opts.Progress(fmt.Sprintf(format, args...))
	}
}

func (lp *loop) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	lp.rep.Problems = append(lp.rep.Problems, msg)
	lp.progress("problem: %s", msg)
}

// stop ends the loop early, saying why (the first reason is kept).
func (lp *loop) stop(why string) {
	if lp.rep.Stopped == "" {
		lp.rep.Stopped = why
		lp.progress("stopping early: %s", why)
	}
}

// cacheCounter is a Model that counts the answers the response cache gave.
type cacheCounter struct {
	Model
	cached int
}

func (m *cacheCounter) Complete(ctx context.Context, req openai.ChatCompletionRequest, sample int, noCache bool) (*runner.Reply, error) {
	r, err := m.Model.Complete(ctx, req, sample, noCache)
	if err == nil && r != nil && r.Cached {
		m.cached++
	}
	return r, err
}

// execute runs tasks against l through the model, after taking their calls from the budget
// unless reserved, and keeps the exchanges. With fresh, every request goes to the model even
// when the response cache holds an answer.
func (lp *loop) execute(ctx context.Context, l *listing.Listing, tasks []selection.Task, reserved, fresh bool) (*runner.Run, error) {
	if !reserved {
		if err := lp.c.Budget.Take(len(tasks) * lp.opts.Samples); err != nil {
			return nil, err
		}
	}
	run, err := runner.Execute(ctx, lp.client, l, tasks, runner.Options{Spec: lp.opts.Spec, NoCache: fresh})
	if run != nil {
		for _, c := range run.Calls {
			if c.Cached {
				lp.rep.Cached++
			} else {
				lp.rep.Calls++
			}
		}
		lp.c.Record.AddRun(run)
	}
	if err == nil && run == nil {
		err = errors.New("the run returned nothing")
	}
	return run, err
}

// baseline runs every task on the listing as given.
func (lp *loop) baseline(ctx context.Context) error {
	lp.progress("split: %d training tasks, %d held-out tasks", len(lp.trainIdx), len(lp.heldIdx))
	lp.progress("baseline: running %d tasks, %s each", len(lp.tasks), samplesText(lp.opts.Samples))
	run, err := lp.execute(ctx, lp.cur, lp.tasks, false, false)
	if err != nil {
		return fmt.Errorf("the baseline run: %w", err)
	}
	st := newRunState(run, lp.tasks)
	if failed, notRecorded := st.score.Errors, firstNotRecorded(run); failed*2 >= len(run.Calls) || notRecorded != "" {
		// Half the calls failing leaves too little to compare; a replay without an answer to
		// a request was recorded with other settings and will not answer the loop either.
		first := notRecorded
		if first == "" {
			first = firstCallError(run)
		}
		return fmt.Errorf("%w: the baseline run failed: %d of %d calls; first error: %s; check the endpoint with 'workbench run', or replay with the settings the recording was made with",
			ErrCannotImprove, failed, len(run.Calls), first)
	}
	lp.base, lp.state = run, st
	train, held := st.sums(lp.isHeld)
	lp.rep.TrainBefore, lp.rep.TrainCalls = train, len(lp.trainIdx)*lp.opts.Samples
	lp.rep.BaselineErrors = st.score.Errors
	if st.score.Errors > 0 {
		lp.progress("baseline: %d of %d calls failed; a task is judged only on the samples both runs answered", st.score.Errors, len(run.Calls))
	}
	lp.progress("baseline: %d/%d training calls right, %d/%d held-out calls right", train, lp.rep.TrainCalls, held, len(lp.heldIdx)*lp.opts.Samples)
	return nil
}

func firstCallError(run *runner.Run) string {
	for _, c := range run.Calls {
		if c.Outcome == runner.OutError {
			return c.Error
		}
	}
	return "none"
}

// notRecordedText starts the replay's answer to a request its recording has no answer to
// (runner.Replay, error type not_recorded).
const notRecordedText = "the recording holds no answer to this request"

// firstNotRecorded is the first failed call's error that says the recording held no answer,
// from that phrase on ("" when none says so): a replay's 404 is not a missing endpoint.
func firstNotRecorded(run *runner.Run) string {
	for _, c := range run.Calls {
		if c.Outcome != runner.OutError {
			continue
		}
		if i := strings.Index(c.Error, notRecordedText); i >= 0 {
			return c.Error[i:]
		}
	}
	return ""
}

// runState is what a model run says per task.
type runState struct {
	score *runner.Score
	tasks []selection.Task // the run's tasks, by index
}

func newRunState(run *runner.Run, tasks []selection.Task) *runState {
	return &runState{score: runner.ScoreRun(run), tasks: tasks}
}

// answered says whether a sample's choice is an answer (not a failed or missing call).
func answered(choice string) bool { return choice != "" && choice != runner.ErrorChoice }

// tally is one task's right and rejected samples in a run and in the run it is held against,
// over the samples both answered.
type tally struct{ right, baseRight, rejected, baseRejected int }

// against counts task i in s and in base over the samples both runs answered: a call that
// failed in either run is no answer, neither right nor wrong.
func (s *runState) against(base *runState, i int) tally {
	var t tally
	a, b := s.score.PerTask[i], base.score.PerTask[i]
	for k := range min(len(a.Choices), len(b.Choices)) {
		ca, cb := a.Choices[k], b.Choices[k]
		if !answered(ca) || !answered(cb) {
			continue
		}
		t.right += b2i(s.rightChoice(i, ca))
		t.baseRight += b2i(base.rightChoice(i, cb))
		t.rejected += b2i(s.rejects(i, ca))
		t.baseRejected += b2i(base.rejects(i, cb))
	}
	return t
}

// rightChoice says whether choice answers task i, as runner.ScoreRun counts it.
func (s *runState) rightChoice(i int, choice string) bool {
	tr := s.score.PerTask[i]
	if choice == tr.Expected {
		return true
	}
	if i < len(s.tasks) {
		return s.tasks[i].Accepts(choice) && !s.tasks[i].Rejects(choice)
	}
	return tr.Right(choice)
}

func (s *runState) rejects(i int, choice string) bool {
	return i < len(s.tasks) && s.tasks[i].Rejects(choice)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pairedSums counts the right calls of s and of base on the training and the held-out tasks,
// over the samples both runs answered.
func (s *runState) pairedSums(base *runState, isHeld []bool) (train, baseTrain, held, baseHeld int) {
	for i := range s.score.PerTask {
		t := s.against(base, i)
		if isHeld[i] {
			held, baseHeld = held+t.right, baseHeld+t.baseRight
		} else {
			train, baseTrain = train+t.right, baseTrain+t.baseRight
		}
	}
	return train, baseTrain, held, baseHeld
}

// sums counts the right calls on the training and the held-out tasks.
func (s *runState) sums(isHeld []bool) (train, held int) {
	for i, t := range s.score.PerTask {
		if isHeld[i] {
			held += t.Correct
		} else {
			train += t.Correct
		}
	}
	return train, held
}
