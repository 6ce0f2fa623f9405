package store

import (
	"errors"
	"fmt"
)

// Kind classifies a store error; the web layer maps each to one HTTP status in one place.
type Kind int

// The kinds of Error.
const (
	Internal  Kind = iota // the database failed: a bug or an outage
	NotFound              // no such workspace, revision, run, link or session
	Conflict              // the change collides with another (a used name, a lost race)
	Invalid               // the request itself is wrong (an edit that does not apply, a bad field)
	Forbidden             // a revoked share link
)

var kindNames = [...]string{"internal", "not found", "conflict", "invalid", "forbidden"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Error is a failure of a store operation.
type Error struct {
	Kind Kind
	Op   string // the operation, e.g. "append edit"
	Msg  string // what was wrong and, where it helps, what would work
	Err  error  // the cause, if any
}

func (e *Error) Error() string {
	switch {
	case e.Msg != "" && e.Err != nil:
		return fmt.Sprintf("%s: %s: %v", e.Op, e.Msg, e.Err)
	case e.Msg != "":
		return e.Op + ": " + e.Msg
	case e.Err != nil:
		return fmt.Sprintf("%s: %v", e.Op, e.Err)
	}
	return e.Op + ": " + e.Kind.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of the same kind (errors.Is(err, store.ErrNotFound)).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is.
var (
	ErrNotFound  = &Error{Kind: NotFound}
	ErrConflict  = &Error{Kind: Conflict}
	ErrInvalid   = &Error{Kind: Invalid}
	ErrForbidden = &Error{Kind: Forbidden}
)

// KindOf returns the kind of the first *Error in err's chain, Internal if there is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Errorf returns an *Error of kind k for operation op.
func Errorf(k Kind, op, format string, args ...any) *Error {
	return &Error{Kind: k, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// StepConflict is the cause of an undo or redo refused because someone else changed what the
// step would write back since: the task file (Tasks), the value at Path in the listing, or, for
// a restore's step (Revision), the listing or the task file anywhere.
type StepConflict struct {
	Path     string
	Tasks    bool
	Revision bool
}

func (e *StepConflict) Error() string {
	if e.Revision {
		return "the listing or the task file was changed by someone else since"
	}
	if e.Tasks {
		return "the task file was changed by someone else since"
	}
	return fmt.Sprintf("%s was changed by someone else since", e.Path)
}
