package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tool-workbench/workbench/store"
)

const revCols = `workspace_id, number, parent, kind, author, author_id, message, name, field, created_at, updated_at, edit_count, first_seq, last_seq, restored_from, tasks`

func scanRevision(row interface{ Scan(...any) error }, extra ...any) (store.Revision, error) {
	var r store.Revision
	var parent, restored, tasks sql.NullInt64
	var name sql.NullString
	var created, updated int64
	var kind string
	dest := append([]any{&r.Workspace, &r.Number, &parent, &kind, &r.Author, &r.AuthorID, &r.Message, &name, &r.Field,
		&created, &updated, &r.Edits, &r.FirstSeq, &r.LastSeq, &restored, &tasks}, extra...)
	err := row.Scan(dest...)
	r.HasTasks, r.TasksSeq = tasks.Valid, tasks.Int64
	r.Kind, r.Name = store.RevisionKind(kind), name.String
	r.Created, r.Updated = store.FromMicros(created), store.FromMicros(updated)
	r.Parent, r.RestoredFrom = -1, -1
	if parent.Valid {
		r.Parent = int(parent.Int64)
	}
	if restored.Valid {
		r.RestoredFrom = int(restored.Int64)
	}
	return r, err
}

// pageBounds is the range a page of revisions reads: numbers below before, at most limit of them.
func pageBounds(page store.RevisionPage) (before, limit int, err error) {
	limit = page.Limit
	switch {
	case limit < 0:
		return 0, 0, fmt.Errorf("a page of revisions holds 0 (the default, %d) to %d revisions; got %d",
			store.DefaultRevisionLimit, store.MaxRevisionLimit, limit)
	case limit == 0:
		limit = store.DefaultRevisionLimit
	case limit > store.MaxRevisionLimit:
		limit = store.MaxRevisionLimit
	}
	before = page.Before
	if before <= 0 || before > math.MaxInt32 {
		before = math.MaxInt32 // above any revision number (an INTEGER column, which PostgreSQL checks)
	}
	return before, limit, nil
}

// Revisions implements store.History.
func (s *DB) Revisions(ctx context.Context, ws string, page store.RevisionPage) ([]store.Revision, error) {
	const op = "list revisions"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	before, limit, err := pageBounds(page)
	if err != nil {
		return nil, &store.Error{Kind: store.Invalid, Op: op, Msg: err.Error()}
	}
	// A range scan of the primary key (workspace_id, number), backwards: it reads the page, not
	// the workspace's whole history.
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+revCols+` FROM revisions WHERE workspace_id = ? AND number < ? ORDER BY number DESC LIMIT ?`), ws, before, limit)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	var out []store.Revision
	for rows.Next() {
		r, err := scanRevision(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	if len(out) == 0 { // every workspace has its baseline, which every page from Before >= 1 reaches
		return nil, notFoundWorkspace(op, ws)
	}
	return out, nil
}

// Revision implements store.History.
func (s *DB) Revision(ctx context.Context, ws string, n int) (store.Revision, error) {
	const op = "get revision"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return store.Revision{}, err
	}
	if n < -1 {
		return store.Revision{}, store.Errorf(store.Invalid, op, "revision numbers start at 0 (the baseline), and -1 means the head; got %d", n)
	}
	// One read transaction, so that the revision and its edits are of one moment.
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return store.Revision{}, s.wrap(op, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	if n == -1 {
		if err := tx.QueryRowContext(ctx, s.q(`SELECT head FROM workspaces WHERE id = ?`), ws).Scan(&n); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return store.Revision{}, notFoundWorkspace(op, ws)
			}
			return store.Revision{}, s.wrap(op, err)
		}
	}
	r, err := scanRevision(tx.QueryRowContext(ctx, s.q(`SELECT `+revCols+` FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n))
	if errors.Is(err, sql.ErrNoRows) {
		// Asked in the same transaction: a second connection could wait forever on a full pool.
		var one int
		if werr := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM workspaces WHERE id = ?`), ws).Scan(&one); errors.Is(werr, sql.ErrNoRows) {
			return store.Revision{}, notFoundWorkspace(op, ws)
		}
		return store.Revision{}, store.Errorf(store.NotFound, op, "workspace %s has no revision %d", ws, n)
	}
	if err != nil {
		return store.Revision{}, s.wrap(op, err)
	}
	key := revKey{ws, n, r.LastSeq}
	if r.Listing, _ = s.cache.get(key); r.Listing == nil {
		var env, list []byte
		if err := tx.QueryRowContext(ctx, s.q(`SELECT envelope, tools FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n).Scan(&env, &list); err != nil {
			return store.Revision{}, s.wrap(op, err)
		}
		var refs []toolRef
		if r.Listing, refs, err = s.loadSnapshot(ctx, tx, ws, n, env, list); err != nil {
			return store.Revision{}, s.wrap(op, err)
		}
		s.cache.put(key, r.Listing, refs, sizeOf(env, refs))
	}
	if r.Tasks, err = s.taskBody(ctx, tx, ws, tasksOf(r)); err != nil {
		return store.Revision{}, s.wrap(op, err)
	}
	edits, err := s.edits(ctx, tx, ws, `revision = ?`, n, 0)
	if err != nil {
		return store.Revision{}, s.wrap(op, err)
	}
	for _, e := range edits {
		r.Ops = append(r.Ops, e.Ops...)
	}
	return r, nil
}

// NameRevision implements store.History.
func (s *DB) NameRevision(ctx context.Context, ws string, n int, name string) (store.Revision, error) {
	const op = "name revision"
	if err := firstErr(checkID(op, "workspace ID", ws), store.CheckText(op, "name", name, store.MaxName, false, false)); err != nil {
		return store.Revision{}, err
	}
	var nameArg any
	if name = strings.TrimSpace(name); name != "" {
		nameArg = name
	}
	var r store.Revision
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		// The workspace's write lock first, as every edit takes it: an edit about to extend the
		// head then sees the name (a named revision is never extended).
		if err := s.lockWorkspace(ctx, tx, op, ws); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE revisions SET name = ? WHERE workspace_id = ? AND number = ?`), nameArg, ws, n)
		if err != nil {
			if store.KindOf(s.wrap(op, err)) == store.Conflict {
				return nil, store.Errorf(store.Conflict, op, "another revision of this workspace is already named %q; pick another name", name)
			}
			return nil, err
		}
		if c, _ := res.RowsAffected(); c == 0 {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no revision %d", ws, n)
		}
		r, err = scanRevision(tx.QueryRowContext(ctx, s.q(`SELECT `+revCols+` FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n))
		return []store.Event{{Workspace: ws, Kind: store.EventRevision, Revision: n}}, err
	})
	return r, err
}

// Edits implements store.History.
func (s *DB) Edits(ctx context.Context, ws string, after int64, limit int) ([]store.EditRecord, error) {
	const op = "list edits"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 10000 {
		limit = 10000
	}
	out, err := s.edits(ctx, s.read, ws, `seq > ?`, after, limit)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	if len(out) == 0 { // nothing new, or no such workspace: tell the two apart
		if _, err := s.Workspace(ctx, ws); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *DB) edits(ctx context.Context, q querier, ws, cond string, arg any, limit int) ([]store.EditRecord, error) {
	query := `SELECT seq, revision, author, author_id, at, ops, tasks FROM edits WHERE workspace_id = ? AND ` + cond + ` ORDER BY seq`
	args := []any{ws, arg}
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := q.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []store.EditRecord{}
	for rows.Next() {
		e := store.EditRecord{Workspace: ws}
		var at int64
		var ops []byte
		var tasks int
		if err := rows.Scan(&e.Seq, &e.Revision, &e.Author, &e.AuthorID, &at, &ops, &tasks); err != nil {
			return nil, err
		}
		e.Tasks = tasks != 0
		e.At = store.FromMicros(at)
		if err := json.Unmarshal(ops, &e.Ops); err != nil {
			return nil, fmt.Errorf("stored ops of edit %d are unreadable: %w", e.Seq, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
