package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Task files are part of each revision (revisions.tasks names a row of task_bodies), so that
// history compares and restores them with the listing; a task edit is recorded like a listing
// edit (record), with the listing carried over unchanged.

// taskBody reads a stored task file of ws (nil for none).
func (s *DB) taskBody(ctx context.Context, q querier, ws string, ref taskRef) ([]byte, error) {
	if !ref.ok {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, s.q(`SELECT body FROM task_bodies WHERE workspace_id = ? AND id = ?`), ws, ref.id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, store.Errorf(store.Internal, "read task file", "workspace %s lacks its task file %d; the database needs repair", ws, ref.id)
	}
	var b []byte
	if err := rows.Scan(&b); err != nil {
		return nil, err
	}
	return b, rows.Err()
}

// Tasks implements store.Tasks.
func (s *DB) Tasks(ctx context.Context, ws string) (store.TaskFile, error) {
	const op = "get task file"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return store.TaskFile{}, err
	}
	t := store.TaskFile{Workspace: ws}
	var id sql.NullInt64
	var body []byte
	err := s.read.QueryRowContext(ctx, s.q(`SELECT r.tasks, b.body FROM workspaces w
		JOIN revisions r ON r.workspace_id = w.id AND r.number = w.head
		LEFT JOIN task_bodies b ON b.workspace_id = r.workspace_id AND b.id = r.tasks
		WHERE w.id = ?`), ws).Scan(&id, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return t, notFoundWorkspace(op, ws)
	}
	if err != nil {
		return t, s.wrap(op, err)
	}
	if !id.Valid {
		return t, store.Errorf(store.NotFound, op, "workspace %s has no task file yet", ws)
	}
	t.Body, t.Seq = body, id.Int64
	return t, nil
}

// PutTasks implements store.Tasks.
func (s *DB) PutTasks(ctx context.Context, te store.TaskEdit) (store.EditResult, error) {
	const op = "put task file"
	if err := firstErr(checkEditor(op, te.Workspace, te.Author, te.AuthorID, te.Message),
		store.CheckText(op, "field", te.Field, store.MaxField, false, false),
		store.CheckJSON(op, "task file", te.Body, store.MaxTasks, true),
		checkUndoable(op, te.Undo)); err != nil {
		return store.EditResult{}, err
	}
	te.Now = now(te.Now)
	undo := te.Undo // Path: one field of one task ("/3/task"); "" takes back the whole file
	return s.record(ctx, change{op: op, ws: te.Workspace, author: te.Author, authorID: te.AuthorID, message: te.Message, at: te.Now,
		kind: store.KindTasks, field: te.Field, restored: -1, undo: undo,
		coalesce: func(head store.Revision) bool { return store.CoalescesTasks(head, te) },
		next: func(_ *sql.Tx, cur state) (outcome, error) {
			if te.ShapeBase != nil && cur.shape > *te.ShapeBase {
				return outcome{}, &store.Error{Kind: store.Conflict, Op: op, Err: store.ErrTasksReshaped,
					Msg: fmt.Sprintf("the task file's shape changed (at edit %d, after %d) since the edit was made; its task indexes may name other tasks now", cur.shape, *te.ShapeBase)}
			}
			if te.Base != nil {
				have := int64(-1)
				if cur.tasks.ok {
					have = cur.tasks.id
				}
				if have != *te.Base {
					return outcome{}, store.Errorf(store.Conflict, op, "the task file changed (version %d, not %d) since the edit was made; read it again", have, *te.Base)
				}
			}
			return outcome{l: cur.l, refs: cur.refs, tasks: &taskChange{body: te.Body}}, nil
		}})
}

// taskField is the JSON of the value at path within a task file (nil: absent, or no file).
func taskField(body []byte, path string) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	root, err := listing.ParseJSON(body)
	if err != nil {
		return nil, fmt.Errorf("%w: a stored task file: %v", errCorrupt, err)
	}
	if v := listing.Resolve(root, path); v != nil {
		return listing.Marshal(v, ""), nil
	}
	return nil, nil
}
