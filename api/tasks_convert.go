package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection/taskformat"
)

// convertFields are the members of a tasks/convert request.
var convertFields = []string{"tasks", "from", "to"}

// convertResponse is the answer of POST /tasks/convert: what `workbench tasks convert` writes
// on standard output (Output) and on standard error (Losses).
type convertResponse struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Cases int    `json:"cases"`
	// Output is the converted file's text.
	Output string `json:"output"`
	// Losses are what either side could not carry; empty when nothing was lost.
	Losses []taskformat.Loss `json:"losses"`
}

// convertTasks converts a task file between the workbench's format and other tools' test
// formats. A loss is no error: the answer is 200 with the losses listed.
func (a *API) convertTasks(c echo.Context) error {
	req, err := a.read(c, convertFields...)
	if err != nil {
		return err
	}
	names := taskformat.Names()
	from, err := req.str("from", "", names...)
	if err != nil {
		return err
	}
	to, err := req.str("to", taskformat.Workbench, names...)
	if err != nil {
		return err
	}
	v := req.get("tasks")
	if v == nil {
		return &Error{Code: CodeMissingField, Field: "tasks", Pointer: pointer("tasks"),
			Message: `the request has no "tasks"`,
			Hint:    `send the file as "tasks": its text in a JSON string (YAML or JSON), or a JSON value`}
	}
	d, err := req.doc("tasks", v)
	if err != nil {
		return err
	}
	if len(d.exact) > taskformat.MaxSource {
		return &Error{Code: CodeTooLarge, Field: "tasks",
			Message: fmt.Sprintf("the task file is %d bytes; task files are converted up to %d", len(d.exact), taskformat.MaxSource),
			Hint:    "split the file, or run `workbench tasks convert` on it"}
	}
	src := d.exact
	if d.text {
		src = listing.UniversalNewlines(src)
	}
	res, err := taskformat.Convert(src, from, to)
	if err != nil {
		return convertError(err, from)
	}
	resp := convertResponse{From: res.From, To: res.To, Cases: res.Cases, Output: string(res.Out), Losses: res.Losses}
	if resp.Losses == nil {
		resp.Losses = []taskformat.Loss{}
	}
	return c.JSON(http.StatusOK, resp)
}

// convertError is a file that cannot be converted: its shape fits no format (or several), or
// it does not read as the format it was said to be, or the target cannot hold it.
func convertError(err error, from string) *Error {
	e := &Error{Code: CodeInvalidTasks, Field: "tasks", Message: err.Error(), err: err,
		Hint: `say the file's format in "from": ` + strings.Join(taskformat.Names(), ", ")}
	if from != "" {
		e.Hint = "check that the file is in the format named in \"from\"; GET /api/v1/openapi.json and `workbench tasks formats` list the formats"
	}
	return e
}
