package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Undo is kept in table undo_steps, per workspace and person, as two stacks of steps. A step
// holds the path it takes back and the value there before and after it; it is pushed (or, for a
// burst of typing, extended) in the transaction that records its edit, and Step takes it back in
// the transaction that records the undo, so that undo outlives restarts, works the same on
// every replica, and never takes back a value someone else has changed since.

// stepInline is the largest value a step keeps in its row; a larger one (a whole tools array)
// is kept as the revision that holds it, when no later edit can change that revision.
const stepInline = 4 << 10

// stepValue is a step's value before or after it, as stored: inline (V), the value in a frozen
// revision (Rev), or absent (neither).
type stepValue struct {
	V   json.RawMessage `json:"v,omitempty"`
	Rev *int            `json:"rev,omitempty"`
}

// stepRow is one stored step.
type stepRow struct {
	stack  string // "undo" or "redo"
	pos    int64
	key    string
	tasks  bool
	path   string
	tool   string // the name of the tool path is in, to find it after tools moved ("" if none)
	shape  int64  // a task step: the task file's shape it was made in (its path is an index)
	before []byte
	after  []byte
}

// stepTool is the name of the tool a step's path lies in, in l; "" when the path is not in one
// tool, or is the tool's name itself (which the step changes: it is found by index).
func stepTool(l *listing.Listing, path string) string {
	toks, err := listing.SplitPointer(path)
	if err != nil || len(toks) < 3 || toks[0] != "tools" || toks[2] == "name" {
		return ""
	}
	i, err := strconv.Atoi(toks[1])
	if err != nil || i < 0 || i >= len(l.Tools) {
		return ""
	}
	if n := l.Tools[i].Get("name"); n != nil && n.Kind == listing.String {
		return n.Str
	}
	return ""
}

// locate is where a step's path is in l, so that an undo still finds its tool after tools were
// added, removed or moved. want, when known, is the value the step expects to find there. A
// step on a tool's name finds the tool that has the name want; another finds a tool named as
// its tool was: the one at the step's index if it is, else, among those so named (names may
// repeat), first one that holds want at the path, then the nearest to the step's index.
func locate(l *listing.Listing, r stepRow, want *listing.Value) string {
	toks, err := listing.SplitPointer(r.path)
	if err != nil || len(toks) < 3 || toks[0] != "tools" {
		return r.path
	}
	at, err := strconv.Atoi(toks[1])
	if err != nil {
		return r.path
	}
	name := r.tool
	if toks[2] == "name" && len(toks) == 3 {
		if want == nil || want.Kind != listing.String {
			return r.path
		}
		name = want.Str
	}
	if name == "" {
		return r.path
	}
	pathAt := func(j int) string {
		t := append([]string(nil), toks...)
		t[1] = strconv.Itoa(j)
		return listing.JoinPointer(t...)
	}
	best, bestFits, bestDist := -1, false, 0
	for j, t := range l.Tools {
		if n := t.Get("name"); n == nil || n.Kind != listing.String || n.Str != name {
			continue
		}
		fits := want != nil && sameValue(l.Get(pathAt(j)), want)
		dist := j - at
		if dist < 0 {
			dist = -dist
		}
		if best < 0 || fits && !bestFits || fits == bestFits && dist < bestDist {
			best, bestFits, bestDist = j, fits, dist
		}
	}
	if best < 0 {
		return r.path
	}
	return pathAt(best)
}

// errStepConflict is a step whose path changed since; Step drops it.
type errStepConflict struct{ row stepRow }

func (e *errStepConflict) Error() string { return "the step's value changed since" }

func checkUndoable(op string, u *store.Undoable) error {
	if u == nil {
		return nil
	}
	if err := firstErr(store.CheckText(op, "undo key", u.Key, store.MaxField, false, false),
		store.CheckText(op, "undo path", u.Path, store.MaxField, false, false)); err != nil {
		return err
	}
	if u.Path != "" {
		if _, err := listing.SplitPointer(u.Path); err != nil {
			return store.Errorf(store.Invalid, op, "the undo path %q is not a JSON pointer: %v", u.Path, err)
		}
	}
	return nil
}

// encodeStepValue encodes the value of st at path (the task file when tasks), as a reference
// to revision st.head when it is large and frozen says no later edit can change that revision.
func encodeStepValue(st state, path string, tasksBody []byte, tasks, frozen bool) ([]byte, error) {
	var raw []byte
	switch {
	case tasks && path == "":
		raw = tasksBody
	case tasks:
		var err error
		if raw, err = taskField(tasksBody, path); err != nil {
			return nil, err
		}
	default:
		if v := st.l.Get(path); v != nil {
			raw = listing.Marshal(v, "")
		}
	}
	switch {
	case raw == nil:
		return []byte(`{}`), nil
	case len(raw) > stepInline && frozen:
		return fmt.Appendf(nil, `{"rev":%d}`, st.head.Number), nil
	default:
		// Written by hand: json.Marshal would compact the value, and a task file is kept as
		// it was given.
		return append(append([]byte(`{"v":`), raw...), '}'), nil
	}
}

// pushStep records c as a step of its author's undo: a new step on top, or the top step
// extended when c continues it (same key and path). Any redo is gone: a new edit forks history.
func (s *DB) pushStep(ctx context.Context, tx *sql.Tx, c change, before, after state, coalesced bool) error {
	isTasks := c.kind == store.KindTasks
	path := c.undo.Path // for a task edit: one field of one task, or "" for the whole file
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = 'redo'`), c.ws, c.authorID); err != nil {
		return fmt.Errorf("clear redo: %w", err)
	}
	if c.kind == store.KindRestore {
		return s.pushRevisionStep(ctx, tx, c, before.head.Number, after.head.Number)
	}
	// The new head can still be extended by coalescing unless its field is empty.
	av, err := encodeStepValue(after, path, after.tasksBody, isTasks, after.head.Field == "")
	if err != nil {
		return err
	}
	beforeBody := before.tasksBody
	if c.undo.Key != "" {
		// A burst of typing: extend the top step when it is this key's and the value is still
		// what the step left (nobody else changed the field in between, or the step would take
		// their change back too). One statement, as every keystroke runs it.
		cur, err := encodeStepValue(before, path, beforeBody, isTasks, false)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE undo_steps SET after = ?
			WHERE workspace_id = ? AND author_id = ? AND stack = 'undo' AND step_key = ? AND path = ? AND tasks = ? AND after = ?
			AND pos = (SELECT MAX(pos) FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = 'undo')`),
			av, c.ws, c.authorID, c.undo.Key, path, boolInt(isTasks), cur, c.ws, c.authorID)
		if err != nil {
			return fmt.Errorf("extend undo step: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
	}
	top, ok, err := s.topStep(ctx, tx, c.ws, c.authorID, "undo")
	if err != nil {
		return err
	}
	// The old head is frozen once the edit started a new revision.
	bv, err := encodeStepValue(before, path, beforeBody, isTasks, !coalesced)
	if err != nil {
		return err
	}
	pos := int64(1)
	if ok {
		pos = top.pos + 1
	}
	var tool string
	if !isTasks {
		tool = stepTool(after.l, path)
	}
	return s.insertStep(ctx, tx, c.ws, c.authorID, stepRow{stack: "undo", pos: pos, key: c.undo.Key, tasks: isTasks, path: path, tool: tool,
		shape: after.shape, before: bv, after: av})
}

// insertStep stores r and forgets the steps of its stack beyond store.MaxUndoSteps.
func (s *DB) insertStep(ctx context.Context, tx *sql.Tx, ws, author string, r stepRow) error {
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO undo_steps (workspace_id, author_id, stack, pos, step_key, tasks, path, tool, shape, before, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		ws, author, r.stack, r.pos, r.key, boolInt(r.tasks), r.path, r.tool, r.shape, r.before, r.after); err != nil {
		return fmt.Errorf("write %s step: %w", r.stack, err)
	}
	if r.pos > store.MaxUndoSteps {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = ? AND pos <= ?`),
			ws, author, r.stack, r.pos-store.MaxUndoSteps); err != nil {
			return fmt.Errorf("forget old %s steps: %w", r.stack, err)
		}
	}
	return nil
}

// topStep reads the top step of a stack.
func (s *DB) topStep(ctx context.Context, q querier, ws, author, stack string) (stepRow, bool, error) {
	rows, err := q.QueryContext(ctx, s.q(`SELECT pos, step_key, tasks, path, tool, shape, before, after FROM undo_steps
		WHERE workspace_id = ? AND author_id = ? AND stack = ? ORDER BY pos DESC LIMIT 1`), ws, author, stack)
	if err != nil {
		return stepRow{}, false, fmt.Errorf("read %s step: %w", stack, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return stepRow{}, false, rows.Err()
	}
	r := stepRow{stack: stack}
	var tasks int
	if err := rows.Scan(&r.pos, &r.key, &tasks, &r.path, &r.tool, &r.shape, &r.before, &r.after); err != nil {
		return stepRow{}, false, fmt.Errorf("read %s step: %w", stack, err)
	}
	r.tasks = tasks != 0
	return r, true, rows.Err()
}

// moveStep puts the step r (just taken back) on the other stack, as a step no later edit
// extends, and returns the person's undo state.
func (s *DB) moveStep(ctx context.Context, tx *sql.Tx, ws, author string, r stepRow) (store.UndoState, error) {
	to := "redo"
	if r.stack == "redo" {
		to = "undo"
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = ? AND pos = ?`),
		ws, author, r.stack, r.pos); err != nil {
		return store.UndoState{}, fmt.Errorf("take %s step: %w", r.stack, err)
	}
	top, ok, err := s.topStep(ctx, tx, ws, author, to)
	if err != nil {
		return store.UndoState{}, err
	}
	pos := int64(1)
	if ok {
		pos = top.pos + 1
	}
	if err := s.insertStep(ctx, tx, ws, author, stepRow{stack: to, pos: pos, tasks: r.tasks, path: r.path, tool: r.tool, shape: r.shape, before: r.before, after: r.after}); err != nil {
		return store.UndoState{}, err
	}
	// After an undo or redo, typing starts a new step: it never extends an older one.
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE undo_steps SET step_key = '' WHERE workspace_id = ? AND author_id = ? AND stack = 'undo' AND step_key <> ''`),
		ws, author); err != nil {
		return store.UndoState{}, fmt.Errorf("end the steps' bursts: %w", err)
	}
	return s.undoState(ctx, tx, ws, author)
}

func (s *DB) undoState(ctx context.Context, q querier, ws, author string) (store.UndoState, error) {
	rows, err := q.QueryContext(ctx, s.q(`SELECT DISTINCT stack FROM undo_steps WHERE workspace_id = ? AND author_id = ?`), ws, author)
	if err != nil {
		return store.UndoState{}, fmt.Errorf("read undo state: %w", err)
	}
	defer rows.Close()
	var u store.UndoState
	for rows.Next() {
		var stack string
		if err := rows.Scan(&stack); err != nil {
			return u, fmt.Errorf("read undo state: %w", err)
		}
		u.CanUndo = u.CanUndo || stack == "undo"
		u.CanRedo = u.CanRedo || stack == "redo"
	}
	return u, rows.Err()
}

// UndoState implements store.History.
func (s *DB) UndoState(ctx context.Context, ws, author string) (store.UndoState, error) {
	const op = "read undo state"
	if err := firstErr(checkID(op, "workspace ID", ws), store.CheckText(op, "author ID", author, store.MaxAuthor, false, false)); err != nil {
		return store.UndoState{}, err
	}
	u, err := s.undoState(ctx, s.read, ws, author)
	return u, s.wrap(op, err)
}

// resolveStep reads a stored step value: the value (nil: absent) or, for a task step, the task
// file (nil: none).
func (s *DB) resolveStep(ctx context.Context, tx *sql.Tx, ws string, r stepRow, raw []byte) (*listing.Value, []byte, error) {
	var sv stepValue
	if err := json.Unmarshal(raw, &sv); err != nil {
		return nil, nil, fmt.Errorf("%w: undo step %d: %v", errCorrupt, r.pos, err)
	}
	if sv.Rev != nil {
		if r.tasks {
			var id sql.NullInt64
			if err := tx.QueryRowContext(ctx, s.q(`SELECT tasks FROM revisions WHERE workspace_id = ? AND number = ?`), ws, *sv.Rev).Scan(&id); err != nil {
				return nil, nil, fmt.Errorf("read revision %d of an undo step: %w", *sv.Rev, err)
			}
			b, err := s.taskBody(ctx, tx, ws, taskRef{ok: id.Valid, id: id.Int64})
			if err != nil || r.path == "" {
				return nil, b, err
			}
			f, err := taskField(b, r.path)
			return nil, f, err
		}
		l, err := s.revisionListing(ctx, tx, ws, *sv.Rev)
		if err != nil {
			return nil, nil, err
		}
		return l.Get(locate(l, r, nil)), nil, nil
	}
	if sv.V == nil {
		return nil, nil, nil
	}
	if r.tasks {
		return nil, sv.V, nil
	}
	v, err := listing.ParseJSON(sv.V)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: undo step %d: %v", errCorrupt, r.pos, err)
	}
	return v, nil, nil
}

// revisionListing reads revision n's listing in tx, from the cache when it holds it.
func (s *DB) revisionListing(ctx context.Context, tx *sql.Tx, ws string, n int) (*listing.Listing, error) {
	var last int64
	var env, list []byte
	if err := tx.QueryRowContext(ctx, s.q(`SELECT last_seq FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n).Scan(&last); err != nil {
		return nil, fmt.Errorf("read revision %d: %w", n, err)
	}
	key := revKey{ws, n, last}
	if l, _ := s.cache.get(key); l != nil {
		return l, nil
	}
	if err := tx.QueryRowContext(ctx, s.q(`SELECT envelope, tools FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n).Scan(&env, &list); err != nil {
		return nil, fmt.Errorf("read revision %d: %w", n, err)
	}
	l, refs, err := s.loadSnapshot(ctx, tx, ws, n, env, list)
	if err != nil {
		return nil, err
	}
	s.cache.put(key, l, refs, sizeOf(env, refs))
	return l, nil
}

// sameJSON compares two JSON documents up to insignificant space (nil: none).
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

func sameValue(a, b *listing.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return listing.HashOf(a) == listing.HashOf(b)
}

// Step implements store.History.
func (s *DB) Step(ctx context.Context, st store.Step) (store.EditResult, error) {
	op, from, verb := "undo", "undo", "Undo"
	if st.Redo {
		op, from, verb = "redo", "redo", "Redo"
	}
	if err := checkEditor(op, st.Workspace, st.Author, st.AuthorID, ""); err != nil {
		return store.EditResult{}, err
	}
	if st.AuthorID == "" {
		return store.EditResult{}, store.Errorf(store.Invalid, op, "no author ID given; undo is per person")
	}
	moved := &stepRow{}
	res, err := s.record(ctx, change{op: op, ws: st.Workspace, author: st.Author, authorID: st.AuthorID, message: verb, at: st.Now,
		kind: store.KindEdit, restored: -1, moved: moved,
		next: func(tx *sql.Tx, cur state) (outcome, error) {
			r, ok, err := s.topStep(ctx, tx, st.Workspace, st.AuthorID, from)
			if err != nil {
				return outcome{}, err
			}
			if !ok {
				return outcome{}, store.Errorf(store.NotFound, op, "nothing to %s", op)
			}
			if r.wholeRevision() {
				*moved = r
				return s.stepRevision(ctx, tx, st.Workspace, cur, r, st.Redo)
			}
			want, put := r.after, r.before
			if st.Redo {
				want, put = r.before, r.after
			}
			wantV, wantT, err := s.resolveStep(ctx, tx, st.Workspace, r, want)
			if err != nil {
				return outcome{}, err
			}
			putV, putT, err := s.resolveStep(ctx, tx, st.Workspace, r, put)
			if err != nil {
				return outcome{}, err
			}
			*moved = r
			if r.tasks {
				curT, err := s.taskBody(ctx, tx, st.Workspace, cur.tasks)
				if err != nil {
					return outcome{}, err
				}
				if r.path != "" {
					// Its path is a task's index: a task added or removed since may have moved
					// another task into its place, holding the same value.
					if cur.shape > r.shape {
						return outcome{}, &errStepConflict{r}
					}
					body, err := stepTaskField(curT, r, wantT, putT)
					if err != nil {
						return outcome{}, err
					}
					return outcome{l: cur.l, refs: cur.refs, tasks: &taskChange{body: body}, kind: store.KindTasks}, nil
				}
				if !sameJSON(curT, wantT) {
					return outcome{}, &errStepConflict{r}
				}
				return outcome{l: cur.l, refs: cur.refs, tasks: &taskChange{body: putT}, kind: store.KindTasks}, nil
			}
			// The tool may have moved since: the step follows it (and keeps its new place).
			path := locate(cur.l, r, wantV)
			moved.path = path
			if !sameValue(cur.l.Get(path), wantV) {
				return outcome{}, &errStepConflict{r}
			}
			o := listing.Op{Kind: listing.OpSet, Path: path, Value: putV}
			if putV == nil {
				o = listing.Op{Kind: listing.OpRemove, Path: path}
			}
			l, err := cur.l.ApplyAll([]listing.Op{o})
			if err != nil {
				// The path's parent is gone (a tool removed since): someone else's change.
				return outcome{}, &errStepConflict{r}
			}
			return outcome{l: l, ops: []listing.Op{o}}, nil
		}})
	var sc *errStepConflict
	if errors.As(err, &sc) {
		return store.EditResult{}, s.dropConflicted(ctx, op, st, sc.row)
	}
	return res, err
}

// dropConflicted forgets step r, refused because someone else changed its value since (later
// writers win: it can never be taken back), and returns the refusal.
func (s *DB) dropConflicted(ctx context.Context, op string, st store.Step, r stepRow) error {
	derr := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		// Only that very step: another tab of the person may have taken it and pushed a
		// new one at its position since.
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = ? AND pos = ?
			AND step_key = ? AND path = ? AND before = ? AND after = ?`),
			st.Workspace, st.AuthorID, r.stack, r.pos, r.key, r.path, r.before, r.after)
		if err != nil || !r.wholeRevision() {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			// A restore that stays: the steps beyond it were made around the listing it
			// replaced, so they go too (see dropBeyondRestore).
			err = s.dropBeyondRestore(ctx, tx, st.Workspace, st.AuthorID, r)
		}
		return nil, err
	})
	if derr != nil {
		return derr
	}
	return &store.Error{Kind: store.Conflict, Op: op,
		Msg: "someone else changed it since; their change stands", Err: &store.StepConflict{Path: r.path, Tasks: r.tasks, Revision: r.wholeRevision()}}
}

// stepTaskField takes back one field of one task: the task file cur with the value at the
// step's path set to put (removed when nil), provided it still holds want there. Other tasks
// may have changed meanwhile; a change to this field, or a task file without that task, is
// someone else's change and refuses the step.
func stepTaskField(cur []byte, r stepRow, want, put []byte) ([]byte, error) {
	if cur == nil {
		return nil, &errStepConflict{r}
	}
	root, err := listing.ParseJSON(cur)
	if err != nil {
		return nil, fmt.Errorf("%w: a stored task file: %v", errCorrupt, err)
	}
	parse := func(b []byte) (*listing.Value, error) {
		if b == nil {
			return nil, nil
		}
		v, err := listing.ParseJSON(b)
		if err != nil {
			return nil, fmt.Errorf("%w: undo step %d: %v", errCorrupt, r.pos, err)
		}
		return v, nil
	}
	wantV, err := parse(want)
	if err != nil {
		return nil, err
	}
	putV, err := parse(put)
	if err != nil {
		return nil, err
	}
	if !sameValue(listing.Resolve(root, r.path), wantV) {
		return nil, &errStepConflict{r}
	}
	op := listing.Op{Kind: listing.OpSet, Path: r.path, Value: putV}
	if putV == nil {
		op = listing.Op{Kind: listing.OpRemove, Path: r.path}
	}
	out, err := listing.EditValue(root, op)
	if err != nil {
		return nil, &errStepConflict{r} // the task is gone
	}
	return listing.Marshal(out, ""), nil
}
