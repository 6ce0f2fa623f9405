package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/tool-workbench/workbench/store"
)

// UndoRefused is an undo or redo that cannot be done; Msg is shown to the person.
type UndoRefused struct{ Msg string }

func (e *UndoRefused) Error() string { return e.Msg }

// Step undoes (undo true) or redoes who's last step: the store writes back the value the field
// had, as a new edit, so history keeps both. A step whose field someone else changed since is
// refused with an *UndoRefused and the workspace as it stands: the later writer wins, and
// History can still restore any revision. Nothing to take back changes nothing.
func (s *Service) Step(ctx context.Context, id string, undo bool, who Author) (Change, error) {
	who = AuthorName(who)
	verb := "Undo"
	if !undo {
		verb = "Redo"
	}
	if who.ID == "" {
		cur, err := s.Get(ctx, id, who)
		return Change{After: cur, Selected: -1}, err
	}
	res, err := s.st.Step(ctx, store.Step{Workspace: id, Author: who.Name, AuthorID: who.ID, Redo: !undo})
	var sc *store.StepConflict
	switch {
	case errors.As(err, &sc):
		msg := fmt.Sprintf("%s refused: someone else changed %s since; their change stands. History can restore any revision.", verb, DescribePath(sc.Path))
		switch {
		case sc.Revision && undo:
			msg = "Undo refused: someone else changed the listing or the task file after your restore; their change stands, and the steps before the restore cannot be undone now. History can restore any revision."
		case sc.Revision:
			msg = "Redo refused: someone else changed the listing or the task file after you undid the restore; their change stands. History can restore any revision."
		case sc.Tasks:
			msg = fmt.Sprintf("%s refused: someone else changed %s since; their change stands. History can restore any revision.", verb, describeTaskPath(sc.Path))
		}
		cur, gerr := s.Get(ctx, id, who)
		if gerr != nil {
			return Change{Result: res}, gerr
		}
		return Change{After: cur, Result: res, Selected: -1}, &UndoRefused{msg}
	case store.KindOf(err) == store.NotFound && err != nil:
		// Nothing to take back (another tab of the same person took it already).
		if _, werr := s.st.Workspace(ctx, id); werr != nil {
			return Change{Result: res}, storeErr(werr)
		}
		cur, gerr := s.Get(ctx, id, who)
		return Change{After: cur, Selected: -1}, gerr
	case err != nil:
		return Change{Result: res}, storeErr(err)
	}
	s.cacheHead(id, res.Seq, res.Listing)
	after, err := s.Get(ctx, id, who)
	return Change{After: after, Result: res, Selected: -1}, err
}

// Restore records revision n's listing (and task file) as a new revision by who, as a step of
// who's undo: Undo brings back what the workspace held before it.
func (s *Service) Restore(ctx context.Context, id string, n int, who Author) (Change, error) {
	who = AuthorName(who)
	res, err := s.st.Restore(ctx, store.Restore{Workspace: id, Number: n, Author: who.Name, AuthorID: who.ID,
		Message: fmt.Sprintf("restored revision %d", n), Undo: true})
	if err != nil {
		return Change{Result: res}, storeErr(err)
	}
	s.cacheHead(id, res.Seq, res.Listing)
	ws, err := s.Get(ctx, id, who)
	return Change{After: ws, Result: res, Selected: -1}, err
}
