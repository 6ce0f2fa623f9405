// Package sqlstore is the store.Store that store/sqlite and store/postgres share: the same
// tables and the same statements over database/sql, with the differences between the two
// databases (placeholders, row locks, error codes, notifications) in a Dialect.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Dialect is what differs between the databases.
type Dialect struct {
	// Postgres selects $N placeholders and row locks (FOR UPDATE); otherwise the statements are
	// SQLite's, whose write transactions (BEGIN IMMEDIATE) already exclude every other writer.
	Postgres bool
	// Classify maps a driver error to a store kind and a message, or reports false.
	Classify func(err error) (store.Kind, string, bool)
	// Notify, when set, sends ev to every process on the database inside tx (PostgreSQL's
	// NOTIFY, delivered on commit). When nil, events are published to this process's Broker
	// after commit.
	Notify func(ctx context.Context, tx *sql.Tx, ev store.Event) error
	// Announce, when set, sends ev to every process on the database at once; when nil, ev is
	// published to this process's Broker.
	Announce func(ctx context.Context, ev store.Event) error
}

// DB implements store.Store over database/sql.
type DB struct {
	write  *sql.DB // transactions that write
	read   *sql.DB // queries (may be the same as write)
	d      Dialect
	Broker *Broker
	cache  listingCache
	closer func() error
}

// New returns a store over the given handles; closer releases them.
func New(write, read *sql.DB, d Dialect, closer func() error) *DB {
	return &DB{write: write, read: read, d: d, Broker: NewBroker(), closer: closer}
}

// Close releases the database.
func (s *DB) Close() error { return s.closer() }

// q rewrites ? placeholders for PostgreSQL. The statements are this package's own constants,
// never user text, and hold no ? inside string literals.
func (s *DB) q(query string) string { return rebind(s.d.Postgres, query) }

// RebindFor returns the placeholder rewriting of a dialect.
func RebindFor(postgres bool) func(string) string {
	return func(q string) string { return rebind(postgres, q) }
}

func rebind(postgres bool, query string) string {
	if !postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// lockWorkspace takes a workspace's write lock for the rest of tx, as every edit does first
// (PostgreSQL's row lock; SQLite's write transaction holds it already); NotFound if none.
func (s *DB) lockWorkspace(ctx context.Context, tx *sql.Tx, op, ws string) error {
	var one int
	err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM workspaces WHERE id = ?`+s.forUpdate()), ws).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFoundWorkspace(op, ws)
	}
	return err
}

// forUpdate is the row-lock suffix of a SELECT in a write transaction.
func (s *DB) forUpdate() string {
	if s.d.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// wrap turns a driver error into a *store.Error of the right kind.
func (s *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *store.Error
	if errors.As(err, &se) {
		if se.Op == "" {
			se.Op = op
		}
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &store.Error{Kind: store.Internal, Op: op, Err: err}
	}
	if s.d.Classify != nil {
		if k, msg, ok := s.d.Classify(err); ok {
			return &store.Error{Kind: k, Op: op, Msg: msg, Err: err}
		}
	}
	return &store.Error{Kind: store.Internal, Op: op, Err: err}
}

// inTx runs fn in a write transaction and, once it committed, publishes the events fn returned
// (when the dialect has no in-transaction notifications).
func (s *DB) inTx(ctx context.Context, op string, fn func(tx *sql.Tx) ([]store.Event, error)) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(op, fmt.Errorf("begin: %w", err))
	}
	evs, err := fn(tx)
	if err == nil && s.d.Notify != nil {
		for _, ev := range evs {
			if err = s.d.Notify(ctx, tx, ev); err != nil {
				err = fmt.Errorf("notify: %w", err)
				break
			}
		}
	}
	if err != nil {
		_ = tx.Rollback() // the transaction failed already; its error is the one to report
		return s.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(op, fmt.Errorf("commit: %w", err))
	}
	if s.d.Notify == nil {
		for _, ev := range evs {
			s.Broker.Publish(ev)
		}
	}
	return nil
}

// Subscribe implements store.Store.
func (s *DB) Subscribe(ctx context.Context, workspace string) (<-chan store.Event, error) {
	if _, err := store.ParseID("workspace ID", workspace); err != nil {
		return nil, err
	}
	return s.Broker.Subscribe(ctx, workspace), nil
}

// Announce implements store.Store.
func (s *DB) Announce(ctx context.Context, ev store.Event) error {
	const op = "announce"
	if err := firstErr(checkID(op, "workspace ID", ev.Workspace),
		store.CheckText(op, "author", ev.Author, store.MaxAuthor, false, false),
		store.CheckText(op, "author ID", ev.AuthorID, store.MaxAuthor, false, false)); err != nil {
		return err
	}
	if ev.Kind != store.EventPresence {
		return store.Errorf(store.Invalid, op, "only presence events are announced; %q events come from the changes themselves", ev.Kind)
	}
	if len(ev.Field) > store.MaxField || len(ev.Detail) > store.MaxDetail {
		return store.Errorf(store.Invalid, op, "the field (%d bytes) or detail (%d bytes) is over the limit of %d", len(ev.Field), len(ev.Detail), store.MaxDetail)
	}
	if s.d.Announce == nil {
		s.Broker.Publish(ev)
		return nil
	}
	return s.wrap(op, s.d.Announce(ctx, ev))
}

func now(t time.Time) time.Time {
	if t.IsZero() {
		return store.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

func checkID(op, what, id string) error {
	if _, err := store.ParseID(what, id); err != nil {
		err.(*store.Error).Op = op
		return err
	}
	return nil
}

// ---- workspaces

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

// CreateWorkspace implements store.Store.
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

// Workspace implements store.Store.
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

// Workspaces implements store.Store.
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

// SetTitle implements store.Store.
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

// DeleteWorkspace implements store.Store.
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

// ForkWorkspace implements store.Store.
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

// ---- revisions and edits

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

// parseSnapshot reads a stored listing back.
func parseSnapshot(b []byte, ws string, n int) (*listing.Listing, error) {
	l, err := listing.Parse(b, listing.Options{Name: fmt.Sprintf("revision %d of workspace %s", n, ws)})
	if err != nil {
		return nil, fmt.Errorf("stored listing is unreadable: %w", err)
	}
	return l, nil
}

// checkSnapshot refuses a listing that could be stored but not read back: one over the limits
// listing.Parse applies by default (a caller may have parsed it with raised limits).
func checkSnapshot(op string, l *listing.Listing, size int) error {
	lim := listing.DefaultLimits
	if size > lim.Bytes {
		return store.Errorf(store.Invalid, op, "the listing would be %d bytes; a workspace holds listings of up to %d bytes", size, lim.Bytes)
	}
	if len(l.Tools) > lim.Tools {
		return store.Errorf(store.Invalid, op, "the listing would have %d tools; a workspace holds up to %d", len(l.Tools), lim.Tools)
	}
	return nil
}

// lockedHead reads a workspace's head under the write lock, its listing from the cache when the
// cache holds it as of the same last edit. (The head holds the workspace's latest edit, so its
// last edit is the workspace's Seq.)
func (s *DB) lockedHead(ctx context.Context, tx *sql.Tx, op, ws string) (store.Workspace, store.Revision, *listing.Listing, []toolRef, error) {
	w, err := scanWorkspace(tx.QueryRowContext(ctx, s.q(`SELECT `+wsCols+` FROM workspaces WHERE id = ?`+s.forUpdate()), ws))
	if errors.Is(err, sql.ErrNoRows) {
		return w, store.Revision{}, nil, nil, notFoundWorkspace(op, ws)
	}
	if err != nil {
		return w, store.Revision{}, nil, nil, err
	}
	l, refs := s.cache.get(revKey{ws, w.Head, w.Seq})
	var head store.Revision
	if l != nil {
		head, err = scanRevision(tx.QueryRowContext(ctx, s.q(`SELECT `+revCols+` FROM revisions WHERE workspace_id = ? AND number = ?`), ws, w.Head))
	} else {
		var env, list []byte
		head, err = scanRevision(tx.QueryRowContext(ctx, s.q(`SELECT `+revCols+`, envelope, tools FROM revisions WHERE workspace_id = ? AND number = ?`), ws, w.Head), &env, &list)
		if err == nil {
			if l, refs, err = s.loadSnapshot(ctx, tx, ws, w.Head, env, list); err == nil {
				s.cache.put(revKey{ws, w.Head, w.Seq}, l, refs, sizeOf(env, refs))
			}
		}
	}
	if err != nil {
		return w, head, nil, nil, fmt.Errorf("read head revision %d: %w", w.Head, err)
	}
	return w, head, l, refs, nil
}

// sizeOf is the size of a stored listing's JSON.
func sizeOf(envelope []byte, refs []toolRef) int {
	n := len(envelope)
	for _, r := range refs {
		n += r.n
	}
	return n
}

// change is one accepted edit about to be recorded.
type change struct {
	op       string
	ws       string
	author   string
	authorID string
	message  string
	at       time.Time
	kind     store.RevisionKind
	// field is what a KindTasks edit sets (TaskEdit.Field); a KindEdit's is FieldOf its ops.
	field    string
	restored int // -1 unless kind is restore
	coalesce func(head store.Revision) bool
	// next returns the new state from the head's.
	next func(tx *sql.Tx, cur state) (outcome, error)
	// undo, when set with an author ID, pushes the edit on its author's undo stack.
	undo *store.Undoable
	// moved, for a Step, moves the step taken from one stack to the other.
	moved *stepRow
	// toolsBase and paramsBase, when set, refuse the change if the listing's shape changed
	// after them (store.Edit.ToolsBase, ParamsBase of ParamsTool).
	toolsBase, paramsBase *int64
	paramsTool            int
}

// state is a workspace's head: its listing (with where its tools are stored) and task file.
type state struct {
	head  store.Revision
	l     *listing.Listing
	refs  []toolRef
	tasks taskRef
	// tasksBody is the task file's JSON, when a task edit's undo needs it (nil: none, or not
	// read).
	tasksBody []byte
	// shape is the workspace's TasksShape.
	shape int64
}

// taskRef names a stored task file of a workspace (ok false: none).
type taskRef struct {
	ok bool
	id int64
}

func tasksOf(r store.Revision) taskRef { return taskRef{ok: r.HasTasks, id: r.TasksSeq} }

// errNothing ends a change whose Make found nothing to do: the transaction writes nothing.
var errNothing = errors.New("nothing to do")

// outcome is what a change makes of the head (l nil: nothing to do).
type outcome struct {
	l    *listing.Listing
	refs []toolRef // when l was read from the store: where its tools are
	ops  []listing.Op
	// tasks, when set, replaces the task file: with a new body, an existing one (reuse), or
	// none (neither).
	tasks *taskChange
	// kind, when set, is the revision kind instead of the change's (an undo of a task edit is
	// a task edit).
	kind store.RevisionKind
}

type taskChange struct {
	body  []byte
	reuse *taskRef
}

// record applies c in one transaction: a new head revision or the head extended, the edit
// row, the workspace's head and sequence number, and the author's undo.
func (s *DB) record(ctx context.Context, c change) (store.EditResult, error) {
	var res store.EditResult
	var sn snapshot
	t := now(c.at)
	err := s.inTx(ctx, c.op, func(tx *sql.Tx) ([]store.Event, error) {
		w, head, cur, curRefs, err := s.lockedHead(ctx, tx, c.op, c.ws)
		if err != nil {
			return nil, err
		}
		switch {
		case c.toolsBase != nil && w.ToolsShape > *c.toolsBase:
			return nil, &store.Error{Kind: store.Conflict, Op: c.op, Err: store.ErrToolsReshaped,
				Msg: fmt.Sprintf("a tool was added, removed or moved (edit %d) since the edit was made (at %d); its tool positions may name other tools now; read the listing again", w.ToolsShape, *c.toolsBase)}
		case c.paramsBase != nil && w.ParamsShapes[c.paramsTool] > *c.paramsBase:
			return nil, &store.Error{Kind: store.Conflict, Op: c.op, Err: store.ErrToolsReshaped,
				Msg: fmt.Sprintf("a parameter of tool %d was added, removed or moved (edit %d) since the edit was made (at %d); its parameter positions may name other parameters now; read the listing again",
					c.paramsTool+1, w.ParamsShapes[c.paramsTool], *c.paramsBase)}
		}
		before := state{head: head, l: cur, refs: curRefs, tasks: tasksOf(head), shape: w.TasksShape}
		out, err := c.next(tx, before)
		if err != nil {
			return nil, err
		}
		if out.l == nil {
			return nil, errNothing
		}
		if c.undo != nil && c.authorID != "" && out.tasks != nil {
			// Read now: a coalesced task edit deletes the version it replaces below.
			if before.tasksBody, err = s.taskBody(ctx, tx, c.ws, before.tasks); err != nil {
				return nil, err
			}
		}
		next := out.l
		opsJSON, err := json.Marshal(out.ops)
		if err != nil {
			return nil, fmt.Errorf("encode ops: %w", err)
		}
		if out.ops == nil {
			opsJSON = []byte("[]")
		}
		// Only the tools this change made are encoded and written; the rest are stored already.
		known := knownTools(next, out.refs)
		if known == nil {
			known = knownTools(cur, curRefs)
		}
		if sn, err = prepareSnapshot(c.op, next, known); err != nil {
			return nil, err
		}
		// Whether tools or parameters moved: a whole listing, or what the ops did (an edit, or an
		// undo or redo of one; a task edit has no ops). An edit that moves something is a
		// revision of its own, never a keystroke of someone's typing.
		toolsMoved := c.kind == store.KindReplace || c.kind == store.KindRestore || len(out.ops) > 0 && store.ReshapesTools(out.ops)
		var movedParams []int
		if !toolsMoved && len(out.ops) > 0 {
			movedParams = store.ReshapedParams(cur, next, out.ops)
		}
		res.Coalesced = c.coalesce != nil && c.coalesce(head) && !toolsMoved && len(movedParams) == 0
		// The tools the head does not list may be new to the workspace; and a coalesced edit
		// replaces the head's tools, so those it no longer lists may be listed nowhere now.
		gone, added := diffRefs(curRefs, sn.refs)
		var dropped []listing.Hash
		if res.Coalesced {
			if dropped, err = s.dropRefs(ctx, tx, c.ws, head.Number, gone); err != nil {
				return nil, err
			}
		}
		if err := s.storeTools(ctx, tx, sn, dropped); err != nil {
			return nil, err
		}
		seq := w.Seq + 1
		if out.kind != "" {
			c.kind = out.kind
		}
		field := c.field
		switch {
		case c.moved != nil:
			field = "" // an undo or redo is a step of its own: typing never extends it
		case c.kind == store.KindEdit:
			field = store.FieldOf(out.ops)
		case c.kind == store.KindTasks:
		default:
			field = ""
		}
		// The event names the field the edit set; the revision does not when the edit moved
		// something: nothing coalesces into it either (an added parameter's rename is a step
		// of its own in history).
		evField := field
		if toolsMoved || len(movedParams) > 0 {
			field = ""
		}
		number := w.Head + 1
		if res.Coalesced {
			number = head.Number
		}
		tasks := before.tasks
		if out.tasks != nil {
			switch {
			case out.tasks.reuse != nil:
				tasks = *out.tasks.reuse
			case out.tasks.body == nil:
				tasks = taskRef{}
			default:
				tasks = taskRef{ok: true, id: seq}
				if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO task_bodies (workspace_id, id, body, first_number) VALUES (?, ?, ?, ?)`),
					c.ws, seq, out.tasks.body, number); err != nil {
					return nil, fmt.Errorf("write task file: %w", err)
				}
			}
		}
		var tasksArg any
		if tasks.ok {
			tasksArg = tasks.id
		}
		rev := head
		if res.Coalesced {
			rev.Updated, rev.Edits, rev.LastSeq = t, head.Edits+1, seq
			// Guarded: a head named (or sealed by a run) since it was read is not extended.
			var up sql.Result
			up, err = tx.ExecContext(ctx, s.q(`UPDATE revisions SET envelope = ?, tools = ?, tasks = ?, updated_at = ?, edit_count = ?, last_seq = ?
				WHERE workspace_id = ? AND number = ? AND name IS NULL AND field = ?`),
				sn.envelope, sn.list, tasksArg, store.Micros(t), rev.Edits, seq, c.ws, head.Number, head.Field)
			if err == nil {
				if n, _ := up.RowsAffected(); n != 1 {
					return nil, store.Errorf(store.Conflict, c.op, "revision %d was named or sealed as the edit arrived; send the edit again", head.Number)
				}
			}
		} else {
			rev = store.Revision{Workspace: c.ws, Number: number, Parent: w.Head, Kind: c.kind, Author: c.author, AuthorID: c.authorID,
				Message: c.message, Field: field, Created: t, Updated: t, Edits: 1, FirstSeq: seq, LastSeq: seq, RestoredFrom: c.restored}
			var restored any
			if c.restored >= 0 {
				restored = c.restored
			}
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO revisions (workspace_id, number, parent, kind, author, author_id, message, field, created_at, updated_at, edit_count, first_seq, last_seq, restored_from, envelope, tools, tasks)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`),
				c.ws, rev.Number, rev.Parent, string(rev.Kind), rev.Author, rev.AuthorID, rev.Message, rev.Field, store.Micros(t), store.Micros(t), seq, seq, restored, sn.envelope, sn.list, tasksArg)
		}
		if err != nil {
			return nil, fmt.Errorf("write revision %d: %w", rev.Number, err)
		}
		rev.HasTasks, rev.TasksSeq = tasks.ok, tasks.id
		if res.Coalesced && before.tasks.ok && before.tasks != tasks {
			// The task file the head had is listed nowhere else when the head stored it.
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM task_bodies WHERE workspace_id = ? AND id = ? AND first_number = ?`),
				c.ws, before.tasks.id, head.Number); err != nil {
				return nil, fmt.Errorf("delete replaced task file: %w", err)
			}
		}
		if err := s.addRefs(ctx, tx, c.ws, rev.Number, added); err != nil {
			return nil, err
		}
		if err := s.pruneTools(ctx, tx, dropped); err != nil {
			return nil, err
		}
		tasksChanged := out.tasks != nil && tasks != before.tasks
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO edits (workspace_id, seq, revision, author, author_id, at, ops, tasks) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			c.ws, seq, rev.Number, c.author, c.authorID, store.Micros(t), opsJSON, boolInt(tasksChanged)); err != nil {
			return nil, fmt.Errorf("write edit %d: %w", seq, err)
		}
		shape := w.TasksShape
		oneField := c.kind == store.KindTasks && (field != "" || c.moved != nil && c.moved.tasks && c.moved.path != "")
		if tasksChanged && !oneField {
			shape = seq // not one field of one task: indexes may name other tasks now
		}
		toolsShape, paramsShapes := w.ToolsShape, w.ParamsShapes
		switch {
		case toolsMoved:
			// Every position is new: the tools' shape says so, and the parameters start over.
			toolsShape, paramsShapes = seq, nil
		case len(movedParams) > 0:
			paramsShapes = maps.Clone(paramsShapes)
			if paramsShapes == nil {
				paramsShapes = map[int]int64{}
			}
			for _, i := range movedParams {
				paramsShapes[i] = seq
			}
		}
		// The guard on seq turns a lost race (possible only if a dialect failed to lock) into a
		// Conflict instead of a lost edit.
		up, err := tx.ExecContext(ctx, s.q(`UPDATE workspaces SET head = ?, seq = ?, updated_at = ?, tasks_shape = ?, tools_shape = ?, params_shapes = ? WHERE id = ? AND seq = ?`),
			rev.Number, seq, store.Micros(t), shape, toolsShape, paramsShapesJSON(paramsShapes), c.ws, w.Seq)
		if err != nil {
			return nil, err
		}
		if n, _ := up.RowsAffected(); n != 1 {
			return nil, store.Errorf(store.Conflict, c.op, "another edit to workspace %s was accepted at the same time; send the edit again", c.ws)
		}
		after := state{head: rev, l: next, refs: sn.refs, tasks: tasks, shape: shape}
		if out.tasks != nil && out.tasks.reuse == nil {
			after.tasksBody = out.tasks.body
		}
		switch {
		case c.moved != nil && c.moved.stack != "":
			if res.Undo, err = s.moveStep(ctx, tx, c.ws, c.authorID, *c.moved); err != nil {
				return nil, err
			}
		case c.undo != nil && c.authorID != "":
			if err := s.pushStep(ctx, tx, c, before, after, res.Coalesced); err != nil {
				return nil, err
			}
			res.Undo = store.UndoState{CanUndo: true}
		}
		res.Seq, res.Revision, res.Listing, res.TasksShape, res.ToolsShape, res.ParamsShapes = seq, rev, next, shape, toolsShape, paramsShapes
		kind := store.EventEdit
		if len(out.ops) == 0 && tasksChanged {
			kind = store.EventTasks
		}
		return []store.Event{{Workspace: c.ws, Kind: kind, Seq: seq, Revision: rev.Number, Author: c.author, AuthorID: c.authorID,
			Coalesced: res.Coalesced, Field: eventField(evField)}}, nil
	})
	if errors.Is(err, errNothing) {
		return store.EditResult{}, nil
	}
	if err != nil {
		return store.EditResult{}, err
	}
	s.cache.put(revKey{c.ws, res.Revision.Number, res.Seq}, res.Listing, sn.refs, sn.size)
	return res, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// eventField keeps a notification small (PostgreSQL's payload limit is 8000 bytes).
func eventField(f string) string {
	if len(f) > store.MaxField {
		return ""
	}
	return f
}

func checkEditor(op, ws, author, authorID, message string) error {
	return firstErr(checkID(op, "workspace ID", ws),
		store.CheckText(op, "author", author, store.MaxAuthor, false, false),
		store.CheckText(op, "author ID", authorID, store.MaxAuthor, false, false),
		store.CheckText(op, "message", message, store.MaxMessage, false, true))
}

// AppendEdit implements store.Store.
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
		kind: store.KindEdit, restored: -1, undo: e.Undo, toolsBase: e.ToolsBase, paramsBase: e.ParamsBase, paramsTool: e.ParamsTool,
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

// Commit implements store.Store.
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

// Restore implements store.Store.
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
	return s.record(ctx, change{op: op, ws: r.Workspace, author: r.Author, authorID: r.AuthorID, message: msg, at: r.Now,
		kind: store.KindRestore, restored: r.Number,
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

// Revisions implements store.Store.
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

// Revision implements store.Store.
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

// NameRevision implements store.Store.
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

// Edits implements store.Store.
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

// ---- runs

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

// PutRun implements store.Store.
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

// UpdateRun implements store.Store.
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

// TouchRun implements store.Store.
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

// Run implements store.Store.
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

// Runs implements store.Store.
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

// DeleteRun implements store.Store.
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

// ---- share links

const linkCols = `id, workspace_id, capability, author, created_at, revoked_at`

func scanLink(row interface{ Scan(...any) error }) (store.ShareLink, error) {
	var l store.ShareLink
	var created int64
	var revoked sql.NullInt64
	var capability string
	err := row.Scan(&l.ID, &l.Workspace, &capability, &l.Author, &created, &revoked)
	l.Capability, l.Created = store.Capability(capability), store.FromMicros(created)
	if revoked.Valid {
		l.Revoked = store.FromMicros(revoked.Int64)
	}
	return l, err
}

// CreateShareLink implements store.Store.
func (s *DB) CreateShareLink(ctx context.Context, nl store.NewShareLink) (store.ShareLink, error) {
	const op = "create share link"
	if err := firstErr(checkID(op, "workspace ID", nl.Workspace), store.CheckText(op, "author", nl.Author, store.MaxAuthor, false, false)); err != nil {
		return store.ShareLink{}, err
	}
	if nl.Capability != store.CanView && nl.Capability != store.CanEdit {
		return store.ShareLink{}, store.Errorf(store.Invalid, op, "capability %q is unknown; use %q or %q", nl.Capability, store.CanView, store.CanEdit)
	}
	l := store.ShareLink{ID: store.NewID(), Token: store.NewID(), Workspace: nl.Workspace, Capability: nl.Capability, Author: nl.Author, Created: now(nl.Now)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO share_links (id, token_hash, workspace_id, capability, author, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			l.ID, store.TokenHash(l.Token), l.Workspace, string(l.Capability), l.Author, store.Micros(l.Created))
		if err != nil && store.KindOf(s.wrap(op, err)) == store.NotFound {
			return nil, notFoundWorkspace(op, l.Workspace)
		}
		return nil, err
	})
	if err != nil {
		return store.ShareLink{}, err
	}
	return l, nil
}

// ShareLink implements store.Store.
func (s *DB) ShareLink(ctx context.Context, token string) (store.ShareLink, error) {
	const op = "resolve share link"
	if err := checkID(op, "share token", token); err != nil {
		return store.ShareLink{}, err
	}
	l, err := scanLink(s.read.QueryRowContext(ctx, s.q(`SELECT `+linkCols+` FROM share_links WHERE token_hash = ?`), store.TokenHash(token)))
	if errors.Is(err, sql.ErrNoRows) {
		return store.ShareLink{}, store.Errorf(store.NotFound, op, "no such share link; ask for a new one")
	}
	if err != nil {
		return store.ShareLink{}, s.wrap(op, err)
	}
	if !l.Revoked.IsZero() {
		return store.ShareLink{}, store.Errorf(store.Forbidden, op, "this share link was revoked; ask for a new one")
	}
	return l, nil
}

// ShareLinks implements store.Store.
func (s *DB) ShareLinks(ctx context.Context, ws string) ([]store.ShareLink, error) {
	const op = "list share links"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+linkCols+` FROM share_links WHERE workspace_id = ? ORDER BY created_at, id`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.ShareLink{}
	for rows.Next() {
		l, err := scanLink(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, l)
	}
	return out, s.wrap(op, rows.Err())
}

// RevokeShareLink implements store.Store. Revoking a revoked link keeps its first revocation.
func (s *DB) RevokeShareLink(ctx context.Context, ws, id string, at time.Time) error {
	const op = "revoke share link"
	if err := firstErr(checkID(op, "workspace ID", ws), checkID(op, "share link ID", id)); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE share_links SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND workspace_id = ?`),
			store.Micros(now(at)), id, ws)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no share link %s", ws, id)
		}
		return nil, nil
	})
}

// ---- sessions

// CreateSession implements store.Store.
func (s *DB) CreateSession(ctx context.Context, ns store.NewSession) (store.Session, error) {
	const op = "create session"
	if err := store.CheckText(op, "display name", ns.Name, store.MaxAuthor, true, false); err != nil {
		return store.Session{}, err
	}
	t := now(ns.Now)
	if !ns.Expires.After(t) {
		return store.Session{}, store.Errorf(store.Invalid, op, "the session would expire at %s, not after it starts at %s", ns.Expires.Format(time.RFC3339), t.Format(time.RFC3339))
	}
	ss := store.Session{ID: store.NewID(), Token: store.NewID(), Name: ns.Name, Created: t, Expires: ns.Expires.UTC().Truncate(time.Microsecond)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO sessions (token_hash, id, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`),
			store.TokenHash(ss.Token), ss.ID, ss.Name, store.Micros(ss.Created), store.Micros(ss.Expires))
		return nil, err
	})
	if err != nil {
		return store.Session{}, err
	}
	return ss, nil
}

// Session implements store.Store.
func (s *DB) Session(ctx context.Context, token string, at time.Time) (store.Session, error) {
	const op = "resolve session"
	if err := checkID(op, "session token", token); err != nil {
		return store.Session{}, err
	}
	var ss store.Session
	var created, expires int64
	err := s.read.QueryRowContext(ctx, s.q(`SELECT id, name, created_at, expires_at FROM sessions WHERE token_hash = ?`), store.TokenHash(token)).
		Scan(&ss.ID, &ss.Name, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, store.Errorf(store.NotFound, op, "no such session; sign in again")
	}
	if err != nil {
		return store.Session{}, s.wrap(op, err)
	}
	ss.Created, ss.Expires = store.FromMicros(created), store.FromMicros(expires)
	if !ss.Expires.After(now(at)) {
		return store.Session{}, store.Errorf(store.NotFound, op, "the session expired at %s; sign in again", ss.Expires.Format(time.RFC3339))
	}
	return ss, nil
}

// DeleteSession implements store.Store.
func (s *DB) DeleteSession(ctx context.Context, token string) error {
	const op = "delete session"
	if err := checkID(op, "session token", token); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE token_hash = ?`), store.TokenHash(token))
		return nil, err
	})
}

// PurgeSessions implements store.Store.
func (s *DB) PurgeSessions(ctx context.Context, at time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, "purge sessions", func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE expires_at <= ?`), store.Micros(now(at)))
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return nil, err
	})
	return int(n), err
}

// ---- helpers

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// listingCache keeps parsed listings of recently used revisions, so that an edit does not parse
// the head again and a page showing the baseline beside the head does not parse either. A
// revision's listing is fixed by its workspace, number and last edit: any writer (another
// process included) that changes it bumps its last edit, so a stale entry is never used. The
// cache is bounded by the size of the listings' JSON; parsed, they take a few times more.
type listingCache struct {
	mu    sync.Mutex
	m     map[revKey]cachedListing
	bytes int
}

type revKey struct {
	ws      string
	number  int
	lastSeq int64
}

type cachedListing struct {
	l    *listing.Listing
	refs []toolRef // where its tools are stored, aligned with l.Tools
	size int
}

// listingCacheBytes bounds the JSON size of the cached listings.
const listingCacheBytes = 32 << 20

func (c *listingCache) get(k revKey) (*listing.Listing, []toolRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	return e.l, e.refs
}

func (c *listingCache) put(k revKey, l *listing.Listing, refs []toolRef, size int) {
	if size > listingCacheBytes/4 {
		return // one huge listing must not empty the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[revKey]cachedListing{}
	}
	if old, ok := c.m[k]; ok {
		c.bytes -= old.size
	}
	for k2, e := range c.m { // evict at random: cheap, and good enough here
		if c.bytes+size <= listingCacheBytes {
			break
		}
		delete(c.m, k2)
		c.bytes -= e.size
	}
	c.m[k] = cachedListing{l, refs, size}
	c.bytes += size
}

// dropWorkspace forgets a deleted workspace's listings.
func (c *listingCache) dropWorkspace(ws string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if k.ws == ws {
			delete(c.m, k)
			c.bytes -= e.size
		}
	}
}

// DBHandle returns the handle writes go through.
func (s *DB) DBHandle() *sql.DB { return s.write }
