package runs

import (
	"errors"

	"github.com/tool-workbench/workbench/store"
)

// Kind is a kind of failure of a start, resume or cancel, which the caller shows differently.
type Kind int

// The kinds of failure.
const (
	// Refused: the run was not started or resumed, for a reason the person can act on; Msg says
	// what was wrong and what would work. Shown in place, not as an error.
	Refused Kind = iota + 1
	// NotFound: no such run in the workspace.
	NotFound
	// Conflict: the run is not in the state the request assumed (it changed under it).
	Conflict
)

// Error is a failure of a kind, with its message for the person who asked.
type Error struct {
	Kind Kind
	Msg  string
	// Run, when set, is the run as it now stands after the failed request changed it.
	Run *store.Run
}

func (e *Error) Error() string { return e.Msg }

// KindOf returns the Kind of err, or 0 if it is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func refused(msg string) error { return &Error{Kind: Refused, Msg: msg} }

func conflict(msg string) error { return &Error{Kind: Conflict, Msg: msg} }

var errNoSuchRun = &Error{Kind: NotFound, Msg: "no such run"}

var (
	// errCancelled is the cause of a run cancelled from the page.
	errCancelled = errors.New("cancelled from the page")
	// errTakenOver is the cause of a run whose stored claim is no longer this process's:
	// another replica resumed it after this one missed its lease (a long pause, a partition).
	// This process stops without saving, so that the run is never written by two.
	errTakenOver = errors.New("another server took the run over")
	// errLeaseLost is the cause of a run stopped because this process could not save it for
	// as long as its lease lasts but one beat: other replicas may soon read it as interrupted
	// and resume it, and a run going on here as well would call the endpoint twice for the
	// same tasks. It is left resumable.
	errLeaseLost = errors.New("could not save the run for most of its lease")
)
