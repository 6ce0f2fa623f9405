package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

func testTasks(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	_, err := s.Tasks(ctx, w.ID)
	wantKind(t, "no task file yet", err, store.NotFound)
	body := json.RawMessage(`{"tasks": [{"prompt": "find TODOs", "expect": "search"}]}`)
	r1, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: body, Author: "ada", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Seq != 1 || r1.Revision.Number != 1 || r1.Revision.Kind != store.KindTasks || !r1.Revision.HasTasks || r1.Revision.TasksSeq != 1 {
		t.Errorf("first task edit: %+v", r1.Revision)
	}
	body2 := json.RawMessage(`{"tasks": []}`)
	r2, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: body2, Author: "bob", Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Tasks(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Body) != string(body2) || got.Seq != r2.Seq {
		t.Errorf("Tasks = %+v, want the second file, seq %d", got, r2.Seq)
	}
	// Every task edit is in history, beside the listing edits, and each revision keeps the
	// task file it ends with.
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: set("/tools/0/description", "Find files"), Now: t0.Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	full := checkHistory(t, s, w.ID)
	if len(full) != 4 || full[0].HasTasks || string(full[1].Tasks) != string(body) || string(full[2].Tasks) != string(body2) || string(full[3].Tasks) != string(body2) {
		t.Errorf("task files by revision: %q %q %q %q", full[0].Tasks, full[1].Tasks, full[2].Tasks, full[3].Tasks)
	}
	if full[3].TasksSeq != full[2].TasksSeq {
		t.Errorf("a listing edit changed the task file's seq: %d → %d", full[2].TasksSeq, full[3].TasksSeq)
	}
	edits, err := s.Edits(ctx, w.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 3 || !edits[0].Tasks || !edits[1].Tasks || edits[2].Tasks || len(edits[0].Ops) != 0 {
		t.Errorf("edits = %+v", edits)
	}
	// Restoring a revision restores its task file too.
	res, err := s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 1, Author: "bob", Now: t0.Add(3 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Tasks(ctx, w.ID); string(got.Body) != string(body) || res.Revision.TasksSeq != r1.Revision.TasksSeq {
		t.Errorf("after restoring revision 1: tasks %s (seq %d)", got.Body, res.Revision.TasksSeq)
	}
	if res, err = s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 0, Author: "bob", Now: t0.Add(4 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Tasks(ctx, w.ID)
	wantKind(t, "tasks after restoring the baseline, which had none", err, store.NotFound)
	if res.Revision.HasTasks {
		t.Errorf("restored baseline has tasks: %+v", res.Revision)
	}

	// An edit made from an older task file is refused; from the current one it goes through.
	stale, fresh := r1.Revision.TasksSeq, int64(-1) // the baseline, restored, has no task file
	if tf, err := s.Tasks(ctx, w.ID); err == nil {
		fresh = tf.Seq
	}
	_, err = s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: body, Author: "ada", Base: &stale})
	wantKind(t, "a task edit made from an older task file", err, store.Conflict)
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: body2, Author: "ada", Base: &fresh, Now: t0.Add(2500 * time.Millisecond)}); err != nil {
		t.Errorf("a task edit made from the current task file: %v", err)
	}
	none := int64(-1)
	w3 := newWorkspace(t, s, t0)
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w3.ID, Body: body, Author: "ada", Base: &none}); err != nil {
		t.Errorf("a first task file made from none: %v", err)
	}
	_, err = s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: json.RawMessage(`{"tasks": }`)})
	wantKind(t, "malformed task file", err, store.Invalid)
	_, err = s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: bytes.Repeat([]byte(" "), store.MaxTasks+1)})
	wantKind(t, "huge task file", err, store.Invalid)
	_, err = s.PutTasks(ctx, store.TaskEdit{Workspace: store.NewID(), Body: body})
	wantKind(t, "task file of unknown workspace", err, store.NotFound)
	_, err = s.Tasks(ctx, store.NewID())
	wantKind(t, "tasks of unknown workspace", err, store.NotFound)
	// Created with its tasks.
	w2, err := s.CreateWorkspace(ctx, store.NewWorkspace{Listing: Sample(t), Tasks: body, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks(ctx, w2.ID); err != nil || string(got.Body) != string(body) || got.Seq != 0 {
		t.Errorf("tasks given at creation: %+v, %v", got, err)
	}
}

// testTaskCoalescing: typing in one task field is one revision; the task file versions it
// replaced are not kept.
func testTaskCoalescing(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	var last store.EditResult
	for i := range 5 {
		body := json.RawMessage(fmt.Sprintf(`[{"task": "find %s"}]`, strings.Repeat("x", i)))
		var err error
		last, err = s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Author: "ada", AuthorID: "a1", Field: "/0/task", Body: body, Now: t0.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && !last.Coalesced {
			t.Errorf("keystroke %d started a revision", i)
		}
	}
	if last.Revision.Number != 1 || last.Revision.Edits != 5 || last.Revision.Field != "/0/task" {
		t.Errorf("head after typing: %+v", last.Revision)
	}
	// Another field, another person, or a structural edit starts a new revision.
	for i, te := range []store.TaskEdit{
		{Author: "ada", AuthorID: "a1", Field: "/0/expect"},
		{Author: "bob", AuthorID: "b1", Field: "/0/expect"},
		{Author: "bob", AuthorID: "b1", Field: ""},
	} {
		te.Workspace, te.Body, te.Now = w.ID, json.RawMessage(fmt.Sprintf(`[{"task": "t", "expect": "e%d"}]`, i)), t0.Add(6*time.Second)
		res, err := s.PutTasks(ctx, te)
		if err != nil {
			t.Fatal(err)
		}
		if res.Coalesced || res.Revision.Number != 2+i {
			t.Errorf("edit %d (%+v): coalesced %v into revision %d", i, te, res.Coalesced, res.Revision.Number)
		}
	}
	full := checkHistory(t, s, w.ID)
	if string(full[1].Tasks) != `[{"task": "find xxxx"}]` {
		t.Errorf("revision 1's task file = %s", full[1].Tasks)
	}
}
