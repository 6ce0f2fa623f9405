package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

func (s *Server) historyRoutes(w *echo.Group) {
	w.GET("/history", s.historyPanel)
	w.GET("/history/diff", s.historyDiff)
	w.GET("/history/older", s.historyOlder)
	w.GET("/history/:n", s.historyView)
	w.GET("/history/:n/listing.json", s.historyDownload)
	w.GET("/history/:n/tasks.json", s.historyTasksDownload)
	w.POST("/history/:n/restore", s.historyRestore)
	w.POST("/history/:n/name", s.historyName)
	w.POST("/fork", s.fork)
}

func revisionRow(r store.Revision, head int) views.RevisionRow {
	return views.RevisionRow{Number: r.Number, Parent: r.Parent, Kind: string(r.Kind), Author: r.Author, Message: workspace.RevisionSummary(r),
		Name: r.Name, When: r.Updated.UTC().Format(time.RFC3339), WhenText: r.Updated.UTC().Format("2 Jan 2006, 15:04 UTC"),
		Edits: r.Edits, Field: r.Field, RestoredFrom: r.RestoredFrom, Head: r.Number == head}
}

// revisionsModel is the History panel's list: the newest page of revisions, and the baseline
// read on its own when the page does not reach it.
func (s *Server) revisionsModel(ctx context.Context, id string) (views.Revisions, error) {
	revs, err := s.db.Revisions(ctx, id, store.RevisionPage{})
	if err != nil {
		return views.Revisions{}, workspace.StoreErr(err)
	}
	if n := len(revs); n > 0 && revs[n-1].Number != 0 {
		base, err := s.db.Revisions(ctx, id, store.RevisionPage{Before: 1, Limit: 1})
		if err != nil {
			return views.Revisions{}, workspace.StoreErr(err)
		}
		revs = append(revs, base...)
	}
	return revisionsFrom(id, revs), nil
}

// revisionsFrom makes the list from the newest page of revisions and the baseline (the last of
// revs; revisionsModel reads it on its own when the page does not reach it).
func revisionsFrom(id string, revs []store.Revision) views.Revisions {
	m := views.Revisions{WS: id}
	if len(revs) == 0 {
		return m
	}
	m.Head = revs[0].Number
	for _, r := range revs {
		row := revisionRow(r, m.Head)
		if r.Number == 0 {
			m.Base = &row
			continue
		}
		m.Rows = append(m.Rows, row)
	}
	// Numbers run 0..head without gaps: revisions 1..low-1 are left out.
	if low := m.Rows; len(low) > 0 && low[len(low)-1].Number > 1 {
		m.Next = low[len(low)-1].Number
	}
	return m
}

// historySignals are the History panel's signals: the two revisions to compare and a name.
type historySignals struct {
	PID   string          `json:"pid"`
	RA    json.RawMessage `json:"ra"`
	RB    json.RawMessage `json:"rb"`
	RName string          `json:"rname"`
}

func readHistorySignals(c echo.Context) (historySignals, error) {
	var hs historySignals
	r := c.Request()
	if r.Method != http.MethodGet {
		r.Body = http.MaxBytesReader(c.Response(), r.Body, 64<<10)
	}
	if err := datastar.ReadSignals(r, &hs); err != nil {
		return hs, fail(BadRequest, "unreadable Datastar signals: "+err.Error())
	}
	if hs.PID != "" && !wsIDPattern.MatchString(hs.PID) {
		return hs, fail(BadRequest, "malformed page id")
	}
	return hs, nil
}

// revNumber reads a revision number given as a JSON number or string; absent gives def.
func revNumber(raw json.RawMessage, def int) (int, error) {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return def, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("revision %s is not a number; give a revision number such as 0 (the baseline)", strconv.Quote(string(raw[:min(len(raw), 40)])))
}

func pathRevision(c echo.Context) (int, error) {
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 0 {
		return 0, failf(NotFound, "revision %q is not a revision number; revisions are numbered from 0 (the baseline)", c.Param("n"))
	}
	return n, nil
}

// revisionKinds are the store's kinds of failure that a revision's error shows as they are.
var revisionKinds = map[store.Kind]Kind{store.NotFound: NotFound, store.Invalid: BadRequest, store.Conflict: Conflict}

// revisionErr shows a store error about a revision with its own message; other errors stay
// internal.
func revisionErr(err error) error {
	if k, ok := revisionKinds[store.KindOf(err)]; ok {
		return &Error{Kind: k, Msg: err.Error(), Err: err}
	}
	return err
}

// historyPanel renders the History panel into the page that opened it; that page then gets the
// list again whenever history changes.
func (s *Server) historyPanel(c echo.Context) error {
	hs, err := readHistorySignals(c)
	if err != nil {
		return err
	}
	ctx, id := c.Request().Context(), c.Param("id")
	// The page gets every change from here on: one made while the panel is read reaches it
	// through its stream too (and the check below).
	if p := s.hub.lookup(id, hs.PID); p != nil {
		p.openHistory()
	}
	before, err := s.db.Workspace(ctx, id)
	if err != nil {
		return workspace.StoreErr(err)
	}
	m, err := s.revisionsModel(ctx, id)
	if err != nil {
		return err
	}
	sse := newSSE(c)
	// A fresh panel holds no older revisions.
	_ = sse.MarshalAndPatchSignals(map[string]int{"_revtop": 0, "_revnext": 0})
	if err := sse.PatchElementTempl(views.RevisionsPanel(m)); err != nil {
		return nil
	}
	// A change's list may have reached the page before this older one: send the list again
	// when the workspace moved on meanwhile.
	if now, err := s.db.Workspace(ctx, id); err == nil && now.Seq != before.Seq {
		if m, err := s.revisionsModel(ctx, id); err == nil {
			_ = sse.PatchElementTempl(views.RevisionsList(m))
		}
	}
	return nil
}

// historyOlder loads older revisions into the panel's #rev-older: those numbered below
// before, a page of them (never the baseline, which the list always shows), appended; or,
// with above, those from above to before-1, prepended: revisions that new ones pushed off the
// newest page after older ones were loaded.
func (s *Server) historyOlder(c echo.Context) error {
	before, err := queryInt(c, "before", 1, math.MaxInt32)
	if err != nil {
		return err
	}
	above := 0
	if c.QueryParam("above") != "" {
		if above, err = queryInt(c, "above", 1, before-1); err != nil {
			return err
		}
		if before-above > views.HistoryPageSize {
			return failf(BadRequest, "above=%d and before=%d span more than a page; give at most %d revisions", above, before, views.HistoryPageSize)
		}
	}
	page := store.RevisionPage{Before: before, Limit: views.HistoryPageSize}
	if above > 0 {
		page.Limit = before - above
	}
	revs, err := s.db.Revisions(c.Request().Context(), c.Param("id"), page)
	if err != nil {
		return revisionErr(workspace.StoreErr(err))
	}
	var rows []views.RevisionRow
	for _, r := range revs {
		if r.Number > 0 {
			rows = append(rows, revisionRow(r, -1)) // the newest page holds the head
		}
	}
	sse := newSSE(c)
	if above > 0 {
		_ = sse.PatchElementTempl(views.RevisionRows(c.Param("id"), rows), datastar.WithSelector("#rev-older"), datastar.WithModePrepend())
		_ = sse.MarshalAndPatchSignals(map[string]int{"_revtop": before})
		return nil
	}
	next := 0
	if n := len(rows); n > 0 && rows[n-1].Number > 1 {
		next = rows[n-1].Number
	}
	_ = sse.PatchElementTempl(views.RevisionRows(c.Param("id"), rows), datastar.WithSelector("#rev-older"), datastar.WithModeAppend())
	signals := map[string]int{"_revnext": next}
	if c.QueryParam("first") == "1" {
		// The first older page says what #rev-older holds from its top, as the click did: an
		// answer that lands after the panel was opened again (which zeroes it) would otherwise
		// leave the rows there with "Show older revisions" offered again, and load them twice.
		signals["_revtop"] = before
	}
	_ = sse.MarshalAndPatchSignals(signals)
	return nil
}

// queryInt reads a whole number from min to max from the query.
func queryInt(c echo.Context, name string, lo, hi int) (int, error) {
	v := c.QueryParam(name)
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, failf(BadRequest, "%s=%s is not a revision number from %d to %d", name, strconv.Quote(v), lo, hi)
	}
	return n, nil
}

func (s *Server) historyView(c echo.Context) error {
	_, rev, err := s.revisionAt(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	ws, err := s.db.Workspace(c.Request().Context(), id)
	if err != nil {
		return workspace.StoreErr(err)
	}
	d := views.RevisionDetail{WS: id, Row: revisionRow(rev, ws.Head), HasTasks: rev.HasTasks}
	for _, t := range rev.Listing.Tools {
		d.Tools = append(d.Tools, views.RevisionTool{Name: t.Get("name").String(), Description: t.Get("description").String()})
	}
	for _, t := range revisionTasks(rev.Tasks) {
		d.Tasks = append(d.Tasks, views.RevisionTask{Task: t.Task, Expect: expectOf(t)})
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.RevisionDetailView(d))
	return nil
}

// revisionAt reads the revision the request's path names.
func (s *Server) revisionAt(c echo.Context) (int, store.Revision, error) {
	n, err := pathRevision(c)
	if err != nil {
		return n, store.Revision{}, err
	}
	rev, err := s.db.Revision(c.Request().Context(), c.Param("id"), n)
	if err != nil {
		return n, rev, revisionErr(workspace.StoreErr(err))
	}
	return n, rev, nil
}

func (s *Server) historyDownload(c echo.Context) error {
	n, rev, err := s.revisionAt(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="listing-r%d.json"`, n))
	return c.Blob(http.StatusOK, "application/json", append(rev.Listing.Marshal("  "), '\n'))
}

// historyTasksDownload sends a revision's task file as it was stored.
func (s *Server) historyTasksDownload(c echo.Context) error {
	n, rev, err := s.revisionAt(c)
	if err != nil {
		return err
	}
	if !rev.HasTasks {
		return failf(NotFound, "revision %d has no task file", n)
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="tasks-r%d.json"`, n))
	return c.Blob(http.StatusOK, "application/json", rev.Tasks)
}

// historyDiff compares two revisions (ra, rb signals; default the baseline and the head).
func (s *Server) historyDiff(c echo.Context) error {
	hs, err := readHistorySignals(c)
	if err != nil {
		return err
	}
	a, err := revNumber(hs.RA, 0)
	if err != nil {
		return fail(BadRequest, err.Error())
	}
	b, err := revNumber(hs.RB, -1)
	if err != nil {
		return fail(BadRequest, err.Error())
	}
	ctx := c.Request().Context()
	id := c.Param("id")
	ra, err := s.db.Revision(ctx, id, a)
	if err != nil {
		return revisionErr(workspace.StoreErr(err))
	}
	rb, err := s.db.Revision(ctx, id, b)
	if err != nil {
		return revisionErr(workspace.StoreErr(err))
	}
	d := revisionDiff(id, ra, rb)
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.RevisionDiffView(d))
	return nil
}

func revisionLabel(r store.Revision) string {
	s := "#" + strconv.Itoa(r.Number)
	if r.Number == 0 {
		s += " (baseline)"
	}
	if r.Name != "" {
		s += " “" + r.Name + "”"
	}
	return s
}

// revisionDiff groups listing.Compare's changes by tool, with a word diff of each changed
// description, and lists the task changes.
func revisionDiff(id string, a, b store.Revision) views.RevisionDiff {
	d := listing.Compare(a.Listing, b.Listing)
	out := views.RevisionDiff{WS: id, A: a.Number, B: b.Number, ALabel: revisionLabel(a), BLabel: revisionLabel(b), Changed: d.Changed()}
	byTool := map[string]int{}
	rows := 0
	for _, ch := range d.Changes {
		i, ok := byTool[ch.Tool]
		if !ok {
			i = len(out.Tools)
			byTool[ch.Tool] = i
			out.Tools = append(out.Tools, views.ToolDiff{Tool: ch.Tool})
		}
		td := &out.Tools[i]
		if ch.OldName != "" {
			td.OldName = ch.OldName
		}
		if !hasKind(td.Kinds, string(ch.Kind)) {
			td.Kinds = append(td.Kinds, string(ch.Kind))
		}
		switch {
		case ch.Kind == listing.DescriptionChanged && (ch.Old == nil || ch.Old.IsString()) && (ch.New == nil || ch.New.IsString()):
			for _, e := range export.WordDiff(ch.Old.String(), ch.New.String()) {
				td.Desc = append(td.Desc, views.DiffRun{Op: string(e.Op), Text: e.Text})
			}
		case ch.Path != "":
			if rows >= maxChangeRows {
				out.More++
				continue
			}
			rows++
			row := views.ChangeRow{Kind: string(ch.Kind), Tool: ch.Tool, OldName: ch.OldName, Path: ch.Path}
			row.Old, row.HasOld = shortValue(ch.Old)
			row.New, row.HasNew = shortValue(ch.New)
			td.Changes = append(td.Changes, row)
		}
	}
	if a.TasksSeq != b.TasksSeq || a.HasTasks != b.HasTasks {
		out.Tasks, out.TasksMore = taskDiff(revisionTasks(a.Tasks), revisionTasks(b.Tasks))
		out.Changed = out.Changed || len(out.Tasks) > 0
	}
	return out
}

func hasKind(ks []string, k string) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// historyRestore records an earlier revision's listing as a new revision; every page shows it.
func (s *Server) historyRestore(c echo.Context) error {
	n, err := pathRevision(c)
	if err != nil {
		return err
	}
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	return s.commit(c, sg, change{step: "restore", restore: n, tool: sg.Tool, structure: true, tasks: true, select_: -1})
}

// historyName names a revision; an empty name clears it.
func (s *Server) historyName(c echo.Context) error {
	n, err := pathRevision(c)
	if err != nil {
		return err
	}
	hs, err := readHistorySignals(c)
	if err != nil {
		return err
	}
	id := c.Param("id")
	sse := newSSE(c)
	if _, err := s.db.NameRevision(c.Request().Context(), id, n, strings.TrimSpace(hs.RName)); err != nil {
		switch store.KindOf(err) {
		case store.Invalid, store.Conflict, store.NotFound:
			_ = sse.PatchElementTempl(views.HistoryProblem("The name was not saved: "+err.Error()),
				datastar.WithSelector("#rev-detail"), datastar.WithModeAppend())
			return nil
		}
		return err
	}
	m, err := s.revisionsModel(c.Request().Context(), id)
	if err != nil {
		return err
	}
	// The list carries the baseline's record too; the EventRevision the store sends refreshes
	// the other pages' panels the same way.
	_ = sse.PatchElementTempl(views.RevisionsList(m))
	return nil
}

// fork copies the workspace (history and tasks) into a new one and opens it.
func (s *Server) fork(c echo.Context) error {
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	id := c.Param("id")
	who := s.who(c)
	src, err := s.db.Workspace(c.Request().Context(), id)
	if err != nil {
		return workspace.StoreErr(err)
	}
	ws, err := s.db.ForkWorkspace(c.Request().Context(), store.Fork{From: id, Title: workspace.Title("Copy of " + src.Title), Author: who.Name})
	if err != nil {
		return fmt.Errorf("fork workspace: %w", workspace.StoreErr(err))
	}
	s.log.Info("workspace forked", "from", id, "id", ws.ID)
	if err := s.grantFork(c, ws.ID); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
}

// maxPresenceRows bounds the people the header names.
const maxPresenceRows = 12

// presenceView renders who is on the workspace: one entry per person (their tabs counted),
// with the tool their newest page shows.
func presenceView(list []presence, names []string) templ.Component {
	return views.Presence(presenceModel(list, names))
}

func presenceModel(list []presence, names []string) []views.PresenceRow {
	type key struct{ name, id string }
	agg := map[key]*views.PresenceRow{}
	var order []key
	sort.Slice(list, func(i, j int) bool { return list[i].seen.After(list[j].seen) })
	for _, p := range list {
		k := key{p.Name, p.AuthorID}
		r := agg[k]
		if r == nil {
			r = &views.PresenceRow{Name: p.Name}
			if p.AuthorID != "" {
				r.Short = p.AuthorID[max(0, len(p.AuthorID)-6):]
			}
			if t := toolOfPtr(p.Field); t >= 0 && t < len(names) {
				r.Tool = names[t]
			}
			agg[k] = r
			order = append(order, k)
		}
		r.Tabs++
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].name != order[j].name {
			return order[i].name < order[j].name
		}
		return order[i].id < order[j].id
	})
	rows := make([]views.PresenceRow, 0, min(len(order), maxPresenceRows+1))
	for i, k := range order {
		if i == maxPresenceRows {
			// A workshop room: the header names the first ones and counts the rest.
			rows = append(rows, views.PresenceRow{Name: fmt.Sprintf("and %d more", len(order)-i)})
			break
		}
		rows = append(rows, *agg[k])
	}
	return rows
}
