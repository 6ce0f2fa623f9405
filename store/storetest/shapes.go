package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// testTasksShape: Workspace.TasksShape moves with the edits that change the task file's shape
// (not one field of one task), and only with them.
func testTasksShape(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	shape := func() int64 {
		t.Helper()
		rec, err := s.Workspace(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		return rec.TasksShape
	}
	steps := []struct {
		name  string
		do    func() (store.EditResult, error)
		moves bool
	}{
		{"a first task file", func() (store.EditResult, error) {
			return s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: json.RawMessage(`[{"task": "a"}]`), Now: t0})
		}, true},
		{"one field of one task", func() (store.EditResult, error) {
			return s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Field: "/0/task", Body: json.RawMessage(`[{"task": "ab"}]`), Now: t0})
		}, false},
		{"a listing edit", func() (store.EditResult, error) {
			return s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: set("/tools/0/description", "x"), Now: t0})
		}, false},
		{"a task added", func() (store.EditResult, error) {
			return s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: json.RawMessage(`[{"task": "ab"}, {"task": ""}]`), Now: t0})
		}, true},
		{"a restore", func() (store.EditResult, error) {
			return s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 1, Now: t0})
		}, true},
	}
	// An edit whose task indexes come from before the last shape change is refused.
	defer func() {
		old, cur := int64(0), shape()
		_, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Field: "/0/task", Body: json.RawMessage(`[{"task": "x"}]`), ShapeBase: &old, Now: t0})
		wantKind(t, "a task edit from before the shape changed", err, store.Conflict)
		if !errors.Is(err, store.ErrTasksReshaped) {
			t.Errorf("its cause is %v, want ErrTasksReshaped", err)
		}
		if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Field: "/0/task", Body: json.RawMessage(`[{"task": "x"}]`), ShapeBase: &cur, Now: t0}); err != nil {
			t.Errorf("a task edit from the current shape: %v", err)
		}
	}()
	for _, st := range steps {
		before := shape()
		res, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		switch got := shape(); {
		case st.moves && got != res.Seq:
			t.Errorf("%s: TasksShape %d, want its seq %d", st.name, got, res.Seq)
		case !st.moves && got != before:
			t.Errorf("%s: TasksShape moved from %d to %d", st.name, before, got)
		}
	}
}

// testToolsShape: Workspace.ToolsShape moves with the edits that move a tool, ParamsShapes[i]
// with those that move a parameter of tool i (and start over when tools move), and only with
// them; an edit whose positions come from before is refused. The steps share one workspace and
// run in order.
func testToolsShape(t *testing.T, s store.Store) {
	w := &shapeWorkspace{t: t, s: s, id: newWorkspace(t, s, t0).ID}
	checkShapeSteps(t, w)
	checkStaleShapesRefused(t, w)
	checkParamMoveNotExtended(t, w)
	cur := w.read()
	f, err := s.ForkWorkspace(context.Background(), store.Fork{From: w.id, Title: "fork", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if f.ToolsShape != cur.tools || !maps.Equal(f.ParamsShapes, cur.params) {
		t.Errorf("a fork's shapes are %d %v, want its source's %+v", f.ToolsShape, f.ParamsShapes, cur)
	}
}

// shapeWorkspace is the workspace testToolsShape edits, with the edits it makes.
type shapeWorkspace struct {
	t  *testing.T
	s  store.Store
	id string
}

// shapes are a workspace's tools' and parameters' shapes.
type shapes struct {
	tools  int64
	params map[int]int64
}

func (w *shapeWorkspace) read() shapes {
	w.t.Helper()
	rec, err := w.s.Workspace(context.Background(), w.id)
	if err != nil {
		w.t.Fatal(err)
	}
	return shapes{rec.ToolsShape, rec.ParamsShapes}
}

// edit returns an undoable edit of ops by ada, to make later.
func (w *shapeWorkspace) edit(ops ...listing.Op) func() (store.EditResult, error) {
	return func() (store.EditResult, error) {
		return w.s.AppendEdit(context.Background(), store.Edit{Workspace: w.id, Author: "ada", AuthorID: "ada", Ops: ops, Now: t0,
			Undo: &store.Undoable{Path: store.UndoScope(ops)}})
	}
}

func (w *shapeWorkspace) undo() (store.EditResult, error) {
	return w.s.Step(context.Background(), store.Step{Workspace: w.id, Author: "ada", AuthorID: "ada", Now: t0})
}

// setSchema returns an edit that sets tool i's input schema to the JSON text.
func (w *shapeWorkspace) setSchema(i int, text string) func() (store.EditResult, error) {
	return w.edit(listing.Op{Kind: listing.OpSet, Path: fmt.Sprintf("/tools/%d/inputSchema", i), Value: w.parse(text)})
}

func (w *shapeWorkspace) parse(text string) *listing.Value {
	v, err := listing.ParseJSON([]byte(text))
	if err != nil {
		w.t.Fatal(err)
	}
	return v
}

// checkShapeSteps makes edits of every kind and checks how each moves the shapes.
func checkShapeSteps(t *testing.T, w *shapeWorkspace) {
	ctx := context.Background()
	const (
		same    = -1 // the shape stays
		thisSeq = -2 // the shape becomes the edit's seq
		cleared = -3 // the parameters' shapes start over
	)
	steps := []struct {
		name         string
		do           func() (store.EditResult, error)
		tools        int
		paramsOfTool int // the tool whose parameters' shape becomes the seq; -1 none
		params       int
	}{
		{"a description", w.edit(set("/tools/0/description", "x")...), same, -1, same},
		{"its undo", w.undo, same, -1, same},
		{"a tool renamed", w.edit(set("/tools/1/name", "read_file")...), same, -1, same},
		{"a parameter's field", w.edit(set("/tools/0/inputSchema/properties/q/description", "the query")...), same, -1, same},
		{"a parameter renamed in place", w.setSchema(0, `{"type": "object", "properties": {"query": {"type": "string"}}}`), same, -1, same},
		{"a parameter added", w.setSchema(0, `{"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}}`), same, 0, thisSeq},
		{"parameters moved in another tool", w.setSchema(2, `{"type": "object", "properties": {"a": {}}}`), same, 2, thisSeq},
		{"their undo", w.undo, same, 2, thisSeq},
		{"a tool moved", w.edit(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 0, To: 2}), thisSeq, -1, cleared},
		{"a tool added", w.edit(listing.Op{Kind: listing.OpInsert, Path: "/tools/-", Value: w.parse(`{"name": "new", "inputSchema": {"type": "object"}}`)}), thisSeq, -1, cleared},
		{"a tool removed", w.edit(listing.Op{Kind: listing.OpRemove, Path: "/tools/3"}), thisSeq, -1, cleared},
		{"its undo", w.undo, thisSeq, -1, cleared},
		{"a task file", func() (store.EditResult, error) {
			return w.s.PutTasks(ctx, store.TaskEdit{Workspace: w.id, Body: json.RawMessage(`[{"task": "a"}]`), Now: t0})
		}, same, -1, same},
		{"a restore", func() (store.EditResult, error) {
			return w.s.Restore(ctx, store.Restore{Workspace: w.id, Number: 1, Now: t0})
		}, thisSeq, -1, cleared},
		{"a commit", func() (store.EditResult, error) {
			return w.s.Commit(ctx, store.Commit{Workspace: w.id, Listing: Sample(t), Now: t0})
		}, thisSeq, -1, cleared},
	}
	for _, st := range steps {
		before := w.read()
		res, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := w.read()
		switch {
		case st.tools == same && got.tools != before.tools, st.tools == thisSeq && got.tools != res.Seq:
			t.Errorf("%s: ToolsShape %d (before %d, the edit's seq %d)", st.name, got.tools, before.tools, res.Seq)
		}
		want := before.params
		switch st.params {
		case thisSeq:
			want = maps.Clone(want)
			if want == nil {
				want = map[int]int64{}
			}
			want[st.paramsOfTool] = res.Seq
		case cleared:
			want = nil
		}
		if len(got.params) != len(want) || !maps.Equal(got.params, want) {
			t.Errorf("%s: ParamsShapes %v, want %v", st.name, got.params, want)
		}
		if res.ToolsShape != got.tools || !maps.Equal(res.ParamsShapes, got.params) {
			t.Errorf("%s: the result says %d %v, the workspace %+v", st.name, res.ToolsShape, res.ParamsShapes, got)
		}
	}
}

// checkStaleShapesRefused: tool 1's parameters move; an edit of tool 0's parameters from
// before is still accepted, one of tool 1's is not; nor is an edit from before the tools moved.
func checkStaleShapesRefused(t *testing.T, w *shapeWorkspace) {
	ctx := context.Background()
	if _, err := w.setSchema(1, `{"type": "object", "properties": {"b": {}}}`)(); err != nil {
		t.Fatal(err)
	}
	cur := w.read()
	old := int64(0)
	if p1 := cur.params[1]; p1 == 0 {
		t.Fatal("tool 1's parameters moved, but its shape did not")
	} else if _, err := w.s.AppendEdit(ctx, store.Edit{Workspace: w.id, Ops: set("/tools/1/description", "current"), ToolsBase: &cur.tools, ParamsTool: 1, ParamsBase: &p1, Now: t0}); err != nil {
		t.Errorf("an edit of tool 1 from its current parameters' shape: %v", err)
	}
	if _, err := w.s.AppendEdit(ctx, store.Edit{Workspace: w.id, Ops: set("/tools/0/description", "other tool"), ToolsBase: &cur.tools, ParamsTool: 0, ParamsBase: &old, Now: t0}); err != nil {
		t.Errorf("an edit of a tool whose parameters did not move: %v", err)
	}
	for _, e := range []store.Edit{
		{Workspace: w.id, Ops: set("/tools/1/description", "stale"), ToolsBase: &cur.tools, ParamsTool: 1, ParamsBase: &old, Now: t0},
		{Workspace: w.id, Ops: set("/tools/1/description", "stale"), ToolsBase: &old, Now: t0},
	} {
		_, err := w.s.AppendEdit(ctx, e)
		wantKind(t, "an edit from before the shape moved", err, store.Conflict)
		if !errors.Is(err, store.ErrToolsReshaped) {
			t.Errorf("its cause is %v, want ErrToolsReshaped", err)
		}
	}
}

// checkParamMoveNotExtended: an edit that moved a parameter is a revision of its own: the same
// person's next edit of that schema, a moment later, does not extend it.
func checkParamMoveNotExtended(t *testing.T, w *shapeWorkspace) {
	added, err := w.setSchema(0, `{"type": "object", "properties": {"x": {}, "new": {}}}`)()
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := w.setSchema(0, `{"type": "object", "properties": {"x": {}, "renamed": {}}}`)()
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Coalesced || renamed.Revision.Number == added.Revision.Number {
		t.Errorf("a rename right after a parameter was added extended its revision %d", added.Revision.Number)
	}
}

// testMakeOps: an edit whose ops are made from the head under the write lock sees every edit
// accepted before it; its error and an empty result change nothing; its undo takes the scope
// of the ops it made.
func testMakeOps(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: set("/tools/0/description", "first"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	var seen string
	res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "ada", Now: t0, Undo: &store.Undoable{Key: "k"},
		Make: func(head *listing.Listing) ([]listing.Op, error) {
			seen = head.Tools[0].Get("description").String()
			return set("/tools/0/description", seen+" and second"), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if seen != "first" || res.Listing.Tools[0].Get("description").String() != "first and second" {
		t.Errorf("Make saw %q and made %q", seen, res.Listing.Tools[0].Get("description").String())
	}
	if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "ada", Now: t0}); err != nil {
		t.Fatalf("undo of a made edit: %v", err)
	}
	head, err := s.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := head.Listing.Tools[0].Get("description").String(); got != "first" {
		t.Errorf("after undo the description is %q, want %q", got, "first")
	}
	rec, _ := s.Workspace(ctx, w.ID)
	why := errors.New("a parameter needs a name")
	_, err = s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Now: t0, Make: func(*listing.Listing) ([]listing.Op, error) { return nil, why }})
	wantKind(t, "Make's error", err, store.Invalid)
	if !errors.Is(err, why) {
		t.Errorf("Make's error is lost: %v", err)
	}
	res, err = s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Now: t0, Make: func(*listing.Listing) ([]listing.Op, error) { return nil, nil }})
	if err != nil || res.Seq != 0 {
		t.Errorf("nothing to do: seq %d, %v", res.Seq, err)
	}
	if after, _ := s.Workspace(ctx, w.ID); after.Seq != rec.Seq {
		t.Errorf("a refused or empty made edit moved the workspace from %d to %d", rec.Seq, after.Seq)
	}
}
