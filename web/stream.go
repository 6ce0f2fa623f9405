package web

// The live stream: one long-lived SSE connection per open page, which forwards the hub's
// notices as patches (the shared regions, the editor, task rows), or the whole page afresh.

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/tool-workbench/workbench/views"
)

// stream is the page's long-lived SSE connection: it forwards the hub's notices as patches.
func (s *Server) stream(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	if sg.PID == "" {
		return fail(BadRequest, "the stream needs the page id signal (pid)")
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
	st, err := s.currentCtx(ctx, ws)
	if err != nil {
		return nil
	}
	s.shownIfNone(ws.ID, st)
	_, cost := s.answerCost(id, sg, st)
	if sg.Ver != ws.Version {
		// The page is older than the workspace (a reconnect after missed notices).
		resetList(p)
		if err := s.sendFull(sse, ws, p.selected()); err != nil {
			return nil
		}
		if s.costAfterFull(sse, p, cost, ws) != nil {
			return nil
		}
	}
	tick := time.NewTicker(s.alive)
	defer tick.Stop()
	// (After the heartbeat's ticker: reading the review must not delay the page's first
	// heartbeat, which keeps it on the roster.)
	if s.startReview(sse, p, st, sg.Panel) != nil {
		return nil
	}
	// A workshop copy's bar as it is now: the page may have missed a score or a freeze.
	if s.patchBar(sse, id) != nil {
		return nil
	}
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
		case <-p.cutOff():
			return nil
		case <-expired:
			return nil
		case n := <-p.notices():
			// One flush for all of a notice's events: a few writes instead of one per event
			// when 200 pages get the same edit.
			hf.hold = true
			err := s.forward(sse, p, n)
			if err == nil {
				err = s.forwardReviewCounts(sse, p, n)
			}
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
	if n.Challenge {
		return s.patchBar(sse, p.ws)
	}
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
	if err := s.forwardReview(sse, p, n); err != nil {
		return err
	}
	if n.Renamed {
		if err := s.patchName(sse, p.ws); err != nil {
			return err
		}
	}
	if n.Full {
		return s.sendFullAgain(sse, p)
	}
	shared := n.Shared
	if v := p.view(); v.own() && (n.State != nil || len(shared) > 0) {
		st, err := s.noticeState(sse, p, n)
		if err != nil {
			return err
		}
		shared = forPage(sse.Context(), p, v.q, st, p.selected(), shared)
	}
	if err := s.sendShared(sse, p, p.costChoice(), shared, n.Version > 0, func() (*state, error) { return s.noticeState(sse, p, n) }); err != nil {
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

// sendFullAgain re-renders every region of a page that missed notices, its workshop bar too.
func (s *Server) sendFullAgain(sse *datastar.ServerSentEventGenerator, p *page) error {
	ws, err := s.store.Get(sse.Context(), p.ws, p.who)
	if err != nil {
		return err
	}
	resetList(p)
	if err := s.sendFull(sse, ws, p.selected()); err != nil {
		return err
	}
	if err := s.patchBar(sse, p.ws); err != nil {
		return err
	}
	return s.costAfterFull(sse, p, p.costChoice(), ws)
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
	return s.currentCtx(sse.Context(), ws)
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

func (s *Server) sendFull(sse *datastar.ServerSentEventGenerator, ws Workspace, sel int) error {
	st, err := s.currentCtx(sse.Context(), ws)
	if err != nil {
		return err
	}
	if err := sendPatches(sse, sharedPatches(sse.Context(), nil, st, true)); err != nil {
		return err
	}
	// The shared list lists every tool: the page's search is emptied with it (resetList).
	if err := sse.MarshalAndPatchSignals(map[string]string{"toolq": ""}); err != nil {
		return err
	}
	return patchEditor(sse, s.editorModel(ws, st.res, sel))
}
