package drafting

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/selection/stats"
)

// significant says whether a kept rewrite's held-out difference is significant: the paired 95%
// interval of the difference lies above 0.
func significant(r *ImproveReport) bool {
	return len(r.Changed) > 0 && r.HeldPairs > 0 && r.Compare != nil && r.Compare.Interval.Low > 0
}

// NotSignificant says, in a few words, why a rise is not significant ("" when it is, or when
// the report claims no rise): the number of held-out tasks.
func (r *ImproveReport) NotSignificant() string {
	if !r.Improved || r.Significant {
		return ""
	}
	return fmt.Sprintf("not significant: %d held-out tasks", len(r.HeldOut))
}

// verdict is the report's one sentence: what the held-out tasks show, and nothing more.
func verdict(r *ImproveReport, heldTasks int) string {
	if r.HeldPairs == 0 {
		return "No verdict: no held-out call got an answer in both the baseline and the final run."
	}
	before := fmt.Sprintf("%d/%d", r.HeldBefore, r.HeldPairs)
	after := fmt.Sprintf("%d/%d", r.HeldAfter, r.HeldPairs)
	var p float64
	ci := "n/a"
	if r.Compare != nil {
		p = r.Compare.McNemarP
		ci = stats.FormatDifference(r.Compare.Interval, r.HeldPairs)
	}
	figures := fmt.Sprintf("%+.0f points, 95%% CI %s, McNemar p = %.3g", (r.After-r.Before)*100, ci, p)
	switch {
	case len(r.Changed) == 0:
		// The final run measured the listing the baseline did: a difference is sampling.
		why := "no rewrite was kept"
		if r.Stopped != "" {
			why += " (" + r.Stopped + ")"
		}
		same := "the same listing got the same held-out calls right"
		if r.HeldAfter != r.HeldBefore {
			same = "the difference is the model's sampling, not a change"
		}
		return fmt.Sprintf("No improvement on held-out tasks (%s → %s): %s, so the listing is unchanged and %s.", before, after, why, same)
	case r.HeldAfter > r.HeldBefore:
		s := fmt.Sprintf("Held-out accuracy rose from %s to %s (%s)", before, after, figures)
		if r.Significant {
			return s + "; significant: the paired 95% interval lies above 0."
		}
		return s + fmt.Sprintf("; not significant: %d held-out tasks, and the paired 95%% interval reaches 0 or below.", heldTasks)
	case r.HeldAfter < r.HeldBefore:
		return fmt.Sprintf("Held-out accuracy fell from %s to %s (%s): the revised listing is not better.", before, after, figures)
	default:
		return fmt.Sprintf("No improvement on held-out tasks (%s → %s): the rewrites won training tasks only.", before, after)
	}
}

// WriteJSON writes the report as indented JSON.
func (r *ImproveReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a person. Tool names, task texts and model text come from
// files and from the model: they are printed quoted, so no control character reaches the
// terminal.
func (r *ImproveReport) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "improve: %d tasks, %d for training (%s) and %d held out (%s)\n",
		len(r.Train)+len(r.HeldOut), len(r.Train), taskNumbers(r.Train), len(r.HeldOut), taskNumbers(r.HeldOut))
	budget := "no budget"
	if r.Budget > 0 {
		budget = fmt.Sprintf("budget %d", r.Budget)
	}
	cached := ""
	if r.Cached > 0 {
		cached = fmt.Sprintf(", and took %d answers from the response cache", r.Cached)
	}
	fmt.Fprintf(b, "plan: at most %d model calls (%s); made %d calls%s\n", r.Plan.Calls, budget, r.Calls, cached)
	fmt.Fprintf(b, "training: %d/%d calls right before, %d/%d as kept\n", r.TrainBefore, r.TrainCalls, r.TrainAfter, r.TrainCalls)
	if r.BaselineErrors > 0 {
		fmt.Fprintf(b, "baseline: %s failed; each task is judged only on the samples both runs answered\n", plural(r.BaselineErrors, "call"))
	}
	round := 0
	for k, a := range r.Attempts {
		if a.Round != round {
			round = a.Round
			fmt.Fprintf(b, "\nround %d:\n", round)
		}
		fmt.Fprintf(b, "  %d. %s %s\n", k+1, strconv.Quote(a.Tool), termsafe.Escape(a.Reason))
		fmt.Fprintf(b, "     %s\n", strconv.Quote(a.Description))
	}
	if r.Stopped != "" {
		fmt.Fprintf(b, "\nstopped early: %s\n", r.Stopped)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintln(b, "\nproblems:")
		for _, p := range r.Problems {
			fmt.Fprintf(b, "  - %s\n", termsafe.Escape(p))
		}
	}
	r.writeHeldOut(b)
	if len(r.Changed) > 0 {
		fmt.Fprintf(b, "changed: %s\n", quoteJoin(r.Changed))
	} else {
		fmt.Fprintln(b, "changed: nothing")
	}
	fmt.Fprintf(b, "verdict: %s\n", r.Verdict)
	return b.Flush()
}

func (r *ImproveReport) writeHeldOut(b *bufio.Writer) {
	fmt.Fprintln(b)
	cmp := r.Compare
	if cmp == nil {
		fmt.Fprintln(b, "held-out: not measured")
		return
	}
	for _, n := range cmp.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	fmt.Fprintf(b, "held-out accuracy: %d/%d = %s → %d/%d = %s, difference %+.3f (paired 95%% CI %s), exact McNemar p = %.4g (%d pairs, %d fixed, %d broken)\n",
		r.HeldBefore, r.HeldPairs, stats.FormatProportion(r.Before), r.HeldAfter, r.HeldPairs, stats.FormatProportion(r.After),
		cmp.Difference, stats.FormatDifference(cmp.Interval, r.HeldPairs), cmp.McNemarP, r.HeldPairs, cmp.Pairs.CurrentOnly, cmp.Pairs.BaseOnly)
	for _, f := range cmp.Flipped {
		way := "broke"
		if f.Fixed {
			way = "fixed"
		}
		task := 0
		if f.Index < len(r.HeldOut) {
			task = r.HeldOut[f.Index] + 1
		}
		fmt.Fprintf(b, "  %s task %d %s: expect %s, was %s, now %s\n", way, task, strconv.Quote(shortText(f.Task, 60)),
			strconv.Quote(f.Expected), strconv.Quote(f.Before), strconv.Quote(f.After))
	}
	for _, p := range cmp.Persuasive {
		fmt.Fprintf(b, "  persuasive? %s takes %s of calls (was %s) without being right more often\n",
			strconv.Quote(p.Tool), stats.FormatProportion(p.ShareAfter), stats.FormatProportion(p.ShareBefore))
	}
	if r.Caveat != "" {
		fmt.Fprintf(b, "note: %s\n", r.Caveat)
	}
}

// taskNumbers lists 0-based indexes as 1-based task numbers.
func taskNumbers(idx []int) string {
	s := make([]string, len(idx))
	for k, i := range idx {
		s[k] = strconv.Itoa(i + 1)
	}
	if len(s) == 0 {
		return "none"
	}
	return "tasks " + strings.Join(s, ", ")
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
