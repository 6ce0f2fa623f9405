package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/tool-workbench/workbench/store"
)

const runCols = `id, workspace_id, revision, label, status, author, created_at, updated_at, meta`

func scanRun(row interface{ Scan(...any) error }, extra ...any) (store.Run, error) {
	var r store.Run
	var created, updated int64
	var meta []byte
	err := row.Scan(append([]any{&r.ID, &r.Workspace, &r.Revision, &r.Label, &r.Status, &r.Author, &created, &updated, &meta}, extra...)...)
	r.Created, r.Updated = store.FromMicros(created), store.FromMicros(updated)
	if len(meta) > 0 {
		r.Meta = meta
	}
	return r, err
}

// PutRun implements store.Runs.
func (s *DB) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	const op = "put run"
	if err := firstErr(checkID(op, "workspace ID", r.Workspace),
		store.CheckText(op, "label", r.Label, store.MaxLabel, false, false),
		store.CheckText(op, "status", r.Status, store.MaxStatus, false, false),
		store.CheckText(op, "author", r.Author, store.MaxAuthor, false, false),
		store.CheckJSON(op, "run metadata", r.Meta, store.MaxRunMeta, false),
		store.CheckJSON(op, "run body", r.Body, store.MaxRunBody, false)); err != nil {
		return store.Run{}, err
	}
	if r.ID != "" {
		if err := checkID(op, "run ID", r.ID); err != nil {
			return store.Run{}, err
		}
	}
	t := now(r.Updated)
	r.Updated = t
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		var err error
		if r.ID == "" {
			// The workspace's write lock first, as edits take it: the seal below then never
			// meets an edit extending the same revision.
			if err := s.lockWorkspace(ctx, tx, op, r.Workspace); err != nil {
				return nil, err
			}
			if r.AsOf != nil {
				var seq int64
				if err := tx.QueryRowContext(ctx, s.q(`SELECT seq, head FROM workspaces WHERE id = ?`), r.Workspace).Scan(&seq, &r.Revision); err != nil {
					return nil, err
				}
				if seq != *r.AsOf {
					return nil, store.Errorf(store.Conflict, op, "workspace %s changed (edit %d) since the run read it (at edit %d); read it again and start the run from that", r.Workspace, seq, *r.AsOf)
				}
			}
			r.ID, r.Created = store.NewID(), now(r.Created)
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO runs (id, workspace_id, revision, label, status, author, created_at, updated_at, meta, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				r.ID, r.Workspace, r.Revision, r.Label, r.Status, r.Author, store.Micros(r.Created), store.Micros(t), []byte(r.Meta), []byte(r.Body))
			if err != nil && store.KindOf(s.wrap(op, err)) == store.NotFound {
				return nil, store.Errorf(store.NotFound, op, "workspace %s has no revision %d to run against", r.Workspace, r.Revision)
			}
			if err == nil {
				// The run names this revision: seal it, so that no keystroke extends it into a
				// listing the run never saw.
				_, err = tx.ExecContext(ctx, s.q(`UPDATE revisions SET field = '' WHERE workspace_id = ? AND number = ?`), r.Workspace, r.Revision)
			}
		} else {
			var res sql.Result
			res, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET revision = ?, label = ?, status = ?, author = ?, updated_at = ?, meta = ?, body = ? WHERE id = ? AND workspace_id = ?`),
				r.Revision, r.Label, r.Status, r.Author, store.Micros(t), []byte(r.Meta), []byte(r.Body), r.ID, r.Workspace)
			if err == nil {
				if n, _ := res.RowsAffected(); n == 0 {
					return nil, store.Errorf(store.NotFound, op, "workspace %s has no run %s", r.Workspace, r.ID)
				}
			}
		}
		return []store.Event{{Workspace: r.Workspace, Kind: store.EventRuns, Author: r.Author}}, err
	})
	if err != nil {
		return store.Run{}, err
	}
	return s.Run(ctx, r.Workspace, r.ID)
}

// UpdateRun implements store.Runs.
func (s *DB) UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error) {
	const op = "update run"
	if err := firstErr(checkID(op, "workspace ID", r.Workspace), checkID(op, "run ID", r.ID),
		store.CheckText(op, "label", r.Label, store.MaxLabel, false, false),
		store.CheckText(op, "status", r.Status, store.MaxStatus, false, false),
		store.CheckText(op, "author", r.Author, store.MaxAuthor, false, false),
		store.CheckJSON(op, "run metadata", r.Meta, store.MaxRunMeta, false),
		store.CheckJSON(op, "run body", r.Body, store.MaxRunBody, false)); err != nil {
		return store.Run{}, err
	}
	// The swap's token must move: a write that left Updated as it was would let a second
	// writer holding the same read swap too.
	r.Updated = after(now(r.Updated), now(prev))
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET revision = ?, label = ?, status = ?, author = ?, updated_at = ?, meta = ?, body = ?
			WHERE id = ? AND workspace_id = ? AND updated_at = ?`),
			r.Revision, r.Label, r.Status, r.Author, store.Micros(r.Updated), []byte(r.Meta), []byte(r.Body), r.ID, r.Workspace, store.Micros(now(prev)))
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, s.runMissedSwap(ctx, tx, op, r.Workspace, r.ID)
		}
		return []store.Event{{Workspace: r.Workspace, Kind: store.EventRuns, Author: r.Author}}, nil
	})
	if err != nil {
		return store.Run{}, err
	}
	return r, nil
}

// after is t, or the first microsecond after prev when t is not later.
func after(t, prev time.Time) time.Time {
	if t.After(prev) {
		return t
	}
	return prev.Add(time.Microsecond)
}

// runMissedSwap tells why a compare-and-swap of a run changed nothing: no such run, or another
// save since.
func (s *DB) runMissedSwap(ctx context.Context, tx *sql.Tx, op, ws, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM runs WHERE id = ? AND workspace_id = ?`), id, ws).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Errorf(store.NotFound, op, "workspace %s has no run %s", ws, id)
	}
	if err != nil {
		return err
	}
	return store.Errorf(store.Conflict, op, "run %s was saved by someone else since it was read; read it again", id)
}

// TouchRun implements store.Runs.
func (s *DB) TouchRun(ctx context.Context, ws, id string, prev, at time.Time) error {
	const op = "touch run"
	if err := firstErr(checkID(op, "workspace ID", ws), checkID(op, "run ID", id)); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET updated_at = ? WHERE id = ? AND workspace_id = ? AND updated_at = ?`),
			store.Micros(after(now(at), now(prev))), id, ws, store.Micros(now(prev)))
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, s.runMissedSwap(ctx, tx, op, ws, id)
		}
		return nil, nil
	})
}

// Run implements store.Runs.
func (s *DB) Run(ctx context.Context, ws, id string) (store.Run, error) {
	const op = "get run"
	if err := firstErr(checkID(op, "workspace ID", ws), checkID(op, "run ID", id)); err != nil {
		return store.Run{}, err
	}
	var body []byte
	r, err := scanRun(s.read.QueryRowContext(ctx, s.q(`SELECT `+runCols+`, body FROM runs WHERE id = ? AND workspace_id = ?`), id, ws), &body)
	if errors.Is(err, sql.ErrNoRows) {
		return r, store.Errorf(store.NotFound, op, "workspace %s has no run %s", ws, id)
	}
	if len(body) > 0 {
		r.Body = body
	}
	return r, s.wrap(op, err)
}

// Runs implements store.Runs.
func (s *DB) Runs(ctx context.Context, ws string) ([]store.Run, error) {
	const op = "list runs"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+runCols+` FROM runs WHERE workspace_id = ? ORDER BY created_at DESC, id`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, r)
	}
	return out, s.wrap(op, rows.Err())
}

// DeleteRun implements store.Runs.
func (s *DB) DeleteRun(ctx context.Context, ws, id string) error {
	const op = "delete run"
	if err := firstErr(checkID(op, "workspace ID", ws), checkID(op, "run ID", id)); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM runs WHERE id = ? AND workspace_id = ?`), id, ws)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no run %s", ws, id)
		}
		return []store.Event{{Workspace: ws, Kind: store.EventRuns}}, nil
	})
}
