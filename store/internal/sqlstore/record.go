package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

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
	// alone: a revision of its own that nothing extends (store.Edit.Alone).
	alone bool
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
	c.at = now(c.at) // the edit's time is when it arrived, not when it got the lock
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.EditResult{}, s.wrap(c.op, fmt.Errorf("begin: %w", err))
	}
	// Every way out before the commit rolls back, which releases the workspace's write lock;
	// after the commit it does nothing.
	defer func() { _ = tx.Rollback() }()
	r, err := s.prepare(ctx, tx, c)
	if errors.Is(err, errNothing) {
		return store.EditResult{}, nil
	}
	if err != nil {
		return store.EditResult{}, s.wrap(c.op, err)
	}
	if err := r.write(ctx); err != nil {
		return store.EditResult{}, s.wrap(c.op, err)
	}
	if err := s.commitTx(ctx, tx, []store.Event{r.event()}); err != nil {
		return store.EditResult{}, s.wrap(c.op, err)
	}
	s.cache.put(revKey{c.ws, r.res.Revision.Number, r.res.Seq}, r.res.Listing, r.sn.refs, r.sn.size)
	return r.res, nil
}

// recording is a change on its way into the store: the head it is made from, read under the
// workspace's write lock, and what the change makes of it. Its steps run in order, in one
// transaction.
type recording struct {
	s  *DB
	tx *sql.Tx
	c  change    // its kind is the outcome's, when the outcome names one
	t  time.Time // the edit's time

	w      store.Workspace // as locked
	before state           // the head
	out    outcome

	opsJSON     []byte
	sn          snapshot // the new head listing, as stored
	toolsMoved  bool     // tools were added, removed or moved, or the whole listing replaced
	movedParams []int    // otherwise, the tools whose parameters were
	seq         int64    // the edit's sequence number
	number      int      // the revision the edit lands in
	field       string   // what the revision is extended by ("" when it cannot be)
	evField     string   // the field the edit set, for its event
	added       []listing.Hash
	dropped     []listing.Hash // the tools the extended head stopped listing, listed nowhere now
	tasks       taskRef        // the task file after the edit
	rev         store.Revision // the head after the edit
	res         store.EditResult
}

// prepare locks the workspace, reads its head and works out what c makes of it, writing
// nothing; errNothing when c finds nothing to do.
func (s *DB) prepare(ctx context.Context, tx *sql.Tx, c change) (*recording, error) {
	w, head, cur, curRefs, err := s.lockedHead(ctx, tx, c.op, c.ws)
	if err != nil {
		return nil, err
	}
	if err := checkShapes(c, w); err != nil {
		return nil, err
	}
	r := &recording{s: s, tx: tx, c: c, t: c.at, w: w,
		before: state{head: head, l: cur, refs: curRefs, tasks: tasksOf(head), shape: w.TasksShape}}
	if r.out, err = c.next(tx, r.before); err != nil {
		return nil, err
	}
	if r.out.l == nil {
		return nil, errNothing
	}
	if c.undo != nil && c.authorID != "" && r.out.tasks != nil {
		// Read now: a coalesced task edit deletes the version it replaces (writeRevision).
		if r.before.tasksBody, err = s.taskBody(ctx, tx, c.ws, r.before.tasks); err != nil {
			return nil, err
		}
	}
	return r, r.plan()
}

// checkShapes refuses a change whose tool or parameter positions come from before the
// listing's shape last changed.
func checkShapes(c change, w store.Workspace) error {
	switch {
	case c.toolsBase != nil && w.ToolsShape > *c.toolsBase:
		return &store.Error{Kind: store.Conflict, Op: c.op, Err: store.ErrToolsReshaped,
			Msg: fmt.Sprintf("a tool was added, removed or moved (edit %d) since the edit was made (at %d); its tool positions may name other tools now; read the listing again", w.ToolsShape, *c.toolsBase)}
	case c.paramsBase != nil && w.ParamsShapes[c.paramsTool] > *c.paramsBase:
		return &store.Error{Kind: store.Conflict, Op: c.op, Err: store.ErrToolsReshaped,
			Msg: fmt.Sprintf("a parameter of tool %d was added, removed or moved (edit %d) since the edit was made (at %d); its parameter positions may name other parameters now; read the listing again",
				c.paramsTool+1, w.ParamsShapes[c.paramsTool], *c.paramsBase)}
	}
	return nil
}

// plan works out what the change writes: the new listing's stored form, whether it moved
// tools or parameters, whether it extends the head, and the field it sets.
func (r *recording) plan() error {
	out, cur := r.out, r.before
	var err error
	if r.opsJSON, err = json.Marshal(out.ops); err != nil {
		return fmt.Errorf("encode ops: %w", err)
	}
	if out.ops == nil {
		r.opsJSON = []byte("[]")
	}
	// Only the tools this change made are encoded and written; the rest are stored already.
	known := knownTools(out.l, out.refs)
	if known == nil {
		known = knownTools(cur.l, cur.refs)
	}
	if r.sn, err = prepareSnapshot(r.c.op, out.l, known); err != nil {
		return err
	}
	// Whether tools or parameters moved: a whole listing, or what the ops did (an edit, or an
	// undo or redo of one; a task edit has no ops). An edit that moves something is a
	// revision of its own, never a keystroke of someone's typing.
	r.toolsMoved = r.c.kind == store.KindReplace || r.c.kind == store.KindRestore || len(out.ops) > 0 && store.ReshapesTools(out.ops)
	if !r.toolsMoved && len(out.ops) > 0 {
		r.movedParams = store.ReshapedParams(cur.l, out.l, out.ops)
	}
	r.res.Coalesced = r.c.coalesce != nil && r.c.coalesce(cur.head) && !r.toolsMoved && len(r.movedParams) == 0
	r.seq = r.w.Seq + 1
	if out.kind != "" {
		r.c.kind = out.kind
	}
	r.field, r.evField = r.fields()
	r.number = r.w.Head + 1
	if r.res.Coalesced {
		r.number = cur.head.Number
	}
	return nil
}

// fields returns the field the revision is extended by and the one the edit's event names.
func (r *recording) fields() (field, evField string) {
	field = r.c.field
	switch {
	case r.c.moved != nil:
		field = "" // an undo or redo is a step of its own: typing never extends it
	case r.c.kind == store.KindEdit:
		field = store.FieldOf(r.out.ops)
	case r.c.kind == store.KindTasks:
	default:
		field = ""
	}
	// The event names the field the edit set; the revision does not when the edit moved
	// something: nothing coalesces into it either (an added parameter's rename is a step of
	// its own in history).
	if r.toolsMoved || len(r.movedParams) > 0 || r.c.alone {
		return "", field
	}
	return field, field
}

// write stores the change, step by step.
func (r *recording) write(ctx context.Context) error {
	steps := []func(context.Context) error{r.writeTools, r.writeRevision, r.linkTools, r.writeEdit, r.advance, r.writeUndo}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// writeTools stores the new listing's tools that are not stored yet. The tools the head does
// not list may be new to the workspace; and a coalesced edit replaces the head's tools, so
// those it no longer lists may be listed nowhere now.
func (r *recording) writeTools(ctx context.Context) error {
	gone, added := diffRefs(r.before.refs, r.sn.refs)
	r.added = added
	if r.res.Coalesced {
		var err error
		if r.dropped, err = r.s.dropRefs(ctx, r.tx, r.c.ws, r.before.head.Number, gone); err != nil {
			return err
		}
	}
	return r.s.storeTools(ctx, r.tx, r.sn, r.dropped)
}

// writeRevision writes the task file and the revision: a new one, or the head extended.
func (r *recording) writeRevision(ctx context.Context) error {
	if err := r.writeTasks(ctx); err != nil {
		return err
	}
	var tasksArg any
	if r.tasks.ok {
		tasksArg = r.tasks.id
	}
	write := r.insertRevision
	if r.res.Coalesced {
		write = r.extendHead
	}
	if err := write(ctx, tasksArg); err != nil {
		return err
	}
	r.rev.HasTasks, r.rev.TasksSeq = r.tasks.ok, r.tasks.id
	if r.res.Coalesced && r.before.tasks.ok && r.before.tasks != r.tasks {
		// The task file the head had is listed nowhere else when the head stored it.
		if _, err := r.tx.ExecContext(ctx, r.s.q(`DELETE FROM task_bodies WHERE workspace_id = ? AND id = ? AND first_number = ?`),
			r.c.ws, r.before.tasks.id, r.before.head.Number); err != nil {
			return fmt.Errorf("delete replaced task file: %w", err)
		}
	}
	return nil
}

// writeTasks works out the task file after the change, storing a new one under the edit's
// sequence number.
func (r *recording) writeTasks(ctx context.Context) error {
	r.tasks = r.before.tasks
	switch ch := r.out.tasks; {
	case ch == nil:
	case ch.reuse != nil:
		r.tasks = *ch.reuse
	case ch.body == nil:
		r.tasks = taskRef{}
	default:
		r.tasks = taskRef{ok: true, id: r.seq}
		if _, err := r.tx.ExecContext(ctx, r.s.q(`INSERT INTO task_bodies (workspace_id, id, body, first_number) VALUES (?, ?, ?, ?)`),
			r.c.ws, r.seq, ch.body, r.number); err != nil {
			return fmt.Errorf("write task file: %w", err)
		}
	}
	return nil
}

// extendHead writes the change into the head revision.
func (r *recording) extendHead(ctx context.Context, tasksArg any) error {
	head := r.before.head
	r.rev = head
	r.rev.Updated, r.rev.Edits, r.rev.LastSeq = r.t, head.Edits+1, r.seq
	// Guarded: a head named (or sealed by a run) since it was read is not extended.
	up, err := r.tx.ExecContext(ctx, r.s.q(`UPDATE revisions SET envelope = ?, tools = ?, tasks = ?, updated_at = ?, edit_count = ?, last_seq = ?
		WHERE workspace_id = ? AND number = ? AND name IS NULL AND field = ?`),
		r.sn.envelope, r.sn.list, tasksArg, store.Micros(r.t), r.rev.Edits, r.seq, r.c.ws, head.Number, head.Field)
	if err != nil {
		return fmt.Errorf("write revision %d: %w", head.Number, err)
	}
	if n, _ := up.RowsAffected(); n != 1 {
		return store.Errorf(store.Conflict, r.c.op, "revision %d was named or sealed as the edit arrived; send the edit again", head.Number)
	}
	return nil
}

// insertRevision writes the change as a new revision whose parent is the head.
func (r *recording) insertRevision(ctx context.Context, tasksArg any) error {
	c := r.c
	r.rev = store.Revision{Workspace: c.ws, Number: r.number, Parent: r.w.Head, Kind: c.kind, Author: c.author, AuthorID: c.authorID,
		Message: c.message, Field: r.field, Created: r.t, Updated: r.t, Edits: 1, FirstSeq: r.seq, LastSeq: r.seq, RestoredFrom: c.restored}
	var restored any
	if c.restored >= 0 {
		restored = c.restored
	}
	if _, err := r.tx.ExecContext(ctx, r.s.q(`INSERT INTO revisions (workspace_id, number, parent, kind, author, author_id, message, field, created_at, updated_at, edit_count, first_seq, last_seq, restored_from, envelope, tools, tasks)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`),
		c.ws, r.rev.Number, r.rev.Parent, string(r.rev.Kind), r.rev.Author, r.rev.AuthorID, r.rev.Message, r.rev.Field,
		store.Micros(r.t), store.Micros(r.t), r.seq, r.seq, restored, r.sn.envelope, r.sn.list, tasksArg); err != nil {
		return fmt.Errorf("write revision %d: %w", r.rev.Number, err)
	}
	return nil
}

// linkTools lists the new tools under the revision, and deletes the tools no revision lists
// any more.
func (r *recording) linkTools(ctx context.Context) error {
	if err := r.s.addRefs(ctx, r.tx, r.c.ws, r.rev.Number, r.added); err != nil {
		return err
	}
	return r.s.pruneTools(ctx, r.tx, r.dropped)
}

// tasksChanged tells whether the change stored another task file.
func (r *recording) tasksChanged() bool { return r.out.tasks != nil && r.tasks != r.before.tasks }

// writeEdit writes the edit's row in history.
func (r *recording) writeEdit(ctx context.Context) error {
	c := r.c
	if _, err := r.tx.ExecContext(ctx, r.s.q(`INSERT INTO edits (workspace_id, seq, revision, author, author_id, at, ops, tasks) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		c.ws, r.seq, r.rev.Number, c.author, c.authorID, store.Micros(r.t), r.opsJSON, boolInt(r.tasksChanged())); err != nil {
		return fmt.Errorf("write edit %d: %w", r.seq, err)
	}
	return nil
}

// advance moves the workspace's head and sequence number to the edit, with the shapes of its
// task file, tools and parameters after it.
func (r *recording) advance(ctx context.Context) error {
	c, w := r.c, r.w
	shape := w.TasksShape
	oneField := c.kind == store.KindTasks && (r.field != "" || c.moved != nil && c.moved.tasks && c.moved.path != "")
	if r.tasksChanged() && !oneField {
		shape = r.seq // not one field of one task: indexes may name other tasks now
	}
	toolsShape, paramsShapes := w.ToolsShape, w.ParamsShapes
	switch {
	case r.toolsMoved:
		// Every position is new: the tools' shape says so, and the parameters start over.
		toolsShape, paramsShapes = r.seq, nil
	case len(r.movedParams) > 0:
		paramsShapes = maps.Clone(paramsShapes)
		if paramsShapes == nil {
			paramsShapes = map[int]int64{}
		}
		for _, i := range r.movedParams {
			paramsShapes[i] = r.seq
		}
	}
	// The guard on seq turns a lost race (possible only if a dialect failed to lock) into a
	// Conflict instead of a lost edit.
	up, err := r.tx.ExecContext(ctx, r.s.q(`UPDATE workspaces SET head = ?, seq = ?, updated_at = ?, tasks_shape = ?, tools_shape = ?, params_shapes = ? WHERE id = ? AND seq = ?`),
		r.rev.Number, r.seq, store.Micros(r.t), shape, toolsShape, paramsShapesJSON(paramsShapes), c.ws, w.Seq)
	if err != nil {
		return err
	}
	if n, _ := up.RowsAffected(); n != 1 {
		return store.Errorf(store.Conflict, c.op, "another edit to workspace %s was accepted at the same time; send the edit again", c.ws)
	}
	r.res.Seq, r.res.Revision, r.res.Listing = r.seq, r.rev, r.out.l
	r.res.TasksShape, r.res.ToolsShape, r.res.ParamsShapes = shape, toolsShape, paramsShapes
	return nil
}

// writeUndo moves the step a Step took to the other stack, or pushes the edit on its
// author's undo.
func (r *recording) writeUndo(ctx context.Context) error {
	c := r.c
	switch {
	case c.moved != nil && c.moved.stack != "":
		var err error
		r.res.Undo, err = r.s.moveStep(ctx, r.tx, c.ws, c.authorID, *c.moved)
		return err
	case c.undo != nil && c.authorID != "":
		after := state{head: r.rev, l: r.out.l, refs: r.sn.refs, tasks: r.tasks, shape: r.res.TasksShape}
		if r.out.tasks != nil && r.out.tasks.reuse == nil {
			after.tasksBody = r.out.tasks.body
		}
		if err := r.s.pushStep(ctx, r.tx, c, r.before, after, r.res.Coalesced); err != nil {
			return err
		}
		r.res.Undo = store.UndoState{CanUndo: true}
	}
	return nil
}

// event is what the recorded change tells the workspace's subscribers.
func (r *recording) event() store.Event {
	kind := store.EventEdit
	if len(r.out.ops) == 0 && r.tasksChanged() {
		kind = store.EventTasks
	}
	return store.Event{Workspace: r.c.ws, Kind: kind, Seq: r.seq, Revision: r.rev.Number, Author: r.c.author, AuthorID: r.c.authorID,
		Coalesced: r.res.Coalesced, Field: eventField(r.evField)}
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
