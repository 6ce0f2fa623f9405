package web

// The task import reads other tools' task files too (issue 20): detected by shape where only one
// format fits, else the format the form names; what the workbench's tasks cannot carry is shown
// to the person after the import, never dropped silently.

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/taskformat"
	"github.com/tool-workbench/workbench/views"
)

// Bounds of the loss notice: a screenful of losses, each a readable length.
const (
	maxLossesShown = 12
	maxLossText    = 300
)

// taskFormats are the import form's choices besides "detect", the workbench's own first.
var taskFormats = func() []views.TaskFormat {
	var out []views.TaskFormat
	for _, n := range taskformat.Names() {
		f, _ := taskformat.Lookup(n)
		out = append(out, views.TaskFormat{Name: n, Title: f.Title()})
	}
	return out
}()

// taskUpload is an uploaded task file read as the workbench's tasks.
type taskUpload struct {
	tasks  []selection.Task
	from   taskformat.Format // nil for the workbench's own task file
	losses []taskformat.Loss
}

// wbExample is what the workbench's own task file looks like, for refusals.
const wbExample = `a JSON array such as [{"task": "Renew my loan", "expect": "loans_renew"}]`

// readTaskUpload reads b as the format named (by default "detect": the one format whose shape
// b has, else the workbench's task file). A refusal is the sentence the page shows: what was
// wrong and what would work.
func readTaskUpload(b []byte, format string) (taskUpload, string) {
	format = strings.TrimSpace(format)
	if format == "" || format == "detect" {
		f, err := taskformat.DetectFormat(b)
		switch {
		case err == nil && f.Name() != taskformat.Workbench:
			return convertUpload(b, f)
		case err != nil && !errors.Is(err, taskformat.ErrUnknownShape):
			// Two formats claim it: the person says which.
			return taskUpload{}, fmt.Sprintf("The task file could not be used: %s. Choose its format in the Format list and import it again.", strings.TrimSuffix(err.Error(), "; say which it is with --from"))
		}
		tasks, err := selection.ParseTasks(b, false)
		if err != nil {
			return taskUpload{}, fmt.Sprintf("The task file could not be used: %s. It should be %s, or a task file of %s: choose its format in the Format list if it is not detected.",
				err.Error(), wbExample, otherFormats())
		}
		return taskUpload{tasks: tasks}, ""
	}
	f, err := taskformat.Lookup(format)
	if err != nil {
		return taskUpload{}, upperFirst(err.Error()) + ". Choose a format in the list."
	}
	if f.Name() == taskformat.Workbench {
		tasks, err := selection.ParseTasks(b, false)
		if err != nil {
			return taskUpload{}, fmt.Sprintf("The task file could not be used: %s. It should be %s; for another tool's file, choose its format or Detect.", err.Error(), wbExample)
		}
		return taskUpload{tasks: tasks}, ""
	}
	return convertUpload(b, f)
}

// convertUpload reads b as f and makes the workbench's tasks of it, which must then pass the
// task file's own checks (unique ids, a task's text, its bounds).
func convertUpload(b []byte, f taskformat.Format) (taskUpload, string) {
	cases, readLoss, err := taskformat.ReadCases(f, b)
	if err != nil {
		return taskUpload{}, fmt.Sprintf("The file could not be used: %s. Choose the format it has in the Format list, or fix the file.", err.Error())
	}
	var tasks []selection.Task
	var writeLoss []taskformat.Loss
	wb, err := taskformat.Lookup(taskformat.Workbench)
	if err == nil {
		var out []byte
		if out, writeLoss, err = wb.Write(cases); err == nil {
			tasks, err = selection.ParseTasks(out, false)
		}
	}
	if err != nil {
		return taskUpload{}, fmt.Sprintf("The file was read as %s, but its tasks could not be used: %s. Fix that in the file and import it again.", f.Title(), err.Error())
	}
	return taskUpload{tasks: tasks, from: f, losses: append(readLoss, writeLoss...)}, ""
}

// otherFormats names the formats besides the workbench's, for a refusal.
func otherFormats() string {
	var names []string
	for _, f := range taskFormats {
		if f.Name != taskformat.Workbench {
			names = append(names, f.Title)
		}
	}
	return strings.Join(names, ", ")
}

// importedNotice says what an import from another tool's file made, and lists what it could
// not carry over, bounded.
func importedNotice(u taskUpload, file string, appended bool) *views.TaskImported {
	verb := "Imported"
	if appended {
		verb = "Appended"
	}
	n := &views.TaskImported{Summary: fmt.Sprintf("%s %d %s from %s, read as %s. What the workbench's tasks could not carry over (%d):",
		verb, len(u.tasks), plural(len(u.tasks), "task", "tasks"), file, u.from.Title(), len(u.losses))}
	n.Losses, n.More = shownLosses(u.losses)
	return n
}

// shownLosses is what a page lists of losses: the first maxLossesShown, each clipped to
// maxLossText, and how many more there are.
func shownLosses(losses []taskformat.Loss) (shown []string, more int) {
	for i, l := range losses {
		if i == maxLossesShown {
			return shown, len(losses) - maxLossesShown
		}
		shown = append(shown, lint.ClipN(l.String(), maxLossText))
	}
	return shown, 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[size:]
}
