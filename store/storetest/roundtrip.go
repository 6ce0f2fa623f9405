package storetest

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// RoundTrip writes the real GitHub listing and a history of edits through w, and reads every
// revision back through r, a second store on the same database (so that nothing comes from w's
// cache of parsed listings): each must encode to exactly the bytes that were written.
func RoundTrip(t *testing.T, w, r store.Store) {
	f, _ := testutil.SharedPath(t, "listings", "real", "github-mcp-server.json")
	src, err := os.ReadFile(f)
	if os.IsNotExist(err) {
		t.Skipf("no %s (the shared folder is absent)", f)
	}
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: f})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ws, err := w.CreateWorkspace(ctx, store.NewWorkspace{Title: "round trip", Author: "ada", Listing: l, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]byte{0: l.Marshal("")}
	last := len(l.Tools) - 1
	steps := []struct {
		name string
		do   func() (store.EditResult, error)
	}{
		{"typing in one tool", func() (store.EditResult, error) {
			return w.AppendEdit(ctx, store.Edit{Workspace: ws.ID, Author: "ada", Ops: set("/tools/0/description", "Typed"), Now: t0})
		}},
		{"typing on (coalesced)", func() (store.EditResult, error) {
			return w.AppendEdit(ctx, store.Edit{Workspace: ws.ID, Author: "ada", Ops: set("/tools/0/description", "Typed on ✓ \u2028 \"q\""), Now: t0})
		}},
		{"another author, the last tool", func() (store.EditResult, error) {
			return w.AppendEdit(ctx, store.Edit{Workspace: ws.ID, Author: "bob", Ops: set("/tools/"+strconv.Itoa(last)+"/description", "Bob's"), Now: t0})
		}},
		{"a tool made identical to another", func() (store.EditResult, error) {
			return w.AppendEdit(ctx, store.Edit{Workspace: ws.ID, Author: "bob", Message: "dup",
				Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/1", Value: l.Tools[2]}}, Now: t0})
		}},
		{"restore of the baseline", func() (store.EditResult, error) {
			return w.Restore(ctx, store.Restore{Workspace: ws.ID, Number: 0, Author: "ada", Now: t0})
		}},
		{"a whole listing", func() (store.EditResult, error) {
			return w.Commit(ctx, store.Commit{Workspace: ws.ID, Author: "ada", Listing: l.Clone(), Now: t0})
		}},
	}
	for _, st := range steps {
		res, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		want[res.Revision.Number] = res.Listing.Marshal("")
	}
	for n, b := range want {
		rev, err := r.Revision(ctx, ws.ID, n)
		if err != nil {
			t.Fatalf("revision %d: %v", n, err)
		}
		if got := rev.Listing.Marshal(""); !bytes.Equal(got, b) {
			t.Errorf("revision %d reads back as %d bytes that differ from the %d written", n, len(got), len(b))
		}
	}
	// The reader's head, edited in turn, must agree with the writer's view of it.
	res, err := r.AppendEdit(ctx, store.Edit{Workspace: ws.ID, Author: "cy", Ops: set("/tools/3/description", "Cy's"), Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := w.Revision(ctx, ws.ID, res.Revision.Number)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rev.Listing.Marshal(""), res.Listing.Marshal("")) {
		t.Error("an edit made through the second store reads back differently through the first")
	}
}
