package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

func testWorkspaces(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	if _, err := store.ParseID("workspace ID", w.ID); err != nil {
		t.Fatalf("new workspace ID %q: %v", w.ID, err)
	}
	got, err := s.Workspace(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Workspace{ID: w.ID, Title: "Sample server", Created: t0, Updated: t0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Workspace = %+v, want %+v", got, want)
	}
	w2 := newWorkspace(t, s, t0.Add(time.Hour))
	list, err := s.Workspaces(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	i1 := slices.IndexFunc(list, func(x store.Workspace) bool { return x.ID == w.ID })
	i2 := slices.IndexFunc(list, func(x store.Workspace) bool { return x.ID == w2.ID })
	if i1 < 0 || i2 < 0 || i2 > i1 {
		t.Errorf("Workspaces: positions %d (older) and %d (newer); want both listed, newer first", i1, i2)
	}
	renamed, err := s.SetTitle(ctx, w.ID, "Renamed ✓", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Title != "Renamed ✓" || !renamed.Updated.Equal(t0.Add(time.Minute)) {
		t.Errorf("SetTitle = %+v", renamed)
	}
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Workspace(ctx, w.ID)
	wantKind(t, "get deleted workspace", err, store.NotFound)
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("errors.Is(%v, ErrNotFound) = false", err)
	}
	_, err = s.Revisions(ctx, w.ID, store.RevisionPage{})
	wantKind(t, "revisions of deleted workspace", err, store.NotFound)
	_, err = s.Edits(ctx, w.ID, 0, 0)
	wantKind(t, "edits of deleted workspace", err, store.NotFound)
	_, err = s.Revision(ctx, w.ID, 0)
	wantKind(t, "baseline of deleted workspace", err, store.NotFound)
	wantKind(t, "delete twice", s.DeleteWorkspace(ctx, w.ID), store.NotFound)
	_, err = s.SetTitle(ctx, w.ID, "x", t0)
	wantKind(t, "rename deleted", err, store.NotFound)
}

func testInvalidInput(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	long := strings.Repeat("é", store.MaxTitle+1)
	cases := []struct {
		name string
		do   func() error
		kind store.Kind
	}{
		{"no listing", func() error { _, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "x"}); return err }, store.Invalid},
		{"long title", func() error {
			_, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: long, Listing: Sample(t)})
			return err
		}, store.Invalid},
		{"control character in author", func() error {
			_, err := s.CreateWorkspace(ctx, store.NewWorkspace{Author: "a\x1b[31m", Listing: Sample(t)})
			return err
		}, store.Invalid},
		{"task file not JSON", func() error {
			_, err := s.CreateWorkspace(ctx, store.NewWorkspace{Listing: Sample(t), Tasks: json.RawMessage(`{"tasks": [`)})
			return err
		}, store.Invalid},
		{"malformed ID", func() error { _, err := s.Workspace(ctx, "../../etc/passwd"); return err }, store.Invalid},
		{"upper-case ID", func() error { _, err := s.Workspace(ctx, strings.ToUpper(w.ID)); return err }, store.Invalid},
		{"unknown ID", func() error { _, err := s.Workspace(ctx, store.NewID()); return err }, store.NotFound},
		{"edit without ops", func() error {
			_, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada"})
			return err
		}, store.Invalid},
		{"edit of unknown workspace", func() error {
			_, err := s.AppendEdit(ctx, store.Edit{Workspace: store.NewID(), Author: "ada", Ops: set("/tools/0/description", "x")})
			return err
		}, store.NotFound},
		{"revision below -1", func() error { _, err := s.Revision(ctx, w.ID, -2); return err }, store.Invalid},
		{"revision past the head", func() error { _, err := s.Revision(ctx, w.ID, 99); return err }, store.NotFound},
		{"restore past the head", func() error {
			_, err := s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 99})
			return err
		}, store.NotFound},
		{"commit without listing", func() error { _, err := s.Commit(ctx, store.Commit{Workspace: w.ID}); return err }, store.Invalid},
		{"a listing too big to read back", func() error {
			l := Sample(t).Clone()
			for len(l.Tools) <= listing.DefaultLimits.Tools {
				l.Tools = append(l.Tools, l.Tools[0])
			}
			_, err := s.Commit(ctx, store.Commit{Workspace: w.ID, Listing: l})
			return err
		}, store.Invalid},
		{"too many ops", func() error {
			ops := make([]listing.Op, store.MaxOpsPerEdit+1)
			for i := range ops {
				ops[i] = set("/tools/0/description", "x")[0]
			}
			_, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: ops})
			return err
		}, store.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantKind(t, tc.name, tc.do(), tc.kind) })
	}
}

func testFork(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "teacher", Ops: set("/tools/0/description", "Start here"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NameRevision(ctx, w.ID, 1, "exercise 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: json.RawMessage(`{"tasks": [1]}`), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMeta(ctx, w.ID, "fetch", json.RawMessage(`{"url": "https://example.com/mcp"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := s.ForkWorkspace(ctx, store.Fork{From: w.ID, Author: "student", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.Meta(ctx, f.ID, "fetch"); err != nil || string(m) != `{"url": "https://example.com/mcp"}` {
		t.Errorf("forked metadata: %s, %v", m, err)
	}
	if f.ID == w.ID || f.ForkedFrom != w.ID || f.Title != w.Title || f.Head != 2 || f.Seq != 2 {
		t.Errorf("fork = %+v", f)
	}
	full := checkHistory(t, s, f.ID)
	if full[1].Name != "exercise 1" || full[1].Listing.Tools[0].Get("description").Str != "Start here" {
		t.Errorf("forked revision 1 = %+v", full[1])
	}
	if tf, err := s.Tasks(ctx, f.ID); err != nil || string(tf.Body) != `{"tasks": [1]}` {
		t.Errorf("forked tasks: %+v, %v", tf, err)
	}
	// The two go separate ways.
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: f.ID, Author: "student", Ops: set("/tools/0/description", "Mine"), Now: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	src, _ := s.Revision(ctx, w.ID, -1)
	if src.Number != 2 || src.Listing.Tools[0].Get("description").Str != "Start here" {
		t.Errorf("editing the fork changed the source: %+v", src)
	}
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Revision(ctx, f.ID, 2); err != nil || string(r.Tasks) != `{"tasks": [1]}` {
		t.Errorf("the fork lost its history with its source: %v", err)
	}
	_, err = s.ForkWorkspace(ctx, store.Fork{From: w.ID})
	wantKind(t, "fork of a deleted workspace", err, store.NotFound)
}

func testMeta(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	_, err := s.Meta(ctx, w.ID, "fetch")
	wantKind(t, "missing metadata", err, store.NotFound)
	for _, v := range []string{`{"a": 1}`, `{"a": 2}`} {
		if err := s.PutMeta(ctx, w.ID, "fetch", json.RawMessage(v)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Meta(ctx, w.ID, "fetch"); err != nil || string(got) != v {
			t.Errorf("Meta = %s, %v; want %s", got, err, v)
		}
	}
	if err := s.PutMeta(ctx, w.ID, "fetch", nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Meta(ctx, w.ID, "fetch")
	wantKind(t, "deleted metadata", err, store.NotFound)
	wantKind(t, "metadata of an unknown workspace", s.PutMeta(ctx, store.NewID(), "fetch", json.RawMessage(`1`)), store.NotFound)
	wantKind(t, "malformed metadata", s.PutMeta(ctx, w.ID, "fetch", json.RawMessage(`{`)), store.Invalid)
	wantKind(t, "an empty key", s.PutMeta(ctx, w.ID, "", json.RawMessage(`1`)), store.Invalid)
	wantKind(t, "huge metadata", s.PutMeta(ctx, w.ID, "k", json.RawMessage(`"`+strings.Repeat("x", store.MaxMeta)+`"`)), store.Invalid)
	_, err = s.Meta(ctx, store.NewID(), "fetch")
	wantKind(t, "metadata of an unknown workspace", err, store.NotFound)
}

// testConcurrentImports: people importing one listing at the same moment (on PostgreSQL, at the
// same time, storing the same new tools) all succeed.
func testConcurrentImports(t *testing.T, s store.Store) {
	ctx := context.Background()
	for round := range 5 {
		var b strings.Builder
		b.WriteString(`{"tools": [`)
		for i := range 400 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name": "t%d", "description": "round %d, tool %d", "inputSchema": {"type": "object"}}`, i, round, i)
		}
		b.WriteString(`]}`)
		l, err := listing.Parse([]byte(b.String()), listing.Options{Name: "many"})
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "same listing", Author: "ann", Listing: l})
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
	}
}

// testLongHistoryDeletes: a workspace with a long history (over a thousand revisions, more
// than SQLite lets cascades nest) can be deleted.
func testLongHistoryDeletes(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	for i := range 1100 {
		// Alternate tools: every edit starts a revision.
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ann", Ops: set(fmt.Sprintf("/tools/%d/description", i%2), fmt.Sprint(i)), Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatalf("delete a workspace of 1101 revisions: %v", err)
	}
	_, err := s.Workspace(ctx, w.ID)
	wantKind(t, "the deleted workspace", err, store.NotFound)
}
