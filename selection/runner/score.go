package runner

import (
	"sort"

	"github.com/tool-workbench/workbench/selection/stats"
)

// Score is what a run says, with its uncertainty. Calls that failed are counted but not scored.
type Score struct {
	Spec     Spec           `json:"spec"`
	Tasks    int            `json:"taskCount"`
	Calls    int            `json:"calls"`   // finished calls, failed ones included
	Scored   int            `json:"scored"`  // calls that got an answer
	Errors   int            `json:"errors"`  // calls that failed after their retries
	Cached   int            `json:"cached"`  // answers taken from the cache
	Missing  int            `json:"missing"` // calls not made (a cancelled run)
	Correct  int            `json:"correct"`
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
	ByPosition []int        `json:"byPosition"`
	PerTask    []TaskResult `json:"tasks"`
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
// and a column. Labels are the listing's tools in order, then NoTool, then unknown names chosen.
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
	Index    int      `json:"index"` // 0-based
	ID       string   `json:"id,omitempty"`
	Task     string   `json:"task"`
	Expected string   `json:"expected"` // NoTool for none
	Choices  []string `json:"choices"`  // one per sample, in sample order; "(error)" for a failed call
	Correct  int      `json:"correct"`
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
	// Labels: listing tools (first of each name), none, then unknown names as they appear.
	idx := map[string]int{}
	var labels []string
	add := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		idx[name] = len(labels)
		labels = append(labels, name)
		return idx[name]
	}
	known := map[string]bool{}
	for _, n := range h.Tools {
		add(n)
		known[n] = true
	}
	add(NoTool)
	for _, t := range h.Tasks {
		add(expectedLabel(t.Expected()))
	}
	for _, c := range r.Calls {
		if c.Outcome != OutError {
			add(c.Choice())
		}
	}
	counts := make([][]int, len(labels))
	for i := range counts {
		counts[i] = make([]int, len(labels))
	}
	byTask := make([][]Call, len(h.Tasks))
	for _, c := range r.Calls {
		if c.Task >= 0 && c.Task < len(byTask) {
			byTask[c.Task] = append(byTask[c.Task], c)
		}
	}
	var noToolK, noToolN, jsonK, validK, validN, matchK, matchN int
	var prompts []int
	var lat []float64
	consistency, consistencyN := 0.0, 0
	for ti, t := range h.Tasks {
		exp := expectedLabel(t.Expected())
		tr := TaskResult{Index: ti, ID: t.ID, Task: t.Task, Expected: exp, Choices: make([]string, h.Spec.Samples)}
		for i := range tr.Choices {
			tr.Choices[i] = ""
		}
		freq := map[string]int{}
		for _, c := range byTask[ti] {
			if c.Sample >= 0 && c.Sample < len(tr.Choices) {
				tr.Choices[c.Sample] = c.Choice()
			}
			if c.Cached {
				s.Cached++
			}
			if c.Outcome == OutError {
				s.Errors++
				if c.Sample >= 0 && c.Sample < len(tr.Choices) {
					tr.Choices[c.Sample] = ErrorChoice
				}
				continue
			}
			s.Scored++
			tr.Scored++
			ch := c.Choice()
			freq[ch]++
			counts[idx[exp]][idx[ch]]++
			if ch == exp {
				tr.Correct++
			}
			if exp == NoTool {
				noToolN++
				if ch == NoTool {
					noToolK++
				}
			}
			if c.Outcome == OutTool {
				s.Args.Calls++
				if c.Args.JSON {
					jsonK++
				}
				if c.Args.Valid != nil {
					validN++
					if *c.Args.Valid {
						validK++
					}
				}
				if c.Args.Match != nil {
					matchN++
					if *c.Args.Match {
						matchK++
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
				prompts = append(prompts, c.Usage.Prompt)
				s.Tokens.Completion += c.Usage.Completion
			}
			if !c.Cached {
				lat = append(lat, c.LatencyMS)
			}
		}
		s.Correct += tr.Correct
		if tr.Scored > 0 {
			// The modal choice; ties go to the label listed first, so the result is stable.
			best := -1
			for ch, n := range freq {
				if best < 0 || n > freq[labels[best]] || n == freq[labels[best]] && idx[ch] < best {
					best = idx[ch]
				}
			}
			tr.Modal = labels[best]
			tr.Agreement = float64(freq[tr.Modal]) / float64(tr.Scored)
			consistency += tr.Agreement
			consistencyN++
			if tr.Agreement == 1 {
				s.Unanimous++
			}
		}
		s.PerTask = append(s.PerTask, tr)
	}
	acc := rate(s.Correct, s.Scored)
	s.Accuracy, s.Interval = acc.Rate, acc.Interval
	s.NoTool = rate(noToolK, noToolN)
	s.Args.JSON = rate(jsonK, s.Args.Calls)
	s.Args.Valid = rate(validK, validN)
	s.Args.Matched = rate(matchK, matchN)
	if consistencyN > 0 {
		s.Consistency = consistency / float64(consistencyN)
	}
	s.Confusion = Confusion{Labels: labels, Counts: counts}
	for i, name := range labels {
		if name == NoTool {
			continue
		}
		ts := ToolScore{Name: name, Known: known[name]}
		for j := range labels {
			ts.Expected += counts[i][j]
			ts.Chosen += counts[j][i]
		}
		ts.Correct = counts[i][i]
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
		if s.Scored > 0 {
			ts.Share = float64(ts.Chosen) / float64(s.Scored)
		}
		s.PerTool = append(s.PerTool, ts)
	}
	if len(prompts) > 0 {
		sum := 0
		s.Tokens.PromptMin, s.Tokens.PromptMax = prompts[0], prompts[0]
		for _, p := range prompts {
			sum += p
			s.Tokens.PromptMin, s.Tokens.PromptMax = min(s.Tokens.PromptMin, p), max(s.Tokens.PromptMax, p)
		}
		s.Tokens.Calls = len(prompts)
		s.Tokens.PromptMean = float64(sum) / float64(len(prompts))
	}
	s.Tokens.Estimated, s.Tokens.EstimateFrom = h.EstimatedTokens, h.EstimateMethod
	if len(lat) > 0 {
		sort.Float64s(lat)
		sum := 0.0
		for _, l := range lat {
			sum += l
		}
		s.Latency = Latency{Calls: len(lat), MeanMS: sum / float64(len(lat)), P50MS: quantile(lat, 0.5), P95MS: quantile(lat, 0.95)}
	}
	return s
}

// quantile of sorted xs, nearest rank.
func quantile(xs []float64, q float64) float64 {
	i := int(q*float64(len(xs)) + 0.5)
	i = min(max(i-1, 0), len(xs)-1)
	return xs[i]
}
