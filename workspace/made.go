package workspace

import (
	"context"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// applyMade records an edit whose ops e.Make makes from the head under the store's lock, and
// returns e with the task file it made, if any, to record next (Apply's applyTasks).
func (s *Service) applyMade(ctx context.Context, e Edit, who Author, ch *Change) (Edit, error) {
	var tasks []selection.Task
	se := store.Edit{Workspace: ch.Before.ID, Author: who.Name, AuthorID: who.ID, Message: e.Message, Alone: e.Alone,
		Undo: &store.Undoable{Key: e.Key}, // its path: the scope of the ops made
		Make: func(head *listing.Listing) ([]listing.Op, error) {
			ops, ts, err := e.Make(head)
			ch.Ops, tasks = ops, ts
			return ops, err
		}}
	if err := s.appendEdit(ctx, se, ch); err != nil {
		return e, err
	}
	if ch.Result.Seq != 0 && tasks != nil {
		e.Tasks, e.SetTasks = tasks, true
	}
	return e, nil
}
