package web

// The task table: add, remove and edit tasks, show the table as it stands, import and export
// the task file.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// tasksPanel shows the task table as it stands (a notice's "Show their version").
func (s *Server) tasksPanel(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.TasksRegion(st.tasks))
	return nil
}

// staleTaskOp answers a task change sent from a task table older than the task file's shape (a
// task was added or removed since it was rendered): its index may name another task now, so it
// is not applied. The page gets the table as it stands and a notice that gives back the text it
// sent, so nothing typed is lost.
func (s *Server) staleTaskOp(c echo.Context, ws Workspace, op string, i int, val string, busy bool) error {
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
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

// taskOp adds, removes or edits a task. The change is sent as data and made by the workspace
// service from the task file as it stands when it is stored (workspace.TaskChange).
func (s *Server) taskOp(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	i, err := intParam(c, "i")
	if err != nil {
		return err
	}
	g, err := strconv.Atoi(c.QueryParam("g"))
	if err != nil {
		g = -1 // unchecked: a client that is not a page
	}
	tc := workspace.TaskChange{Op: c.QueryParam("op"), Index: i, Field: c.QueryParam("k"), Value: sg.value()}
	switch tc.Op {
	case "add", "del":
	case "set":
		if tc.Field != "task" && tc.Field != "expect" {
			return fail(BadRequest, "unknown task field "+strconv.Quote(tc.Field))
		}
	default:
		return fail(BadRequest, "unknown task operation "+strconv.Quote(tc.Op))
	}
	structure := tc.Op != "set"
	err = s.commit(c, sg, change{edit: &Edit{Task: &tc, ShapeBase: g, Key: tc.Key()}, tool: -1, tasks: structure, select_: -1,
		taskSet: !structure, taskRow: i})
	var st *workspace.StaleTasks
	if errors.As(err, &st) {
		cur, gerr := s.getWS(c)
		if gerr != nil {
			return gerr
		}
		return s.staleTaskOp(c, cur, tc.Op, i, tc.Value, st.Busy)
	}
	return err
}

// uniqueTaskIDs refuses an append whose task ids repeat the workspace's.
func uniqueTaskIDs(have, add []selection.Task) error {
	ids := map[string]bool{}
	for _, t := range have {
		if t.ID != "" {
			ids[t.ID] = true
		}
	}
	for i, t := range add {
		if t.ID != "" && ids[t.ID] {
			return fmt.Errorf("task %d of the file has the id %q, which a task of the workspace has", i+1, t.ID)
		}
	}
	return nil
}

// importTasks replaces the task file from an upload (or, with mode=append, adds its tasks after
// the workspace's; the page asks which), then shows the workspace again. Either is one edit,
// which Undo takes back.
func (s *Server) importTasks(c echo.Context) error {
	ws, err := s.getPageWS(c) // a refusal renders the whole page
	if err != nil {
		return err
	}
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, int64(s.max)+64<<10)
	refuse := func(k Kind, msg string) error {
		st, err := s.currentCtx(r.Context(), ws)
		if err != nil {
			return err
		}
		m := s.workspaceModel(c, ws, st, 0, msg)
		m.Panel = "tasks" // the refusal is said in the task panel
		return htmlPage(c, k.Status(), views.WorkspacePage(m))
	}
	fh, err := c.FormFile("file")
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return refuse(TooLarge, fmt.Sprintf("The task file is larger than %d MB.", s.max>>20))
	}
	if err != nil {
		return refuse(BadRequest, "Choose a task file to import: a JSON array of {\"task\": …, \"expect\": tool name or null}.")
	}
	f, err := fh.Open()
	if err != nil {
		return refuse(BadRequest, "The task file could not be read: "+err.Error())
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(s.max)+1))
	if err != nil || len(b) > s.max {
		return refuse(TooLarge, fmt.Sprintf("The task file is larger than %d MB.", s.max>>20))
	}
	up, problem := readTaskUpload(b, c.FormValue("format"))
	if problem != "" {
		return refuse(BadRequest, problem)
	}
	tasks := up.tasks
	msg := "imported tasks from " + workspace.Title(fh.Filename)
	appended := c.FormValue("mode") == "append" && len(ws.Tasks) > 0
	if appended {
		// The file's tasks after the workspace's: ids must stay unique across both.
		if err := uniqueTaskIDs(ws.Tasks, tasks); err != nil {
			return refuse(BadRequest, "The task file could not be appended: "+err.Error()+". Replace the tasks instead, or change the file's ids.")
		}
		tasks = append(slices.Clip(ws.Tasks), tasks...)
		msg = "appended tasks from " + workspace.Title(fh.Filename)
	}
	if up.from != nil {
		msg += " (" + up.from.Name() + ")"
	}
	if _, err := s.store.Apply(r.Context(), ws.ID, Edit{Tasks: tasks, SetTasks: true, Message: msg}, s.who(c)); err != nil {
		return err
	}
	// Every page shows the imported tasks (its event alone may find this state shown already,
	// by the importer's own reload).
	s.hub.Publish(ws.ID, Notice{Full: true})
	if up.from == nil {
		return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
	}
	// Another tool's file: the importer's page says what was made of it and what was not
	// carried over, so it is rendered here rather than after a redirect that would forget it.
	return s.importedPage(c, importedNotice(up, workspace.Title(fh.Filename), appended))
}

// importedPage shows the workspace as the import left it, on its tasks, with the import's
// notice.
func (s *Server) importedPage(c echo.Context, n *views.TaskImported) error {
	ws, err := s.getPageWS(c) // after the import: its undo state included
	if err != nil {
		return err
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	m := s.workspaceModel(c, ws, st, 0, "")
	m.Tasks.Imported, m.Panel = n, "tasks"
	m.Page.Title = ws.Name + " · Tool Workbench"
	return htmlPage(c, http.StatusOK, views.WorkspacePage(m))
}
