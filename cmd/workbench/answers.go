package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tool-workbench/workbench/selection/runner"
)

// writeRejected counts the calls that chose a tool their task rejects; a run whose tasks
// reject nothing (or whose model never chose a rejected tool) prints nothing, as before.
func writeRejected(w io.Writer, s *runner.Score) {
	if s.Rejected > 0 {
		fmt.Fprintf(w, "rejected tools chosen: %d of %d answered calls\n", s.Rejected, s.Scored)
	}
}

// expectText is a task's expected tool as the run report shows it: the tool, or the list of
// tools any of which is right.
func expectText(t runner.TaskResult) string {
	if len(t.Answers) == 0 {
		return strconv.Quote(t.Expected)
	}
	return "any of " + quoteAll(t.Answers)
}

// rejectedText adds the task's choices of rejected tools to its count of right ones.
func rejectedText(t runner.TaskResult) string {
	if t.Rejected == 0 {
		return ""
	}
	return fmt.Sprintf(", %d rejected", t.Rejected)
}
