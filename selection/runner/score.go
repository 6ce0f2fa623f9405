package runner

import (
	"slices"
	"sort"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/stats"
)

// Score is what a run says, with its uncertainty. Calls that failed are counted but not scored.
type Score struct {
	Spec    Spec `json:"spec"`
	Tasks   int  `json:"taskCount"`
	Calls   int  `json:"calls"`   // finished calls, failed ones included
	Scored  int  `json:"scored"`  // calls that got an answer
	Errors  int  `json:"errors"`  // calls that failed after their retries
	Cached  int  `json:"cached"`  // answers taken from the cache
	Missing int  `json:"missing"` // calls not made (a cancelled run)
	Correct int  `json:"correct"`
	// Rejected counts the scored calls that chose a tool their task rejects (never correct).
	Rejected int            `json:"rejected"`
	Accuracy float64        `json:"accuracy"`
	Interval stats.Interval `json:"interval"` // Wilson 95%
	// NoTool scores the tasks that expect no tool call.
	NoTool Rate `json:"noTool"`
	// PerTool holds every tool that was expected or chosen, in listing order, then others.
	PerTool   []ToolScore `json:"perTool"`
	Confusion Confusion   `json:"confusion"`
	Args      ArgScore    `json:"args"`
	// Consistency is the mean over tasks of the share of samples that made the task's most
	// common choice (1: every sample of every task agreed).
	Consistency float64 `json:"consistency"`
	Unanimous   int     `json:"unanimous"` // tasks whose samples all chose alike
	Tokens      Tokens  `json:"tokens"`
	Latency     Latency `json:"latency"`
	// ByPosition counts tool calls by the place of the chosen tool in the order sent: with
	// shuffled orders, a pile-up at the front is order bias.
	ByPosition []int `json:"byPosition"`
	// OrderBias is how often the choice follows position (nil for a run without tools).
	OrderBias *PositionBias `json:"orderBias,omitempty"`
	PerTask   []TaskResult  `json:"tasks"`
}

// Rate is a share with its Wilson 95% interval.
type Rate struct {
	N        int            `json:"n"`
	K        int            `json:"k"`
	Rate     float64        `json:"rate"`
	Interval stats.Interval `json:"interval"`
}

// String is the rate as the run report and the Runs tab show it: "k/n = 0.750 (95% CI …)".
func (r Rate) String() string { return stats.FormatRate(r.K, r.N, r.Interval) }

func rate(k, n int) Rate {
	r := Rate{N: n, K: k, Interval: stats.Wilson(k, n, stats.Z95)}
	if n > 0 {
		r.Rate = float64(k) / float64(n)
	}
	return r
}

// ToolScore is one tool's precision and recall over the scored calls.
type ToolScore struct {
	Name     string `json:"name"`
	Known    bool   `json:"known"`    // in the listing
	Expected int    `json:"expected"` // samples whose task expects this tool
	Chosen   int    `json:"chosen"`   // samples that chose it
	Correct  int    `json:"correct"`  // both
	// Precision and Recall are nil when undefined (never chosen, never expected).
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	Share     float64  `json:"share"` // Chosen over scored calls
}

// Confusion counts scored calls by expected (rows) and chosen (columns) tool; NoTool is a row
// and a column. A task with several right tools counts a right choice under the chosen tool's
// row (on the diagonal) and any other under its first answer's. Labels are the listing's tools in order, then NoTool, then unknown names chosen.
type Confusion struct {
	Labels []string `json:"labels"`
	Counts [][]int  `json:"counts"` // Counts[expected][chosen]
}

// ArgScore sums up the arguments of the tool calls.
type ArgScore struct {
	Calls   int  `json:"calls"`   // tool calls
	JSON    Rate `json:"json"`    // arguments that parse as an object
	Valid   Rate `json:"valid"`   // of those checked against a schema, the valid ones
	Matched Rate `json:"matched"` // of calls to the expected tool of a task with args, those holding them
}

// Tokens sets the endpoint's measured prompt tokens beside the offline estimate of the tools.
type Tokens struct {
	Calls        int     `json:"calls"` // calls that reported usage
	PromptMean   float64 `json:"promptMean"`
	PromptMin    int     `json:"promptMin"`
	PromptMax    int     `json:"promptMax"`
	Completion   int     `json:"completionTotal"`
	Estimated    *int    `json:"estimatedTools,omitempty"`
	EstimateFrom string  `json:"estimateMethod,omitempty"`
}

// Latency of the answered calls that were not cached, in milliseconds.
type Latency struct {
	Calls  int     `json:"calls"`
	MeanMS float64 `json:"meanMs"`
	P50MS  float64 `json:"p50Ms"`
	P95MS  float64 `json:"p95Ms"`
}

// TaskResult is one task's samples.
type TaskResult struct {
	Index    int    `json:"index"` // 0-based
	ID       string `json:"id,omitempty"`
	Task     string `json:"task"`
	Expected string `json:"expected"` // NoTool for none; a set task's first answer
	// Answers are the right tools of a task that accepts several (nil otherwise).
	Answers  []string `json:"answers,omitempty"`
	Choices  []string `json:"choices"` // one per sample, in sample order; "(error)" for a failed call
	Correct  int      `json:"correct"`
	Rejected int      `json:"rejected,omitempty"` // samples that chose a tool the task rejects
	Scored   int      `json:"scored"`
	Modal    string   `json:"modal"` // the most common choice (ties: listed first)
	// Agreement is the modal choice's share of the scored samples.
	Agreement float64 `json:"agreement"`
}

// ErrorChoice marks a failed call among a task's choices.
const ErrorChoice = "(error)"

// expectedLabel is the row a task's samples count under.
func expectedLabel(exp string) string {
	if exp == "" {
		return NoTool
	}
	return exp
}

// ScoreRun scores a run.
func ScoreRun(r *Run) *Score {
	h := r.Header
	s := &Score{Spec: h.Spec, Tasks: len(h.Tasks), Calls: len(r.Calls)}
	s.Missing = len(h.Tasks)*h.Spec.Samples - len(r.Calls)
	t := newTally(s, r)
	byTask := make([][]Call, len(h.Tasks))
	for _, c := range r.Calls {
		if c.Task >= 0 && c.Task < len(byTask) {
			byTask[c.Task] = append(byTask[c.Task], c)
		}
	}
	for ti, task := range h.Tasks {
		s.PerTask = append(s.PerTask, t.task(ti, task, byTask[ti], h.Spec.Samples))
	}
	t.rates()
	t.perTool()
	t.tokens(h)
	t.latency()
	s.OrderBias = positionBias(r)
	return s
}

// tally is what ScoreRun counts as it walks a run's calls, task by task, before it turns the
// counts into the Score's rates.
type tally struct {
	s      *Score
	labels []string       // the confusion matrix's labels
	idx    map[string]int // label → its index
	known  map[string]bool
	counts [][]int // counts[expected][chosen]

	noToolK, noToolN, jsonK, validK, validN, matchK, matchN int
	prompts                                                 []int
	lat                                                     []float64
	consistency                                             float64
	consistencyN                                            int
}

// newTally lays out the labels: listing tools (first of each name), none, then unknown names
// as they appear.
func newTally(s *Score, r *Run) *tally {
	t := &tally{s: s, idx: map[string]int{}, known: map[string]bool{}}
	for _, n := range r.Header.Tools {
		t.label(n)
		t.known[n] = true
	}
	t.label(NoTool)
	for _, task := range r.Header.Tasks {
		t.label(expectedLabel(task.Expected()))
	}
	for _, c := range r.Calls {
		if c.Outcome != OutError {
			t.label(c.Choice())
		}
	}
	t.counts = make([][]int, len(t.labels))
	for i := range t.counts {
		t.counts[i] = make([]int, len(t.labels))
	}
	return t
}

// label returns the index of name among the labels, adding it at the end if new.
func (t *tally) label(name string) int {
	if i, ok := t.idx[name]; ok {
		return i
	}
	t.idx[name] = len(t.labels)
	t.labels = append(t.labels, name)
	return t.idx[name]
}

// task counts the calls of task ti and returns its result.
func (t *tally) task(ti int, task selection.Task, calls []Call, samples int) TaskResult {
	exp := expectedLabel(task.Expected())
	tr := TaskResult{Index: ti, ID: task.ID, Task: task.Task, Expected: exp, Answers: task.AnyOf, Choices: make([]string, samples)}
	freq := map[string]int{}
	for _, c := range calls {
		if c.Sample >= 0 && c.Sample < len(tr.Choices) {
			tr.Choices[c.Sample] = c.Choice()
		}
		if c.Cached {
			t.s.Cached++
		}
		if c.Outcome == OutError {
			t.s.Errors++
			if c.Sample >= 0 && c.Sample < len(tr.Choices) {
				tr.Choices[c.Sample] = ErrorChoice
			}
			continue
		}
		t.s.Scored++
		tr.Scored++
		ch := c.Choice()
		freq[ch]++
		right := ch == exp || task.Accepts(ch) && !task.Rejects(ch)
		row := exp
		if right {
			row = ch
		}
		t.counts[t.idx[row]][t.idx[ch]]++
		if right {
			tr.Correct++
		}
		if task.Rejects(ch) {
			tr.Rejected++
		}
		if exp == NoTool {
			t.noToolN++
			if ch == NoTool {
				t.noToolK++
			}
		}
		t.answer(c)
	}
	t.s.Correct += tr.Correct
	t.s.Rejected += tr.Rejected
	if tr.Scored > 0 {
		t.modal(&tr, freq)
	}
	return tr
}

// answer counts what an answered call says beyond its choice: its arguments, the place of the
// tool it chose, its usage and its latency.
func (t *tally) answer(c Call) {
	s := t.s
	if c.Outcome == OutTool {
		s.Args.Calls++
		if c.Args.JSON {
			t.jsonK++
		}
		if c.Args.Valid != nil {
			t.validN++
			if *c.Args.Valid {
				t.validK++
			}
		}
		if c.Args.Match != nil {
			t.matchN++
			if *c.Args.Match {
				t.matchK++
			}
		}
		if c.Position >= 0 {
			for len(s.ByPosition) <= c.Position {
				s.ByPosition = append(s.ByPosition, 0)
			}
			s.ByPosition[c.Position]++
		}
	}
	if c.Usage.Prompt > 0 {
		t.prompts = append(t.prompts, c.Usage.Prompt)
		s.Tokens.Completion += c.Usage.Completion
	}
	if !c.Cached {
		t.lat = append(t.lat, c.LatencyMS)
	}
}

// modal sets a task's most common choice and its agreement; ties go to the label listed
// first, so the result is stable.
func (t *tally) modal(tr *TaskResult, freq map[string]int) {
	best := -1
	for ch, n := range freq {
		if best < 0 || n > freq[t.labels[best]] || n == freq[t.labels[best]] && t.idx[ch] < best {
			best = t.idx[ch]
		}
	}
	tr.Modal = t.labels[best]
	tr.Agreement = float64(freq[tr.Modal]) / float64(tr.Scored)
	t.consistency += tr.Agreement
	t.consistencyN++
	if tr.Agreement == 1 {
		t.s.Unanimous++
	}
}

// rates turns the counts into the Score's rates and its confusion matrix.
func (t *tally) rates() {
	s := t.s
	acc := rate(s.Correct, s.Scored)
	s.Accuracy, s.Interval = acc.Rate, acc.Interval
	s.NoTool = rate(t.noToolK, t.noToolN)
	s.Args.JSON = rate(t.jsonK, s.Args.Calls)
	s.Args.Valid = rate(t.validK, t.validN)
	s.Args.Matched = rate(t.matchK, t.matchN)
	if t.consistencyN > 0 {
		s.Consistency = t.consistency / float64(t.consistencyN)
	}
	s.Confusion = Confusion{Labels: t.labels, Counts: t.counts}
}

// perTool reads each tool's precision and recall off the confusion matrix.
func (t *tally) perTool() {
	for i, name := range t.labels {
		if name == NoTool {
			continue
		}
		ts := ToolScore{Name: name, Known: t.known[name]}
		for j := range t.labels {
			ts.Expected += t.counts[i][j]
			ts.Chosen += t.counts[j][i]
		}
		ts.Correct = t.counts[i][i]
		if ts.Expected == 0 && ts.Chosen == 0 {
			continue
		}
		if ts.Chosen > 0 {
			p := float64(ts.Correct) / float64(ts.Chosen)
			ts.Precision = &p
		}
		if ts.Expected > 0 {
			rc := float64(ts.Correct) / float64(ts.Expected)
			ts.Recall = &rc
		}
		if t.s.Scored > 0 {
			ts.Share = float64(ts.Chosen) / float64(t.s.Scored)
		}
		t.s.PerTool = append(t.s.PerTool, ts)
	}
}

// tokens sums up the prompt tokens the endpoint reported, beside the header's estimate.
func (t *tally) tokens(h Header) {
	tk := &t.s.Tokens
	if len(t.prompts) > 0 {
		sum := 0
		tk.PromptMin, tk.PromptMax = t.prompts[0], t.prompts[0]
		for _, p := range t.prompts {
			sum += p
			tk.PromptMin, tk.PromptMax = min(tk.PromptMin, p), max(tk.PromptMax, p)
		}
		tk.Calls = len(t.prompts)
		tk.PromptMean = float64(sum) / float64(len(t.prompts))
	}
	tk.Estimated, tk.EstimateFrom = h.EstimatedTokens, h.EstimateMethod
}

// latency sums up the latencies of the calls that were not cached.
func (t *tally) latency() {
	if len(t.lat) == 0 {
		return
	}
	sort.Float64s(t.lat)
	sum := 0.0
	for _, l := range t.lat {
		sum += l
	}
	t.s.Latency = Latency{Calls: len(t.lat), MeanMS: sum / float64(len(t.lat)), P50MS: quantile(t.lat, 0.5), P95MS: quantile(t.lat, 0.95)}
}

// quantile of sorted xs, nearest rank.
func quantile(xs []float64, q float64) float64 {
	i := int(q*float64(len(xs)) + 0.5)
	i = min(max(i-1, 0), len(xs)-1)
	return xs[i]
}

// argsTool is the tool whose call a task's expected arguments are checked on: the chosen one
// when the task accepts it (any of several right tools takes the same arguments), else the
// expected one.
func argsTool(t selection.Task, chosen string) string {
	if t.Accepts(chosen) {
		return chosen
	}
	return t.Expected()
}

// Right reports whether a choice answers the task: its expected tool or any of its answers.
func (tr TaskResult) Right(choice string) bool {
	return choice == tr.Expected || slices.Contains(tr.Answers, choice)
}
