package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// Edit is one change by one person, as data: listing operations, a tool-level edit, a new task
// file or one task changed. Key names the field it touches ("tools/3/description"; a tool edit
// or a task change names its own when Key is empty); consecutive edits by one person with the
// same non-empty key are one step of that person's undo, so undo takes back a burst of typing.
type Edit struct {
	// Ops are listing operations applied as they are (a re-fetched listing's).
	Ops []listing.Op
	// Tool, when set instead of Ops, is made into ops from the listing as read, to answer a
	// mistake at once, and again from the head under the store's write lock when someone
	// else's edit landed in between, so that it is never made from a stale read.
	Tool *tooledit.Edit
	// ToolsBase and ParamsBase, when set, are the shapes the edit's positions were rendered
	// at (ParamsBase: of the parameters of tool Tool.Tool); a listing reshaped since refuses
	// the edit with a *StaleTools.
	ToolsBase, ParamsBase *int64
	// Tasks replaces the task file when SetTasks is set.
	Tasks    []selection.Task
	SetTasks bool
	// Task, when set, changes one task of the task file as it stands when it is stored: made
	// again from a fresher one when someone else's task edit lands first, so that neither is
	// lost.
	Task *TaskChange
	// ShapeBase, for a Task, is the version of the task table the change was made in (the
	// page's): a task file whose shape changed after it (store.Workspace.TasksShape) refuses
	// the change with a *StaleTasks, since its index may name another task now. -1: unchecked.
	ShapeBase int
	Key       string
	Message   string
	// Make, when set instead of Ops and Tool, makes the edit's ops from the head under the
	// store's write lock (a quick fix, made again from whatever landed since it was previewed);
	// no ops is nothing to do. The tools it renames then have the task file's expects follow,
	// as a second record made from the freshest task file. See applyMade.
	Make func(head *listing.Listing) ([]listing.Op, []lint.Rename, error)
	// Alone records the edit as a revision of its own that no later edit extends (store.Edit).
	Alone bool
}

// TaskChange is one change to a task file: a task added at the end ("add"), task Index
// removed ("del"), its Field ("task" or "expect") set to Value ("set"), or every expect that
// names a tool of Renames renamed ("rename": what a rename repair does to the task file).
type TaskChange struct {
	Op      string
	Index   int
	Field   string
	Value   string
	Renames []lint.Rename
}

// Key is the undo key of a change of one task's field ("tasks/3/task"); "" for the others.
func (tc TaskChange) Key() string {
	if tc.Op != "set" {
		return ""
	}
	return fmt.Sprintf("tasks/%d/%s", tc.Index, tc.Field)
}

// apply returns the task file cur with tc made; a task that is gone is a *StaleTasks.
func (tc TaskChange) apply(cur []selection.Task) ([]selection.Task, error) {
	if tc.Op == "rename" {
		out := analysis.RenameTasks(cur, tc.Renames)
		if len(out) == 0 || &out[0] == &cur[0] {
			return nil, errNoTaskChange // no expect names a renamed tool
		}
		return out, nil
	}
	tasks := append([]selection.Task(nil), cur...)
	if tc.Op != "add" && (tc.Index < 0 || tc.Index >= len(tasks)) {
		return nil, &StaleTasks{}
	}
	switch tc.Op {
	case "add":
		tasks = append(tasks, selection.Task{})
	case "del":
		tasks = append(tasks[:tc.Index], tasks[tc.Index+1:]...)
	case "set":
		if tc.Field == "task" {
			tasks[tc.Index].Task = tc.Value
		} else if v := strings.TrimSpace(tc.Value); v == "" {
			tasks[tc.Index] = tasks[tc.Index].WithExpect(nil)
		} else if t := tasks[tc.Index]; t.AnyOf == nil || v != t.Expected() {
			// The table shows one expected tool: choosing another replaces a set (choosing its
			// first answer again leaves it).
			tasks[tc.Index] = t.WithExpect(&v)
		}
	default:
		return nil, fmt.Errorf("unknown task operation %q", tc.Op)
	}
	return tasks, nil
}

// StaleTools is an edit that was not applied because it was made in a page whose tool or
// parameter positions are older than the listing's shape: a tool or parameter was added,
// removed or moved since, so its position may name another one now.
type StaleTools struct{}

func (e *StaleTools) Error() string {
	return "the tools changed before the change reached the server"
}

// StaleTasks is a task change that was not applied: made in a task table whose shape has
// changed since (its index may name another task now), naming a task that is gone, or (Busy)
// overtaken by others' task edits maxTaskRetries times.
type StaleTasks struct{ Busy bool }

func (e *StaleTasks) Error() string {
	return "the task table changed before the change reached the server"
}

// Refused is a tool edit that does not apply to the workspace as read: Err says why (a
// *tooledit.Problem to show the person, or a request no page sends). Gone: the tool it names
// is not in the listing.
type Refused struct {
	Err  error
	Gone bool
}

func (e *Refused) Error() string { return "refused edit: " + e.Err.Error() }
func (e *Refused) Unwrap() error { return e.Err }

// errNoTaskChange is a task change that leaves the task file as it is: nothing is recorded.
var errNoTaskChange = errors.New("the task file is unchanged")

// maxTaskRetries bounds the attempts of one task edit against others landing first.
const maxTaskRetries = 5

// applyTasks records e's task file after ch (a listing edit of the same change, if any), made
// again from a fresher task file when someone else's task edit lands first.
func (s *Service) applyTasks(ctx context.Context, ch Change, e Edit, who Author) (Change, error) {
	cur := ch.After
	key := e.Key
	if key == "" && e.Task != nil {
		key = e.Task.Key()
	}
	for attempt := 1; ; attempt++ {
		tasks, base, shape := e.Tasks, (*int64)(nil), (*int64)(nil)
		if e.Task != nil {
			if e.ShapeBase >= 0 && cur.TasksShape > e.ShapeBase {
				return withAfter(ch, cur), &StaleTasks{}
			}
			var err error
			if tasks, err = e.Task.apply(cur.Tasks); errors.Is(err, errNoTaskChange) {
				return withAfter(ch, cur), nil
			} else if err != nil {
				return withAfter(ch, cur), err
			}
			base = &cur.TasksSeq
			if e.ShapeBase >= 0 {
				g := int64(e.ShapeBase)
				shape = &g
			}
		}
		tj, err := tasksJSON(tasks)
		if err != nil {
			return ch, err
		}
		res, err := s.st.PutTasks(ctx, store.TaskEdit{Workspace: cur.ID, Author: who.Name, AuthorID: who.ID, Body: tj, Message: messageOr(e.Message, taskSummary(e.Task)),
			Field: taskField(key), Undo: &store.Undoable{Key: key, Path: taskField(key)}, Base: base, ShapeBase: shape})
		ch.Result = res
		if errors.Is(err, store.ErrTasksReshaped) {
			return withAfter(ch, cur), &StaleTasks{}
		}
		if store.KindOf(err) == store.Conflict && e.Task != nil {
			if attempt >= maxTaskRetries {
				return withAfter(ch, cur), &StaleTasks{Busy: true}
			}
			// Someone else's task edit landed first: make this one again from theirs.
			if cur, err = s.read(ctx, cur.ID, who, false); err != nil {
				return ch, err
			}
			continue
		}
		if err != nil {
			return ch, storeErr(err)
		}
		// The head and the undo state changed, and the task file: the rest is as read.
		s.cacheHead(cur.ID, res.Seq, res.Listing)
		after := cur
		after.Listing, after.Version, after.Head = res.Listing, int(res.Seq), res.Revision.Number
		after.Tasks, after.TasksSeq, after.TasksShape = tasks, res.Revision.TasksSeq, int(res.TasksShape)
		// and the shapes of tools and parameters, which someone may have moved meanwhile
		after.ToolsShape, after.ParamsShapes = int(res.ToolsShape), res.ParamsShapes
		after.CanUndo, after.CanRedo = res.Undo.CanUndo, res.Undo.CanRedo
		return withAfter(ch, after), nil
	}
}

func withAfter(ch Change, after Workspace) Change {
	ch.After = after
	return ch
}
