package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// ErrNotFound is a workspace id that the store does not know.
var ErrNotFound = errors.New("no such workspace")

// Workspace is what the handlers show of one workspace: its head listing, the baseline it was
// imported as, and its task file.
type Workspace struct {
	ID       string
	Name     string
	Listing  *listing.Listing
	Baseline *listing.Listing
	Tasks    []selection.Task
	// Version is the store's edit sequence number (store.Workspace.Seq), which every edit of
	// the listing or the task file moves; patches and the page's ver signal carry it.
	Version int
	Head    int
	// TasksSeq names the task file Tasks came from (store.TaskFile.Seq; -1: none);
	// TasksShape is the version its shape last changed at (store.Workspace.TasksShape).
	TasksSeq   int64
	TasksShape int
	// ToolsShape is the version at which a tool was last added, removed or moved, and
	// ParamsShapes[i] the version at which a parameter of tool i was since (store.Workspace);
	// pages render them into every action that names a tool or parameter by position
	// (views.editExpr).
	ToolsShape   int
	ParamsShapes map[int]int64
	// CanUndo and CanRedo are for the person who asked (undo is per person).
	CanUndo bool
	CanRedo bool
	Created time.Time
	Forked  string
}

// Edit is one change by one person: listing operations, a new task file, or both. Key names the
// field it touches ("tools/3/description"); consecutive edits by one person with the same
// non-empty key are one step of that person's undo, so undo takes back a burst of typing.
type Edit struct {
	Ops []listing.Op
	// Make, when set instead of Ops, makes the ops from the head listing under the store's
	// write lock (store.Edit.Make).
	Make func(head *listing.Listing) ([]listing.Op, error)
	// ToolsBase and ParamsBase, when set, are the shapes the change's positions were rendered
	// at (ParamsBase: of tool ParamsTool's parameters); a listing reshaped since refuses the
	// edit with a *staleTools.
	ToolsBase, ParamsBase *int64
	ParamsTool            int
	// Tasks replaces the task file when SetTasks is set; TasksFn, when set instead, makes the
	// new task file from the current one (one task changed), and is made again from a fresher
	// one when someone else's task edit lands first, so that neither is lost.
	Tasks   []selection.Task
	TasksFn func(cur []selection.Task) ([]selection.Task, error)
	// ShapeBase, for a TasksFn, is the version of the task table the change was made in (the
	// page's): a task file whose shape changed after it (store.Workspace.TasksShape) refuses
	// the change with a *staleTasks, since its index may name another task now. -1: unchecked.
	ShapeBase int
	SetTasks  bool
	Key       string
	Message   string
}

// Author is who makes a change: a display name and an ID that tells apart two people who chose
// the same name.
type Author struct {
	Name string
	ID   string
}

// NewID returns an unguessable id (page ids; workspace ids come from the store).
func NewID() string { return store.NewID() }

// workspaces adapts a store.Store to what the handlers need: the head listing with its baseline
// and tasks, edits with per-person undo and redo. It caches what never changes (baselines) and
// what a sequence number pins (head listings), so that a page shown twice costs one query.
type workspaces struct {
	st store.Store

	mu    sync.Mutex
	heads map[string]headEntry
	bases map[string]*listing.Listing
	tasks map[string]tasksEntry // parsed task files, by workspace id
}

// tasksEntry is a parsed task file and the stored version it came from: every page render and
// edit reads the task file, and parsing a large one costs more than the rest.
type tasksEntry struct {
	seq   int64
	tasks []selection.Task
}

type headEntry struct {
	seq int64
	l   *listing.Listing
}

func newWorkspaces(st store.Store) *workspaces {
	return &workspaces{st: st, heads: map[string]headEntry{}, bases: map[string]*listing.Listing{},
		tasks: map[string]tasksEntry{}}
}

// maxCached bounds the listings cached per kind (heads, baselines): a cache miss costs one
// query, an unbounded cache a server's memory.
const maxCached = 512

func (w *workspaces) cacheHead(id string, seq int64, l *listing.Listing) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.heads[id]; !ok && len(w.heads) >= maxCached {
		for k := range w.heads { // any one: map order is random
			delete(w.heads, k)
			break
		}
	}
	w.heads[id] = headEntry{seq: seq, l: l}
}

// storeErr turns the store's "not found" into the page's ErrNotFound, keeping the cause.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	if store.KindOf(err) == store.NotFound {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// title makes a workspace title the store accepts from a file or server name.
func title(name string) string {
	name = strings.Map(displayRune, strings.ToValidUTF8(name, "?"))
	name = strings.TrimSpace(name)
	if name == "" {
		return "Untitled"
	}
	if utf8.RuneCountInString(name) > store.MaxTitle {
		name = string([]rune(name)[:store.MaxTitle-1]) + "…"
	}
	return name
}

// displayRune is r as a one-line display text may hold it (store.CheckText): control characters
// and bidirectional controls become spaces.
func displayRune(r rune) rune {
	if r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
		return ' '
	}
	return r
}

// authorName keeps a display name within the store's limits.
func authorName(a Author) Author {
	a.Name = strings.TrimSpace(strings.Map(displayRune, strings.ToValidUTF8(a.Name, "?")))
	if a.Name == "" {
		a.Name = "Anonymous"
	}
	if utf8.RuneCountInString(a.Name) > store.MaxAuthor {
		a.Name = string([]rune(a.Name)[:store.MaxAuthor])
	}
	return a
}

func tasksJSON(tasks []selection.Task) (json.RawMessage, error) {
	if tasks == nil {
		tasks = []selection.Task{}
	}
	b, err := json.Marshal(tasks)
	if err != nil {
		return nil, fmt.Errorf("encode tasks: %w", err)
	}
	return b, nil
}

// Create stores a new workspace whose baseline is l.
func (w *workspaces) Create(ctx context.Context, name string, l *listing.Listing, tasks []selection.Task, who Author, message string) (Workspace, error) {
	if l == nil {
		return Workspace{}, errors.New("create workspace: no listing")
	}
	who = authorName(who)
	var tj json.RawMessage
	if tasks != nil {
		var err error
		if tj, err = tasksJSON(tasks); err != nil {
			return Workspace{}, err
		}
	}
	rec, err := w.st.CreateWorkspace(ctx, store.NewWorkspace{Title: title(name), Author: who.Name, Message: message, Listing: l, Tasks: tj})
	if err != nil {
		return Workspace{}, fmt.Errorf("create workspace: %w", err)
	}
	w.cacheHead(rec.ID, rec.Seq, l)
	return w.Get(ctx, rec.ID, who)
}

// Get returns a workspace as who sees it.
func (w *workspaces) Get(ctx context.Context, id string, who Author) (Workspace, error) {
	return w.get(ctx, id, who, true)
}

// get is Get; undo false leaves out who's undo state (an edit learns it from the store's answer).
func (w *workspaces) get(ctx context.Context, id string, who Author, undo bool) (Workspace, error) {
	rec, err := w.st.Workspace(ctx, id)
	if err != nil {
		return Workspace{}, storeErr(err)
	}
	w.mu.Lock()
	h, okH := w.heads[id]
	base := w.bases[id]
	w.mu.Unlock()
	var head *listing.Listing
	version, number := rec.Seq, rec.Head
	if okH && h.seq == rec.Seq {
		head = h.l
	} else {
		for attempt := 0; ; attempt++ {
			rev, err := w.st.Revision(ctx, id, -1)
			if err != nil {
				return Workspace{}, storeErr(err)
			}
			// The head may have moved on since the workspace was read; its own last seq is
			// what it pins.
			pinned := rev.LastSeq
			if rev.Number == 0 {
				pinned = 0
			}
			head, version, number = rev.Listing, max(pinned, rec.Seq), rev.Number
			if pinned <= rec.Seq || attempt == 3 {
				break
			}
			// Read the workspace again, so that its shapes are the listing's: older shapes are
			// only refused (never wrong), but the state cache would keep them, and every retry
			// of the refused change would be refused again.
			if rec, err = w.st.Workspace(ctx, id); err != nil {
				return Workspace{}, storeErr(err)
			}
			if rec.Seq == pinned {
				break
			}
		}
		w.cacheHead(id, version, head)
	}
	ws := Workspace{ID: rec.ID, Name: rec.Title, Version: int(version), Head: number, Created: rec.Created, Forked: rec.ForkedFrom,
		TasksShape: int(rec.TasksShape), ToolsShape: int(rec.ToolsShape), ParamsShapes: rec.ParamsShapes, Listing: head}
	if base == nil {
		rev, err := w.st.Revision(ctx, id, 0)
		if err != nil {
			return Workspace{}, storeErr(err)
		}
		base = rev.Listing
		w.mu.Lock()
		if len(w.bases) >= maxCached {
			clear(w.bases)
		}
		w.bases[id] = base
		w.mu.Unlock()
	}
	ws.Baseline = base
	ws.TasksSeq = -1
	tf, err := w.st.Tasks(ctx, id)
	switch {
	case err == nil:
		ws.TasksSeq = tf.Seq
		if len(tf.Body) > 0 {
			// Task files were checked when they were stored; one that no longer parses (an
			// older format) shows as no tasks rather than breaking the page.
			ws.Tasks = w.parsedTasks(id, tf)
		}
	case store.KindOf(err) != store.NotFound:
		return Workspace{}, storeErr(err)
	}
	if undo && who.ID != "" {
		u, err := w.st.UndoState(ctx, id, who.ID)
		if err != nil {
			return Workspace{}, storeErr(err)
		}
		ws.CanUndo, ws.CanRedo = u.CanUndo, u.CanRedo
	}
	return ws, nil
}

// Apply records e by who and returns the workspace after it, with the store's result for its
// last edit (zero when e changes nothing). Each edit is a step of who's undo, kept by the store.
func (w *workspaces) Apply(ctx context.Context, id string, e Edit, who Author) (Workspace, store.EditResult, error) {
	who = authorName(who)
	before, err := w.get(ctx, id, who, false)
	if err != nil {
		return Workspace{}, store.EditResult{}, err
	}
	var res store.EditResult
	if len(e.Ops) > 0 || e.Make != nil {
		se := store.Edit{Workspace: id, Author: who.Name, AuthorID: who.ID, Ops: e.Ops, Message: e.Message,
			Undo: &store.Undoable{Key: e.Key}}
		if e.Make != nil {
			se.Make = e.Make
		} else {
			se.Undo.Path = store.UndoScope(e.Ops)
		}
		se.ToolsBase, se.ParamsBase, se.ParamsTool = e.ToolsBase, e.ParamsBase, e.ParamsTool
		res, err = w.st.AppendEdit(ctx, se)
		if errors.Is(err, store.ErrToolsReshaped) {
			return before, res, &staleTools{}
		}
		if err != nil {
			return Workspace{}, res, storeErr(err)
		}
		if res.Seq > 0 {
			w.cacheHead(id, res.Seq, res.Listing)
		}
	}
	if e.SetTasks {
		cur := before
		for attempt := 1; ; attempt++ {
			tasks, base := e.Tasks, (*int64)(nil)
			if e.TasksFn != nil {
				if e.ShapeBase >= 0 && cur.TasksShape > e.ShapeBase {
					return cur, res, &staleTasks{}
				}
				if tasks, err = e.TasksFn(cur.Tasks); err != nil {
					return cur, res, err
				}
				base = &cur.TasksSeq
			}
			tj, err := tasksJSON(tasks)
			if err != nil {
				return Workspace{}, res, err
			}
			var shape *int64
			if e.TasksFn != nil && e.ShapeBase >= 0 {
				g := int64(e.ShapeBase)
				shape = &g
			}
			res, err = w.st.PutTasks(ctx, store.TaskEdit{Workspace: id, Author: who.Name, AuthorID: who.ID, Body: tj, Message: e.Message,
				Field: taskField(e.Key), Undo: &store.Undoable{Key: e.Key, Path: taskField(e.Key)}, Base: base, ShapeBase: shape})
			if errors.Is(err, store.ErrTasksReshaped) {
				return cur, res, &staleTasks{}
			}
			if store.KindOf(err) == store.Conflict && e.TasksFn != nil {
				if attempt >= maxTaskRetries {
					return cur, res, &staleTasks{busy: true}
				}
				// Someone else's task edit landed first: make this one again from theirs.
				if cur, err = w.get(ctx, id, who, false); err != nil {
					return Workspace{}, res, err
				}
				continue
			}
			if err != nil {
				return Workspace{}, res, storeErr(err)
			}
			// The head and the undo state changed, and the task file: the rest is as read.
			w.cacheHead(id, res.Seq, res.Listing)
			after := cur
			after.Listing, after.Version, after.Head = res.Listing, int(res.Seq), res.Revision.Number
			after.Tasks, after.TasksSeq, after.TasksShape = tasks, res.Revision.TasksSeq, int(res.TasksShape)
			// and the shapes of tools and parameters, which someone may have moved meanwhile
			after.ToolsShape, after.ParamsShapes = int(res.ToolsShape), res.ParamsShapes
			after.CanUndo, after.CanRedo = res.Undo.CanUndo, res.Undo.CanRedo
			return after, res, nil
		}
	}
	if res.Seq == 0 {
		cur, err := w.Get(ctx, id, who) // nothing changed; the undo state is read as it stands
		return cur, res, err
	}
	// A listing edit changes the head and the undo state only: the rest is what it was a
	// moment ago, so the workspace after it needs no second round of reads.
	after := before
	after.Listing, after.Version, after.Head = res.Listing, int(res.Seq), res.Revision.Number
	after.ToolsShape, after.ParamsShapes = int(res.ToolsShape), res.ParamsShapes
	after.CanUndo, after.CanRedo = res.Undo.CanUndo, res.Undo.CanRedo
	return after, res, nil
}

// staleTools is an edit that was not applied because it was made in a page whose tool or
// parameter positions are older than the listing's shape: a tool or parameter was added,
// removed or moved since, so its position may name another one now. The page gets the editor
// as it stands and the text back.
type staleTools struct{}

func (e *staleTools) Error() string {
	return "the tools changed before the change reached the server"
}

// staleTasks is a task change that was not applied: made in a task table whose shape has
// changed since (its index may name another task now), naming a task that is gone, or (busy)
// overtaken by others' task edits maxTaskRetries times. The page gets the table as it stands
// and the text back.
type staleTasks struct{ busy bool }

func (e *staleTasks) Error() string {
	return "the task table changed before the change reached the server"
}

// maxTaskRetries bounds the attempts of one task edit against others landing first.
const maxTaskRetries = 5

// taskField is the pointer into the stored task file (an array of tasks) that a task edit's
// key names ("tasks/3/task" → "/3/task"), or "" for a structural task edit.
func taskField(key string) string {
	rest, ok := strings.CutPrefix(key, "tasks/")
	if !ok || rest == "" {
		return ""
	}
	return "/" + rest
}

// errUndo is an undo or redo that cannot be done; its text is shown to the person.
type errUndo struct{ msg string }

func (e *errUndo) Error() string { return e.msg }

// Step undoes (undo true) or redoes who's last step: the store writes back the value the field
// had, as a new edit, so history keeps both. A step whose field someone else changed since is
// refused: the later writer wins, and History can still restore any revision.
func (w *workspaces) Step(ctx context.Context, id string, undo bool, who Author) (Workspace, store.EditResult, error) {
	who = authorName(who)
	verb := "Undo"
	if !undo {
		verb = "Redo"
	}
	if who.ID == "" {
		cur, err := w.Get(ctx, id, who)
		return cur, store.EditResult{}, err
	}
	res, err := w.st.Step(ctx, store.Step{Workspace: id, Author: who.Name, AuthorID: who.ID, Redo: !undo})
	var sc *store.StepConflict
	switch {
	case errors.As(err, &sc):
		what := describePath(sc.Path)
		if sc.Tasks {
			what = describeTaskPath(sc.Path)
		}
		cur, gerr := w.Get(ctx, id, who)
		if gerr != nil {
			return Workspace{}, res, gerr
		}
		return cur, res, &errUndo{fmt.Sprintf("%s refused: someone else changed %s since; their change stands. History can restore any revision.", verb, what)}
	case store.KindOf(err) == store.NotFound && err != nil:
		// Nothing to take back (another tab of the same person took it already).
		if _, werr := w.st.Workspace(ctx, id); werr != nil {
			return Workspace{}, res, storeErr(werr)
		}
		cur, gerr := w.Get(ctx, id, who)
		return cur, store.EditResult{}, gerr
	case err != nil:
		return Workspace{}, res, storeErr(err)
	}
	w.cacheHead(id, res.Seq, res.Listing)
	after, err := w.Get(ctx, id, who)
	return after, res, err
}

// describeTaskPath names a pointer into the task file for a message: "task 4", or "the tasks"
// for the whole file.
func describeTaskPath(p string) string {
	toks, err := listing.SplitPointer(p)
	if err != nil || len(toks) == 0 {
		return "the tasks"
	}
	if i, err := strconv.Atoi(toks[0]); err == nil {
		return fmt.Sprintf("task %d", i+1)
	}
	return "the tasks"
}

// describePath names a pointer for a message: "the description of tool 3".
func describePath(p string) string {
	toks, err := listing.SplitPointer(p)
	if err != nil || len(toks) < 3 {
		return "the tools"
	}
	return fmt.Sprintf("%s of tool %s", strings.Join(toks[2:], "."), toks[1])
}

// Restore records revision n's listing as a new revision by who.
func (w *workspaces) Restore(ctx context.Context, id string, n int, who Author) (Workspace, store.EditResult, error) {
	who = authorName(who)
	res, err := w.st.Restore(ctx, store.Restore{Workspace: id, Number: n, Author: who.Name, AuthorID: who.ID,
		Message: fmt.Sprintf("restored revision %d", n)})
	if err != nil {
		return Workspace{}, res, storeErr(err)
	}
	w.cacheHead(id, res.Seq, res.Listing)
	ws, err := w.Get(ctx, id, who)
	return ws, res, err
}

// parsedTasks returns the parsed tasks of a stored task file, parsing it only when it changed.
// A file that no longer parses (an older format) reads as no tasks.
func (w *workspaces) parsedTasks(id string, tf store.TaskFile) []selection.Task {
	w.mu.Lock()
	e, ok := w.tasks[id]
	w.mu.Unlock()
	if ok && e.seq == tf.Seq {
		return e.tasks
	}
	ts, err := selection.ParseTasks(tf.Body, false)
	if err != nil {
		ts = nil
	}
	w.mu.Lock()
	if len(w.tasks) >= maxCached {
		clear(w.tasks)
	}
	w.tasks[id] = tasksEntry{seq: tf.Seq, tasks: ts}
	w.mu.Unlock()
	return ts
}
