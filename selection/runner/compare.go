package runner

import (
	"fmt"

	"github.com/tool-workbench/workbench/selection/stats"
)

// Comparison sets a current run against a baseline on the same tasks and endpoint, usually the
// listing before and after an edit.
type Comparison struct {
	Baseline Spec `json:"baseline"`
	Current  Spec `json:"current"`
	// SameListing says the two runs sent the same tools (then any difference is sampling).
	SameListing      bool           `json:"sameListing"`
	BaselineAccuracy float64        `json:"baselineAccuracy"`
	CurrentAccuracy  float64        `json:"currentAccuracy"`
	Difference       float64        `json:"difference"` // current less baseline, over the pairs
	Interval         stats.Interval `json:"interval"`   // Newcombe's paired 95% interval
	// Pairs matches sample i of a task in one run with sample i of the same task in the other;
	// pairs where either call failed are left out.
	Pairs    stats.Paired `json:"pairs"`
	McNemarP float64      `json:"mcnemarP"` // exact, two-sided
	// Flipped are the tasks whose majority verdict changed.
	Flipped []Flip `json:"flipped"`
	// Persuasive are tools whose share of calls rose (by at least one call) while their
	// precision did not, and which drew more wrong calls than before: a description that
	// persuades instead of informs.
	Persuasive []Shift  `json:"persuasive"`
	Notes      []string `json:"notes,omitempty"`
}

// Flip is one task whose verdict changed.
type Flip struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Task     string `json:"task"`
	Expected string `json:"expected"`
	Before   string `json:"before"` // the baseline's most common choice
	After    string `json:"after"`  // the current run's: which tool took it
	// Fixed: right now, wrong before; otherwise it broke.
	Fixed         bool    `json:"fixed"`
	BeforeCorrect float64 `json:"beforeCorrect"` // share of samples right
	AfterCorrect  float64 `json:"afterCorrect"`
}

// Shift is a tool's share of calls and precision in both runs.
type Shift struct {
	Tool            string   `json:"tool"`
	ShareBefore     float64  `json:"shareBefore"`
	ShareAfter      float64  `json:"shareAfter"`
	PrecisionBefore *float64 `json:"precisionBefore"`
	PrecisionAfter  *float64 `json:"precisionAfter"`
}

// Compare pairs two runs task by task. They must hold the same tasks and come from the same
// endpoint and model; the listing, and the other settings, may differ.
func Compare(base, cur *Run) (*Comparison, error) {
	bh, ch := base.Header, cur.Header
	if bh.TasksHash != ch.TasksHash {
		return nil, fmt.Errorf("the runs hold different task files; compare runs of the same tasks")
	}
	if bh.Spec.Endpoint != ch.Spec.Endpoint || bh.Spec.Model != ch.Spec.Model {
		return nil, fmt.Errorf("the runs come from different endpoints (%s/%s and %s/%s); compare runs on the same endpoint and model",
			bh.Spec.Endpoint, bh.Spec.Model, ch.Spec.Endpoint, ch.Spec.Model)
	}
	bs, cs := ScoreRun(base), ScoreRun(cur)
	cmp := &Comparison{Baseline: bh.Spec, Current: ch.Spec, SameListing: bh.ListingHash == ch.ListingHash}
	if bh.Spec.Samples != ch.Spec.Samples {
		cmp.Notes = append(cmp.Notes, fmt.Sprintf("the runs drew %d and %d samples per task; only the first %d of each are paired",
			bh.Spec.Samples, ch.Spec.Samples, min(bh.Spec.Samples, ch.Spec.Samples)))
	}
	if bh.Spec.Temperature != ch.Spec.Temperature || !sameSeed(bh.Spec.Seed, ch.Spec.Seed) || bh.Spec.SystemPrompt != ch.Spec.SystemPrompt || bh.Spec.Shuffle != ch.Spec.Shuffle {
		cmp.Notes = append(cmp.Notes, "the runs differ in temperature, seed, system prompt or tool order, not only in the listing")
	}
	var bRight, cRight int
	for ti := range bs.PerTask {
		bt, ct := bs.PerTask[ti], cs.PerTask[ti]
		n := min(len(bt.Choices), len(ct.Choices))
		for i := 0; i < n; i++ {
			b, c := bt.Choices[i], ct.Choices[i]
			if b == "" || c == "" || b == ErrorChoice || c == ErrorChoice {
				continue
			}
			br, cr := bt.Right(b), ct.Right(c)
			switch {
			case br && cr:
				cmp.Pairs.BothRight++
			case br:
				cmp.Pairs.BaseOnly++
			case cr:
				cmp.Pairs.CurrentOnly++
			default:
				cmp.Pairs.BothWrong++
			}
			if br {
				bRight++
			}
			if cr {
				cRight++
			}
		}
		if bt.Scored == 0 || ct.Scored == 0 {
			continue
		}
		bShare, cShare := float64(bt.Correct)/float64(bt.Scored), float64(ct.Correct)/float64(ct.Scored)
		// A task flips when its majority verdict changes: right in more than half the samples in
		// one run and in at most half in the other.
		if (bShare > 0.5) != (cShare > 0.5) {
			cmp.Flipped = append(cmp.Flipped, Flip{Index: ti, ID: ct.ID, Task: ct.Task, Expected: ct.Expected,
				Before: bt.Modal, After: ct.Modal, Fixed: cShare > 0.5, BeforeCorrect: bShare, AfterCorrect: cShare})
		}
	}
	if n := cmp.Pairs.N(); n > 0 {
		cmp.BaselineAccuracy, cmp.CurrentAccuracy = float64(bRight)/float64(n), float64(cRight)/float64(n)
	}
	cmp.Difference = cmp.Pairs.Difference()
	cmp.Interval = cmp.Pairs.DifferenceInterval(stats.Z95)
	cmp.McNemarP = stats.McNemarExact(cmp.Pairs.BaseOnly, cmp.Pairs.CurrentOnly)
	before := map[string]ToolScore{}
	for _, t := range bs.PerTool {
		before[t.Name] = t
	}
	for _, t := range cs.PerTool {
		b := before[t.Name]
		// The share must rise by at least one call's worth and precision must not rise.
		minRise := 0.0
		if cs.Scored > 0 {
			minRise = 1 / float64(cs.Scored)
		}
		rose := t.Share-b.Share >= minRise-1e-12 && t.Chosen > b.Chosen
		precisionRose := t.Precision != nil && b.Precision != nil && *t.Precision > *b.Precision+1e-12
		// A tool that now takes more of its own tasks at full precision informs better; flag
		// only when it also draws more wrong calls.
		moreWrong := t.Chosen-t.Correct > b.Chosen-b.Correct
		if rose && !precisionRose && moreWrong {
			cmp.Persuasive = append(cmp.Persuasive, Shift{Tool: t.Name, ShareBefore: b.Share, ShareAfter: t.Share,
				PrecisionBefore: b.Precision, PrecisionAfter: t.Precision})
		}
	}
	return cmp, nil
}
