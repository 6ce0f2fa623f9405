package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// Code names a kind of failure. Clients branch on it; the HTTP status follows from it (see
// statusOf), so that no handler picks a status on its own.
type Code string

// The error codes.
const (
	CodeMalformedJSON        Code = "malformed_json"         // the request body is not JSON (or not UTF-8)
	CodeUnknownField         Code = "unknown_field"          // a member the endpoint does not define
	CodeDuplicateField       Code = "duplicate_field"        // a member given twice
	CodeMissingField         Code = "missing_field"          // a required member is absent
	CodeInvalidField         Code = "invalid_field"          // a member of the wrong type or an unknown value
	CodeMalformedListing     Code = "malformed_listing"      // listing text that is neither JSON nor an SSE data line, or not UTF-8
	CodeInvalidListing       Code = "invalid_listing"        // JSON that holds no usable tools
	CodeInvalidTasks         Code = "invalid_tasks"          // a task file that cannot be used
	CodeInvalidIgnore        Code = "invalid_ignore"         // an ignore list that cannot be used
	CodeInvalidBaseline      Code = "invalid_baseline"       // a baseline report that cannot be used
	CodeUnexportable         Code = "unexportable_listing"   // go-sdk would refuse to register the listing
	CodeTooLarge             Code = "too_large"              // the body or the listing is over a limit
	CodeUnsupportedMediaType Code = "unsupported_media_type" // a body that is not declared as JSON
	CodeCrossOrigin          Code = "cross_origin"           // a browser request from another site
	CodeForbidden            Code = "forbidden"              // no access to the workspace
	CodeNotFound             Code = "not_found"              // no such route or workspace
	CodeMethodNotAllowed     Code = "method_not_allowed"     // the route exists, the method does not
	CodeConflict             Code = "conflict"               // the change collides with another
	CodeWrongHost            Code = "wrong_host"             // a Host this server does not answer to (DNS rebinding)
	CodeRateLimited          Code = "rate_limited"           // too many wrong tokens from this client, or drafting requests in flight; see Retry-After
	CodeInternal             Code = "internal"               // a bug or an outage; the message says no more
	CodeUnavailable          Code = "unavailable"            // every request slot taken, or past the request's deadline
	CodeNoEndpoint           Code = "no_endpoint"            // no model endpoint configured, or none by that name
	CodeOverBudget           Code = "over_budget"            // a drafting plan over its call budget (no call made)
	CodeModelFailed          Code = "model_failed"           // the model endpoint failed or ran out of time
)

// statusOf is the one place where error codes become HTTP statuses.
var statusOf = map[Code]int{
	CodeMalformedJSON:        http.StatusBadRequest,
	CodeUnknownField:         http.StatusBadRequest,
	CodeDuplicateField:       http.StatusBadRequest,
	CodeMissingField:         http.StatusBadRequest,
	CodeInvalidField:         http.StatusBadRequest,
	CodeMalformedListing:     http.StatusBadRequest,
	CodeInvalidListing:       http.StatusUnprocessableEntity,
	CodeInvalidTasks:         http.StatusUnprocessableEntity,
	CodeInvalidIgnore:        http.StatusUnprocessableEntity,
	CodeInvalidBaseline:      http.StatusUnprocessableEntity,
	CodeUnexportable:         http.StatusUnprocessableEntity,
	CodeTooLarge:             http.StatusRequestEntityTooLarge,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeCrossOrigin:          http.StatusForbidden,
	CodeForbidden:            http.StatusForbidden,
	CodeNotFound:             http.StatusNotFound,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeConflict:             http.StatusConflict,
	CodeWrongHost:            http.StatusMisdirectedRequest,
	CodeRateLimited:          http.StatusTooManyRequests,
	CodeInternal:             http.StatusInternalServerError,
	CodeUnavailable:          http.StatusServiceUnavailable,
	CodeNoEndpoint:           http.StatusUnprocessableEntity,
	CodeOverBudget:           http.StatusUnprocessableEntity,
	CodeModelFailed:          http.StatusBadGateway,
}

// Status returns the HTTP status of a code (500 for a code not in the table).
func (c Code) Status() int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is the one error shape of the API: every failure answers {"error": Error}.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Hint says what would work.
	Hint string `json:"hint,omitempty"`
	// Field is the request member the error is about ("listing", "tasks", "merge/1/listing").
	Field string `json:"field,omitempty"`
	// Pointer is a JSON pointer: into the request body for errors about the request itself
	// (unknown_field, invalid_field), into the document held by Field otherwise (/tools/3).
	Pointer string `json:"pointer,omitempty"`
	// Line and Column (1-based, counting characters) locate the error in the text it is in:
	// the request body, or the listing or task text when that was sent as a JSON string.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Details lists the individual problems when there are several (unexportable_listing).
	Details []Detail `json:"details,omitempty"`

	err error // the cause, for logs; never sent
}

// Detail is one problem of several.
type Detail struct {
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.err)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.err }

// errorBody is the JSON of an error response.
type errorBody struct {
	Error *Error `json:"error"`
}

// at locates e at byte offset off of src.
func (e *Error) at(src []byte, off int) *Error {
	if off >= 0 && off <= len(src) {
		e.Line, e.Column, _ = listing.Position(src, off)
	}
	return e
}

// toError turns any error a handler returns into an *Error. Errors of the engines are mapped
// here, by type and kind, so that handlers only return them.
func toError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromHTTPError(he)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{Code: CodeTooLarge, err: err,
			Message: fmt.Sprintf("the request body is over the limit of %d bytes", mbe.Limit),
			Hint:    "send a smaller listing, or ask the operator to raise the API's body limit"}
	}
	var se *store.Error
	if errors.As(err, &se) {
		return fromStoreError(se)
	}
	return &Error{Code: CodeInternal, Message: "internal error", err: err}
}

func fromHTTPError(he *echo.HTTPError) *Error {
	msg := fmt.Sprint(he.Message)
	switch he.Code {
	case http.StatusNotFound:
		return &Error{Code: CodeNotFound, Message: "no such endpoint", err: he,
			Hint: "GET /api/v1/openapi.json lists the endpoints"}
	case http.StatusMethodNotAllowed:
		return &Error{Code: CodeMethodNotAllowed, Message: "this endpoint does not take that method", err: he,
			Hint: "the Allow header and GET /api/v1/openapi.json list the methods it takes"}
	case http.StatusRequestEntityTooLarge:
		return &Error{Code: CodeTooLarge, Message: msg, err: he}
	case http.StatusForbidden:
		return &Error{Code: CodeForbidden, Message: msg, err: he}
	// The web server's middleware answers these before the API sees the request; its
	// messages say what would work (and Retry-After is already set where it applies).
	case http.StatusMisdirectedRequest:
		return &Error{Code: CodeWrongHost, Message: msg, err: he}
	case http.StatusTooManyRequests:
		return &Error{Code: CodeRateLimited, Message: msg, err: he}
	case http.StatusServiceUnavailable:
		return &Error{Code: CodeUnavailable, Message: msg, err: he}
	}
	if he.Code >= 400 && he.Code < 500 {
		return &Error{Code: CodeInvalidField, Message: msg, err: he}
	}
	return &Error{Code: CodeInternal, Message: "internal error", err: he}
}

// fromStoreError maps the store's error kinds. A malformed workspace id is no workspace at all.
func fromStoreError(se *store.Error) *Error {
	e := &Error{Message: se.Error(), err: se}
	switch se.Kind {
	case store.NotFound:
		e.Code, e.Hint = CodeNotFound, "check the workspace id: it is the 32 hex digits POST /api/v1/workspaces returned"
	case store.Invalid:
		if strings.HasPrefix(se.Op, "read ") {
			e.Code, e.Hint = CodeNotFound, "a workspace id is 32 lowercase hex digits"
		} else {
			e.Code = CodeInvalidField
		}
	case store.Conflict:
		e.Code, e.Hint = CodeConflict, "fetch the current state and try again"
	case store.Forbidden:
		e.Code = CodeForbidden
	default:
		e.Code, e.Message = CodeInternal, "internal error"
	}
	return e
}

// listingError describes a listing that cannot be read. field names the request member; src
// is the text the error's offset refers to.
func listingError(err error, field string, src []byte) *Error {
	var le *listing.Error
	if !errors.As(err, &le) {
		return &Error{Code: CodeInvalidListing, Field: field, Message: fmt.Sprintf("%s: %v", field, err), err: err}
	}
	e := &Error{Field: field, Message: le.Msg, Hint: le.Hint, Pointer: le.Pointer, err: err}
	switch le.Kind {
	case listing.ErrLimit:
		e.Code = CodeTooLarge
	case listing.ErrEncoding, listing.ErrSyntax, listing.ErrNotJSON:
		e.Code = CodeMalformedListing
		if le.Kind == listing.ErrNotJSON && le.Hint != "" {
			// The hint carries the JSON error; say what would work as well.
			e.Hint = le.Hint + `; send the listing as a JSON value ("listing": {"tools": [...]}) or as text holding JSON or an SSE data: line`
		}
	default:
		e.Code = CodeInvalidListing
	}
	return e.at(src, le.Offset)
}

// tasksError describes a task file that cannot be used.
func tasksError(err error, field string) *Error {
	e := &Error{Code: CodeInvalidTasks, Field: field, Message: err.Error(), err: err,
		Hint: `a task file is a JSON array of {"task": "...", "expect": "tool name" or null}`}
	var te *selection.TaskError
	if errors.As(err, &te) {
		e.Pointer = te.Pointer
	}
	return e
}

// goError lists every problem go-sdk would have with the listing.
func goError(err error) *Error {
	var ge *export.GoError
	if !errors.As(err, &ge) {
		return &Error{Code: CodeInternal, Message: "internal error", err: err}
	}
	e := &Error{Code: CodeUnexportable, Field: "listing", err: err,
		Message: fmt.Sprintf("%d problem(s) keep this listing from being registered with %s %s", len(ge.Problems), export.SDKModule, export.SDKVersion),
		Hint:    "fix these in the listing (POST /api/v1/check finds most of them) and export again"}
	for _, p := range ge.Problems {
		e.Details = append(e.Details, Detail{Pointer: p.Pointer, Message: fmt.Sprintf("tool %q: %s", p.Tool, p.Msg)})
	}
	if len(ge.Problems) > 0 {
		e.Pointer = ge.Problems[0].Pointer
	}
	return e
}
