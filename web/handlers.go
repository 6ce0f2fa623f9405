package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// signals are the page's Datastar signals. Val carries the value of the field being edited; the
// field itself is named in the URL, which the server wrote.
type signals struct {
	PID  string          `json:"pid"`
	Tool int             `json:"tool"`
	Ver  int             `json:"ver"`
	Val  json.RawMessage `json:"val"`
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
			return sg, echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the edit is larger than %d bytes", maxSignalBytes))
		}
		return sg, echo.NewHTTPError(http.StatusBadRequest, "unreadable Datastar signals: "+err.Error())
	}
	if sg.PID != "" && !wsIDPattern.MatchString(sg.PID) {
		return sg, echo.NewHTTPError(http.StatusBadRequest, "malformed page id")
	}
	return sg, nil
}

func htmlPage(c echo.Context, code int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(code)
	return comp.Render(c.Request().Context(), c.Response())
}

func (s *Server) homeModel() views.Home {
	h := views.Home{Page: s.page, MaxBytes: s.max, Fetch: views.FetchForm{AllowStdio: s.fetch.AllowStdio, StdioToken: s.stdioToken}}
	for _, ex := range examples.All() {
		h.Examples = append(h.Examples, views.Example{ID: ex.ID, Title: ex.Title, Blurb: ex.Blurb})
	}
	return h
}

func (s *Server) home(c echo.Context) error {
	return htmlPage(c, http.StatusOK, views.HomePage(s.homeModel()))
}

// importListing starts a workspace from a pasted or uploaded listing. A listing that cannot be
// read comes back with the message, its line and column, and the pasted text kept.
func (s *Server) importListing(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, int64(s.max)+64<<10)
	src, name, err := readListingForm(r, s.max)
	h := s.homeModel()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) || errors.Is(err, errTooLarge) {
			h.Problem = &views.ParseProblem{
				Message: fmt.Sprintf("The listing is larger than %d MB, the most this server reads in the browser.", s.max>>20),
				Hint:    "Real servers' listings are a few hundred kilobytes. For a larger file, use the command line: workbench check FILE."}
			return htmlPage(c, http.StatusRequestEntityTooLarge, views.HomePage(h))
		}
		h.Problem = &views.ParseProblem{Message: err.Error()}
		return htmlPage(c, http.StatusBadRequest, views.HomePage(h))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		h.Problem = &views.ParseProblem{Message: "Nothing was pasted or uploaded.",
			Hint: "Paste a tools/list response or its tools array, choose a file, or open an example."}
		return htmlPage(c, http.StatusBadRequest, views.HomePage(h))
	}
	l, err := listing.Parse(src, listing.Options{Name: name, Limits: listing.Limits{Bytes: s.max}})
	if err != nil {
		h.Problem = parseProblem(src, err)
		h.Pasted = string(src)
		return htmlPage(c, http.StatusBadRequest, views.HomePage(h))
	}
	ws, err := s.store.Create(r.Context(), name, l, nil, s.who(c), "imported from "+title(name))
	if err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	s.log.Info("workspace created", "id", ws.ID, "tools", len(l.Tools), "bytes", len(src))
	return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
}

var errTooLarge = errors.New("too large")

// readListingForm returns the uploaded file if there is one, else the pasted text.
func readListingForm(r *http.Request, max int) ([]byte, string, error) {
	// ParseMultipartForm drops ParseForm's error when the body is not multipart, so pick one.
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		err = r.ParseMultipartForm(1 << 20)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("the form could not be read: %w", err)
	}
	if r.MultipartForm != nil {
		if fhs := r.MultipartForm.File["file"]; len(fhs) > 0 && fhs[0].Size > 0 {
			if fhs[0].Size > int64(max) {
				return nil, "", errTooLarge
			}
			f, err := fhs[0].Open()
			if err != nil {
				return nil, "", fmt.Errorf("the uploaded file could not be read: %w", err)
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
			if err != nil {
				return nil, "", fmt.Errorf("the uploaded file could not be read: %w", err)
			}
			if len(b) > max {
				return nil, "", errTooLarge
			}
			return b, fhs[0].Filename, nil
		}
	}
	text := r.FormValue("listing")
	if len(text) > max {
		return nil, "", errTooLarge
	}
	return []byte(text), "the paste", nil
}

// parseProblem turns a listing error into a message with a line and column.
func parseProblem(src []byte, err error) *views.ParseProblem {
	p := &views.ParseProblem{Message: err.Error()}
	var le *listing.Error
	if errors.As(err, &le) {
		p.Hint = le.Hint
		var se *listing.SyntaxError
		if errors.As(err, &se) {
			p.Message = se.Msg
		}
		if le.Offset >= 0 {
			p.Line, p.Column, _ = listing.Position(src, le.Offset)
		}
		if le.Pointer != "" {
			p.Message += " (at " + le.Pointer + ")"
		}
	}
	return p
}

func (s *Server) openExample(c echo.Context) error {
	ex, ok := examples.Get(c.Param("example"))
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such example")
	}
	l, err := listing.Parse(ex.Listing, listing.Options{Name: ex.ID})
	if err != nil {
		return fmt.Errorf("example %s: %w", ex.ID, err)
	}
	tasks, err := selection.ParseTasks(ex.Tasks, false)
	if err != nil {
		return fmt.Errorf("example %s tasks: %w", ex.ID, err)
	}
	ws, err := s.store.Create(c.Request().Context(), ex.Title, l, tasks, s.who(c), "opened the example "+ex.ID)
	if err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
}

func (s *Server) workspaceModel(ctx context.Context, ws Workspace, st *state, selected int, problem string) views.Workspace {
	if selected >= len(ws.Listing.Tools) {
		selected = len(ws.Listing.Tools) - 1
	}
	selected = max(selected, 0)
	tasks := st.tasks
	tasks.Problem = problem
	return views.Workspace{Page: s.page, ID: ws.ID, Name: ws.Name, Version: ws.Version, CanUndo: ws.CanUndo, CanRedo: ws.CanRedo,
		PID: NewID(), Tools: st.rows, Selected: selected, Editor: s.editorModel(ws, st.res, selected),
		Findings: st.findings, Cost: st.cost, Tasks: tasks, Server: s.serverPanel(ctx, ws.ID, nil), Presence: s.hub.presenceRows(ws.ID, st.names)}
}

func (s *Server) workspacePage(c echo.Context) error {
	ws, err := s.getPageWS(c)
	if err != nil {
		return err
	}
	st := s.current(ws)
	sel, _ := strconv.Atoi(c.QueryParam("tool"))
	m := s.workspaceModel(c.Request().Context(), ws, st, sel, "")
	m.Page.Title = ws.Name + " · Tool Workbench"
	return htmlPage(c, http.StatusOK, views.WorkspacePage(m))
}

// stream is the page's long-lived SSE connection: it forwards the hub's notices as patches.
func (s *Server) stream(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	if sg.PID == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "the stream needs the page id signal (pid)")
	}
	// Join before reading the workspace: an edit accepted after the read then reaches this page
	// as a notice, and one accepted before it shows in ws.Version, which the check below compares
	// with the page's. Reading first left a gap: an edit accepted between the read and the join
	// reached the page neither way, and it showed the old listing until the next edit.
	cred, until := streamAccess(c)
	p, err := s.hub.join(id, sg.PID, sg.Tool, s.who(c), cred)
	if err != nil {
		return err
	}
	defer s.hub.leave(p)
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	s.hub.announce(p, "join")
	defer s.hub.announce(p, "left")
	hf := &heldFlusher{ResponseWriter: c.Response().Writer}
	sse := newSSEOn(hf, c.Request())
	ctx := sse.Context()
	// The page shows ws from here on; if it opened the room, that is what the room's pages were
	// sent (a change made before it joined reached it through this read). Set before anything
	// is sent, so that a change in between diffs against it.
	s.shownIfNone(ws.ID, s.current(ws))
	if sg.Ver != ws.Version {
		// The page is older than the workspace (a reconnect after missed notices).
		if err := s.sendFull(sse, ws, p.selected()); err != nil {
			return nil
		}
	}
	tick := time.NewTicker(s.alive)
	defer tick.Stop()
	// A session ends at its expiry even if nobody signs out: the stream ends with it.
	var expired <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(until.Sub(s.auth.cfg.Now())) // the clock sessions are dated by
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-p.cut:
			return nil
		case <-expired:
			return nil
		case n := <-p.ch:
			// One flush for all of a notice's events: a few writes instead of one per event
			// when 200 pages get the same edit.
			hf.hold = true
			err := s.forward(sse, p, n)
			hf.hold = false
			if err != nil || hf.flush() != nil {
				return nil
			}
		case <-tick.C:
			// An SSE comment: browsers ignore it, and idle-timeout proxies see traffic. The
			// stream's events are written from this goroutine only, so this cannot interleave.
			// Written past echo's Response: the SSE generator sent the headers on the writer
			// underneath, so echo would send them again (net/http logs a superfluous WriteHeader).
			if _, err := io.WriteString(hf.ResponseWriter, ": keep-alive\n\n"); err != nil || hf.flush() != nil {
				return nil
			}
			s.hub.announce(p, "here") // the presence heartbeat: pages of a dead replica expire
			if !s.accessStands(c, cred) {
				return nil // revoked or signed out on another replica
			}
		}
	}
}

func (s *Server) forward(sse *datastar.ServerSentEventGenerator, p *page, n Notice) error {
	if n.History && p.showsHistory() {
		html, err := n.cache.render(-1, func() (string, error) {
			m, err := s.revisionsModel(sse.Context(), p.ws)
			if err != nil {
				return "", err
			}
			return render(sse.Context(), views.RevisionsList(m)), nil
		})
		if err != nil {
			return err
		}
		if err := sse.PatchElements(html); err != nil {
			return err
		}
	}
	if n.Full {
		ws, err := s.store.Get(sse.Context(), p.ws, p.who)
		if err != nil {
			return err
		}
		return s.sendFull(sse, ws, p.selected())
	}
	if err := sendPatches(sse, n.Shared); err != nil {
		return err
	}
	if err := s.forwardTaskRows(sse, p, n); err != nil {
		return err
	}
	if n.AuthorID != "" && n.AuthorID == p.who.ID {
		// The same person on another tab or replica: their undo changed too.
		u := n.Undo
		if u == nil {
			got, err := s.db.UndoState(sse.Context(), p.ws, p.who.ID)
			if err != nil {
				return err
			}
			u = &got
		}
		if err := sse.PatchElementTempl(views.History(p.ws, u.CanUndo, u.CanRedo, n.Version)); err != nil {
			return err
		}
	}
	sel := p.selected()
	if !n.Structure && n.EditorTool != sel && !slices.Contains(n.Tools, sel) {
		return nil
	}
	if typing := p.typingIn(sel); typing != "" && !n.Structure {
		// The person is typing in this tool: never replace the form under them. Tell them
		// instead; their next keystroke writes their value (last writer wins).
		return sse.PatchElementTempl(views.FieldNotice(p.ws, sel, fieldNoticeText(n, typing)))
	}
	st, err := s.noticeState(sse, p, n)
	if err != nil {
		return err
	}
	if sel >= len(st.ws.Listing.Tools) {
		sel = max(len(st.ws.Listing.Tools)-1, 0)
		p.setSelected(sel)
		if err := sse.MarshalAndPatchSignals(map[string]int{"tool": sel}); err != nil {
			return err
		}
	}
	// Every page showing this tool gets the same form: render it once per notice.
	html, _ := n.cache.render(sel, func() (string, error) {
		e := s.editorModel(st.ws, st.res, sel)
		if e == nil {
			return "", nil
		}
		return render(sse.Context(), views.EditorRegion(*e)), nil
	})
	if html == "" {
		return patchEditor(sse, nil)
	}
	// Replace, not morph (see patchEditor).
	return sse.PatchElements(html, datastar.WithModeReplace())
}

// noticeState is the workspace as a notice left it: the sender's, or read when it sent none.
func (s *Server) noticeState(sse *datastar.ServerSentEventGenerator, p *page, n Notice) (*state, error) {
	if n.State != nil {
		return n.State, nil
	}
	ws, err := s.store.Get(sse.Context(), p.ws, p.who)
	if err != nil {
		return nil, err
	}
	return s.current(ws), nil
}

// forwardTaskRows shows another person's edit of a task on a page: the task's fields replaced,
// or, when the page is typing in that task, a notice instead (its text stays; the last writer
// wins, and History keeps both).
func (s *Server) forwardTaskRows(sse *datastar.ServerSentEventGenerator, p *page, n Notice) error {
	if len(n.TaskRows) == 0 {
		return nil
	}
	st, err := s.noticeState(sse, p, n)
	if err != nil {
		return err
	}
	for _, i := range n.TaskRows {
		if i < 0 || i >= len(st.tasks.Rows) {
			continue
		}
		if p.typingTask(i) {
			who := n.Author
			if who == "" {
				who = "Someone"
			}
			text := fmt.Sprintf("%s just changed task %d, which you are editing. What you type next replaces their text: the last writer wins, and History keeps both.", who, i+1)
			if err := sse.PatchElementTempl(views.TaskNotice(p.ws, text)); err != nil {
				return err
			}
			continue
		}
		if err := s.patchTaskRowCached(sse, p.ws, st, i, n.cache); err != nil {
			return err
		}
	}
	return nil
}

// patchTaskRow replaces one task's fields on a page. Replace, not morph: a morph leaves a
// field's text alone when its value was typed.
func (s *Server) patchTaskRow(sse *datastar.ServerSentEventGenerator, ws string, st *state, i int) error {
	return s.patchTaskRowCached(sse, ws, st, i, nil)
}

// patchTaskRowCached is patchTaskRow rendering the fields once per notice for all its pages.
func (s *Server) patchTaskRowCached(sse *datastar.ServerSentEventGenerator, ws string, st *state, i int, cache *renders) error {
	if i < 0 || i >= len(st.tasks.Rows) {
		return nil
	}
	html, err := cache.render(taskRowKey(i), func() (string, error) {
		r := st.tasks.Rows[i]
		return render(sse.Context(), views.TaskText(ws, r)) + render(sse.Context(), views.TaskExpect(ws, st.tasks.ToolNames, r)), nil
	})
	if err != nil {
		return err
	}
	return sse.PatchElements(html, datastar.WithModeReplace())
}

// taskRowKey is a task's key in a notice's renders (tools are 0…, the revision list -1).
func taskRowKey(i int) int { return -2 - i }

// changedTaskRows compares the tasks two states show: the tasks whose fields differ, or
// reshaped when the table must be rendered whole (nothing shown yet, tasks added or removed,
// the tools renamed — every select lists them — or the file's shape changed).
func changedTaskRows(old, now *state) (rows []int, reshaped bool) {
	if old == nil || len(old.tasks.Rows) != len(now.tasks.Rows) || old.ws.TasksShape != now.ws.TasksShape ||
		!slices.Equal(old.tasks.ToolNames, now.tasks.ToolNames) {
		return nil, true
	}
	for i, r := range now.tasks.Rows {
		o := old.tasks.Rows[i]
		if o.Task != r.Task || o.Expect != r.Expect || o.NoTool != r.NoTool {
			rows = append(rows, i)
		}
	}
	return rows, false
}

// tasksPanel shows the task table as it stands (a notice's "Show their version").
func (s *Server) tasksPanel(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	st := s.current(ws)
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.TasksRegion(st.tasks))
	return nil
}

func (s *Server) sendFull(sse *datastar.ServerSentEventGenerator, ws Workspace, sel int) error {
	st := s.current(ws)
	if err := sendPatches(sse, sharedPatches(sse.Context(), nil, st, true)); err != nil {
		return err
	}
	return patchEditor(sse, s.editorModel(ws, st.res, sel))
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
	select_   int    // the originating page's selection after the change (-1: unchanged; selectLast)
	typed     string // the text the person sent, given back if the change is refused
	click     bool   // a button, not typing: the page is not "typing in" the field it changed
	field     string // the editor field the change came from, for where a problem is shown
	self      func(ws Workspace, st *state) []templ.Component
	// extra renders more regions every page of the workspace gets (the Server panel after a
	// re-fetch).
	extra func(ws Workspace) []Patch
}

// replaced is a component a change's answer patches in replace mode: a morph keeps what was
// typed in an input whose value attribute did not change, so a table whose rows moved would
// show one parameter's text in another's row (see patchEditor).
type replaced struct{ templ.Component }

// selectLast selects the last tool after the change (an added tool, wherever the end is by then).
const selectLast = -2

// commit applies a change, then answers the originating page with patches and tells the others.
func (s *Server) commit(c echo.Context, sg signals, ch change) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	who := s.who(c)
	unlock := s.lock(id)
	old := s.shownState(id)
	if old == nil {
		// No page of this workspace is open here (the room keeps what pages were sent): diff
		// against the revision the edit applies to.
		before, err := s.store.Get(ctx, id, who)
		if err != nil {
			unlock()
			return err
		}
		old = s.current(before)
	}
	var ws Workspace
	var res store.EditResult
	var err error
	switch {
	case ch.edit != nil:
		e := *ch.edit
		if mk := e.Make; mk != nil {
			e.Make = func(head *listing.Listing) ([]listing.Op, error) {
				ops, err := mk(head)
				ch.edit.Ops = ops // what was made: the field it sets, for notices and focus
				return ops, err
			}
		}
		ws, res, err = s.store.Apply(ctx, id, e, who)
	case ch.step == "restore":
		ws, res, err = s.store.Restore(ctx, id, ch.restore, who)
	default:
		ws, res, err = s.store.Step(ctx, id, ch.step == "undo", who)
	}
	if err != nil {
		unlock()
		var ee *listing.EditError
		var ue *errUndo
		var pr *problem
		switch {
		case errors.As(err, &pr):
			// Made again under the store's lock, the edit met a listing that refuses it.
			return s.problemPatch(c, messageField(ch.field), pr)
		case errors.As(err, new(*staleTools)):
			return s.staleToolsAnswer(c, sg, ch.typed)
		case errors.As(err, &ee):
			return s.problemPatch(c, messageField(ch.field), &problem{Msg: "That change could not be applied: " + ee.Msg})
		case errors.As(err, &ue):
			// The refused step is gone: the buttons show what is left.
			sse := newSSE(c)
			_ = sse.PatchElementTempl(views.FieldNotice(id, sg.Tool, ue.msg))
			_ = sse.PatchElementTempl(views.History(id, ws.CanUndo, ws.CanRedo, ws.Version))
			// and on the person's other pages here (other replicas learn at their next change)
			s.hub.Publish(id, Notice{Version: ws.Version, From: sg.PID, EditorTool: -1, AuthorID: who.ID,
				Undo: &store.UndoState{CanUndo: ws.CanUndo, CanRedo: ws.CanRedo}})
			return nil
		case ch.step == "restore":
			return revisionErr(err)
		}
		return err
	}
	if res.Seq == 0 && ch.edit != nil && ch.edit.Make != nil {
		unlock() // made against the current listing, the edit changes nothing
		return c.NoContent(http.StatusNoContent)
	}
	if old != nil && old.version == ws.Version {
		old = nil
	}
	if ch.select_ == selectLast {
		ch.select_ = max(len(ws.Listing.Tools)-1, 0)
		ch.tool = ch.select_
	}
	st := s.current(ws)
	s.setShown(id, st)
	// The tasks that differ from what was shown: this change's, and any another made meanwhile.
	taskRows, reshaped := changedTaskRows(old, st)
	shared := sharedPatches(ctx, old, st, ch.tasks || reshaped)
	if ch.extra != nil {
		shared = append(shared, ch.extra(ws)...)
	}
	field := ""
	if ch.edit != nil {
		field = store.FieldOf(ch.edit.Ops)
	}
	// An edit that moved a tool re-renders every page's editor, as a structural one does; so
	// does a move made elsewhere that this change brings in.
	moved := res.Seq > 0 && res.ToolsShape == res.Seq || old != nil && old.ws.ToolsShape != st.ws.ToolsShape
	n := Notice{Version: ws.Version, From: sg.PID, Shared: shared, EditorTool: ch.tool, Structure: ch.structure || moved,
		Tools: changedTools(old, st), ParamsMoved: paramsMoved(old, st),
		Field: field, Author: who.Name, AuthorID: who.ID, History: true, State: st, cache: &renders{},
		Undo: &store.UndoState{CanUndo: ws.CanUndo, CanRedo: ws.CanRedo}}
	if !ch.tasks && !reshaped {
		n.TaskRows = taskRows
	}
	if res.Seq > 0 {
		// The store's event for this edit delivers n to the other pages (through the hub),
		// in the order the store accepted the edits.
		s.hub.expect(id, res.Seq, n)
	}
	unlock()

	sel := sg.Tool
	if ch.select_ >= 0 {
		sel = ch.select_
	}
	if p := s.hub.lookup(id, sg.PID); p != nil {
		p.setSelected(sel)
		if field != "" && !ch.click {
			p.setFocus(field)
		}
		if ch.taskSet {
			p.setFocus(ch.edit.Key) // "tasks/3/task"
		}
	}
	sse := newSSE(c)
	if err := sendPatches(sse, shared); err != nil {
		return nil
	}
	// Tasks another person changed meanwhile; never the one this page is typing in.
	for _, i := range n.TaskRows {
		if ch.taskSet && i == ch.taskRow {
			continue
		}
		if err := s.patchTaskRow(sse, id, st, i); err != nil {
			return nil
		}
	}
	// Undo and redo are per person: only this page's buttons change.
	if err := sse.PatchElementTempl(views.History(id, ws.CanUndo, ws.CanRedo, ws.Version)); err != nil {
		return nil
	}
	if field != "" || ch.step != "" {
		// The person has seen the field's state now: a notice about someone else's change
		// to it is stale.
		if err := sse.PatchElementTempl(views.FieldNotice(id, sel, "")); err != nil {
			return nil
		}
	}
	if ch.select_ >= 0 && ch.select_ != sg.Tool {
		if err := sse.MarshalAndPatchSignals(map[string]int{"tool": sel}); err != nil {
			return nil
		}
	}
	if ch.structure {
		if err := patchEditor(sse, s.editorModel(ws, st.res, sel)); err != nil {
			return nil
		}
	}
	if ch.self != nil {
		for _, comp := range ch.self(ws, st) {
			var opts []datastar.PatchElementOption
			if r, ok := comp.(replaced); ok {
				comp, opts = r.Component, []datastar.PatchElementOption{datastar.WithModeReplace()}
			}
			if err := sse.PatchElementTempl(comp, opts...); err != nil {
				return nil
			}
		}
	}
	return nil
}

// shapes reads the shape a change's positions were rendered at (views.editExpr): g for the
// tools and, with params, gp for tool t's parameters; absent or -1 is unchecked (a client that
// is not a page). stale reports whether either is older than the listing as read; the store
// checks again as it accepts the edit, since a reshape may land in between.
func shapes(c echo.Context, params bool) (g, gp *int64, stale func(ws Workspace, t int) bool, err error) {
	read := func(key string) (*int64, error) {
		v := c.QueryParam(key)
		if v == "" || v == "-1" {
			return nil, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("malformed shape %s=%q; reload the page", key, v))
		}
		return &n, nil
	}
	if g, err = read("g"); err != nil {
		return nil, nil, nil, err
	}
	if params {
		if gp, err = read("gp"); err != nil {
			return nil, nil, nil, err
		}
	}
	stale = func(ws Workspace, t int) bool {
		return g != nil && *g < int64(ws.ToolsShape) || gp != nil && *gp < ws.ParamsShapes[t]
	}
	return g, gp, stale, nil
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
	_ = sse.PatchElementTempl(views.FieldNotice(ws.ID, sel, msg))
	return nil
}

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

// getWS reads the request's workspace without the person's undo state: only a whole page shows
// the Undo and Redo buttons (getPageWS), and a change's answer carries them.
func (s *Server) getWS(c echo.Context) (Workspace, error) {
	return s.store.get(c.Request().Context(), c.Param("id"), s.who(c), false)
}

// getPageWS reads the request's workspace as a whole page shows it, undo state included.
func (s *Server) getPageWS(c echo.Context) (Workspace, error) {
	return s.store.Get(c.Request().Context(), c.Param("id"), s.who(c))
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
		return 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("malformed index %s=%q; reload the page", key, v))
	}
	return n, nil
}

func toolIndex(c echo.Context, ws Workspace, key string) (int, error) {
	t, err := strconv.Atoi(c.QueryParam(key))
	if err != nil || t < 0 || t >= len(ws.Listing.Tools) {
		return 0, echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("tool %q no longer exists; reload the page", c.QueryParam(key)))
	}
	return t, nil
}

// focusable are the editor field ids a "go to field" may focus.
func focusable(id string) bool {
	switch id {
	case "f-name", "f-title", "f-desc", "f-input", "f-output":
		return true
	}
	for _, a := range annotationDefaults {
		if id == "f-ann-"+a.Key {
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
	_, _, stale, err := shapes(c, false)
	if err != nil {
		return err
	}
	if stale(ws, -1) {
		// The index was drawn before someone added, removed or moved a tool: it may be
		// another tool's now. Show the list as it stands instead of guessing.
		return s.listingAsItStands(c, sg, "Someone added, removed or moved a tool since this page was drawn; here is the list as it stands. Pick the tool again.")
	}
	if sg.Tool < 0 || sg.Tool >= len(ws.Listing.Tools) {
		return echo.NewHTTPError(http.StatusConflict, "that tool no longer exists; reload the page")
	}
	if p := s.hub.lookup(ws.ID, sg.PID); p != nil && p.selected() != sg.Tool {
		p.setSelected(sg.Tool)
		s.hub.announce(p, "here") // presence shows the tool each person is on
	}
	st := s.current(ws)
	sse := newSSE(c)
	if err := patchEditor(sse, s.editorModel(ws, st.res, sg.Tool)); err != nil {
		return nil
	}
	if f := c.QueryParam("focus"); focusable(f) {
		_ = sse.PatchElementTempl(views.FocusField(f), datastar.WithSelector("#editor"), datastar.WithModeAppend())
	}
	return nil
}

func (s *Server) editField(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	field, val := c.QueryParam("f"), sg.value()
	g, gp, stale, err := shapes(c, field == "param")
	if err != nil {
		return err
	}
	typed := typedText(c, field, val)
	if stale(ws, atoiOr(c.QueryParam("t"), -1)) {
		return s.staleToolsAnswer(c, sg, typed)
	}
	t, err := toolIndex(c, ws, "t")
	if err != nil {
		return err
	}
	key := fmt.Sprintf("tools/%d/%s", t, field)
	var p int
	var k string
	if field == "param" {
		if p, err = intParam(c, "p"); err != nil {
			return err
		}
		k = c.QueryParam("k")
		key += fmt.Sprintf("/%d/%s", p, k)
	}
	makeOps := func(l *listing.Listing) ([]listing.Op, error) {
		if t >= len(l.Tools) {
			return nil, toolGone(t, len(l.Tools))
		}
		if field == "param" {
			return paramOps(l.Tools[t], t, p, k, val)
		}
		return fieldOps(l.Tools[t], t, field, val)
	}
	ops, err := makeOps(ws.Listing)
	var pr *problem
	if errors.As(err, &pr) {
		return s.problemPatch(c, messageField(field), pr)
	}
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if len(ops) == 0 {
		return c.NoContent(http.StatusNoContent)
	}
	ch := change{edit: &Edit{Key: key, ToolsBase: g, ParamsBase: gp, ParamsTool: t, Make: remake(ws.Listing, ops, makeOps)},
		tool: t, select_: -1, typed: typed, field: field}
	ch.self = func(ws Workspace, st *state) []templ.Component {
		if t >= len(st.res.Tools) {
			return nil
		}
		e := s.editorModel(ws, st.res, t)
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
		}
		return nil
	}
	return s.commit(c, sg, ch)
}

func (s *Server) toolOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	i, err := intParam(c, "i")
	if err != nil {
		return err
	}
	op := c.QueryParam("op")
	g, _, stale, err := shapes(c, false)
	if err != nil {
		return err
	}
	if op != "add" && stale(ws, -1) {
		return s.staleToolsAnswer(c, sg, "")
	}
	ops, sel, err := toolStructOps(ws.Listing, op, i)
	if err != nil {
		var pr *problem
		if errors.As(err, &pr) {
			return echo.NewHTTPError(http.StatusConflict, pr.Msg)
		}
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if len(ops) == 0 {
		return c.NoContent(http.StatusNoContent)
	}
	// A duplicate copies the tool as it is when the edit is accepted.
	e := &Edit{Make: remake(ws.Listing, ops, func(head *listing.Listing) ([]listing.Op, error) {
		ops, _, err := toolStructOps(head, op, i)
		return ops, err
	})}
	if op != "add" { // an added tool goes at the end, wherever that is now
		e.ToolsBase = g
	}
	if op == "add" {
		sel = selectLast
	}
	return s.commit(c, sg, change{edit: e, tool: sel, structure: true, tasks: true, select_: sel})
}

func (s *Server) paramOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	op := c.QueryParam("op")
	// An added parameter goes at the end, wherever that is now: only the tool's place matters.
	g, gp, stale, err := shapes(c, op != "add")
	if err != nil {
		return err
	}
	if stale(ws, atoiOr(c.QueryParam("t"), -1)) {
		return s.staleToolsAnswer(c, sg, "")
	}
	t, err := toolIndex(c, ws, "t")
	if err != nil {
		return err
	}
	p, err := intParam(c, "p")
	if err != nil {
		return err
	}
	ops, err := paramStructOps(ws.Listing.Tools[t], t, op, p)
	if err != nil {
		var pr *problem
		if errors.As(err, &pr) {
			return s.problemPatch(c, "params", pr)
		}
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if len(ops) == 0 {
		return c.NoContent(http.StatusNoContent)
	}
	// The whole schema is rewritten: an edit of another parameter that landed in between must
	// stay. Not a structural change for other pages: those showing this tool render it again
	// (those typing in it are told instead); this page renders its parameters again.
	return s.commit(c, sg, change{edit: &Edit{ToolsBase: g, ParamsBase: gp, ParamsTool: t, Make: remake(ws.Listing, ops, func(head *listing.Listing) ([]listing.Op, error) {
		if t >= len(head.Tools) {
			return nil, toolGone(t, len(head.Tools))
		}
		return paramStructOps(head.Tools[t], t, op, p)
	})}, tool: t, select_: -1, click: true, self: func(ws Workspace, st *state) []templ.Component {
		e := s.editorModel(ws, st.res, t)
		if e == nil {
			return nil
		}
		return []templ.Component{replaced{views.ParamsTable(*e)}, views.SchemaText("f-input", "inputSchema", e.InputSchema, ws.ID, t, "inputSchema", e.Shape.Tools),
			views.SchemaMessage(e.InputMsg), views.SchemaMessage(views.SchemaMsg{Field: "params", OK: true})}
	}})
}

// remake is an Edit.Make for a change whose ops were made from the listing as read (ops), to
// answer a mistake at once: under the store's lock they are made again by mk from the head,
// unless the head is still that listing. A change that rewrites a value from what it holds (a
// schema, on a parameter's rename) then never undoes an edit that landed in between.
func remake(read *listing.Listing, ops []listing.Op, mk func(head *listing.Listing) ([]listing.Op, error)) func(*listing.Listing) ([]listing.Op, error) {
	return func(head *listing.Listing) ([]listing.Op, error) {
		if head == read {
			return ops, nil
		}
		return mk(head)
	}
}

// atoiOr is s as a number, or def when it is not one (the handlers check it properly after).
func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// staleTaskOp answers a task change sent from a task table older than the task file's shape (a
// task was added or removed since it was rendered): its index may name another task now, so it
// is not applied. The page gets the table as it stands and a notice that gives back the text it
// sent, so nothing typed is lost.
func (s *Server) staleTaskOp(c echo.Context, ws Workspace, op string, i int, val string, busy bool) error {
	st := s.current(ws)
	why := "The task table changed (a task was added or removed)"
	if busy {
		why = "Others changed the tasks many times at once"
	}
	msg := why + " before your change reached the server, so it was not applied. Here is the table as it stands; try again."
	if op == "set" && val != "" {
		msg = fmt.Sprintf("%s while you typed in task %d, so your last change was not saved. Your text was: «%s». Here is the table as it stands.", why, i+1, val)
	}
	sse := newSSE(c)
	if err := sse.PatchElementTempl(views.TasksRegion(st.tasks)); err != nil {
		return nil
	}
	_ = sse.PatchElementTempl(views.TaskNotice(ws.ID, msg))
	return nil
}

func (s *Server) taskOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	i, err := intParam(c, "i")
	if err != nil {
		return err
	}
	op := c.QueryParam("op")
	g, err := strconv.Atoi(c.QueryParam("g"))
	if err != nil {
		g = -1
	}
	if g >= 0 && g < ws.TasksShape {
		return s.staleTaskOp(c, ws, op, i, sg.value(), false)
	}
	k, val := c.QueryParam("k"), sg.value()
	key := ""
	switch op {
	case "add", "del":
	case "set":
		if k != "task" && k != "expect" {
			return echo.NewHTTPError(http.StatusBadRequest, "unknown task field "+strconv.Quote(k))
		}
		key = fmt.Sprintf("tasks/%d/%s", i, k)
	default:
		return echo.NewHTTPError(http.StatusBadRequest, "unknown task operation "+strconv.Quote(op))
	}
	// The change is made from the task file as it stands when it is stored (see Edit.TasksFn).
	fn := func(cur []selection.Task) ([]selection.Task, error) {
		tasks := append([]selection.Task(nil), cur...)
		if op != "add" && (i < 0 || i >= len(tasks)) {
			return nil, &staleTasks{}
		}
		switch op {
		case "add":
			tasks = append(tasks, selection.Task{})
		case "del":
			tasks = append(tasks[:i], tasks[i+1:]...)
		case "set":
			if k == "task" {
				tasks[i].Task = val
			} else if v := strings.TrimSpace(val); v == "" {
				tasks[i].Expect = nil
			} else {
				tasks[i].Expect = &v
			}
		}
		return tasks, nil
	}
	structure := op != "set"
	err = s.commit(c, sg, change{edit: &Edit{TasksFn: fn, ShapeBase: g, SetTasks: true, Key: key}, tool: -1, tasks: structure, select_: -1,
		taskSet: !structure, taskRow: i})
	var st *staleTasks
	if errors.As(err, &st) {
		cur, gerr := s.getWS(c)
		if gerr != nil {
			return gerr
		}
		return s.staleTaskOp(c, cur, op, i, val, st.busy)
	}
	return err
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

func (s *Server) downloadListing(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="listing.json"`)
	return c.Blob(http.StatusOK, "application/json", append(ws.Listing.Marshal("  "), '\n'))
}

func (s *Server) exportTasks(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	tasks := ws.Tasks
	if tasks == nil {
		tasks = []selection.Task{}
	}
	b, err := json.MarshalIndent(tasks, "", "  ")
	if err != nil {
		return fmt.Errorf("encode tasks: %w", err)
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="tasks.json"`)
	return c.Blob(http.StatusOK, "application/json", append(b, '\n'))
}

// importTasks replaces the task file from an upload, then shows the workspace again.
func (s *Server) importTasks(c echo.Context) error {
	ws, err := s.getPageWS(c) // a refusal renders the whole page
	if err != nil {
		return err
	}
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, int64(s.max)+64<<10)
	fail := func(code int, msg string) error {
		st := s.current(ws)
		m := s.workspaceModel(c.Request().Context(), ws, st, 0, msg)
		return htmlPage(c, code, views.WorkspacePage(m))
	}
	fh, err := c.FormFile("file")
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("The task file is larger than %d MB.", s.max>>20))
	}
	if err != nil {
		return fail(http.StatusBadRequest, "Choose a task file to import: a JSON array of {\"task\": …, \"expect\": tool name or null}.")
	}
	f, err := fh.Open()
	if err != nil {
		return fail(http.StatusBadRequest, "The task file could not be read: "+err.Error())
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(s.max)+1))
	if err != nil || len(b) > s.max {
		return fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("The task file is larger than %d MB.", s.max>>20))
	}
	tasks, err := selection.ParseTasks(b, false)
	if err != nil {
		return fail(http.StatusBadRequest, "The task file could not be used: "+err.Error()+
			`. It should be a JSON array such as [{"task": "Renew my loan", "expect": "loans_renew"}].`)
	}
	if _, _, err := s.store.Apply(r.Context(), ws.ID, Edit{Tasks: tasks, SetTasks: true, Message: "imported tasks from " + title(fh.Filename)}, s.who(c)); err != nil {
		return err
	}
	// Every page shows the imported tasks (its event alone may find this state shown already,
	// by the importer's own reload).
	s.hub.Publish(ws.ID, Notice{Full: true})
	return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
}
