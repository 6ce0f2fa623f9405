package web

// Renaming a workspace from its page (issue 21, point 10b).

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// renameWorkspace keeps the name the header's field sent and answers the field as it now
// stands; the store's title event shows the name on the workspace's other pages. An empty
// name keeps the old one.
func (s *Server) renameWorkspace(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the name could not be read; send it as the page does (a name field)")
	}
	id := c.Param("id")
	rec, err := s.db.Workspace(r.Context(), id)
	if err != nil {
		return workspace.StoreErr(err)
	}
	if name := r.PostFormValue("name"); strings.TrimSpace(name) != "" && workspace.Title(name) != rec.Title {
		if rec, err = s.db.SetTitle(r.Context(), id, workspace.Title(name), time.Now()); err != nil {
			return fmt.Errorf("rename workspace: %w", workspace.StoreErr(err))
		}
	}
	return patchNameOf(newSSE(c), id, rec.Title)
}

// patchName shows a page the workspace's name as the store has it, in the header's field (as
// the page's viewer may see it: the stream's context carries it) and in the window's title.
func (s *Server) patchName(sse *datastar.ServerSentEventGenerator, ws string) error {
	rec, err := s.db.Workspace(sse.Context(), ws)
	if err != nil {
		return workspace.StoreErr(err)
	}
	return patchNameOf(sse, ws, rec.Title)
}

func patchNameOf(sse *datastar.ServerSentEventGenerator, ws, title string) error {
	if err := sse.PatchElementTempl(views.WorkspaceName(ws, title)); err != nil {
		return err
	}
	return sse.PatchElements("<title>"+html.EscapeString(title+" · Tool Workbench")+"</title>", datastar.WithSelector("title"))
}
