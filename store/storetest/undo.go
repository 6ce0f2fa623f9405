package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// undoStep undoes (or redoes) one step of person a1 and fails the test on error.
func undoStep(t *testing.T, s store.Store, ws string, redo bool) store.EditResult {
	t.Helper()
	res, err := s.Step(context.Background(), store.Step{Workspace: ws, Author: "ada", AuthorID: "a1", Redo: redo, Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatalf("step (redo %v): %v", redo, err)
	}
	return res
}

func descOf(t *testing.T, s store.Store, ws string, tool int) string {
	t.Helper()
	r, err := s.Revision(context.Background(), ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Listing.Tools[tool].Get("description"); v != nil {
		return v.Str
	}
	return "<absent>"
}

// testUndo: undo is per person and kept by the store: a burst of typing is one step, undo and
// redo are edits in history, a step someone else overtook is refused and dropped.
func testUndo(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	u := &store.Undoable{Path: "/tools/0/description", Key: "k1"}
	for i, text := range []string{"S", "Se", "Sea"} {
		res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Ops: set(u.Path, text), Now: t0.Add(time.Duration(i) * time.Second), Undo: u})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Undo.CanUndo || res.Undo.CanRedo {
			t.Errorf("undo state after an undoable edit: %+v", res.Undo)
		}
	}
	// A second step: removing the description of tool 1 (its undo puts it back).
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(10 * time.Second),
		Ops: []listing.Op{{Kind: listing.OpRemove, Path: "/tools/1/description"}}, Undo: &store.Undoable{Path: "/tools/1/description"}}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.UndoState(ctx, w.ID, "a1"); err != nil || !st.CanUndo || st.CanRedo {
		t.Errorf("UndoState = %+v, %v", st, err)
	}
	if st, err := s.UndoState(ctx, w.ID, "b1"); err != nil || st.CanUndo || st.CanRedo {
		t.Errorf("someone else's UndoState = %+v, %v", st, err)
	}
	undoStep(t, s, w.ID, false)
	if got := descOf(t, s, w.ID, 1); got != "Read one file — fully" {
		t.Errorf("after undoing the removal: %q", got)
	}
	res := undoStep(t, s, w.ID, false)
	if got := descOf(t, s, w.ID, 0); got != "Search the files" {
		t.Errorf("after undoing the burst: %q", got)
	}
	if res.Undo.CanUndo || !res.Undo.CanRedo || res.Revision.Message != "Undo" {
		t.Errorf("after undoing everything: %+v, %+v", res.Undo, res.Revision)
	}
	_, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(time.Hour)})
	wantKind(t, "undo with nothing left", err, store.NotFound)
	undoStep(t, s, w.ID, true)
	if got := descOf(t, s, w.ID, 0); got != "Sea" {
		t.Errorf("after redo: %q", got)
	}
	// Someone else changes the field: the redo of the removal still applies, the undo of the
	// burst does not.
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bob", AuthorID: "b1", Ops: set(u.Path, "Bob's"), Now: t0.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	undoStep(t, s, w.ID, true)
	if got := descOf(t, s, w.ID, 1); got != "<absent>" {
		t.Errorf("after redoing the removal: %q", got)
	}
	undoStep(t, s, w.ID, false) // the removal again
	_, err = s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(3 * time.Hour)})
	wantKind(t, "undo of an overtaken step", err, store.Conflict)
	var sc *store.StepConflict
	if !errors.As(err, &sc) || sc.Path != u.Path {
		t.Errorf("conflict cause = %#v, want the path %s", sc, u.Path)
	}
	if got := descOf(t, s, w.ID, 0); got != "Bob's" {
		t.Errorf("the refused undo changed the field: %q", got)
	}
	if st, _ := s.UndoState(ctx, w.ID, "a1"); st.CanUndo {
		t.Errorf("the overtaken step is still there: %+v", st)
	}
	// Every edit, undo and redo is in history.
	edits, err := s.Edits(ctx, w.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 10 {
		t.Errorf("%d edits in history, want 10 (4 edits, 4 steps, 1 by bob, 1 more undo)", len(edits))
	}
	checkHistory(t, s, w.ID)
	// A new edit forgets the redo; the stack keeps at most MaxUndoSteps steps.
	for i := range store.MaxUndoSteps + 5 {
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Ops: set("/tools/2/description", fmt.Sprint(i)),
			Now: t0.Add(4 * time.Hour), Undo: &store.Undoable{Path: "/tools/2/description"}}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for {
		if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(5 * time.Hour)}); err != nil {
			wantKind(t, "undo past the limit", err, store.NotFound)
			break
		}
		n++
	}
	if n != store.MaxUndoSteps {
		t.Errorf("%d steps undone, want %d", n, store.MaxUndoSteps)
	}
	if got := descOf(t, s, w.ID, 2); got != "4" {
		t.Errorf("after undoing every kept step: %q, want the value before the oldest kept step", got)
	}
	_, err = s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada"})
	wantKind(t, "a step without an author ID", err, store.Invalid)
	_, err = s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Ops: set("/tools/0/description", "x"), Undo: &store.Undoable{Path: "no pointer"}})
	wantKind(t, "an undo path that is not a pointer", err, store.Invalid)
}

// testUndoTasks: task edits are undone like listing edits.
func testUndoTasks(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	put := func(body string, at time.Duration, key string) {
		t.Helper()
		if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Field: "/0/task", Body: json.RawMessage(body),
			Now: t0.Add(at), Undo: &store.Undoable{Key: key}}); err != nil {
			t.Fatal(err)
		}
	}
	put(`[{"task": "a"}]`, 0, "t")
	put(`[{"task": "ab"}]`, time.Second, "t")
	put(`[{"task": "abc"}]`, 10*time.Second, "u")
	undoStep(t, s, w.ID, false)
	if tf, _ := s.Tasks(ctx, w.ID); string(tf.Body) != `[{"task": "ab"}]` {
		t.Errorf("after one undo: %s", tf.Body)
	}
	res := undoStep(t, s, w.ID, false)
	if _, err := s.Tasks(ctx, w.ID); store.KindOf(err) != store.NotFound {
		t.Errorf("after undoing the first task edit the workspace has a task file again (%v)", err)
	}
	if res.Revision.Kind != store.KindTasks {
		t.Errorf("an undo of a task edit is a %s revision", res.Revision.Kind)
	}
	undoStep(t, s, w.ID, true)
	if tf, _ := s.Tasks(ctx, w.ID); string(tf.Body) != `[{"task": "ab"}]` {
		t.Errorf("after redo: %s", tf.Body)
	}
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: "bob", AuthorID: "b1", Body: json.RawMessage(`[]`), Now: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(time.Hour)})
	wantKind(t, "undo of an overtaken task edit", err, store.Conflict)
	var sc *store.StepConflict
	if !errors.As(err, &sc) || !sc.Tasks {
		t.Errorf("conflict cause = %#v, want the task file", sc)
	}
}

// testUndoLargeValues: a structural step on a listing too large to keep inline is kept as the
// revisions that hold it, and undoes exactly.
func testUndoLargeValues(t *testing.T, s store.Store) {
	ctx := context.Background()
	l := Sample(t)
	long := strings.Repeat("a long description ", 2000)
	l, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(long)})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "big", Author: "ada", Listing: l, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	move := []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 0, To: 2}}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Ops: move, Now: t0, Undo: &store.Undoable{Path: "/tools"}}); err != nil {
		t.Fatal(err)
	}
	undoStep(t, s, w.ID, false)
	head, _ := s.Revision(ctx, w.ID, -1)
	if !sameListing(head.Listing, l) {
		t.Error("undoing the move did not bring back the listing")
	}
	undoStep(t, s, w.ID, true)
	head, _ = s.Revision(ctx, w.ID, -1)
	if head.Listing.Tools[2].Get("description").Str != long {
		t.Error("redoing the move did not move the tool back")
	}
}

// testUndoBursts: a burst's step is not extended over someone else's change to the field (its
// undo would take their change back too), nor after an undo; an undo's revision is not extended
// by typing; a run seals the revision it names.
func testUndoBursts(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	const f = "/tools/0/description"
	typeAs := func(who, text string, at time.Duration) store.EditResult {
		t.Helper()
		res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: who, AuthorID: who, Ops: set(f, text), Now: t0.Add(at),
			Undo: &store.Undoable{Path: f, Key: "k"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	typeAs("ann", "A", 0)
	typeAs("bob", "BOB", time.Second)
	typeAs("ann", "A2", 2*time.Second) // same key, but Bob changed the field in between
	if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0.Add(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if got := descOf(t, s, w.ID, 0); got != "BOB" {
		t.Errorf("Ann's undo after Bob's change gave %q, want Bob's text back (her last step only)", got)
	}
	// After an undo, typing with the same key starts a new step.
	typeAs("ann", "A3", 4*time.Second)
	res, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0.Add(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if got := descOf(t, s, w.ID, 0); got != "BOB" {
		t.Errorf("undoing the typing after an undo gave %q, want %q", got, "BOB")
	}
	// The undo's revision is a step of its own: the next keystroke starts another.
	if next := typeAs("ann", "A4", 5*time.Second+time.Millisecond); next.Coalesced || next.Revision.Number == res.Revision.Number {
		t.Errorf("a keystroke extended the undo's revision %d", res.Revision.Number)
	}
	// A run names the head: typing after it starts a new revision, so the run's stays as run.
	head, _ := s.Revision(ctx, w.ID, -1)
	if _, err := s.PutRun(ctx, store.Run{Workspace: w.ID, Revision: head.Number, Label: "r", Status: "running", Author: "ann"}); err != nil {
		t.Fatal(err)
	}
	if next := typeAs("ann", "A5", 5*time.Second+2*time.Millisecond); next.Coalesced {
		t.Errorf("a keystroke extended revision %d, which a run names", head.Number)
	}
	if r, _ := s.Revision(ctx, w.ID, head.Number); r.Listing.Tools[0].Get("description").Str != "A4" {
		t.Errorf("the run's revision changed: %q", r.Listing.Tools[0].Get("description").Str)
	}
}

// testUndoFollowsMovedTool: an undo finds its tool by name after tools were added or moved,
// and writes into that tool, never into the one now at the old index.
func testUndoFollowsMovedTool(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	// Ann clears the description of "write" (tool 2): its undo puts the text back.
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0,
		Ops: []listing.Op{{Kind: listing.OpRemove, Path: "/tools/2/description"}}, Undo: &store.Undoable{Path: "/tools/2/description"}}); err != nil {
		t.Fatal(err)
	}
	// Bob moves "write" to the front, and clears the description of "read" (now at index 2).
	for _, op := range []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 2, To: 0}, {Kind: listing.OpRemove, Path: "/tools/2/description"}} {
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bob", AuthorID: "bob", Now: t0, Ops: []listing.Op{op}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0}); err != nil {
		t.Fatalf("undo after the tool moved: %v", err)
	}
	head, err := s.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*listing.Value{}
	for _, tl := range head.Listing.Tools {
		byName[tl.Get("name").Str] = tl
	}
	if d := byName["write"].Get("description"); d == nil || d.Str != "Write a file" {
		t.Errorf("the undo did not put back the description of write: %v", d)
	}
	if d := byName["read"].Get("description"); d != nil {
		t.Errorf("the undo wrote into read, the tool now at the old index: %q", d.Str)
	}
}

// testUndoTaskField: a step that set one field of one task takes back that field only, so that
// someone else's edit of another task neither blocks it nor is taken back with it.
func testUndoTaskField(t *testing.T, s store.Store) {
	ctx := context.Background()
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "tasks", Listing: Sample(t), Now: t0,
		Tasks: json.RawMessage(`[{"task": "a", "expect": "search"}, {"task": "b", "expect": null}]`)})
	if err != nil {
		t.Fatal(err)
	}
	put := func(who, field, body string) {
		t.Helper()
		if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: who, AuthorID: who, Field: field, Body: json.RawMessage(body),
			Now: t0, Undo: &store.Undoable{Key: "k" + field, Path: field}}); err != nil {
			t.Fatal(err)
		}
	}
	put("ann", "/0/task", `[{"task": "ann's", "expect": "search"}, {"task": "b", "expect": null}]`)
	put("bob", "/1/task", `[{"task": "ann's", "expect": "search"}, {"task": "bob's", "expect": null}]`)
	shape := func() int64 { rec, _ := s.Workspace(ctx, w.ID); return rec.TasksShape }
	before := shape()
	if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0}); err != nil {
		t.Fatalf("undo of one task's field after another task changed: %v", err)
	}
	tf, _ := s.Tasks(ctx, w.ID)
	var got []map[string]any
	if err := json.Unmarshal(tf.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got[0]["task"] != "a" || got[1]["task"] != "bob's" || got[0]["expect"] != "search" {
		t.Errorf("after Ann's undo: %s", tf.Body)
	}
	if shape() != before {
		t.Errorf("undoing one field changed the task file's shape")
	}
	// A task removed above Ann's: the task now at her step's index holds the same value, but it
	// is not hers, so her undo is refused rather than applied to it.
	put("ann", "/1/task", `[{"task": "a", "expect": "search"}, {"task": "same", "expect": null}, {"task": "same", "expect": null}]`)
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: "bob", AuthorID: "bob", Body: json.RawMessage(`[{"task": "same", "expect": null}, {"task": "same", "expect": null}]`), Now: t0}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0})
	wantKind(t, "undo of a task field after a task was removed above it", err, store.Conflict)
	// Bob's field is overwritten by Ann: Bob's undo is refused.
	put("bob", "/1/task", `[{"task": "same", "expect": null}, {"task": "bob's", "expect": null}]`)
	put("ann", "/1/task", `[{"task": "same", "expect": null}, {"task": "ann again", "expect": null}]`)
	_, err = s.Step(ctx, store.Step{Workspace: w.ID, Author: "bob", AuthorID: "bob", Now: t0})
	wantKind(t, "undo of a task field someone else changed", err, store.Conflict)
	var sc *store.StepConflict
	if !errors.As(err, &sc) || !sc.Tasks || sc.Path != "/1/task" {
		t.Errorf("conflict cause = %#v", sc)
	}
}

// testUndoDuplicateNames: with two tools of one name, an undo after tools moved takes back the
// one its step changed (the one holding the value it left), and a rename is undone on the tool
// that bears the new name.
func testUndoDuplicateNames(t *testing.T, s store.Store) {
	ctx := context.Background()
	l, err := listing.Parse([]byte(`{"tools": [{"name": "search", "description": "same"}, {"name": "x"}, {"name": "search", "description": "same"}]}`), listing.Options{Name: "dup"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "dup", Listing: l, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(who string, u *store.Undoable, ops ...listing.Op) {
		t.Helper()
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: who, AuthorID: who, Ops: ops, Now: t0, Undo: u}); err != nil {
			t.Fatal(err)
		}
	}
	edit("ann", &store.Undoable{Path: "/tools/2/description"}, set("/tools/2/description", "Ann's")[0])
	edit("ann", &store.Undoable{Path: "/tools/1/name"}, set("/tools/1/name", "renamed")[0])
	edit("bob", nil, listing.Op{Kind: listing.OpInsert, Path: "/tools/0", Value: listing.NewObject(listing.Member{Key: "name", Value: listing.NewString("new"), KeyPos: -1})})
	for range 2 {
		if _, err := s.Step(ctx, store.Step{Workspace: w.ID, Author: "ann", AuthorID: "ann", Now: t0}); err != nil {
			t.Fatalf("undo after a tool was inserted above: %v", err)
		}
	}
	head, _ := s.Revision(ctx, w.ID, -1)
	var names, descs []string
	for _, tl := range head.Listing.Tools {
		names = append(names, tl.Get("name").Str)
		if d := tl.Get("description"); d != nil {
			descs = append(descs, d.Str)
		}
	}
	if got := strings.Join(names, " "); got != "new search x search" {
		t.Errorf("names after undoing the rename: %s", got)
	}
	if got := strings.Join(descs, " "); got != "same same" {
		t.Errorf("descriptions after undoing Ann's: %s", got)
	}
}
