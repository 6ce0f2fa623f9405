package web

// The task export writes the workspace's tasks in any task file format (issue 20). The task
// panel's format choice posts here and gets back the download link and what that format
// leaves out of the tasks, so a person sees it before downloading; the download itself is
// GET tasks.json?format=NAME (the workbench's own file without it, as before). The link also
// carries a digest of the losses it was shown with (seen): should the tasks change meanwhile so
// that the format leaves out something else, the download is refused saying so, rather than
// leave out what the person was not shown.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/taskformat"
	"github.com/tool-workbench/workbench/views"
)

// exportFile is what a format's download is called and its media type. Where the tool has a
// file name of its own (promptfoo's promptfooconfig.yaml) it is that; else tasks.NAME.EXT, so
// that files of several formats can sit side by side.
type exportFile struct{ name, ctype string }

var exportFiles = map[string]exportFile{
	taskformat.Workbench: {"tasks.json", "application/json"},
	"mcpjam":             {"tasks.mcpjam.yaml", "application/yaml"},
	"promptfoo":          {"promptfooconfig.yaml", "application/yaml"},
	"mcpchecker":         {"tasks.mcpchecker.yaml", "application/yaml"},
	"mcptest":            {"tasks.mcptest.yaml", "application/yaml"},
	"mcptef":             {"tasks.mcptef.json", "application/json"},
}

// fileOf names a format's download; a format added without an entry still downloads, as text.
func fileOf(name string) exportFile {
	if f, ok := exportFiles[name]; ok {
		return f
	}
	return exportFile{"tasks." + name + ".txt", "text/plain; charset=utf-8"}
}

// writtenTasks is the workspace's tasks written in one format.
type writtenTasks struct {
	format taskformat.Format
	body   []byte
	losses []taskformat.Loss
}

// writeTasks writes tasks as the format named ("" is the workbench's own). The workbench's own
// file is the tasks as stored, byte for byte as the export always gave them. A refusal says
// what was wrong and what would work; kind tells a bad name (400) from tasks the format cannot
// hold (422).
func writeTasks(tasks []selection.Task, name string) (writtenTasks, Kind, error) {
	if name == "" {
		name = taskformat.Workbench
	}
	f, err := taskformat.Lookup(name)
	if err != nil {
		return writtenTasks{}, BadRequest, fmt.Errorf("%s: choose one of them in the task panel's export list, or say ?format=NAME", err.Error())
	}
	if f.Name() == taskformat.Workbench {
		if tasks == nil {
			tasks = []selection.Task{}
		}
		b, err := json.MarshalIndent(tasks, "", "  ")
		if err != nil {
			return writtenTasks{}, Internal, fmt.Errorf("encode tasks: %w", err)
		}
		return writtenTasks{format: f, body: append(b, '\n')}, 0, nil
	}
	b, losses, err := f.Write(taskformat.FromTasks(tasks))
	if err != nil {
		return writtenTasks{}, Unprocessable, fmt.Errorf("the tasks cannot be written as %s: %w; export them in another format, or change the tasks", f.Title(), err)
	}
	return writtenTasks{format: f, body: b, losses: losses}, 0, nil
}

// exportTasks downloads the workspace's tasks in the format the query names.
func (s *Server) exportTasks(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	w, k, err := writeTasks(ws.Tasks, c.QueryParam("format"))
	if err != nil {
		if k == Internal {
			return err
		}
		return fail(k, upperFirst(err.Error())+".")
	}
	if seen := c.QueryParam("seen"); seen != "" && seen != lossDigest(w.losses) {
		return fail(Conflict, staleLosses(w))
	}
	file := fileOf(w.format.Name())
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+file.name+`"`)
	return c.Blob(http.StatusOK, file.ctype, w.body)
}

// taskExportChoice answers the export's format choice: the region again, its link for that
// format and what the format leaves out of the tasks as they stand.
func (s *Server) taskExportChoice(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	x, err := taskExportModel(ws.ID, ws.Tasks, sg.value())
	if err != nil {
		return err
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.TaskExportRegion(x))
	return nil
}

// workbenchExport is the export region as a page first shows it: the workbench's own file,
// which leaves nothing out (and costs nothing to render).
func workbenchExport(ws string) views.TaskExport {
	return views.TaskExport{WS: ws, Format: taskformat.Workbench, Formats: taskFormats,
		Href: "/w/" + ws + "/tasks.json", File: fileOf(taskformat.Workbench).name}
}

// taskExportModel is the export region for the format named: the workbench's own when the
// name is empty; a name no format has is a 400 (the page only offers known ones).
func taskExportModel(ws string, tasks []selection.Task, name string) (views.TaskExport, error) {
	x := views.TaskExport{WS: ws, Format: taskformat.Workbench, Formats: taskFormats}
	w, k, err := writeTasks(tasks, name)
	switch {
	case err != nil && k == BadRequest:
		return x, fail(BadRequest, upperFirst(err.Error())+".")
	case err != nil && k == Internal:
		return x, err
	case err != nil:
		// The format is known but cannot hold these tasks: the region says why, with no link.
		f, _ := taskformat.Lookup(name)
		x.Format, x.Problem = f.Name(), upperFirst(err.Error())+"."
		return x, nil
	}
	x.Format = w.format.Name()
	x.File = fileOf(x.Format).name
	x.Href = "/w/" + ws + "/tasks.json"
	if x.Format != taskformat.Workbench {
		x.Href += "?" + url.Values{"format": {x.Format}, "seen": {lossDigest(w.losses)}}.Encode()
	}
	if len(w.losses) > 0 {
		x.Summary = fmt.Sprintf("Exporting as %s leaves out, or needs you to fill in (%d):", w.format.Title(), len(w.losses))
	}
	x.Losses, x.More = shownLosses(w.losses)
	return x, nil
}

// lossDigest names a list of losses in a few characters, for the download link to say which
// list the person saw.
func lossDigest(losses []taskformat.Loss) string {
	h := sha256.New()
	for _, l := range losses {
		fmt.Fprintln(h, l.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// staleLosses refuses a download whose format now leaves out other things than the page
// showed, naming the first few.
func staleLosses(w writtenTasks) string {
	var first []string
	for i, l := range w.losses {
		if i == 3 {
			first = append(first, fmt.Sprintf("and %d more", len(w.losses)-i))
			break
		}
		first = append(first, lint.ClipN(l.String(), maxLossText))
	}
	now := "now leaves out nothing"
	if len(first) > 0 {
		now = fmt.Sprintf("now leaves out %d: %s", len(w.losses), strings.Join(first, "; "))
	}
	return fmt.Sprintf("The tasks changed since the task panel listed what %s leaves out, and the file %s. Choose the format in the task panel again to see the list as it stands, then download.", w.format.Title(), now)
}
