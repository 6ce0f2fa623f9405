package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// undoRestore is the workspace testUndoRestore works on, by ada (a1).
type undoRestore struct {
	t  *testing.T
	s  store.Store
	ws string
}

func (u undoRestore) restore(n int, at time.Duration) store.EditResult {
	u.t.Helper()
	res, err := u.s.Restore(context.Background(), store.Restore{Workspace: u.ws, Number: n, Author: "ada", AuthorID: "a1", Now: t0.Add(at), Undo: true})
	if err != nil {
		u.t.Fatalf("restore revision %d: %v", n, err)
	}
	return res
}

// is checks that the head holds revision n's listing and task file.
func (u undoRestore) is(what string, n int) {
	u.t.Helper()
	ctx := context.Background()
	head, err := u.s.Revision(ctx, u.ws, -1)
	if err != nil {
		u.t.Fatal(err)
	}
	want, err := u.s.Revision(ctx, u.ws, n)
	if err != nil {
		u.t.Fatal(err)
	}
	if !sameListing(head.Listing, want.Listing) || head.HasTasks != want.HasTasks || string(head.Tasks) != string(want.Tasks) {
		u.t.Errorf("%s: the head (revision %d) does not hold revision %d's listing and task file: tasks %s, want %s",
			what, head.Number, n, head.Tasks, want.Tasks)
	}
}

// testUndoRestore: a restore made with Undo is a step of its author's undo. Undo brings back the
// listing and the task file from before it, and the author's older steps then undo as usual;
// redo restores again; a restore someone else changed since is refused as theirs, with the
// author's steps from before it; and a restore without Undo pushes no step.
func testUndoRestore(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	u := undoRestore{t: t, s: s, ws: w.ID}
	ann := "/tools/1/annotations"
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(time.Second),
		Ops:  []listing.Op{{Kind: listing.OpSet, Path: ann, Value: listing.NewObject(listing.Member{Key: "destructiveHint", Value: listing.NewBool(true)})}},
		Undo: &store.Undoable{Path: ann}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Body: json.RawMessage(`[{"task": "find TODOs"}]`),
		Now: t0.Add(2 * time.Second), Undo: &store.Undoable{}}); err != nil {
		t.Fatal(err)
	}
	if res := u.restore(0, 3*time.Second); !res.Undo.CanUndo || res.Undo.CanRedo || res.Revision.Number != 3 {
		t.Errorf("a restore with Undo: undo state %+v, revision %d", res.Undo, res.Revision.Number)
	}
	u.is("after restoring the baseline", 0)
	if res := undoStep(t, s, w.ID, false); !res.Undo.CanUndo || !res.Undo.CanRedo {
		t.Errorf("after undoing the restore: undo state %+v", res.Undo)
	}
	u.is("after undoing the restore", 2)
	undoStep(t, s, w.ID, true)
	u.is("after redoing the restore", 0)
	undoStep(t, s, w.ID, false)
	u.is("after undoing the restore again", 2)
	// The steps from before the restore undo as they would have without it.
	undoStep(t, s, w.ID, false)
	u.is("after undoing the task file", 1)
	undoStep(t, s, w.ID, false)
	u.is("after undoing the annotation", 0)

	// The author's own edit after a restore is undone first; then the restore is.
	u.restore(2, time.Hour)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Ops: set("/tools/0/description", "Mine"),
		Now: t0.Add(time.Hour + time.Second), Undo: &store.Undoable{Path: "/tools/0/description"}}); err != nil {
		t.Fatal(err)
	}
	undoStep(t, s, w.ID, false)
	restored := u.restore(0, 2*time.Hour) // the same listing and tasks as the head: a step all the same
	undoStep(t, s, w.ID, false)
	u.is("after undoing a restore over the author's undone edit", restored.Revision.Number-1)

	// Someone else's edit after a restore stands: the restore's undo is refused and dropped.
	u.restore(0, 3*time.Hour)
	bob, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bob", AuthorID: "b1", Ops: set("/tools/2/description", "Bob's"), Now: t0.Add(4 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "a1", Now: t0.Add(5 * time.Hour)})
	wantKind(t, "undo of a restore someone else changed since", err, store.Conflict)
	var sc *store.StepConflict
	if !errors.As(err, &sc) || !sc.Revision {
		t.Errorf("conflict cause = %#v, want the restore's revision", sc)
	}
	u.is("after the refused undo", bob.Revision.Number)
	// Ada's steps from before that restore would each be refused as someone else's change,
	// when the change was her restore: they went with it.
	if st, err := s.UndoState(ctx, w.ID, "a1"); err != nil || st.CanUndo {
		t.Errorf("after a restore's undo was refused, ada can still undo: %+v, %v", st, err)
	}

	// A restore without Undo is no step of anyone's.
	w2 := newWorkspace(t, s, t0)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w2.ID, Author: "ada", AuthorID: "a1", Ops: set("/tools/0/description", "x"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Restore(ctx, store.Restore{Workspace: w2.ID, Number: 0, Author: "ada", AuthorID: "a1", Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := s.UndoState(ctx, w2.ID, "a1"); st.CanUndo || res.Undo.CanUndo {
		t.Errorf("a restore without Undo left a step: %+v, %+v", st, res.Undo)
	}
	checkHistory(t, s, w.ID)
}
