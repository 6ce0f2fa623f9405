package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

func checkEditor(op, ws, author, authorID, message string) error {
	return firstErr(checkID(op, "workspace ID", ws),
		store.CheckText(op, "author", author, store.MaxAuthor, false, false),
		store.CheckText(op, "author ID", authorID, store.MaxAuthor, false, false),
		store.CheckText(op, "message", message, store.MaxMessage, false, true))
}

// AppendEdit implements store.History.
func (s *DB) AppendEdit(ctx context.Context, e store.Edit) (store.EditResult, error) {
	const op = "append edit"
	if err := checkEditor(op, e.Workspace, e.Author, e.AuthorID, e.Message); err != nil {
		return store.EditResult{}, err
	}
	if len(e.Ops) == 0 && e.Make == nil {
		return store.EditResult{}, store.Errorf(store.Invalid, op, "the edit has no ops; send at least one set, remove, insert or move")
	}
	if len(e.Ops) > store.MaxOpsPerEdit {
		return store.EditResult{}, store.Errorf(store.Invalid, op, "the edit has %d ops; the limit is %d, so split it", len(e.Ops), store.MaxOpsPerEdit)
	}
	if err := checkUndoable(op, e.Undo); err != nil {
		return store.EditResult{}, err
	}
	e.Now = now(e.Now)
	if e.Undo != nil && e.Make != nil && e.Undo.Path == "" {
		u := *e.Undo // its path is the scope of the ops Make makes
		e.Undo = &u
	}
	return s.record(ctx, change{op: op, ws: e.Workspace, author: e.Author, authorID: e.AuthorID, message: e.Message, at: e.Now,
		kind: store.KindEdit, restored: -1, undo: e.Undo, toolsBase: e.ToolsBase, paramsBase: e.ParamsBase, paramsTool: e.ParamsTool, alone: e.Alone,
		// Coalescing reads the ops, which Make fills in first (next runs before it).
		coalesce: func(head store.Revision) bool { return store.Coalesces(head, e) },
		next: func(_ *sql.Tx, cur state) (outcome, error) {
			if e.Make != nil {
				ops, err := e.Make(cur.l)
				if err != nil {
					return outcome{}, &store.Error{Kind: store.Invalid, Op: op, Msg: err.Error(), Err: err}
				}
				if len(ops) == 0 {
					return outcome{}, nil
				}
				if len(ops) > store.MaxOpsPerEdit {
					return outcome{}, store.Errorf(store.Invalid, op, "the edit has %d ops; the limit is %d, so split it", len(ops), store.MaxOpsPerEdit)
				}
				e.Ops = ops
				if e.Undo != nil && e.Undo.Path == "" {
					e.Undo.Path = store.UndoScope(ops)
				}
			}
			l, err := cur.l.ApplyAll(e.Ops)
			if err != nil {
				return outcome{}, &store.Error{Kind: store.Invalid, Op: op, Msg: "the edit does not apply to the current listing", Err: err}
			}
			return outcome{l: l, ops: e.Ops}, nil
		}})
}

// Commit implements store.History.
func (s *DB) Commit(ctx context.Context, c store.Commit) (store.EditResult, error) {
	const op = "commit listing"
	if err := checkEditor(op, c.Workspace, c.Author, c.AuthorID, c.Message); err != nil {
		return store.EditResult{}, err
	}
	if c.Listing == nil {
		return store.EditResult{}, store.Errorf(store.Invalid, op, "no listing given")
	}
	return s.record(ctx, change{op: op, ws: c.Workspace, author: c.Author, authorID: c.AuthorID, message: c.Message, at: c.Now,
		kind: store.KindReplace, restored: -1,
		next: func(*sql.Tx, state) (outcome, error) {
			return outcome{l: c.Listing, ops: wholeListing(c.Listing)}, nil
		}})
}

// Restore implements store.History.
func (s *DB) Restore(ctx context.Context, r store.Restore) (store.EditResult, error) {
	const op = "restore revision"
	if err := checkEditor(op, r.Workspace, r.Author, r.AuthorID, r.Message); err != nil {
		return store.EditResult{}, err
	}
	if r.Number < 0 {
		return store.EditResult{}, store.Errorf(store.Invalid, op, "revision numbers start at 0 (the baseline); got %d", r.Number)
	}
	msg := r.Message
	if msg == "" {
		msg = fmt.Sprintf("restored revision %d", r.Number)
	}
	var undo *store.Undoable
	if r.Undo {
		undo = &store.Undoable{} // a step of the whole revision (pushStep)
	}
	return s.record(ctx, change{op: op, ws: r.Workspace, author: r.Author, authorID: r.AuthorID, message: msg, at: r.Now,
		kind: store.KindRestore, restored: r.Number, undo: undo,
		next: func(tx *sql.Tx, cur state) (outcome, error) {
			var env, list []byte
			var tasks sql.NullInt64
			err := tx.QueryRowContext(ctx, s.q(`SELECT envelope, tools, tasks FROM revisions WHERE workspace_id = ? AND number = ?`), r.Workspace, r.Number).Scan(&env, &list, &tasks)
			if errors.Is(err, sql.ErrNoRows) {
				return outcome{}, store.Errorf(store.NotFound, op, "workspace %s has no revision %d to restore", r.Workspace, r.Number)
			}
			if err != nil {
				return outcome{}, err
			}
			l, refs, err := s.loadSnapshot(ctx, tx, r.Workspace, r.Number, env, list)
			if err != nil {
				return outcome{}, err
			}
			// A revision is its listing and its task file: restoring brings back both.
			ref := taskRef{ok: tasks.Valid, id: tasks.Int64}
			return outcome{l: l, refs: refs, ops: wholeListing(l), tasks: &taskChange{reuse: &ref}}, nil
		}})
}

// wholeListing is the op recorded for a change that replaces the whole listing: one op that
// sets every tool.
func wholeListing(l *listing.Listing) []listing.Op {
	return []listing.Op{{Kind: listing.OpSet, Path: "/tools", Value: listing.NewArray(l.Tools...)}}
}
