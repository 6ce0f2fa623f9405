package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// What GET answers, PUT takes back: `curl GET > f; edit f; curl PUT -d @f` works for the
// listing and the task file. The body of a PUT is either the document itself, exactly as GET
// gave it, with the revision's message in ?message= or the X-Workbench-Message header, or the
// wrapped form {"listing"|"tasks": ..., "message": ...}.
//
// The two forms cannot be confused. A wrapped listing is an object with a "listing" (or
// "message") member and none of the members that make an object a listing (a tools/list response has "result" or
// "error", its result "tools", a tool "name"): a listing whose result or tool carries a member
// named "listing" still has those, so it is read as a listing. A task file is an array (an
// empty object is also read as no tasks), so an object with a "tasks" member is the wrapped form.

// MessageHeader carries the message of a PUT whose body is the document itself.
const MessageHeader = "X-Workbench-Message"

// listingMembers are the members that make an object a listing (listing.Parse's shapes).
var listingMembers = []string{"tools", "result", "error", "name"}

// wrappedListing tells whether body is the wrapped form of a listing PUT: an object with a
// "listing" or a "message" member (one with "message" alone lacks its listing, which the
// wrapped form's reading says) and none of the members that make an object a listing.
func wrappedListing(root *listing.Value) bool {
	if root == nil || root.Kind != listing.Object || root.Get("listing") == nil && root.Get("message") == nil {
		return false
	}
	for _, k := range listingMembers {
		if root.Get(k) != nil {
			return false
		}
	}
	return true
}

// messageParam returns the message a PUT gives beside its body ("" when none).
func messageParam(c echo.Context) (string, error) {
	const hint = "give the message once: ?message=TEXT (URL-encoded) or the header " + MessageHeader
	qs := c.QueryParams()["message"]
	hs := c.Request().Header.Values(MessageHeader)
	if len(qs)+len(hs) > 1 {
		return "", &Error{Code: CodeInvalidField, Field: "message", Message: fmt.Sprintf("the message is given %d times", len(qs)+len(hs)), Hint: hint}
	}
	var m string
	switch {
	case len(qs) == 1:
		m = qs[0]
	case len(hs) == 1:
		m = hs[0]
	default:
		return "", nil
	}
	if !utf8.ValidString(m) {
		return "", &Error{Code: CodeInvalidField, Field: "message", Message: "the message is not UTF-8",
			Hint: "a header carries ASCII safely; for other text use ?message= with the text URL-encoded as UTF-8"}
	}
	return m, nil
}

// putMessage is the revision's message: the wrapped body's, or the one beside the body, or def.
func putMessage(c echo.Context, req *request, def string) (string, error) {
	given, err := messageParam(c)
	if err != nil {
		return "", err
	}
	if req == nil || req.get("message") == nil {
		if given == "" {
			return def, nil
		}
		return given, nil
	}
	if given != "" {
		return "", &Error{Code: CodeInvalidField, Field: "message", Pointer: "/message",
			Message: "the message is given both in the body and beside it (?message= or " + MessageHeader + ")",
			Hint:    "give it once"}
	}
	return req.str("message", def)
}

// listingPut reads the body of PUT /workspaces/{id}/listing in either form.
func (a *API) listingPut(c echo.Context) (*listing.Listing, string, error) {
	const def = "replaced through the API"
	body, err := a.readDocument(c)
	if err != nil {
		return nil, "", err
	}
	if root, err := listing.ParseJSON(body); err == nil && wrappedListing(root) {
		req, err := decodeRequest(body, []string{"listing", "message"})
		if err != nil {
			return nil, "", err
		}
		msg, err := putMessage(c, req, def)
		if err != nil {
			return nil, "", err
		}
		l, err := req.listingOf("listing", "listing", a.opts.Limits, true, false)
		return l, msg, err
	}
	msg, err := putMessage(c, nil, def)
	if err != nil {
		return nil, "", err
	}
	l, err := listing.Parse(body, listing.Options{Name: "the listing", Limits: a.opts.Limits})
	if err != nil {
		return nil, "", listingError(err, "", body)
	}
	if ptr, at := tooDeep(l.Doc, maxDepth); at != nil {
		return nil, "", (&Error{Code: CodeTooLarge, Pointer: ptr,
			Message: fmt.Sprintf("the listing nests deeper than %d levels", maxDepth),
			Hint:    "real tool listings nest a dozen levels or so; flatten the schema (use $defs and $ref)"}).at(body, at.Pos)
	}
	return l, msg, nil
}

// readDocument reads the body of a PUT that replaces a document. Besides JSON, it takes the
// form type curl gives `-d @file` unless told otherwise, so that a first `curl -X PUT -d @f`
// works. This opens no door to other sites: the API refuses form types elsewhere so that a
// page cannot post to it in someone's name, but no form sends a PUT, and a page's script
// sending one cross-origin needs a CORS preflight this server never grants (sameOrigin
// refuses what a browser marks as cross-site besides).
func (a *API) readDocument(c echo.Context) ([]byte, error) {
	r := c.Request()
	if mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); err == nil && mt == "application/x-www-form-urlencoded" {
		r.Header.Set(echo.HeaderContentType, "application/json")
	}
	return readBody(c, a.opts.MaxBodyBytes)
}

// TaskFiles is what the task file endpoints need of a store beyond Workspaces; store.Store has
// it. Without it they answer 404.
type TaskFiles interface {
	PutTasks(ctx context.Context, t store.TaskEdit) (store.EditResult, error)
}

var _ TaskFiles = store.Store(nil)

// taskFiles returns the store's task file operations, or a 404 when it keeps none.
func (a *API) taskFiles() (TaskFiles, error) {
	tf, ok := a.opts.Workspaces.(TaskFiles)
	if !ok || a.listings == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this server keeps no task files",
			Hint: "the task file endpoints need a server started with a store (workbench serve)"}
	}
	return tf, nil
}

// tasksDocument is a task file as the page's export writes it: indented JSON and a newline;
// no task file is an empty array.
func tasksDocument(tasks []selection.Task) ([]byte, error) {
	if tasks == nil {
		tasks = []selection.Task{}
	}
	b, err := json.MarshalIndent(tasks, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode tasks: %w", err)
	}
	return append(b, '\n'), nil
}

// getTasks answers the head's task file as the page's export writes it (an empty array when the
// workspace has none). X-Workbench-Revision names the revision.
func (a *API) getTasks(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	if _, err := a.access(c, id, false); err != nil {
		return err
	}
	if _, err := a.taskFiles(); err != nil {
		return err
	}
	rev, err := a.listings.HeadRevision(c.Request().Context(), id)
	if err != nil {
		return err
	}
	var tasks []selection.Task
	if rev.HasTasks {
		// A stored file that no longer parses (an older format) reads as no tasks, as on the page.
		tasks, _ = selection.ParseTasks(rev.Tasks, false)
	}
	b, err := tasksDocument(tasks)
	if err != nil {
		return err
	}
	c.Response().Header().Set("X-Workbench-Revision", strconv.Itoa(rev.Number))
	return c.Blob(http.StatusOK, "application/json", b)
}

// putTasksResponse answers PUT /workspaces/{id}/tasks.
type putTasksResponse struct {
	Workspace string         `json:"workspace"`
	Seq       int64          `json:"seq"`
	Revision  store.Revision `json:"revision"`
	Tasks     int            `json:"tasks"`
}

// putTasks replaces the task file as one edit, as the page's import does.
func (a *API) putTasks(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	author, err := a.access(c, id, true)
	if err != nil {
		return err
	}
	tf, err := a.taskFiles()
	if err != nil {
		return err
	}
	tasks, msg, err := a.tasksPut(c)
	if err != nil {
		return err
	}
	if tasks == nil {
		tasks = []selection.Task{}
	}
	// Stored as the page stores an imported file: the parsed tasks, re-encoded.
	body, err := json.Marshal(tasks)
	if err != nil {
		// The task parser accepts Python's NaN and Infinity in arguments; JSON has no such numbers.
		return &Error{Code: CodeInvalidTasks, Message: "the task file is not standard JSON (NaN or Infinity?): " + err.Error(), err: err,
			Hint: "write numbers as JSON numbers"}
	}
	res, err := tf.PutTasks(c.Request().Context(), store.TaskEdit{Workspace: id, Author: author, Body: body, Message: msg, Now: a.opts.Now()})
	if err != nil {
		return fmt.Errorf("replace tasks: %w", err)
	}
	c.Response().Header().Set("X-Workbench-Revision", strconv.Itoa(res.Revision.Number))
	return c.JSON(http.StatusOK, putTasksResponse{Workspace: id, Seq: res.Seq, Revision: res.Revision, Tasks: len(tasks)})
}

// tasksPut reads the body of PUT /workspaces/{id}/tasks in either form.
func (a *API) tasksPut(c echo.Context) ([]selection.Task, string, error) {
	const def = "replaced the tasks through the API"
	body, err := a.readDocument(c)
	if err != nil {
		return nil, "", err
	}
	if root, err := listing.ParseJSON(body); err == nil && root.Kind == listing.Object && root.Get("tasks") != nil {
		req, err := decodeRequest(body, []string{"tasks", "message"})
		if err != nil {
			return nil, "", err
		}
		msg, err := putMessage(c, req, def)
		if err != nil {
			return nil, "", err
		}
		if req.get("tasks") == nil {
			return nil, "", &Error{Code: CodeMissingField, Field: "tasks", Pointer: "/tasks", Message: `"tasks" is null`,
				Hint: `send the task file, [] for none: {"tasks": [...], "message": "..."}, or the task file alone`}
		}
		tasks, err := req.tasksOf("tasks")
		return tasks, msg, err
	}
	msg, err := putMessage(c, nil, def)
	if err != nil {
		return nil, "", err
	}
	tasks, err := selection.ParseTasks(body, false)
	if err != nil {
		e := tasksError(err, "")
		var se *listing.SyntaxError
		if errors.As(err, &se) {
			e.Line, e.Column = se.Line, se.Column
		}
		return nil, "", e
	}
	return tasks, msg, nil
}
