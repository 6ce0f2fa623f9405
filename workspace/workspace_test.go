package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

const lend = `{"tools": [
 {"name": "loans_renew", "description": "Renew a loan.", "inputSchema": {"type": "object"}},
 {"name": "books_get", "description": "Get a book.", "inputSchema": {"type": "object"}}
]}`

// counting is a store that counts the reads of a workspace's record, which every read of a
// workspace starts with, and of undo states.
type counting struct {
	store.Store
	reads, undos atomic.Int64
}

func (c *counting) Workspace(ctx context.Context, id string) (store.Workspace, error) {
	c.reads.Add(1)
	return c.Store.Workspace(ctx, id)
}

func (c *counting) UndoState(ctx context.Context, id, author string) (store.UndoState, error) {
	c.undos.Add(1)
	return c.Store.UndoState(ctx, id, author)
}

// newService returns a service over a fresh SQLite store holding one workspace of lend with
// one task.
func newService(t *testing.T) (*Service, *counting, Workspace) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &counting{Store: db}
	l, err := listing.Parse([]byte(lend), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(st)
	ws, err := s.Create(ctx, "lend", l, []selection.Task{{Task: "renew my loan"}}, ann, "imported")
	if err != nil {
		t.Fatal(err)
	}
	return s, st, ws
}

var ann = Author{Name: "Ann", ID: "ann-1"}

// TestApplyReadsOnce: a keystroke's edit reads the workspace once, and its answer carries the
// workspace before and after it without reading it again.
func TestApplyReadsOnce(t *testing.T) {
	s, st, ws := newService(t)
	st.reads.Store(0)
	st.undos.Store(0)
	e := Edit{Tool: &tooledit.Edit{Kind: tooledit.Field, Tool: 1, Name: "description", Value: "Get one book by its id."}}
	ch, err := s.Apply(context.Background(), ws.ID, e, ann)
	if err != nil {
		t.Fatal(err)
	}
	if n, u := st.reads.Load(), st.undos.Load(); n != 1 || u != 0 {
		t.Errorf("%d reads of the workspace and %d of undo states; want 1 and 0", n, u)
	}
	if got := ch.Before.Listing.Tools[1].Get("description").Str; got != "Get a book." {
		t.Errorf("before: %q", got)
	}
	if got := ch.After.Listing.Tools[1].Get("description").Str; got != "Get one book by its id." {
		t.Errorf("after: %q", got)
	}
	if ch.After.Version <= ch.Before.Version || !ch.After.CanUndo || store.FieldOf(ch.Ops) != "/tools/1/description" {
		t.Errorf("version %d → %d, can undo %v, field %q", ch.Before.Version, ch.After.Version, ch.After.CanUndo, store.FieldOf(ch.Ops))
	}
}

// TestApplyRefusals: what the service refuses, and how it says so.
func TestApplyRefusals(t *testing.T) {
	zero := int64(0)
	for _, tt := range []struct {
		name  string
		e     Edit
		check func(error) bool
	}{
		{"a tool that is gone", Edit{Tool: &tooledit.Edit{Kind: tooledit.Field, Tool: 7, Name: "name", Value: "x"}},
			func(err error) bool { var rf *Refused; return errors.As(err, &rf) && rf.Gone }},
		{"a schema that is not JSON", Edit{Tool: &tooledit.Edit{Kind: tooledit.Field, Tool: 0, Name: "inputSchema", Value: "{"}},
			func(err error) bool { var pr *tooledit.Problem; return errors.As(err, &pr) && pr.Line == 1 }},
		{"positions older than a move", Edit{Tool: &tooledit.Edit{Kind: tooledit.Field, Tool: 0, Name: "name", Value: "x"}, ToolsBase: &zero},
			func(err error) bool { return errors.As(err, new(*StaleTools)) }},
		{"a task table reshaped since", Edit{Task: &TaskChange{Op: "set", Index: 0, Field: "task", Value: "x"}, ShapeBase: 0},
			func(err error) bool { return errors.As(err, new(*StaleTasks)) }},
		{"a task that is gone", Edit{Task: &TaskChange{Op: "del", Index: 3}, ShapeBase: -1},
			func(err error) bool { return errors.As(err, new(*StaleTasks)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _, ws := newService(t)
			ctx := context.Background()
			// Reshape both: a tool moved, a task added.
			move := Edit{Tool: &tooledit.Edit{Kind: tooledit.ToolOp, Tool: 1, Verb: "up"}}
			if _, err := s.Apply(ctx, ws.ID, move, ann); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Apply(ctx, ws.ID, Edit{Task: &TaskChange{Op: "add"}, ShapeBase: -1}, ann); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Apply(ctx, ws.ID, tt.e, ann); !tt.check(err) {
				t.Errorf("error %v (%T)", err, err)
			}
		})
	}
}

// TestTaskChangeAndUndo: a task change is made from the task file as it stands, and undo takes
// it back as a new edit.
func TestTaskChangeAndUndo(t *testing.T) {
	s, _, ws := newService(t)
	ctx := context.Background()
	tc := TaskChange{Op: "set", Index: 0, Field: "expect", Value: " loans_renew "}
	ch, err := s.Apply(ctx, ws.ID, Edit{Task: &tc, ShapeBase: ws.TasksShape, Key: tc.Key()}, ann)
	if err != nil {
		t.Fatal(err)
	}
	if e := ch.After.Tasks[0].Expect; e == nil || *e != "loans_renew" {
		t.Fatalf("expect after the change: %v", e)
	}
	back, err := s.Step(ctx, ws.ID, true, ann)
	if err != nil {
		t.Fatal(err)
	}
	if e := back.After.Tasks[0].Expect; e != nil || !back.After.CanRedo {
		t.Errorf("after undo: expect %v, can redo %v", e, back.After.CanRedo)
	}
}

// TestUndoTakesBackRestore (issue 21, point 2): alone on the workspace, Undo after a Restore
// takes the Restore back, then the edit before it; when someone else edited after the Restore,
// Undo is refused with that reason (not one about a field of a tool) and is then disabled.
func TestUndoTakesBackRestore(t *testing.T) {
	s, _, ws := newService(t)
	ctx := context.Background()
	desc := func(ch Change) string { return ch.After.Listing.Tools[0].Get("description").Str }
	if _, err := s.Apply(ctx, ws.ID, Edit{Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString("Renew.")}}}, ann); err != nil {
		t.Fatal(err)
	}
	r, err := s.Restore(ctx, ws.ID, 0, ann)
	if err != nil || desc(r) != "Renew a loan." || !r.After.CanUndo {
		t.Fatalf("restore: %q, can undo %v, %v", desc(r), r.After.CanUndo, err)
	}
	for _, want := range []string{"Renew.", "Renew a loan."} {
		back, err := s.Step(ctx, ws.ID, true, ann)
		if err != nil || desc(back) != want {
			t.Fatalf("undo: %q, %v; want %q", desc(back), err, want)
		}
	}
	if _, err := s.Restore(ctx, ws.ID, 1, ann); err != nil {
		t.Fatal(err)
	}
	bob := Author{Name: "Bob", ID: "bob-1"}
	if _, err := s.Apply(ctx, ws.ID, Edit{Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/1/description", Value: listing.NewString("Bob's.")}}}, bob); err != nil {
		t.Fatal(err)
	}
	_, err = s.Step(ctx, ws.ID, true, ann)
	var ur *UndoRefused
	if !errors.As(err, &ur) || !strings.HasPrefix(ur.Msg, "Undo refused: someone else changed the listing or the task file after your restore") {
		t.Errorf("undo of a restore someone else changed since: %v", err)
	}
	if now, err := s.Get(ctx, ws.ID, ann); err != nil || now.CanUndo {
		t.Errorf("after the refusal Undo is still offered (%v)", err)
	}
}

// TestTaskChangeRename: a rename repair's task change renames the expects that name a renamed
// tool, in the order of the renames, on the task file it is made from; one that names none of
// them changes nothing (and so is not recorded).
func TestTaskChangeRename(t *testing.T) {
	exp := func(s string) *string { return &s }
	cur := []selection.Task{{Task: "a", Expect: exp("getUser")}, {Task: "b", Expect: exp("list_users")}, {Task: "c"}}
	tc := TaskChange{Op: "rename", Renames: []lint.Rename{{From: "getUser", To: "get_user"}, {From: "get_user", To: "users_get"}}}
	got, err := tc.apply(cur)
	if err != nil || *got[0].Expect != "users_get" || *got[1].Expect != "list_users" || got[2].Expect != nil || *cur[0].Expect != "getUser" {
		t.Errorf("rename gives %+v, %v; want the first expect users_get, the rest and the input as they were", got, err)
	}
	if _, err := (TaskChange{Op: "rename", Renames: []lint.Rename{{From: "nope", To: "x"}}}).apply(cur); !errors.Is(err, errNoTaskChange) {
		t.Errorf("a rename no expect names gives %v; want errNoTaskChange", err)
	}
}
