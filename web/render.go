package web

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// The page's lists are bounded: a listing may come from an attacker and hold 20,000 tools (or one
// tool with 50,000 parameters) in the 4 MB a paste allows, and HTML for every one of them made
// pages of 57 MB and more. Each region lists its first items up to a cap and says how many it
// leaves out, so a page and each of its patches is O(cap), not O(listing). The caps are far above
// real listings (the largest at hand, GitHub's, has 117 tools, at most 26 parameters per tool and
// about 100 findings), which render exactly as before. At the caps a region stays under 2 MB of
// HTML and a page under 4 MB besides the selected tool's own text: a tool row is about 1.6 KB, a
// parameter row 3.5 KB, a finding 0.7 KB, a task row 1.6 KB and its select's options more.
const (
	maxToolRows     = 500 // rows of the tool list
	maxFindingItems = 500 // findings of the findings panel, all groups together
	maxCostBars     = 200 // bars of the cost panel: past them one line sums the rest (a bar costs about 0.25 KB a keystroke)
	maxParamRows    = 200 // rows of the editor's parameter table
	maxTaskRows     = 500 // rows of the task table
	// maxTaskOptions bounds the expected-tool selects' options, all rows together, as every
	// select lists every tool (GitHub's 117 tools with up to 85 tasks, about 0.8 MB); a larger
	// table gets text fields that share one list of suggestions of at most maxToolNames names.
	maxTaskOptions = 10000
	maxToolNames   = 500
)

// state is what the server last showed for a workspace: the view models of the shared regions,
// kept so the next change patches only what differs.
type state struct {
	version  int
	ws       Workspace
	res      *analysis.Result
	rows     views.ToolRows
	names    []string
	findings views.Findings
	cost     views.Cost
	tasks    views.Tasks
	damage   views.Damage // the damage test under the task table (overlap.go)
	profile  string       // the workspace's profile the analysis followed (profile.go)
}

// buildState makes the view models of ws's shared regions from its analysis res and its
// baseline's, base.
func (s *Server) buildState(ws Workspace, res, base *analysis.Result) *state {
	st := &state{version: ws.Version, ws: ws, res: res, names: ws.Listing.Names()}
	st.rows = toolRows(res, ws.ToolsShape)
	st.findings = findingsModel(ws.ID, res, ws.ToolsShape)
	st.cost = s.costModel(res, base)
	st.tasks = tasksModel(ws, res)
	st.damage = damageModel(ws, res)
	return st
}

// toolRows lists the first maxToolRows tools; a tool past them is reached with the keyboard
// (the list's notice steps the selection) and edited in the editor, which renders any tool.
func toolRows(res *analysis.Result, shape int) views.ToolRows {
	n := min(len(res.Tools), maxToolRows)
	rows := views.ToolRows{Rows: make([]views.ToolRow, n), Total: len(res.Tools), Matches: len(res.Tools), Shape: shape}
	for i := range res.Tools[:n] {
		rows.Rows[i] = toolRow(&res.Tools[i], shape)
	}
	return rows
}

// fieldFor maps a finding's pointer to the editor field that fixes it.
func fieldFor(ptr string) string {
	toks, err := listing.SplitPointer(ptr)
	if err != nil || len(toks) < 3 || toks[0] != "tools" {
		return ""
	}
	switch toks[2] {
	case "name":
		return "f-name"
	case "title":
		return "f-title"
	case "description":
		return "f-desc"
	case "inputSchema":
		return "f-input"
	case "outputSchema":
		return "f-output"
	case "annotations":
		if len(toks) > 3 {
			if _, ok := listing.HintDefault(toks[3]); ok {
				return "f-ann-" + toks[3]
			}
		}
		return "f-ann-readOnlyHint"
	}
	return ""
}

func findingItem(f analysis.Finding) views.FindingItem {
	return views.FindingItem{Rule: f.Rule, Severity: f.Severity, Message: f.Message,
		DocURL: "/rules#" + f.Rule, Tool: f.ToolIndex, Field: fieldFor(f.Pointer), Pointer: f.Pointer}
}

// findingsModel groups the findings by tool, in order, listing at most maxFindingItems of them;
// the counts stay exact, and the panel says how many it leaves out.
func findingsModel(id string, res *analysis.Result, shape int) views.Findings {
	f := views.Findings{WS: id, Errors: res.Errors, Warnings: res.Warnings, Infos: res.Infos}
	left := maxFindingItems
	add := func(g views.FindingGroup, fds []analysis.Finding) {
		n := min(len(fds), left)
		left -= n
		if n < len(fds) {
			f.Hidden += len(fds) - n
			if g.Tool >= 0 {
				f.HiddenTools++
			}
		}
		if n == 0 {
			return
		}
		for i, fd := range fds[:n] {
			it := findingItem(fd)
			it.N = i
			g.Items = append(g.Items, it)
		}
		g.More = len(fds) - n
		f.Groups = append(f.Groups, g)
	}
	if len(res.Listing) > 0 {
		add(views.FindingGroup{Tool: -1, Title: "The listing as a whole"}, res.Listing)
	}
	for _, t := range res.Tools {
		if len(t.Findings) == 0 {
			continue
		}
		add(views.FindingGroup{Tool: t.Index, Shape: shape, Title: t.Name}, t.Findings)
	}
	return f
}

func verdictModel(v selection.Verdict) views.Verdict {
	out := views.Verdict{Status: string(v.Status), Expected: v.Task.Expected(), Answers: v.Task.AnyOf, Reject: v.Task.Reject, Margin: v.Margin()}
	if v.Winner != nil && v.Winner.Score > 0 {
		out.Winner = v.Winner.Name
	}
	for _, t := range v.Top {
		if t.Score == 0 {
			continue
		}
		w := views.WhyTool{Tool: t.Name, Score: t.Score}
		for _, ws := range t.Words {
			w.Words = append(w.Words, views.ScoredWord{Word: ws.Word, Weight: ws.Weight, InName: ws.InName})
		}
		out.Top = append(out.Top, w)
	}
	return out
}

// tasksModel lists the first maxTaskRows tasks (the counts stay exact). Each row's expected tool
// is a select of every tool name while all the selects together stay under maxTaskOptions
// options, and otherwise a text field suggesting the first maxToolNames names.
func tasksModel(ws Workspace, res *analysis.Result) views.Tasks {
	names := ws.Listing.Names()
	n := min(len(ws.Tasks), maxTaskRows)
	typed := len(names) > maxToolNames || len(names)*n > maxTaskOptions
	t := views.Tasks{WS: ws.ID, Gen: ws.Version, Total: len(ws.Tasks), ToolNames: names[:min(len(names), maxToolNames)],
		Clear: res.Clear, Ambiguous: res.Ambiguous, Wrong: res.Wrong, Formats: taskFormats, Export: workbenchExport(ws.ID)}
	var known map[string]bool
	if n > 0 {
		known = make(map[string]bool, len(names))
		for _, nm := range names {
			known[nm] = true
		}
	}
	t.Rows = make([]views.TaskRow, n)
	for i, task := range ws.Tasks[:n] {
		r := views.TaskRow{Index: i, Gen: ws.Version, Task: task.Task, Expect: task.Expected(), NoTool: task.Expect == nil, Typed: typed}
		r.Missing = !r.NoTool && !known[r.Expect]
		if i < len(res.Verdicts) {
			r.Verdict = verdictModel(res.Verdicts[i])
		}
		t.Rows[i] = r
	}
	return t
}

// schemaText renders a schema field's text: the JSON as written, indented for editing.
func schemaText(v *listing.Value) string {
	if v == nil {
		return ""
	}
	return string(listing.Marshal(v, "  "))
}

func (s *Server) editorModel(ws Workspace, res *analysis.Result, t int) *views.Editor {
	if t < 0 || t >= len(ws.Listing.Tools) {
		return nil
	}
	tool := ws.Listing.Tools[t]
	// Gen is the revision: a re-rendered editor replaces the old form instead of morphing into
	// it, because morphing leaves a field alone when its server value equals the value it was
	// first rendered with, which is wrong after an undo back to that value.
	e := &views.Editor{WS: ws.ID, Index: t, Gen: ws.Version, Shape: views.Shape{Tools: ws.ToolsShape, Params: int(ws.ParamsShapes[t])}, Name: tool.Get("name").String(), Title: tool.Get("title").String(),
		Description: tool.Get("description").String(),
		InputSchema: schemaText(tool.Get("inputSchema")), OutputSchema: schemaText(tool.Get("outputSchema")),
		InputMsg: okMsg("input", tool.Get("inputSchema")), OutputMsg: okMsg("output", tool.Get("outputSchema"))}
	if d := tool.Get("description"); d != nil && !d.IsString() {
		e.Problem = fmt.Sprintf("The description is a %s, not text; typing here replaces it with text.", d.Kind)
	}
	if t < len(res.Tools) {
		e.Words, e.Tokens = res.Tools[t].DescWords, res.Tools[t].DescTokens
	}
	schema, properties, why := tooledit.Props(tool)
	e.ParamsNote = why
	if why == "" {
		req := map[string]bool{}
		for _, r := range tooledit.RequiredNames(schema) {
			req[r] = true
		}
		// The table lists the first maxParamRows parameters; the raw inputSchema holds them all.
		fields := properties.Fields()
		e.ParamCount = len(fields)
		for i, m := range fields[:min(len(fields), maxParamRows)] {
			e.Params = append(e.Params, paramRow(i, m, req[m.Key]))
		}
	}
	ann := tool.Get("annotations")
	for _, a := range listing.Hints {
		row := views.AnnotationRow{Key: a.Key, Label: a.Key, Default: a.Default, Help: a.Help}
		if v := ann.Get(a.Key); v != nil {
			switch {
			case v.Kind == listing.Bool && v.Bool:
				row.Value = "true"
			case v.Kind == listing.Bool:
				row.Value = "false"
			default:
				row.Help = fmt.Sprintf("set to a %s, which hosts may not read as a flag; pick true or false", v.Kind)
			}
		}
		e.Annotations = append(e.Annotations, row)
	}
	return e
}

func okMsg(field string, v *listing.Value) views.SchemaMsg {
	if v == nil {
		if field == "output" {
			return views.SchemaMsg{Field: field, OK: true, Text: "No outputSchema: results are unstructured text."}
		}
		return views.SchemaMsg{Field: field, OK: false, Text: "No inputSchema: the spec requires one (an object schema)."}
	}
	return views.SchemaMsg{Field: field, OK: true, Text: "Valid JSON."}
}

func paramRow(i int, m listing.Member, required bool) views.ParamRow {
	spec := m.Value
	r := views.ParamRow{Index: i, Name: m.Key, Required: required, Type: spec.Get("type").String(),
		Description: spec.Get("description").String(), Format: spec.Get("format").String()}
	if t := spec.Get("type"); t != nil && !t.IsString() {
		r.Type = string(listing.Marshal(t, ""))
	}
	if e := spec.Get("enum"); e != nil && e.Kind == listing.Array {
		parts := make([]string, len(e.Items))
		for j, it := range e.Items {
			if it.IsString() {
				parts[j] = it.Str
			} else {
				parts[j] = string(listing.Marshal(it, ""))
			}
		}
		r.Enum = strings.Join(parts, ", ")
	}
	if v := spec.Get("minimum"); v != nil {
		r.Minimum = string(listing.Marshal(v, ""))
	}
	if v := spec.Get("maximum"); v != nil {
		r.Maximum = string(listing.Marshal(v, ""))
	}
	if v := spec.Get("default"); v != nil {
		r.Default = string(listing.Marshal(v, ""))
	}
	return r
}

// render writes a component to a string.
func render(ctx context.Context, c templ.Component) string {
	var b bytes.Buffer
	if err := c.Render(ctx, &b); err != nil {
		// Components only fail when the writer fails; a bytes.Buffer does not.
		panic(fmt.Sprintf("render: %v", err))
	}
	return b.String()
}

// sharedPatches renders the regions that differ between what was shown (old, may be nil) and
// now. All pages of the workspace apply the same patches.
func sharedPatches(ctx context.Context, old, now *state, tasksStructure bool) []Patch {
	var out []Patch
	add := func(c templ.Component) { out = append(out, Patch{HTML: render(ctx, c)}) }
	id := now.ws.ID
	// A row's buttons name its tool by position with the shape it was rendered at: when tools
	// moved, every row is rendered again. So is the list when the count changes (its last row's
	// "move down", its notice); a row is patched only when it is rendered.
	if old == nil || old.rows.Total != now.rows.Total || !sameRowNames(old.rows.Rows, now.rows.Rows) || old.ws.ToolsShape != now.ws.ToolsShape {
		out = append(out, listPatches(ctx, id, now.rows)...)
	} else {
		for i, r := range now.rows.Rows {
			if old.rows.Rows[i] != r {
				out = append(out, Patch{HTML: render(ctx, views.ToolRowItem(id, r, now.rows.Total)), list: true})
			}
		}
	}
	f := now.findings
	if old == nil || old.findings.Errors != f.Errors || old.findings.Warnings != f.Warnings ||
		old.cost.TotalTokens != now.cost.TotalTokens || old.tasks.Clear != now.tasks.Clear || old.tasks.Total != now.tasks.Total {
		add(views.PanelTabs(f.Errors, f.Warnings, now.cost.TotalTokens, now.tasks.Clear, now.tasks.Total))
	}
	switch {
	case old == nil || !sameGroups(old.findings.Groups, f.Groups) || old.findings.Infos != f.Infos ||
		old.findings.Errors != f.Errors || old.findings.Warnings != f.Warnings ||
		old.findings.Hidden != f.Hidden || old.findings.HiddenTools != f.HiddenTools:
		add(views.FindingsRegion(f))
	default:
		for i, g := range f.Groups {
			if !reflect.DeepEqual(old.findings.Groups[i], g) {
				add(views.FindingGroupView(id, g))
			}
		}
	}
	out = append(out, costPatches(ctx, old, now)...)
	t := now.tasks
	switch {
	case old == nil || tasksStructure || old.tasks.Total != t.Total || len(old.tasks.Rows) != len(t.Rows) || !sameToolChoices(old.tasks, t):
		// A renamed, added or removed tool changes every expected-tool select's options.
		add(views.TasksRegion(t))
	default:
		if old.tasks.Clear != t.Clear || old.tasks.Ambiguous != t.Ambiguous || old.tasks.Wrong != t.Wrong {
			add(views.TaskSummary(t.Clear, t.Ambiguous, t.Wrong, t.Total))
		}
		for i, r := range t.Rows {
			if !reflect.DeepEqual(old.tasks.Rows[i].Verdict, r.Verdict) {
				add(views.VerdictCell(i, r.Verdict))
			}
		}
	}
	if old == nil || !reflect.DeepEqual(old.damage, now.damage) {
		add(views.DamageRegion(now.damage))
	}
	return out
}

// sameRowNames reports whether two tool lists show the same tools in the same order.
func sameRowNames(a, b []views.ToolRow) bool {
	return slices.EqualFunc(a, b, func(x, y views.ToolRow) bool { return x.Name == y.Name })
}

// sameToolChoices reports whether two task tables offer the same tools for the expected tool and
// mark the same tasks as expecting a tool the listing lacks (when so, a tool renamed past the
// names offered leaves the table alone).
func sameToolChoices(a, b views.Tasks) bool {
	return slices.Equal(a.ToolNames, b.ToolNames) && slices.EqualFunc(a.Rows, b.Rows, func(x, y views.TaskRow) bool {
		return x.Missing == y.Missing && x.Typed == y.Typed
	})
}

// sameGroups reports whether two findings lists hold groups for the same tools in the same order
// (so that groups can be patched one by one).
func sameGroups(a, b []views.FindingGroup) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Tool != b[i].Tool || a[i].Title != b[i].Title {
			return false
		}
	}
	return true
}

// costPatches are the Cost region's patches from old to now: none when it is the same; the
// figures above the bars and the bars that changed when the bars are as many (an edit changes
// one tool's bar, or all of them when the largest tool's size moved); else the whole region.
func costPatches(ctx context.Context, old, now *state) []Patch {
	if old != nil && reflect.DeepEqual(old.cost, now.cost) {
		return nil
	}
	if old == nil || len(old.cost.Bars) != len(now.cost.Bars) || old.cost.MoreTools != now.cost.MoreTools || old.cost.MoreTokens != now.cost.MoreTokens {
		return []Patch{{HTML: render(ctx, views.CostRegion(now.cost))}}
	}
	var out []Patch
	oh, nh := old.cost, now.cost
	oh.Bars, nh.Bars = nil, nil
	if !reflect.DeepEqual(oh, nh) {
		out = append(out, Patch{HTML: render(ctx, views.CostHead(now.cost))})
	}
	for i, b := range now.cost.Bars {
		if !reflect.DeepEqual(old.cost.Bars[i], b) {
			out = append(out, Patch{HTML: render(ctx, views.CostBarItem(i, b, now.cost.Window))})
		}
	}
	return out
}
