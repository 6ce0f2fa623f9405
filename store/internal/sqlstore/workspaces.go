package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tool-workbench/workbench/store"
)

const wsCols = `id, title, created_at, updated_at, head, seq, forked_from, tasks_shape, tools_shape, params_shapes`

func scanWorkspace(row interface{ Scan(...any) error }) (store.Workspace, error) {
	var w store.Workspace
	var created, updated int64
	var forked sql.NullString
	var params string
	err := row.Scan(&w.ID, &w.Title, &created, &updated, &w.Head, &w.Seq, &forked, &w.TasksShape, &w.ToolsShape, &params)
	w.Created, w.Updated, w.ForkedFrom = store.FromMicros(created), store.FromMicros(updated), forked.String
	if err == nil && params != "{}" { // the common case: no parameter moved since the tools did
		if err = json.Unmarshal([]byte(params), &w.ParamsShapes); err != nil {
			err = fmt.Errorf("workspace %s: parameters' shapes %q: %w", w.ID, params, err)
		}
		if len(w.ParamsShapes) == 0 {
			w.ParamsShapes = nil // none, as a new workspace's
		}
	}
	return w, err
}

// paramsShapesJSON is how workspaces.params_shapes keeps Workspace.ParamsShapes.
func paramsShapesJSON(m map[int]int64) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // int keys and values: cannot fail
	return string(b)
}

// CreateWorkspace implements store.Workspaces.
func (s *DB) CreateWorkspace(ctx context.Context, nw store.NewWorkspace) (store.Workspace, error) {
	const op = "create workspace"
	if nw.Listing == nil {
		return store.Workspace{}, store.Errorf(store.Invalid, op, "no listing given; a workspace starts from a listing")
	}
	if err := firstErr(
		store.CheckText(op, "title", nw.Title, store.MaxTitle, false, false),
		store.CheckText(op, "author", nw.Author, store.MaxAuthor, false, false),
		store.CheckText(op, "message", nw.Message, store.MaxMessage, false, true),
		store.CheckJSON(op, "task file", nw.Tasks, store.MaxTasks, false),
	); err != nil {
		return store.Workspace{}, err
	}
	t := now(nw.Now)
	w := store.Workspace{ID: store.NewID(), Title: nw.Title, Created: t, Updated: t}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		sn, err := prepareSnapshot(op, nw.Listing, nil)
		if err != nil {
			return nil, err
		}
		if err := s.storeTools(ctx, tx, sn, nil); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO workspaces (id, title, created_at, updated_at, head, seq) VALUES (?, ?, ?, ?, 0, 0)`),
			w.ID, w.Title, store.Micros(t), store.Micros(t)); err != nil {
			return nil, err
		}
		var tasks any
		if len(nw.Tasks) > 0 {
			tasks = 0
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO task_bodies (workspace_id, id, body, first_number) VALUES (?, 0, ?, 0)`),
				w.ID, []byte(nw.Tasks)); err != nil {
				return nil, err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO revisions (workspace_id, number, parent, kind, author, message, field, created_at, updated_at, edit_count, first_seq, last_seq, envelope, tools, tasks)
			VALUES (?, 0, NULL, 'import', ?, ?, '', ?, ?, 0, 0, 0, ?, ?, ?)`),
			w.ID, nw.Author, nw.Message, store.Micros(t), store.Micros(t), sn.envelope, sn.list, tasks); err != nil {
			return nil, err
		}
		if err := s.addRefs(ctx, tx, w.ID, 0, hashSet(sn.refs)); err != nil {
			return nil, err
		}
		return nil, nil
	})
	if err != nil {
		return store.Workspace{}, err
	}
	return w, nil
}

// Workspace implements store.Workspaces.
func (s *DB) Workspace(ctx context.Context, id string) (store.Workspace, error) {
	const op = "get workspace"
	if err := checkID(op, "workspace ID", id); err != nil {
		return store.Workspace{}, err
	}
	w, err := scanWorkspace(s.read.QueryRowContext(ctx, s.q(`SELECT `+wsCols+` FROM workspaces WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return w, notFoundWorkspace(op, id)
	}
	return w, s.wrap(op, err)
}

func notFoundWorkspace(op, id string) error {
	return store.Errorf(store.NotFound, op, "no workspace %s", id)
}

// Workspaces implements store.Workspaces.
func (s *DB) Workspaces(ctx context.Context, limit int) ([]store.Workspace, error) {
	const op = "list workspaces"
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+wsCols+` FROM workspaces ORDER BY updated_at DESC, id LIMIT ?`), limit)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Workspace{}
	for rows.Next() {
		w, err := scanWorkspace(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, w)
	}
	return out, s.wrap(op, rows.Err())
}

// SetTitle implements store.Workspaces.
func (s *DB) SetTitle(ctx context.Context, id, title string, at time.Time) (store.Workspace, error) {
	const op = "rename workspace"
	if err := firstErr(checkID(op, "workspace ID", id), store.CheckText(op, "title", title, store.MaxTitle, false, false)); err != nil {
		return store.Workspace{}, err
	}
	t := now(at)
	var w store.Workspace
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE workspaces SET title = ?, updated_at = ? WHERE id = ?`), title, store.Micros(t), id)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, notFoundWorkspace(op, id)
		}
		w, err = scanWorkspace(tx.QueryRowContext(ctx, s.q(`SELECT `+wsCols+` FROM workspaces WHERE id = ?`), id))
		return []store.Event{{Workspace: id, Kind: store.EventTitle}}, err
	})
	return w, err
}

// DeleteWorkspace implements store.Workspaces.
func (s *DB) DeleteWorkspace(ctx context.Context, id string) error {
	const op = "delete workspace"
	if err := checkID(op, "workspace ID", id); err != nil {
		return err
	}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		// Lock the workspace first, so that the tools its revisions list are all of them.
		if err := s.lockWorkspace(ctx, tx, op, id); err != nil {
			return nil, err
		}
		listed, err := s.listedTools(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM workspaces WHERE id = ?`), id)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, notFoundWorkspace(op, id)
		}
		// The workspace's tool references are gone with it (ON DELETE CASCADE); the tools no
		// other workspace lists go too.
		if len(listed) > 0 {
			if err := s.lockTools(ctx, tx, nil, listed); err != nil {
				return nil, err
			}
			if err := s.pruneTools(ctx, tx, listed); err != nil {
				return nil, err
			}
		}
		return []store.Event{{Workspace: id, Kind: store.EventDeleted}}, nil
	})
	if err == nil {
		s.cache.dropWorkspace(id)
	}
	return err
}

// ForkWorkspace implements store.Workspaces.
func (s *DB) ForkWorkspace(ctx context.Context, f store.Fork) (store.Workspace, error) {
	const op = "fork workspace"
	if err := firstErr(checkID(op, "workspace ID", f.From),
		store.CheckText(op, "title", f.Title, store.MaxTitle, false, false),
		store.CheckText(op, "author", f.Author, store.MaxAuthor, false, false)); err != nil {
		return store.Workspace{}, err
	}
	t := now(f.Now)
	id := store.NewID()
	var w store.Workspace
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		// Lock the source so that its history is copied as of one moment.
		src, err := scanWorkspace(tx.QueryRowContext(ctx, s.q(`SELECT `+wsCols+` FROM workspaces WHERE id = ?`+s.forUpdate()), f.From))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, notFoundWorkspace(op, f.From)
		}
		if err != nil {
			return nil, err
		}
		title := f.Title
		if title == "" {
			title = src.Title
		}
		w = store.Workspace{ID: id, Title: title, Created: t, Updated: t, Head: src.Head, Seq: src.Seq, ForkedFrom: src.ID, TasksShape: src.TasksShape,
			ToolsShape: src.ToolsShape, ParamsShapes: src.ParamsShapes}
		stmts := []struct {
			q    string
			args []any
		}{
			{`INSERT INTO workspaces (id, title, created_at, updated_at, head, seq, forked_from, tasks_shape, tools_shape, params_shapes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				[]any{id, title, store.Micros(t), store.Micros(t), src.Head, src.Seq, src.ID, src.TasksShape, src.ToolsShape, paramsShapesJSON(src.ParamsShapes)}},
			{`INSERT INTO task_bodies (workspace_id, id, body, first_number)
				SELECT ?, id, body, first_number FROM task_bodies WHERE workspace_id = ?`, []any{id, src.ID}},
			{`INSERT INTO revisions (workspace_id, number, parent, kind, author, author_id, message, name, field, created_at, updated_at, edit_count, first_seq, last_seq, restored_from, envelope, tools, tasks)
				SELECT ?, number, parent, kind, author, author_id, message, name, field, created_at, updated_at, edit_count, first_seq, last_seq, restored_from, envelope, tools, tasks
				FROM revisions WHERE workspace_id = ?`, []any{id, src.ID}},
			// The fork lists the source's tools: they are stored, and stay so while the source's
			// revisions (locked with it) list them.
			{`INSERT INTO workspace_tools (workspace_id, hash, first_number)
				SELECT ?, hash, first_number FROM workspace_tools WHERE workspace_id = ?`, []any{id, src.ID}},
			{`INSERT INTO edits (workspace_id, seq, revision, author, author_id, at, ops, tasks)
				SELECT ?, seq, revision, author, author_id, at, ops, tasks FROM edits WHERE workspace_id = ?`, []any{id, src.ID}},
			// Undo stays with the people who made the steps, in the source.
			{`INSERT INTO workspace_meta (workspace_id, key, value, updated_at)
				SELECT ?, key, value, updated_at FROM workspace_meta WHERE workspace_id = ?`, []any{id, src.ID}},
		}
		for _, st := range stmts {
			if _, err := tx.ExecContext(ctx, s.q(st.q), st.args...); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return w, err
}
