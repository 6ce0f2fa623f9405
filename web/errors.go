package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/store"
)

// Kind names a kind of failure of a page request. Handlers return an *Error of a kind (fail,
// failf) or a store error; statusOf, below, is the one place where a kind becomes an HTTP status,
// and errorHandler the one place that writes it.
type Kind int

// The kinds of failure.
const (
	Internal       Kind = iota // a bug or an outage: the message says no more
	BadRequest                 // the request cannot be used as sent (a bad field, a bad number)
	Forbidden                  // no access, or the wrong capability (view for an edit)
	NotFound                   // no such workspace, revision, run, link
	Conflict                   // the change collides with another, or with the workspace's state
	TooLarge                   // a body or an upload over its limit
	Unsupported                // a media type the route does not take
	Unprocessable              // a well-formed request the listing cannot satisfy (an export go-sdk refuses)
	WrongHost                  // a Host this server does not answer to (DNS rebinding)
	RateLimited                // too many wrong tokens from this client
	Unavailable                // no request slot free, past the deadline, or a part that is off
	Unauthorized               // not signed in where signing in is required
	BadGateway                 // a server the workbench fetched from answered wrong, or not at all
	GatewayTimeout             // a server the workbench fetched from took too long
)

var statusOf = map[Kind]int{
	Internal:       http.StatusInternalServerError,
	BadRequest:     http.StatusBadRequest,
	Forbidden:      http.StatusForbidden,
	NotFound:       http.StatusNotFound,
	Conflict:       http.StatusConflict,
	TooLarge:       http.StatusRequestEntityTooLarge,
	Unsupported:    http.StatusUnsupportedMediaType,
	Unprocessable:  http.StatusUnprocessableEntity,
	WrongHost:      http.StatusMisdirectedRequest,
	RateLimited:    http.StatusTooManyRequests,
	Unavailable:    http.StatusServiceUnavailable,
	Unauthorized:   http.StatusUnauthorized,
	BadGateway:     http.StatusBadGateway,
	GatewayTimeout: http.StatusGatewayTimeout,
}

// Error is a failure of a page request that a person reads: Msg says what was wrong, Hint what
// would work (shown on the error page). Err, when set, is the cause, for the log only.
type Error struct {
	Kind Kind
	Msg  string
	Hint string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Err.Error() != e.Msg { // (a message that is the cause's own says it once)
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// fail returns an *Error of kind k saying msg.
func fail(k Kind, msg string) error { return &Error{Kind: k, Msg: msg} }

// failf is fail with a format.
func failf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Status returns the HTTP status of a kind (500 for one not in the table).
func (k Kind) Status() int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// classify turns any error a handler returns into the status, message and hint the page shows.
// Store errors keep their kind: a missing workspace is a 404, a change that lost every retry a
// 409, a value the store refuses a 400. echo's own errors (no route, wrong method) keep their
// code.
func classify(err error) (code int, msg, hint string) {
	var we *Error
	var he *echo.HTTPError
	switch {
	case errors.As(err, &we):
		return we.Kind.Status(), we.Msg, we.Hint
	case errors.As(err, &he):
		return he.Code, fmt.Sprint(he.Message), ""
	case errors.Is(err, ErrNotFound):
		return NotFound.Status(), "no such workspace",
			"The link may be mistyped, or the workspace was deleted. Start a new one from the start page."
	case store.KindOf(err) == store.NotFound:
		return NotFound.Status(), err.Error(), ""
	case store.KindOf(err) == store.Conflict:
		// Another change landed first and retrying did not help: say so, not "internal error".
		return Conflict.Status(), "the workspace changed under this change; it was not applied. Reload the page and try again.", ""
	case store.KindOf(err) == store.Invalid:
		return BadRequest.Status(), err.Error(), ""
	}
	return Internal.Status(), "internal error", ""
}

// statusFor is the status errorHandler answers err with, for middleware that acts on how a
// handler failed (0 for no error).
func statusFor(err error) int {
	if err == nil {
		return 0
	}
	code, _, _ := classify(err)
	return code
}

// forAPI gives the JSON API's error handler (Config.APIErrors), which knows echo's errors but
// not this package's, an *Error that the middleware returned before the API saw the request
// (a wrong Host, a full server, a throttled token) as an *echo.HTTPError of the same status
// and message.
func forAPI(err error) error {
	var we *Error
	if !errors.As(err, &we) {
		return err
	}
	he := echo.NewHTTPError(we.Kind.Status(), we.Msg)
	he.Internal = err
	return he
}
