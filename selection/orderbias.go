package selection

import (
	"slices"

	"github.com/tool-workbench/workbench/listing"
)

// ReferenceOrderNote says why the reference's verdicts never move under a rotation.
const ReferenceOrderNote = "no rotation of the tool order changes the reference's verdicts (a tie that includes the expected tool is ambiguous, not wrong, and the winner shown is chosen by name); here an exact tie goes to the tool listed first, as a model that prefers earlier tools would break it"

// OrderBias is the ranker's verdicts under every rotation of the tool order, with exact ties
// at the top going to the tool listed first.
type OrderBias struct {
	// Rotations is the number of rotations, one per tool.
	Rotations int    `json:"rotations"`
	Note      string `json:"note"`
	// Tied counts the tasks with an exact tie of two or more tools at the top (above zero).
	Tied int `json:"tied"`
	// Flips counts the tasks whose verdict depends on the rotation: the expected tool wins in
	// some rotations and loses in others.
	Flips int `json:"flips"`
	// ExpectedRate is the expected share of the tasks that expect a tool won by it, over a
	// rotation drawn at random; ReferenceRate is the share the reference counts right (clear or
	// ambiguous: the expected tool scores the top, tied or not).
	ExpectedRate  float64 `json:"expectedRate"`
	ReferenceRate float64 `json:"referenceRate"`
	// Tasks are the tied tasks, in task file order, the first MaxOrderBiasTasks of them (More
	// counts the rest); a task without a tie keeps its verdict in every rotation.
	Tasks []TaskOrderBias `json:"tasks"`
	More  int             `json:"more,omitempty"`
}

// Bounds on what an order bias lists (every tie is still counted): a listing of thousands of
// identical tools and tasks would otherwise list every tool under every task.
const (
	MaxOrderBiasTasks = 200
	MaxOrderBiasWins  = 20
)

// TaskOrderBias is one tied task: which tool wins in how many rotations.
type TaskOrderBias struct {
	N        int     `json:"n"` // 1-based position in the task file
	Task     string  `json:"task"`
	Expected *string `json:"expected"`
	// Answers are all the right tools of a task with several (Expected is the first).
	Answers []string `json:"answers,omitempty"`
	Score   float64  `json:"score"` // the tied top score
	// TiedTools counts the tools tied at the top; Wins are the first MaxOrderBiasWins of them in
	// listing order, each with the rotations in which it comes first.
	TiedTools int            `json:"tiedTools"`
	Wins      []RotationWins `json:"wins"`
	// ExpectedWins are the rotations in which an expected tool wins, and PExpected their share.
	ExpectedWins int     `json:"expectedWins"`
	PExpected    float64 `json:"pExpected"`
	Flips        bool    `json:"flips"`
}

// RotationWins is one tied tool and the rotations it wins.
type RotationWins struct {
	Tool      int    `json:"tool"` // 0-based index in the listing
	Name      string `json:"name"`
	Rotations int    `json:"rotations"`
}

// OrderBiasOf computes the order bias of every task against the listing's tools.
func OrderBiasOf(l *listing.Listing, tasks []Task) OrderBias {
	return NewRanker(l.Tools).OrderBiases(tasks)
}

// OrderBiases computes the order bias of every task from one scoring each: nothing is ranked
// again per rotation.
func (r *Ranker) OrderBiases(tasks []Task) OrderBias {
	n := len(r.names)
	ob := OrderBias{Rotations: n, Note: ReferenceOrderNote, Tasks: []TaskOrderBias{}}
	if n == 0 {
		return ob
	}
	sc := r.newScratch()
	var expecting, refWins int
	var expWins float64
	for i, t := range tasks {
		tb, refWon := r.taskOrderBias(i+1, t, r.taskWords(t.Task), sc)
		if t.Expect != nil {
			expecting++
			expWins += tb.PExpected
			if refWon {
				refWins++
			}
		}
		if tb.TiedTools < 2 {
			continue
		}
		ob.Tied++
		if tb.Flips {
			ob.Flips++
		}
		if len(ob.Tasks) == MaxOrderBiasTasks {
			ob.More++
			continue
		}
		ob.Tasks = append(ob.Tasks, tb)
	}
	if expecting > 0 {
		ob.ExpectedRate = expWins / float64(expecting)
		ob.ReferenceRate = float64(refWins) / float64(expecting)
	}
	return ob
}

// taskOrderBias finds the exact top tie T of a task (ws: its words that some tool has) from
// one scoring. Rotation k lists the tools from k on, so the tied tool at position p wins the
// rotations after the previous tied tool's position up to p: p - prev of them (cyclically).
// A task no word of which scores ties every tool at zero, and its verdict (no words) is the
// same in every rotation: it gets no wins. It also reports whether the reference counts the
// task right: an expected tool scores the top.
func (r *Ranker) taskOrderBias(n int, t Task, ws []string, sc *scratch) (TaskOrderBias, bool) {
	tb := TaskOrderBias{N: n, Task: t.Task, Expected: t.Expect, Answers: t.AnyOf}
	r.scoresInto(ws, sc)
	defer sc.reset()
	var tied []int
	top := 0.0
	for _, i := range sc.touched {
		switch {
		case sc.s[i] > top:
			top, tied = sc.s[i], append(tied[:0], i)
		case sc.s[i] == top:
			tied = append(tied, i)
		}
	}
	if top == 0 {
		return tb, false
	}
	slices.Sort(tied)
	tb.Score = top
	nt, m := len(r.names), len(tied)
	tb.TiedTools = m
	tb.Wins = make([]RotationWins, 0, min(m, MaxOrderBiasWins))
	accepts := nameSet(t.Answers())
	for k, p := range tied {
		prev := tied[(k+m-1)%m]
		if k == 0 {
			prev -= nt
		}
		if k < MaxOrderBiasWins {
			tb.Wins = append(tb.Wins, RotationWins{Tool: p, Name: r.names[p], Rotations: p - prev})
		}
		if accepts(r.names[p]) {
			tb.ExpectedWins += p - prev
		}
	}
	tb.PExpected = float64(tb.ExpectedWins) / float64(nt)
	tb.Flips = tb.ExpectedWins > 0 && tb.ExpectedWins < nt
	return tb, tb.ExpectedWins > 0
}
