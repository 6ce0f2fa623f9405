package main

import (
	"fmt"
	"io"
	"strings"

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
