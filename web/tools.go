package web

// The tool list's search and window (issue 21): a page lists the tools its search matches, at
// most maxToolRows of them around its selected tool. A page with no search whose window starts
// at the first tool shows the shared list (sharedPatches renders it once for every such page); a
// page with a search or another window renders its own, and remembers what it was sent so that
// a change patches only what differs.

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/views"
)

// listView is a page's search and window.
type listView struct {
	q     string
	start int             // the position, among the matches, of the first listed tool
	shown *views.ToolRows // what the page's own list was last sent (nil: the shared list)
}

// own reports whether the page lists other rows than the shared list.
func (v listView) own() bool { return v.q != "" || v.start != 0 }

func (p *page) view() listView {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.list
}

func (p *page) setView(v listView) {
	p.mu.Lock()
	p.list = v
	p.mu.Unlock()
}

// toolQuery is a search over the tools: words of the name, title or description (all of them,
// in any case) and qualifiers.
type toolQuery struct {
	words, rules          []string
	errors, warnings      bool
	readOnly, destructive bool
}

// maxToolQuery bounds the search the matching reads (bytes): every word is looked for in every
// tool's text, so a long query would cost tools × words.
const maxToolQuery = 256

func parseToolQuery(q string) toolQuery {
	var tq toolQuery
	if q = strings.ToLower(q); len(q) > maxToolQuery { // after: lower case can be longer
		q = strings.ToValidUTF8(q[:maxToolQuery], "")
	}
	for _, f := range strings.Fields(q) {
		switch {
		case f == "has:error" || f == "has:errors":
			tq.errors = true
		case f == "has:warning" || f == "has:warnings":
			tq.warnings = true
		case strings.HasPrefix(f, "rule:") && len(f) > len("rule:"):
			tq.rules = append(tq.rules, strings.TrimPrefix(f, "rule:"))
		case f == "readonly" || f == "read-only" || f == "is:readonly":
			tq.readOnly = true
		case f == "destructive" || f == "is:destructive":
			tq.destructive = true
		default:
			tq.words = append(tq.words, f)
		}
	}
	return tq
}

// hint reports whether the tool sets annotation key to true (an unset hint is not a claim).
func hint(t *listing.Value, key string) bool {
	v := t.Get("annotations").Get(key)
	return v != nil && v.Kind == listing.Bool && v.Bool
}

func (tq toolQuery) match(t *listing.Value, r *analysis.ToolResult) bool {
	if tq.errors && r.Errors == 0 || tq.warnings && r.Warnings == 0 ||
		tq.readOnly && !hint(t, "readOnlyHint") || tq.destructive && !hint(t, "destructiveHint") {
		return false
	}
	for _, rule := range tq.rules {
		if !slices.ContainsFunc(r.Findings, func(f analysis.Finding) bool { return strings.ToLower(f.Rule) == rule }) {
			return false
		}
	}
	if len(tq.words) == 0 {
		return true
	}
	text := strings.ToLower(r.Name + "\n" + t.Get("title").String() + "\n" + t.Get("description").String())
	for _, w := range tq.words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// toolMatches lists the tools q matches, in order.
func toolMatches(st *state, q string) []int {
	tools, res := st.ws.Listing.Tools, st.res.Tools
	n := min(len(tools), len(res))
	out := make([]int, 0, n)
	tq := parseToolQuery(q)
	empty := strings.TrimSpace(q) == ""
	for i := range n {
		if empty || tq.match(tools[i], &res[i]) {
			out = append(out, i)
		}
	}
	return out
}

func toolRow(t *analysis.ToolResult, shape int) views.ToolRow {
	return views.ToolRow{Index: t.Index, Shape: shape, Name: t.Name, Errors: t.Errors, Warnings: t.Warnings,
		Tokens: t.Cost.Tokens, Bytes: t.Cost.Bytes}
}

// listWindow is the list a page with search q, selected tool sel and window start shows: the
// window moves to hold the selected tool when it matches and lies outside; start comes back
// clamped.
func listWindow(st *state, q string, sel, start int) (views.ToolRows, int) {
	idx := toolMatches(st, q)
	if pos := sort.SearchInts(idx, sel); pos < len(idx) && idx[pos] == sel && (pos < start || pos >= start+maxToolRows) {
		start = pos - maxToolRows/4
	}
	start = min(max(start, 0), max(len(idx)-maxToolRows, 0))
	end := min(start+maxToolRows, len(idx))
	l := views.ToolRows{Rows: make([]views.ToolRow, 0, end-start), Total: len(st.res.Tools), Query: q, Matches: len(idx),
		Before: start, Shape: st.ws.ToolsShape}
	for _, i := range idx[start:end] {
		l.Rows = append(l.Rows, toolRow(&st.res.Tools[i], st.ws.ToolsShape))
	}
	return l, start
}

// listPatches render the list's regions: its count, the selected tool's toolbar, the rows.
func listPatches(ctx context.Context, ws string, l views.ToolRows) []Patch {
	return []Patch{{HTML: render(ctx, views.ToolCount(l)), list: true}, {HTML: render(ctx, views.ToolBar(ws, l)), list: true},
		{HTML: render(ctx, views.ToolList(ws, l)), list: true}}
}

// pageList brings a page's list to search q and selected tool sel, from what the page shows
// (p's view; p nil: unknown, so the list is sent whatever it holds). A page back at the shared
// list gets it; one with its own gets the regions that differ from what it was last sent.
func pageList(ctx context.Context, p *page, st *state, q string, sel int) []Patch {
	old, known := listView{}, p != nil
	if known {
		old = p.view()
	}
	if q != old.q {
		old.start = 0 // a new search lists its first matches (or those around the selected tool)
	}
	l, start := listWindow(st, q, sel, old.start)
	nv := listView{q: q, start: start}
	var out []Patch
	switch {
	case nv.own():
		nv.shown = &l
		out = ownListDiff(ctx, st.ws.ID, old.shown, l, known)
	case old.own() || !known:
		out = listPatches(ctx, st.ws.ID, st.rows)
	}
	if known {
		p.setView(nv)
	}
	return out
}

// ownListDiff renders what differs between a page's own list as sent (was, when known) and l:
// the rows that changed when the same tools are listed, else every region.
func ownListDiff(ctx context.Context, ws string, was *views.ToolRows, l views.ToolRows, known bool) []Patch {
	if !known || was == nil || was.Total != l.Total || was.Matches != l.Matches || was.Before != l.Before ||
		was.Query != l.Query || was.Shape != l.Shape || !slices.EqualFunc(was.Rows, l.Rows, func(a, b views.ToolRow) bool { return a.Index == b.Index && a.Name == b.Name }) {
		return listPatches(ctx, ws, l)
	}
	var out []Patch
	for i, r := range l.Rows {
		if !reflect.DeepEqual(was.Rows[i], r) {
			out = append(out, Patch{HTML: render(ctx, views.ToolRowItem(ws, r, l.Total)), list: true})
		}
	}
	return out
}

// forPage is the shared patches ps as page p shows them: a page with its own list gets its own
// regions instead of the shared list's (st: the workspace after the change).
func forPage(ctx context.Context, p *page, q string, st *state, sel int, ps []Patch) []Patch {
	v := listView{q: q}
	if p != nil {
		v = p.view()
	}
	if !v.own() || st == nil {
		return ps
	}
	out := make([]Patch, 0, len(ps))
	for _, x := range ps {
		if !x.list {
			out = append(out, x)
		}
	}
	return append(out, pageList(ctx, p, st, v.q, sel)...)
}

// resetList records that a page was sent the whole workspace afresh, the shared list included.
func resetList(p *page) {
	if p != nil {
		p.setView(listView{})
	}
}

// toolSearch answers the list's search box and its keyboard steps past the listed rows
// (step: next, prev, first, last, among the tools the search matches): the list, and when the
// selection moved, the editor of the tool reached.
func (s *Server) toolSearch(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	p := s.hub.lookup(ws.ID, sg.PID)
	sel := min(max(sg.Tool, 0), max(len(ws.Listing.Tools)-1, 0))
	if step := c.QueryParam("step"); step != "" {
		sel = stepIn(toolMatches(st, sg.Q), sel, step)
	}
	sse := newSSE(c)
	if sel != sg.Tool && len(ws.Listing.Tools) > 0 {
		if p != nil && p.selected() != sel {
			p.setSelected(sel)
			s.hub.announce(p, "here")
		}
		if err := sse.MarshalAndPatchSignals(map[string]int{"tool": sel}); err != nil {
			return nil
		}
		if err := patchEditor(sse, s.editorModel(ws, st.res, sel)); err != nil {
			return nil
		}
	}
	_ = sendPatches(sse, pageList(c.Request().Context(), p, st, sg.Q, sel))
	return nil
}

// stepIn moves sel one match on (next), back (prev), or to the first or last match.
func stepIn(idx []int, sel int, step string) int {
	if len(idx) == 0 {
		return sel
	}
	switch step {
	case "first":
		return idx[0]
	case "last":
		return idx[len(idx)-1]
	case "next":
		if pos := sort.SearchInts(idx, sel+1); pos < len(idx) {
			return idx[pos]
		}
	case "prev":
		if pos := sort.SearchInts(idx, sel); pos > 0 {
			return idx[pos-1]
		}
	}
	return sel
}

// selectedListPatches moves a page's window to the tool it selected when that lies outside it
// (a finding's tool, say); nothing when the tool is listed.
func (s *Server) selectedListPatches(sse *datastar.ServerSentEventGenerator, p *page, q string, st *state, sel int) error {
	return sendPatches(sse, pageList(sse.Context(), p, st, q, sel))
}
