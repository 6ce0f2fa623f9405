package web

// commit: a change through the workspace service, then patches to the page that made it and a
// notice to every other page of the workspace.

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// change describes an update for commit.
type change struct {
	edit      *Edit  // nil: undo, redo or restore (see step)
	step      string // "undo", "redo" or "restore"
	restore   int    // the revision a restore brings back
	tool      int    // the tool whose editor shows the change
	structure bool   // the editor must be re-rendered on every page
	tasks     bool   // the task table's structure changed
	taskSet   bool   // a task edit that set one field of task taskRow
	taskRow   int
	select_   int    // the originating page's selection after the change (-1: unchanged; selectLast, selectMade)
	typed     string // the text the person sent, given back if the change is refused
	click     bool   // a button, not typing: the page is not "typing in" the field it changed
	// field is the editor field the change came from ("params" for a parameter added, removed
	// or moved): where a problem is shown, and which of the editor's regions the page that
	// made the change gets afresh (ownRegions).
	field string
	// extra renders more regions every page of the workspace gets (the Server panel after a
	// re-fetch).
	extra func(ws Workspace) []Patch
}

// replaced is a component a change's answer patches in replace mode: a morph keeps what was
// typed in an input whose value attribute did not change, so a table whose rows moved would
// show one parameter's text in another's row (see patchEditor).
type replaced struct{ templ.Component }

const (
	// selectLast selects the last tool after the change (an added tool, wherever the end is
	// by then).
	selectLast = -2
	// selectMade selects the tool the edit's ops leave in view (a tool duplicated, removed or
	// moved: workspace.Change.Selected).
	selectMade = -3
)

// outcome is what commit's record step leaves for the answer to the page that made the change.
type outcome struct {
	ws       Workspace // after the change
	st       *state    // its analysis, as every page of the workspace now shows it
	shared   []Patch   // the regions every page gets
	taskRows []int     // tasks someone else changed meanwhile, patched one by one
	field    string    // the pointer the change set ("" for a structural one)
	tool     int       // the tool whose editor shows the change
	selectTo int       // the page's selection after it (-1: unchanged)
}

// commit applies a change, then answers the originating page with patches and tells the others:
// record writes it and prepares the notice, refused answers a change that was not applied,
// follow and answer bring the page that made it up to date.
func (s *Server) commit(c echo.Context, sg signals, ch change) error {
	out, err := s.record(c, sg, ch)
	if err != nil {
		return s.refused(c, sg, ch, out.ws, err)
	}
	if out == nil {
		return c.NoContent(http.StatusNoContent) // made against the current listing, the edit changes nothing
	}
	s.follow(c.Param("id"), sg, ch, out)
	return s.answer(c, sg, ch, out)
}

// record, under the workspace's lock, writes the change through the workspace service, analyses
// the workspace after it and diffs it against what its pages were shown; the notice for the
// other pages waits in the hub for the store's event of the edit, so that every page gets the
// edits in the order the store accepted them. nil and no error: the change changed nothing.
func (s *Server) record(c echo.Context, sg signals, ch change) (*outcome, error) {
	id, ctx, who := c.Param("id"), c.Request().Context(), s.who(c)
	unlock := s.lock(id)
	defer unlock()
	old := s.shownState(id)
	done, err := s.write(ctx, id, ch, who, old == nil)
	if err != nil {
		return &outcome{ws: done.After}, err
	}
	if done.Result.Seq == 0 && ch.edit != nil && (ch.edit.Tool != nil || ch.edit.Make != nil) {
		return nil, nil
	}
	ws := done.After
	if old == nil {
		// No page of this workspace is open here (the room keeps what pages were sent): diff
		// against the revision the change applies to. Without it, every region is sent.
		old, _ = s.currentCtx(ctx, done.Before)
	}
	if old != nil && old.version == ws.Version {
		old = nil
	}
	out := &outcome{ws: ws, tool: ch.tool, selectTo: ch.select_}
	switch ch.select_ {
	case selectLast:
		out.selectTo = max(len(ws.Listing.Tools)-1, 0)
		out.tool = out.selectTo
	case selectMade:
		out.selectTo, out.tool = done.Selected, done.Selected
	}
	if out.st, err = s.currentCtx(ctx, ws); err != nil {
		return out, err
	}
	s.setShown(id, out.st)
	// The tasks that differ from what was shown: this change's, and any another made meanwhile.
	taskRows, reshaped := changedTaskRows(old, out.st)
	out.shared = sharedPatches(ctx, old, out.st, ch.tasks || reshaped)
	if ch.extra != nil {
		out.shared = append(out.shared, ch.extra(ws)...)
	}
	out.field = store.FieldOf(done.Ops)
	// An edit that moved a tool re-renders every page's editor, as a structural one does; so
	// does a move made elsewhere that this change brings in.
	res := done.Result
	moved := res.Seq > 0 && res.ToolsShape == res.Seq || old != nil && old.ws.ToolsShape != out.st.ws.ToolsShape
	n := Notice{Version: ws.Version, From: sg.PID, Shared: out.shared, EditorTool: out.tool, Structure: ch.structure || moved,
		Tools: changedTools(old, out.st), ParamsMoved: paramsMoved(old, out.st),
		Field: out.field, Author: who.Name, AuthorID: who.ID, History: true, State: out.st, cache: &renders{},
		Undo: &store.UndoState{CanUndo: ws.CanUndo, CanRedo: ws.CanRedo}}
	if !ch.tasks && !reshaped {
		n.TaskRows, out.taskRows = taskRows, taskRows
	}
	if res.Seq > 0 {
		// The store's event for this edit delivers n to the other pages (through the hub).
		s.hub.expect(id, res.Seq, n)
	}
	return out, nil
}

// write makes the change through the workspace service. An edit reads the workspace itself
// (Change.Before); an undo, a redo or a restore reads it first only when needBefore (no page
// here was sent the workspace yet, so the change is diffed against it).
func (s *Server) write(ctx context.Context, id string, ch change, who Author, needBefore bool) (workspace.Change, error) {
	if ch.edit != nil {
		return s.store.Apply(ctx, id, *ch.edit, who)
	}
	var before Workspace
	if needBefore {
		var err error
		if before, err = s.store.Get(ctx, id, who); err != nil {
			return workspace.Change{}, err
		}
	}
	var done workspace.Change
	var err error
	if ch.step == "restore" {
		done, err = s.store.Restore(ctx, id, ch.restore, who)
	} else {
		done, err = s.store.Step(ctx, id, ch.step == "undo", who)
	}
	done.Before = before
	return done, err
}

// refused answers a change that was not applied; ws is the workspace as it stands when the
// service knows it (a refused undo).
func (s *Server) refused(c echo.Context, sg signals, ch change, ws Workspace, err error) error {
	var rf *workspace.Refused
	var pr *problem
	var ee *listing.EditError
	var ue *workspace.UndoRefused
	switch {
	case errors.As(err, &rf):
		return s.refusedEdit(c, ch, rf)
	case errors.As(err, &pr):
		// Made again under the store's lock, the edit met a listing that refuses it.
		return s.problemPatch(c, messageField(ch.field), pr)
	case errors.As(err, new(*workspace.StaleTools)):
		return s.staleToolsAnswer(c, sg, ch.typed)
	case errors.As(err, &ee):
		return s.problemPatch(c, messageField(ch.field), &problem{Msg: "That change could not be applied: " + ee.Msg})
	case errors.As(err, &ue):
		// The refused step is gone: the buttons show what is left.
		id := c.Param("id")
		sse := newSSE(c)
		_ = sse.PatchElementTempl(views.FieldNotice(id, sg.Tool, ue.Msg))
		_ = sse.PatchElementTempl(views.History(id, ws.CanUndo, ws.CanRedo, ws.Version))
		// and on the person's other pages here (other replicas learn at their next change)
		s.hub.Publish(id, Notice{Version: ws.Version, From: sg.PID, EditorTool: -1, AuthorID: s.who(c).ID,
			Undo: &store.UndoState{CanUndo: ws.CanUndo, CanRedo: ws.CanRedo}})
		return nil
	case ch.step == "restore":
		return revisionErr(err)
	}
	return err
}

// refusedEdit answers a tool edit that does not apply to the listing as read: a tool that is
// gone is a conflict, and so is a tool operation's problem (its buttons have no field to show
// it by); another problem shows next to its field; anything else is a request no page sends.
func (s *Server) refusedEdit(c echo.Context, ch change, rf *workspace.Refused) error {
	var pr *problem
	switch {
	case rf.Gone:
		return failf(Conflict, "tool %q no longer exists; reload the page", c.QueryParam("t"))
	case errors.As(rf.Err, &pr) && ch.edit.Tool.Kind == tooledit.ToolOp:
		return fail(Conflict, pr.Msg)
	case pr != nil:
		return s.problemPatch(c, messageField(ch.field), pr)
	}
	return fail(BadRequest, rf.Err.Error())
}

// follow records, on the hub's entry for the page that made the change, the tool it shows now
// and the field it types in (so that others' changes to it come as a notice, not a new form).
func (s *Server) follow(id string, sg signals, ch change, out *outcome) {
	p := s.hub.lookup(id, sg.PID)
	if p == nil {
		return
	}
	p.setSelected(selectedAfter(sg, out))
	if out.field != "" && !ch.click {
		p.setFocus(out.field)
	}
	if ch.taskSet {
		p.setFocus(ch.edit.Key) // "tasks/3/task"
	}
}

// selectedAfter is the tool the page that made a change shows after it.
func selectedAfter(sg signals, out *outcome) int {
	if out.selectTo >= 0 {
		return out.selectTo
	}
	return sg.Tool
}

// answer sends the page that made the change its patches: the shared regions, the tasks others
// changed meanwhile, its own undo buttons, and the editor regions the change touched.
func (s *Server) answer(c echo.Context, sg signals, ch change, out *outcome) error {
	id, ws, sel := c.Param("id"), out.ws, selectedAfter(sg, out)
	sse := newSSE(c)
	p, cost := s.answerCost(id, sg, out.st)
	ps := forPage(c.Request().Context(), p, sg.Q, out.st, sel, out.shared)
	if err := s.sendShared(sse, p, cost, ps, true, func() (*state, error) { return out.st, nil }); err != nil {
		return nil
	}
	// Tasks another person changed meanwhile; never the one this page is typing in.
	for _, i := range out.taskRows {
		if ch.taskSet && i == ch.taskRow {
			continue
		}
		if err := s.patchTaskRow(sse, id, out.st, i); err != nil {
			return nil
		}
	}
	// Undo and redo are per person: only this page's buttons change.
	if err := sse.PatchElementTempl(views.History(id, ws.CanUndo, ws.CanRedo, ws.Version)); err != nil {
		return nil
	}
	if out.field != "" || ch.step != "" {
		// The person has seen the field's state now: a notice about someone else's change
		// to it is stale.
		if err := sse.PatchElementTempl(views.FieldNotice(id, sel, "")); err != nil {
			return nil
		}
	}
	if out.selectTo >= 0 && out.selectTo != sg.Tool {
		if err := sse.MarshalAndPatchSignals(map[string]int{"tool": sel}); err != nil {
			return nil
		}
	}
	if ch.structure {
		if err := patchEditor(sse, s.editorModel(ws, out.st.res, sel)); err != nil {
			return nil
		}
	}
	for _, comp := range s.ownRegions(ws, out.st, ch.field, out.tool) {
		var opts []datastar.PatchElementOption
		if r, ok := comp.(replaced); ok {
			comp, opts = r.Component, []datastar.PatchElementOption{datastar.WithModeReplace()}
		}
		if err := sse.PatchElementTempl(comp, opts...); err != nil {
			return nil
		}
	}
	return nil
}

// ownRegions are the editor regions of tool t that the page that changed field gets afresh,
// besides the shared ones: those that follow from what was typed (the description's counts,
// the parameters table from the raw schema and the raw schema from the table), never the
// field typed in.
func (s *Server) ownRegions(ws Workspace, st *state, field string, t int) []templ.Component {
	if t < 0 || t >= len(st.res.Tools) {
		return nil
	}
	e := s.editorModel(ws, st.res, t)
	if e == nil {
		return nil
	}
	switch field {
	case "description":
		return []templ.Component{views.DescCount(e.Words, e.Tokens)}
	case "inputSchema":
		return []templ.Component{replaced{views.ParamsTable(*e)}, views.SchemaMessage(e.InputMsg)}
	case "outputSchema":
		return []templ.Component{views.SchemaMessage(e.OutputMsg)}
	case "param":
		return []templ.Component{views.SchemaText("f-input", "inputSchema", e.InputSchema, ws.ID, t, "inputSchema", e.Shape.Tools),
			views.SchemaMessage(e.InputMsg), views.SchemaMessage(views.SchemaMsg{Field: "params", OK: true})}
	case "params":
		// A parameter added, removed or moved: the table is rendered again too.
		return []templ.Component{replaced{views.ParamsTable(*e)}, views.SchemaText("f-input", "inputSchema", e.InputSchema, ws.ID, t, "inputSchema", e.Shape.Tools),
			views.SchemaMessage(e.InputMsg), views.SchemaMessage(views.SchemaMsg{Field: "params", OK: true})}
	}
	return nil
}

func sendPatches(sse *datastar.ServerSentEventGenerator, ps []Patch) error {
	for _, p := range ps {
		var opts []datastar.PatchElementOption
		if p.Selector != "" {
			opts = append(opts, datastar.WithSelector(p.Selector))
		}
		if p.Mode != "" {
			mode, err := datastar.ElementPatchModeFromString(p.Mode)
			if err != nil {
				return fmt.Errorf("send patch: %w", err)
			}
			opts = append(opts, datastar.WithMode(mode))
		}
		if err := sse.PatchElements(p.HTML, opts...); err != nil {
			return fmt.Errorf("send patch: %w", err)
		}
	}
	return nil
}

func patchEditor(sse *datastar.ServerSentEventGenerator, e *views.Editor) error {
	if e == nil {
		return sse.PatchElements(`<section id="editor" data-testid="editor"><p class="muted">This listing has no tools yet. Add one.</p></section>`)
	}
	// Replace, not morph: a morph keeps elements with the same id and leaves a field's text
	// alone when its server value equals what it was first rendered with (an undo back to it).
	return sse.PatchElementTempl(views.EditorRegion(*e), datastar.WithModeReplace())
}
