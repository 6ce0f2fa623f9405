package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

// writeOrderBiasText prints how often a run's choices followed the order the tools were sent
// in: the first-listed share against chance, and with shuffled orders the accuracy by where
// the expected tool was sent.
func writeOrderBiasText(w io.Writer, s *runner.Score) {
	pb := s.OrderBias
	if pb == nil || pb.First.N == 0 {
		return
	}
	verdict := "not above chance"
	if pb.Above {
		verdict = "above chance: the model prefers the tool listed first"
	}
	fmt.Fprintf(w, "order bias: the tool listed first was chosen in %s of tool calls, chance 1/%d = %s (%s); the expected tool was listed first in %s\n",
		pb.First, pb.Tools, stats.FormatProportion(pb.Chance), verdict, pb.ExpectedFirst)
	if !s.Spec.Shuffle {
		fmt.Fprintln(w, "  the tools were sent as listed, so position and tool cannot be told apart: run with --shuffle to measure the bias")
		return
	}
	var parts []string
	for _, b := range pb.ByExpected {
		parts = append(parts, fmt.Sprintf("%s: %s", b.Label(), b.Rate))
	}
	fmt.Fprintf(w, "accuracy by the expected tool's position in the order sent: %s\n", strings.Join(parts, "; "))
}

// orderBiasUsable refuses check --order-bias where it would report nothing: without a task
// file, or in a format that has no place for it.
func (o checkOptions) orderBiasUsable() error {
	switch {
	case !o.orderBias:
		return nil
	case o.tasks == "":
		return usageError{"--order-bias needs --tasks: it moves the ranker's verdicts"}
	case o.format != "json" && o.format != "text":
		return usageError{fmt.Sprintf("--order-bias is reported in the json and text formats, not %s", o.format)}
	}
	return nil
}

// writeCheckOrderBias prints the order bias after check's text report: a summary, then each
// task whose exact top tie the order settles. Task texts and names come from files and are
// printed quoted.
func writeCheckOrderBias(out *bufio.Writer, o checkOptions, r *analysis.Report) {
	ob := r.OrderBias
	if ob == nil || o.format != "text" {
		return
	}
	fmt.Fprintf(out, "INFO order bias: %s\n", ob.Note)
	fmt.Fprintf(out, "INFO order bias: %d of %d tasks tie at the top, %d of them with a verdict that depends on the tool order; an expected tool wins %s of the tasks that expect one over a random rotation (the reference counts %s clear or ambiguous)\n",
		ob.Tied, len(r.Ranking), ob.Flips, stats.FormatProportion(ob.ExpectedRate), stats.FormatProportion(ob.ReferenceRate))
	for _, tb := range ob.Tasks {
		wins := make([]string, len(tb.Wins))
		for i, w := range tb.Wins {
			wins[i] = fmt.Sprintf("%s %d", strconv.Quote(shorten(w.Name, 60)), w.Rotations)
		}
		if more := tb.TiedTools - len(tb.Wins); more > 0 {
			wins = append(wins, fmt.Sprintf("and %d more tied tools", more))
		}
		exp := "no tool"
		switch {
		case len(tb.Answers) > 0:
			exp = "any of " + quotedList(tb.Answers, 5)
		case tb.Expected != nil:
			exp = strconv.Quote(shorten(*tb.Expected, 60))
		}
		flips := ""
		if tb.Flips {
			flips = "; the verdict depends on the order"
		}
		fmt.Fprintf(out, "INFO order bias select-%d: %s expects %s, right in %d of %d rotations; rotations won: %s%s\n",
			tb.N, strconv.Quote(shorten(tb.Task, 60)), exp, tb.ExpectedWins, ob.Rotations, strings.Join(wins, ", "), flips)
	}
	if ob.More > 0 {
		fmt.Fprintf(out, "INFO order bias: %d more tied tasks are counted above but not listed\n", ob.More)
	}
}

// quotedList quotes the first n names, and says how many more there are.
func quotedList(names []string, n int) string {
	out := make([]string, 0, min(len(names), n)+1)
	for _, s := range names[:min(len(names), n)] {
		out = append(out, strconv.Quote(shorten(s, 60)))
	}
	if len(names) > n {
		out = append(out, fmt.Sprintf("and %d more", len(names)-n))
	}
	return strings.Join(out, ", ")
}
