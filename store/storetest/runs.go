package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

func testRuns(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	r, err := s.PutRun(ctx, store.Run{Workspace: w.ID, Label: "gpt-x, 5 samples", Status: "running", Author: "ada",
		Meta: json.RawMessage(`{"model": "gpt-x"}`), Body: json.RawMessage(`{"results": []}`), Created: t0, Updated: t0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.ParseID("run ID", r.ID); err != nil || !r.Created.Equal(t0) || string(r.Body) != `{"results": []}` {
		t.Errorf("new run: %+v (%v)", r, err)
	}
	r.Status, r.Body, r.Updated = "done", json.RawMessage(`{"results": [1]}`), t0.Add(time.Minute)
	if _, err := s.PutRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, w.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "done" || string(got.Body) != `{"results": [1]}` || !got.Created.Equal(t0) || !got.Updated.Equal(t0.Add(time.Minute)) || string(got.Meta) != `{"model": "gpt-x"}` {
		t.Errorf("updated run: %+v", got)
	}
	r2, err := s.PutRun(ctx, store.Run{Workspace: w.ID, Label: "second", Created: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// A run read as of an edit: refused once another edit landed, named after the head if not.
	rec, _ := s.Workspace(ctx, w.ID)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: set("/tools/0/description", "moved on"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	_, err = s.PutRun(ctx, store.Run{Workspace: w.ID, Label: "stale", AsOf: &rec.Seq, Created: t0})
	wantKind(t, "a run read before an edit", err, store.Conflict)
	rec, _ = s.Workspace(ctx, w.ID)
	fresh, err := s.PutRun(ctx, store.Run{Workspace: w.ID, Label: "fresh", Revision: 99, AsOf: &rec.Seq, Created: t0.Add(2 * time.Hour)})
	if err != nil || fresh.Revision != rec.Head {
		t.Errorf("a run read as of the current edit: revision %d (want the head, %d), %v", fresh.Revision, rec.Head, err)
	}
	if err := s.DeleteRun(ctx, w.ID, fresh.ID); err != nil {
		t.Fatal(err)
	}
	list, err := s.Runs(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != r2.ID || list[1].ID != r.ID || list[1].Body != nil || string(list[1].Meta) != `{"model": "gpt-x"}` {
		t.Errorf("Runs = %+v", list)
	}
	_, err = s.PutRun(ctx, store.Run{Workspace: w.ID, Revision: 5})
	wantKind(t, "run against a missing revision", err, store.NotFound)
	_, err = s.PutRun(ctx, store.Run{Workspace: w.ID, Body: json.RawMessage(`nope`)})
	wantKind(t, "run body not JSON", err, store.Invalid)
	_, err = s.PutRun(ctx, store.Run{ID: store.NewID(), Workspace: w.ID})
	wantKind(t, "update of an unknown run", err, store.NotFound)
	if err := s.DeleteRun(ctx, w.ID, r.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(ctx, w.ID, r.ID)
	wantKind(t, "deleted run", err, store.NotFound)
	wantKind(t, "delete twice", s.DeleteRun(ctx, w.ID, r.ID), store.NotFound)
	// A run is only reachable through its own workspace.
	w2 := newWorkspace(t, s, t0)
	_, err = s.Run(ctx, w2.ID, r2.ID)
	wantKind(t, "run through another workspace", err, store.NotFound)
}

// testRunCompareAndSwap: UpdateRun and TouchRun change a run only while it is as the caller
// last read it.
func testRunCompareAndSwap(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	r, err := s.PutRun(ctx, store.Run{Workspace: w.ID, Label: "run", Status: "running", Author: "ada",
		Body: json.RawMessage(`{"calls": [1]}`), Created: t0, Updated: t0})
	if err != nil {
		t.Fatal(err)
	}
	// The owner's heartbeat: only Updated moves.
	if err := s.TouchRun(ctx, w.ID, r.ID, t0, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, w.ID, r.ID)
	if err != nil || !got.Updated.Equal(t0.Add(time.Second)) || string(got.Body) != `{"calls": [1]}` || got.Status != "running" {
		t.Errorf("after a touch: %+v, %v", got, err)
	}
	wantKind(t, "a touch from a stale read", s.TouchRun(ctx, w.ID, r.ID, t0, t0.Add(2*time.Second)), store.Conflict)
	// Another process asks to cancel: it wins the swap; the owner's save from its older read
	// then fails, and it reads the run again.
	cancel := got
	cancel.Status, cancel.Updated = "cancelling", got.Updated.Add(time.Microsecond)
	if _, err := s.UpdateRun(ctx, cancel, got.Updated); err != nil {
		t.Fatal(err)
	}
	save := got
	save.Body, save.Updated = json.RawMessage(`{"calls": [1, 2]}`), t0.Add(5*time.Second)
	_, err = s.UpdateRun(ctx, save, got.Updated)
	wantKind(t, "a save over another process's change", err, store.Conflict)
	again, err := s.Run(ctx, w.ID, r.ID)
	if err != nil || again.Status != "cancelling" {
		t.Fatalf("after the refused save: %+v, %v", again, err)
	}
	save.Status = "cancelled"
	if out, err := s.UpdateRun(ctx, save, again.Updated); err != nil || !out.Updated.Equal(save.Updated) {
		t.Errorf("the save from a fresh read: %+v, %v", out, err)
	}
	// A write that would leave Updated where it was moves it on anyway: a second writer with
	// the same read must not swap too.
	cur, _ := s.Run(ctx, w.ID, r.ID)
	if err := s.TouchRun(ctx, w.ID, r.ID, cur.Updated, cur.Updated); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "a second touch from the same read", s.TouchRun(ctx, w.ID, r.ID, cur.Updated, cur.Updated.Add(time.Second)), store.Conflict)
	cur, _ = s.Run(ctx, w.ID, r.ID)
	same := cur
	same.Label = "first"
	if _, err := s.UpdateRun(ctx, same, cur.Updated); err != nil {
		t.Fatal(err)
	}
	same.Label = "second"
	_, err = s.UpdateRun(ctx, same, cur.Updated)
	wantKind(t, "a second update from the same read, both stamped alike", err, store.Conflict)
	_, err = s.UpdateRun(ctx, store.Run{Workspace: w.ID, ID: store.NewID(), Status: "x"}, t0)
	wantKind(t, "update of an unknown run", err, store.NotFound)
	wantKind(t, "touch of an unknown run", s.TouchRun(ctx, w.ID, store.NewID(), t0, t0), store.NotFound)
}
