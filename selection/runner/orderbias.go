package runner

import (
	"fmt"

	"github.com/tool-workbench/workbench/selection"
)

// PositionBias is how often a run's choices follow the order the tools were sent in.
type PositionBias struct {
	Tools int `json:"tools"`
	// Chance is 1/Tools: the first-listed share of a model blind to the order, when the
	// expected tools are spread evenly over the positions (as --shuffle spreads them).
	Chance float64 `json:"chance"`
	// First is the share of the tool calls naming a listed tool whose tool was sent first,
	// with its Wilson 95% interval; Above says the interval lies wholly above Chance.
	First Rate `json:"first"`
	Above bool `json:"above"`
	// ExpectedFirst is the share of those calls whose task's expected tool was sent first: what
	// a model that is always right would score as First.
	ExpectedFirst Rate `json:"expectedFirst"`
	// ByExpected is the accuracy of the calls of tasks that expect a listed tool, by where that
	// tool was sent (1, 2-5, 6-20, 21 on), for shuffled runs only: with a fixed order a
	// position is one tool, and its accuracy is that tool's.
	ByExpected []PositionBucket `json:"byExpectedPosition,omitempty"`
}

// PositionBucket is the accuracy of the calls whose expected tool was sent at a 1-based
// position from From to To.
type PositionBucket struct {
	From int  `json:"from"`
	To   int  `json:"to"`
	Rate Rate `json:"accuracy"`
}

// Label is the bucket as the report prints it: "1", "2-5".
func (b PositionBucket) Label() string {
	if b.From == b.To {
		return fmt.Sprint(b.From)
	}
	return fmt.Sprintf("%d-%d", b.From, b.To)
}

// positionBuckets are the buckets' first positions; the last runs to the listing's end.
var positionBuckets = []int{1, 2, 6, 21}

// correct reports whether choice is right for task, as ScoreRun judges it: an accepted tool
// that the task does not reject, or no tool for a task that expects none.
func correct(task selection.Task, choice string) bool {
	return choice == expectedLabel(task.Expected()) || task.Accepts(choice) && !task.Rejects(choice)
}

// positionBias measures a run's order bias from its calls. The place of the expected tool in
// each shuffled sample is recomputed from the header (order is deterministic from the seed, the
// task and the sample), so run files need not record it.
func positionBias(r *Run) *PositionBias {
	h := r.Header
	n := len(h.Tools)
	if n == 0 {
		return nil
	}
	pb := &PositionBias{Tools: n, Chance: 1 / float64(n)}
	first := make(map[string]int, n) // each name's first index in the listing
	for i, name := range h.Tools {
		if _, ok := first[name]; !ok {
			first[name] = i
		}
	}
	var firstK, expFirstK, calls int
	var bk, bn []int
	if h.Spec.Shuffle {
		bk, bn = make([]int, len(positionBuckets)), make([]int, len(positionBuckets))
	}
	for _, c := range r.Calls {
		if c.Outcome == OutError || c.Task < 0 || c.Task >= len(h.Tasks) {
			continue
		}
		task := h.Tasks[c.Task]
		exp, listed := first[task.Expected()]
		pos := -1 // the expected tool's 0-based place in the order sent
		switch {
		case listed && h.Spec.Shuffle:
			pos = placeOf(order(n, h.Spec, c.Task, c.Sample), exp, h.Tools)
		case listed:
			pos = exp // sent as listed
		}
		if c.Outcome == OutTool && c.Position >= 0 {
			calls++
			if c.Position == 0 {
				firstK++
			}
			if pos == 0 {
				expFirstK++
			}
		}
		if bk != nil && pos >= 0 {
			b := bucketOf(pos + 1)
			bn[b]++
			if correct(task, c.Choice()) {
				bk[b]++
			}
		}
	}
	pb.First, pb.ExpectedFirst = rate(firstK, calls), rate(expFirstK, calls)
	pb.Above = calls > 0 && pb.First.Interval.Low > pb.Chance
	for b, from := range positionBuckets {
		if bk == nil || from > n {
			break
		}
		to := n
		if b+1 < len(positionBuckets) {
			to = min(n, positionBuckets[b+1]-1)
		}
		pb.ByExpected = append(pb.ByExpected, PositionBucket{From: from, To: to, Rate: rate(bk[b], bn[b])})
	}
	return pb
}

// placeOf is the place in ord of the first tool named as tool exp is (a name listed twice is
// found where it is first sent).
func placeOf(ord []int, exp int, names []string) int {
	for p, k := range ord {
		if names[k] == names[exp] {
			return p
		}
	}
	return -1
}

// bucketOf is the bucket of a 1-based position.
func bucketOf(pos int) int {
	b := 0
	for b+1 < len(positionBuckets) && pos >= positionBuckets[b+1] {
		b++
	}
	return b
}
