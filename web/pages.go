package web

// The pages: home, import, open an example, the workspace page; and reading the workspace a
// request names.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

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
			return htmlPage(c, TooLarge.Status(), views.HomePage(h))
		}
		h.Problem = &views.ParseProblem{Message: err.Error()}
		return htmlPage(c, BadRequest.Status(), views.HomePage(h))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		h.Problem = &views.ParseProblem{Message: "Nothing was pasted or uploaded.",
			Hint: "Paste a tools/list response or its tools array, choose a file, or open an example."}
		return htmlPage(c, BadRequest.Status(), views.HomePage(h))
	}
	l, err := listing.Parse(src, listing.Options{Name: name, Limits: listing.Limits{Bytes: s.max}})
	if err != nil {
		h.Problem = parseProblem(src, err)
		h.Pasted = string(src)
		return htmlPage(c, BadRequest.Status(), views.HomePage(h))
	}
	ws, err := s.store.Create(r.Context(), name, l, nil, s.who(c), "imported from "+workspace.Title(name))
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
			// The parser's hint restates the message with the position, which the page shows
			// already: once is enough.
			if strings.Contains(p.Hint, se.Msg) {
				p.Hint = ""
			}
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
		return fail(NotFound, "no such example")
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

// workspaceModel is the whole page of workspace ws for who, with tool selected.
func (s *Server) workspaceModel(c echo.Context, ws Workspace, st *state, selected int, problem string) views.Workspace {
	if selected >= len(ws.Listing.Tools) {
		selected = len(ws.Listing.Tools) - 1
	}
	selected = max(selected, 0)
	tasks := st.tasks
	tasks.Problem = problem
	pid, who := NewID(), s.who(c)
	self := presence{PID: pid, Name: who.Name, AuthorID: who.ID, Field: "/tools/" + strconv.Itoa(selected), seen: time.Now()}
	return views.Workspace{Page: s.page, ID: ws.ID, Name: ws.Name, Version: ws.Version, CanUndo: ws.CanUndo, CanRedo: ws.CanRedo,
		PID: pid, Tools: st.rows, Selected: selected, Editor: s.editorModel(ws, st.res, selected),
		Findings: st.findings, Cost: st.cost, Tasks: tasks, Damage: st.damage, Server: s.serverPanel(c.Request().Context(), ws.ID, nil),
		Presence: s.hub.presenceRows(ws.ID, st.names, self)}
}

func (s *Server) workspacePage(c echo.Context) error {
	ws, err := s.getPageWS(c)
	if err != nil {
		return err
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	sel, _ := strconv.Atoi(c.QueryParam("tool"))
	m := s.workspaceModel(c, ws, st, sel, "")
	m.Page.Title = ws.Name + " · Tool Workbench"
	m.Challenge = s.challengeBar(c.Request().Context(), ws.ID)
	return htmlPage(c, http.StatusOK, views.WorkspacePage(m))
}

// getWS reads the request's workspace without the person's undo state: only a whole page shows
// the Undo and Redo buttons (getPageWS), and a change's answer carries them.
func (s *Server) getWS(c echo.Context) (Workspace, error) {
	return s.store.Read(c.Request().Context(), c.Param("id"))
}

// getPageWS reads the request's workspace as a whole page shows it, undo state included.
func (s *Server) getPageWS(c echo.Context) (Workspace, error) {
	return s.store.Get(c.Request().Context(), c.Param("id"), s.who(c))
}
