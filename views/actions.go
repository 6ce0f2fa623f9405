package views

import (
	"fmt"
	"slices"
	"strconv"
)

// The functions below build Datastar expressions. They take the workspace id (server-made,
// [a-z0-9] only) and integers, never user text, so nothing a person types can become code.

func wsURL(ws, path string) string { return "/w/" + ws + "/" + path }

// post returns an expression that posts the page's signals to path under the workspace.
func post(ws, path string) string { return fmt.Sprintf("@post('%s')", wsURL(ws, path)) }

// Tools and parameters are addressed by position. Every expression that names one carries the
// shape of the listing it was rendered from (g: where the tools are, gp: where the parameters
// are), baked in with the position itself, so that whichever render reaches the page last, the
// two agree; the server refuses a change whose shape is older than the listing's (-1: unchecked).

// editExpr sends one field's new value: the handler reads $val and applies it at (tool, field).
func editExpr(ws string, tool int, field string, g int) string {
	return fmt.Sprintf("$val = el.value; @post('%s?t=%d&f=%s&g=%d')", wsURL(ws, "edit"), tool, field, g)
}

// paramExpr sends one parameter cell's new value.
func paramExpr(ws string, tool, param int, key string, checkbox bool, sh Shape) string {
	v := "el.value"
	if checkbox {
		v = "el.checked ? 'true' : 'false'"
	}
	return fmt.Sprintf("$val = %s; @post('%s?t=%d&f=param&p=%d&k=%s&g=%d&gp=%d')", v, wsURL(ws, "edit"), tool, param, key, sh.Tools, sh.Params)
}

// toolOp posts a structural operation on the tool list.
func toolOp(ws, op string, i, g int) string {
	return fmt.Sprintf("@post('%s?op=%s&i=%d&g=%d')", wsURL(ws, "tool"), op, i, g)
}

// paramOp posts a structural operation on the selected tool's parameters.
func paramOp(ws, op string, tool, p int, sh Shape) string {
	return fmt.Sprintf("@post('%s?op=%s&t=%d&p=%d&g=%d&gp=%d')", wsURL(ws, "param"), op, tool, p, sh.Tools, sh.Params)
}

// selectExpr selects a tool and optionally focuses a field of its editor; g is the tools' shape
// the index i was rendered at (-1: the page's own selection, which is always current).
func selectExpr(ws string, i int, field string, g int) string {
	return fmt.Sprintf("$tool = %d; @post('%s?focus=%s&g=%d')", i, wsURL(ws, "select"), field, g)
}

// taskExpr sends one task cell's new value. g is the version the task table was rendered at:
// a task is addressed by its index, which an added or removed task shifts, so the server
// refuses a change sent from a table older than the task file's shape (keeping its text).
func taskExpr(ws string, i int, key string, g int) string {
	return fmt.Sprintf("$val = el.value; @post('%s?op=set&i=%d&k=%s&g=%d')", wsURL(ws, "task"), i, key, g)
}

func taskOp(ws, op string, i, g int) string {
	return fmt.Sprintf("@post('%s?op=%s&i=%d&g=%d')", wsURL(ws, "task"), op, i, g)
}

// panels are the result panels a page can open on.
var panels = []string{"findings", "cost", "tasks", "server", "history", "runs"}

// pageSignals are the page's initial signals; pid is server-made hex, panel one of panels, the
// rest are numbers.
func pageSignals(pid string, version, selected int, panel string) string {
	if !slices.Contains(panels, panel) {
		panel = "findings"
	}
	return fmt.Sprintf("{pid: '%s', ver: %d, tool: %d, val: '', sev: 'all', panel: '%s', pair: -1}", pid, version, selected, panel)
}

func itoa(n int) string { return strconv.Itoa(n) }

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// delta renders a signed change, "±0" when nothing changed.
func delta(now, then int) string {
	d := now - then
	switch {
	case d > 0:
		return "+" + strconv.Itoa(d)
	case d < 0:
		return strconv.Itoa(d)
	}
	return "±0"
}

// ID helpers: one place names every patched region.
func toolRowID(i int) string      { return "tool-row-" + strconv.Itoa(i) }
func findingGroupID(t int) string { return "fg-" + groupKey(t) }
func groupKey(t int) string {
	if t < 0 {
		return "listing"
	}
	return strconv.Itoa(t)
}
func taskVerdictID(i int) string { return "verdict-" + strconv.Itoa(i) }
func editorID(tool, gen int) string {
	return fmt.Sprintf("editor-%d-%d", tool, gen)
}
func paramFieldID(p int, key string) string { return fmt.Sprintf("f-p%d-%s", p, key) }

// Region ids, for the web package's patches.
const (
	IDToolList   = "tool-list"
	IDEditor     = "editor"
	IDFindings   = "findings"
	IDCost       = "cost"
	IDTasks      = "tasks"
	IDTaskSum    = "task-summary"
	IDHistory    = "history"
	IDDescCount  = "desc-count"
	IDParams     = "params"
	IDInputText  = "f-input"
	IDOutputText = "f-output"
	IDPanelTabs  = "panel-tabs"
)

// ToolRowID, FindingGroupID and TaskVerdictID name per-item regions for patches.
func ToolRowID(i int) string      { return toolRowID(i) }
func FindingGroupID(t int) string { return findingGroupID(t) }
func TaskVerdictID(i int) string  { return taskVerdictID(i) }

// fetchExpr posts the fetch form (its fields, not the signals: the bearer token must not become
// a signal that every later request would carry) with the page id and selection in the URL.
func fetchExpr(ws string) string {
	return fmt.Sprintf("@post('%s?pid=' + $pid + '&tool=' + $tool, {contentType: 'form'})", wsURL(ws, "fetch"))
}

// exportNotesExpr asks for the Go export's warnings when the export menu opens.
func exportNotesExpr(ws string) string {
	return fmt.Sprintf("el.open && @post('%s')", wsURL(ws, "export/notes"))
}

// Region ids of the server panel and the export menu.
const (
	IDServerPanel = "server-panel"
	IDFetchStatus = "fetch-status"
	IDExportNotes = "export-notes"
)
