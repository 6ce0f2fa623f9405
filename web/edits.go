package web

// The edits: select a tool, edit a field, add, remove or move a tool or a parameter, undo and
// redo. Each handler reads its request (the page's Datastar signals, the positions and shapes
// in its URL) into a change, as data, and commits it (commit.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// shapes reads the shape a change's positions were rendered at (views.editExpr): g for the
// tools and, with params, gp for tool t's parameters; absent or -1 is unchecked (a client that
// is not a page). workspace.Stale compares them with the listing's.
func shapes(c echo.Context, params bool) (g, gp *int64, err error) {
	read := func(key string) (*int64, error) {
		v := c.QueryParam(key)
		if v == "" || v == "-1" {
			return nil, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, failf(BadRequest, "malformed shape %s=%q; reload the page", key, v)
		}
		return &n, nil
	}
	if g, err = read("g"); err != nil {
		return nil, nil, err
	}
	if params {
		if gp, err = read("gp"); err != nil {
			return nil, nil, err
		}
	}
	return g, gp, nil
}

// typedText is what a refused change gives back to the person: the text of a text field, cut to
// a length a notice can show; nothing for a checkbox, a select or an annotation.
func typedText(c echo.Context, field, val string) string {
	switch field {
	case "name", "title", "description", "inputSchema", "outputSchema":
	case "param":
		switch c.QueryParam("k") {
		case "type", "required":
			return ""
		}
	default:
		return ""
	}
	const max = 2000
	if r := []rune(val); len(r) > max {
		return string(r[:max]) + "…"
	}
	return val
}

// staleToolsAnswer answers an edit made in a page whose tool or parameter positions are older
// than the listing's shape (someone added, removed or moved one): it was not applied, since
// its position may name another tool or parameter now. The page gets the listing as it stands
// and a notice that gives back the text it sent, so nothing typed is lost.
func (s *Server) staleToolsAnswer(c echo.Context, sg signals, typed string) error {
	msg := "Someone added, removed or moved a tool or parameter before your change reached the server, so it was not applied (its place may hold another one now). Here is the listing as it stands; try again."
	if typed != "" {
		msg = fmt.Sprintf("Someone added, removed or moved a tool or parameter while you typed, so your last change was not saved (its place may hold another one now). Your text was: «%s». Here is the listing as it stands.", typed)
	}
	return s.listingAsItStands(c, sg, msg)
}

// listingAsItStands answers a page whose positions are stale with every region rendered afresh
// and msg as the notice (the selection kept where it can be).
func (s *Server) listingAsItStands(c echo.Context, sg signals, msg string) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	sel := min(max(sg.Tool, 0), max(len(ws.Listing.Tools)-1, 0))
	if p := s.hub.lookup(ws.ID, sg.PID); p != nil {
		p.setSelected(sel)
		resetList(p)
	}
	sse := newSSE(c)
	if sel != sg.Tool {
		if err := sse.MarshalAndPatchSignals(map[string]int{"tool": sel}); err != nil {
			return nil
		}
	}
	if err := s.sendFull(sse, ws, sel); err != nil {
		return nil
	}
	if s.costAfterAnswerFull(sse, sg, ws) != nil {
		return nil
	}
	_ = sse.PatchElementTempl(views.FieldNotice(ws.ID, sel, msg))
	return nil
}

// problem is an edit the person has to correct; its text is shown next to the field.
type problem = tooledit.Problem

// problemPatch answers an edit that was refused with a message next to the editor, changing
// nothing.
func (s *Server) problemPatch(c echo.Context, field string, pr *problem) error {
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.SchemaMessage(views.SchemaMsg{Field: field, Text: pr.Msg, Line: pr.Line, Column: pr.Column}))
	return nil
}

// messageField is the editor message region a problem with field is shown in: under its raw
// schema for a schema, under the parameters table otherwise.
func messageField(field string) string {
	switch field {
	case "inputSchema":
		return "input"
	case "outputSchema":
		return "output"
	}
	return "params"
}

// focusable are the editor field ids a "go to field" may focus.
func focusable(id string) bool {
	switch id {
	case "f-name", "f-title", "f-desc", "f-input", "f-output":
		return true
	}
	for _, h := range listing.Hints {
		if id == "f-ann-"+h.Key {
			return true
		}
	}
	return false
}

func (s *Server) selectTool(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	g, _, err := shapes(c, false)
	if err != nil {
		return err
	}
	if workspace.Stale(ws, g, nil, -1) {
		// The index was drawn before someone added, removed or moved a tool: it may be
		// another tool's now. Show the list as it stands instead of guessing.
		return s.listingAsItStands(c, sg, "Someone added, removed or moved a tool since this page was drawn; here is the list as it stands. Pick the tool again.")
	}
	if sg.Tool < 0 || sg.Tool >= len(ws.Listing.Tools) {
		return fail(Conflict, "that tool no longer exists; reload the page")
	}
	if p := s.hub.lookup(ws.ID, sg.PID); p != nil && p.selected() != sg.Tool {
		p.setSelected(sg.Tool)
		s.hub.announce(p, "here") // presence shows the tool each person is on
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	sse := newSSE(c)
	if err := patchEditor(sse, s.editorModel(ws, st.res, sg.Tool)); err != nil {
		return nil
	}
	if f := c.QueryParam("focus"); focusable(f) {
		focus := views.FocusField(f)
		if c.QueryParam("at") == "hidden" { // a hidden-unicode finding: select the first one
			focus = views.FocusHidden(f)
		}
		_ = sse.PatchElementTempl(focus, datastar.WithSelector("#editor"), datastar.WithModeAppend())
	}
	// A tool selected outside the page's window (a finding's) moves the window to it.
	if p := s.hub.lookup(ws.ID, sg.PID); p != nil || sg.Q != "" || sg.Tool >= maxToolRows {
		_ = s.selectedListPatches(sse, p, sg.Q, st, sg.Tool)
	}
	// The review's threads, read once for the panel's form and the editor's counts.
	reads := &renders{}
	s.patchReviewNew(sse, s.hub.lookup(ws.ID, sg.PID), st, sg.Tool, reads)
	if html, _ := s.reviewCountsHTML(c.Request().Context(), st, sg.Tool, reads); html != "" {
		_ = sse.PatchElements(html)
	}
	return nil
}

// editField changes one field of a tool, or one cell of its parameters table: the path of a
// keystroke (commit.go, then the workspace service).
func (s *Server) editField(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	field, val := c.QueryParam("f"), sg.value()
	g, gp, err := shapes(c, field == "param")
	if err != nil {
		return err
	}
	// A tool that is not a number is no tool: the service answers it as one that is gone.
	te := tooledit.Edit{Kind: tooledit.Field, Tool: atoiOr(c.QueryParam("t"), -1), Name: field, Value: val}
	if field == "param" {
		if te.Param, err = intParam(c, "p"); err != nil {
			return err
		}
		te.Kind, te.Name = tooledit.Param, c.QueryParam("k")
	}
	return s.commit(c, sg, change{edit: &Edit{Tool: &te, ToolsBase: g, ParamsBase: gp}, tool: te.Tool, select_: -1,
		typed: typedText(c, field, val), field: field})
}

// toolOp adds, duplicates, removes or moves a tool.
func (s *Server) toolOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	i, err := intParam(c, "i")
	if err != nil {
		return err
	}
	g, _, err := shapes(c, false)
	if err != nil {
		return err
	}
	// A duplicate copies the tool as it is when the edit is accepted.
	op := c.QueryParam("op")
	e, sel := &Edit{Tool: &tooledit.Edit{Kind: tooledit.ToolOp, Tool: i, Verb: op}}, selectMade
	if op == "add" {
		sel = selectLast // an added tool goes at the end, wherever that is now
	} else {
		e.ToolsBase = g
	}
	return s.commit(c, sg, change{edit: e, tool: sel, structure: true, tasks: true, select_: sel})
}

// paramOp adds, removes or moves a parameter of a tool.
func (s *Server) paramOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	op := c.QueryParam("op")
	// An added parameter goes at the end, wherever that is now: only the tool's place matters.
	g, gp, err := shapes(c, op != "add")
	if err != nil {
		return err
	}
	p, err := intParam(c, "p")
	if err != nil {
		return err
	}
	t := atoiOr(c.QueryParam("t"), -1)
	// The whole schema is rewritten: an edit of another parameter that landed in between must
	// stay (the service makes it again from the head). Not a structural change for other
	// pages: those showing this tool render it again (those typing in it are told instead);
	// this page renders its parameters again.
	e := &Edit{Tool: &tooledit.Edit{Kind: tooledit.ParamOp, Tool: t, Param: p, Verb: op}, ToolsBase: g, ParamsBase: gp}
	return s.commit(c, sg, change{edit: e, tool: t, select_: -1, click: true, field: "params"})
}

func (s *Server) undo(c echo.Context) error { return s.step(c, "undo") }
func (s *Server) redo(c echo.Context) error { return s.step(c, "redo") }

func (s *Server) step(c echo.Context, which string) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	return s.commit(c, sg, change{step: which, tool: sg.Tool, structure: true, tasks: true, select_: -1})
}

// signals are the page's Datastar signals. Val carries the value of the field being edited; the
// field itself is named in the URL, which the server wrote.
type signals struct {
	PID  string          `json:"pid"`
	Tool int             `json:"tool"`
	Ver  int             `json:"ver"`
	Val  json.RawMessage `json:"val"`
	Q    string          `json:"toolq"` // the tool list's search (tools.go)
	// Panel is the result tab the page shows: a stream that reconnects with the Review
	// panel open keeps it live (review.go).
	Panel string `json:"panel"`

	// costChoice is the page's choice in the Cost tab (cost.go).
	costChoice
}

func (sg signals) value() string {
	var s string
	if err := json.Unmarshal(sg.Val, &s); err == nil {
		return s
	}
	var b bool
	if err := json.Unmarshal(sg.Val, &b); err == nil {
		return strconv.FormatBool(b)
	}
	return string(sg.Val)
}

// maxSignalBytes bounds a Datastar request body: the largest value is one raw schema.
const maxSignalBytes = 2 << 20

func readSignals(c echo.Context) (signals, error) {
	var sg signals
	r := c.Request()
	if r.Method != http.MethodGet {
		r.Body = http.MaxBytesReader(c.Response(), r.Body, maxSignalBytes)
	}
	if err := datastar.ReadSignals(r, &sg); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return sg, failf(TooLarge, "the edit is larger than %d bytes", maxSignalBytes)
		}
		return sg, fail(BadRequest, "unreadable Datastar signals: "+err.Error())
	}
	if sg.PID != "" && !wsIDPattern.MatchString(sg.PID) {
		return sg, fail(BadRequest, "malformed page id")
	}
	return sg, nil
}

// intParam reads an index from the query: absent is 0 (operations that need none), anything
// but a number a 400, never a silent 0 that would change the first item.
func intParam(c echo.Context, key string) (int, error) {
	v := c.QueryParam(key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, failf(BadRequest, "malformed index %s=%q; reload the page", key, v)
	}
	return n, nil
}

// atoiOr is s as a number, or def when it is not one (the handlers check it properly after).
func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
