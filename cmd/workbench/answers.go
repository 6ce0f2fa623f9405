package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
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

// loadReferenceTasks is loadTasks for --rules reference, which reads the task file as the
// reference does; when the file uses what the reference does not know (several right tools,
// rejected tools), a hint on standard error says so, leaving standard output the reference's.
func loadReferenceTasks(e *env, path string) ([]selection.Task, error) {
	src, err := readSource(e, path)
	if err != nil {
		return nil, err
	}
	if err := listing.CheckUTF8(src); err != nil {
		return nil, err
	}
	src = listing.UniversalNewlines(src)
	tasks, err := selection.ParseTasks(src, true)
	if ext, xerr := selection.ParseTasks(src, false); xerr == nil {
		referenceHint(e.stderr, ext)
	}
	return tasks, err
}

// referenceHint names the first task with several answers or with rejected tools, if any.
func referenceHint(w io.Writer, tasks []selection.Task) {
	sets, rejects := -1, -1
	for i, t := range tasks {
		if sets < 0 && len(t.AnyOf) > 0 {
			sets = i
		}
		if rejects < 0 && len(t.Reject) > 0 {
			rejects = i
		}
	}
	if sets >= 0 {
		fmt.Fprintf(w, "workbench: task %d lists several right tools in \"expect\"; the reference checker reads one tool per task and refuses the file, as the ERROR line says. Check with --rules all to rank tasks with several answers\n", sets+1)
		return
	}
	if rejects >= 0 {
		fmt.Fprintf(w, "workbench: the reference checker ignores \"reject\" (task %d names rejected tools), so this report does not use it; check with --rules all to fail a task whose winner is a rejected tool\n", rejects+1)
	}
}
