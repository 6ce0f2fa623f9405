package workspace

import (
	"context"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// applyMade records an edit whose ops e.Make makes from the head under the store's lock, and
// returns e with the tools it renamed, if any, as a task change to record next (Apply's
// applyTasks), made again from a fresher task file if someone's task edit lands first.
func (s *Service) applyMade(ctx context.Context, e Edit, who Author, ch *Change) (Edit, error) {
	var renames []lint.Rename
	se := store.Edit{Workspace: ch.Before.ID, Author: who.Name, AuthorID: who.ID, Message: e.Message, Alone: e.Alone,
		Undo: &store.Undoable{Key: e.Key}, // its path: the scope of the ops made
		Make: func(head *listing.Listing) ([]listing.Op, error) {
			ops, rn, err := e.Make(head)
			ch.Ops, renames = ops, rn
			return ops, err
		}}
	if err := s.appendEdit(ctx, se, ch); err != nil {
		return e, err
	}
	if ch.Result.Seq != 0 && len(renames) > 0 {
		e.Task, e.ShapeBase = &TaskChange{Op: "rename", Renames: renames}, -1
	}
	return e, nil
}
