package review

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// fixture is a workspace on a real SQLite store with a review service over it.
type fixture struct {
	t    testing.TB
	ctx  context.Context
	st   store.Store
	svc  *Service
	ws   string
	errs int       // what Options.Errors answers
	now  time.Time // the clock of edits and comments, one step per use
}

// threeTools is the listing most tests start from: a, b (with a parameter q) and c.
const threeTools = `{"tools": [
	{"name": "a", "description": "Alpha does one thing."},
	{"name": "b", "description": "Beta finds issues.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "What to find."}, "n": {"type": "integer"}}}, "annotations": {"readOnlyHint": true}},
	{"name": "c", "description": "Gamma closes issues."}
]}`

func openStore(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatalf("open SQLite store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newFixture(t testing.TB, src string) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), st: openStore(t), now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	f.svc = f.service()
	w, err := f.st.CreateWorkspace(f.ctx, store.NewWorkspace{Title: "review", Author: "Ana", Listing: parse(t, src), Now: f.tick()})
	if err != nil {
		t.Fatal(err)
	}
	f.ws = w.ID
	return f
}

// service is a new review service over the fixture's store (with caches of its own).
func (f *fixture) service() *Service {
	return New(f.st, Options{
		Errors: func(context.Context, string, *listing.Listing) (int, error) { return f.errs, nil },
		Now:    f.tick,
	})
}

// tick advances the clock by a minute, so that no two edits coalesce unless a test wants them to.
func (f *fixture) tick() time.Time {
	f.now = f.now.Add(time.Minute)
	return f.now
}

func parse(t testing.TB, src string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(src), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// edit applies ops as Ana, as one undoable step whose scope is /tools.
func (f *fixture) edit(ops ...listing.Op) {
	f.t.Helper()
	_, err := f.st.AppendEdit(f.ctx, store.Edit{Workspace: f.ws, Author: "Ana", AuthorID: "ana", Ops: ops, Now: f.tick(),
		Undo: &store.Undoable{Path: "/tools"}})
	if err != nil {
		f.t.Fatalf("edit %v: %v", ops, err)
	}
}

func (f *fixture) commit(src string) {
	f.t.Helper()
	if _, err := f.st.Commit(f.ctx, store.Commit{Workspace: f.ws, Author: "Ana", Listing: parse(f.t, src), Now: f.tick()}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) restore(n int) {
	f.t.Helper()
	if _, err := f.st.Restore(f.ctx, store.Restore{Workspace: f.ws, Number: n, Author: "Ana", Now: f.tick()}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) undo() {
	f.t.Helper()
	if _, err := f.st.Step(f.ctx, store.Step{Workspace: f.ws, Author: "Ana", AuthorID: "ana", Now: f.tick()}); err != nil {
		f.t.Fatal(err)
	}
}

// comment starts a thread as Ana at the tool named tool on the head.
func (f *fixture) comment(tool, field string) store.Comment {
	f.t.Helper()
	head, err := f.st.Revision(f.ctx, f.ws, -1)
	if err != nil {
		f.t.Fatal(err)
	}
	i := indexOf(head.Listing, tool)
	c, err := f.svc.Comment(f.ctx, f.ws, Target{Index: i, Tool: tool, Field: field}, "Is this right?", Author{Name: "Ana", ID: "ana"})
	if err != nil {
		f.t.Fatalf("comment on %s %s: %v", tool, field, err)
	}
	return c
}

func (f *fixture) signOff(name string, v store.Verdict) {
	f.t.Helper()
	if _, err := f.svc.SignOff(f.ctx, f.ws, v, "", Author{Name: name, ID: strings.ToLower(name)}); err != nil {
		f.t.Fatal(err)
	}
}

func indexOf(l *listing.Listing, name string) int {
	for i, t := range l.Tools {
		if t.Get("name").String() == name {
			return i
		}
	}
	return -1
}

// tool is a tool object as JSON.
func tool(name, desc string) *listing.Value {
	v, err := listing.ParseJSON(fmt.Appendf(nil, `{"name": %q, "description": %q}`, name, desc))
	if err != nil {
		panic(err)
	}
	return v
}

func set(path string, v *listing.Value) listing.Op {
	return listing.Op{Kind: listing.OpSet, Path: path, Value: v}
}

func (f *fixture) head() store.Revision {
	f.t.Helper()
	r, err := f.st.Revision(f.ctx, f.ws, -1)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}
