// Package storetest is the conformance suite every store.Store passes: call Run from the
// implementation's tests with a function that opens a store, and BenchmarkEdits from its
// benchmarks. Tests only create workspaces of their own, so one database can serve them all.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Opener opens a store for one test; the suite closes it.
type Opener func(t testing.TB) store.Store

// Run runs the conformance suite.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Workspaces", testWorkspaces},
		{"InvalidInput", testInvalidInput},
		{"EditsAndRevisions", testEditsAndRevisions},
		{"Coalescing", testCoalescing},
		{"BadEditChangesNothing", testBadEdit},
		{"RestoreAndCommit", testRestoreAndCommit},
		{"NameRevision", testNameRevision},
		{"RealListingsRoundTrip", testRealListings},
		{"Tasks", testTasks},
		{"Runs", testRuns},
		{"ShareLinks", testShareLinks},
		{"Sessions", testSessions},
		{"Fork", testFork},
		{"Subscribe", testSubscribe},
		{"ConcurrentEdits", testConcurrentEdits},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// sample is a small listing in the JSON-RPC response shape, with an envelope member and a
// non-ASCII description, so a round trip that loses either shows.
const sample = `{"jsonrpc": "2.0", "id": 7, "result": {"tools": [
 {"name": "search", "description": "Search the files", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
 {"name": "read", "description": "Read one file — fully", "inputSchema": {"type": "object"}, "x-extra": 1.50},
 {"name": "write", "description": "Write a file", "inputSchema": {"type": "object"}}
], "nextCursor": "abc"}}`

// Sample returns the suite's sample listing.
func Sample(t testing.TB) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(sample), listing.Options{Name: "sample"})
	if err != nil {
		t.Fatalf("parse sample: %v", err)
	}
	return l
}

func newWorkspace(t testing.TB, s store.Store, at time.Time) store.Workspace {
	t.Helper()
	w, err := s.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "Sample server", Author: "ada", Message: "imported", Listing: Sample(t), Now: at})
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return w
}

func set(path, text string) []listing.Op {
	return []listing.Op{{Kind: listing.OpSet, Path: path, Value: listing.NewString(text)}}
}

func sameListing(a, b *listing.Listing) bool {
	return bytes.Equal(a.Marshal(""), b.Marshal(""))
}

func wantKind(t *testing.T, what string, err error, k store.Kind) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want a %s error", what, k)
		return
	}
	if got := store.KindOf(err); got != k {
		t.Errorf("%s: error kind %s (%v), want %s", what, got, err, k)
	}
	if err.Error() == "" {
		t.Errorf("%s: empty error message", what)
	}
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

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
	if got != want {
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
	_, err = s.Revisions(ctx, w.ID)
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

// checkHistory checks the invariants of a workspace's history: revisions numbered 0..head,
// each the child of the one before, each one's listing its parent's with its ops applied (for
// edits: exactly; for a replace or restore: the tools), edits numbered 1..seq with none missing.
func checkHistory(t *testing.T, s store.Store, ws string) []store.Revision {
	t.Helper()
	ctx := context.Background()
	w, err := s.Workspace(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.Revisions(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != w.Head+1 {
		t.Fatalf("%d revisions listed; head is %d", len(list), w.Head)
	}
	full := make([]store.Revision, len(list))
	var edits int64
	for i := range full {
		r, err := s.Revision(ctx, ws, i)
		if err != nil {
			t.Fatalf("revision %d: %v", i, err)
		}
		if lr := list[len(list)-1-i]; lr.Number != i || lr.LastSeq != r.LastSeq || lr.Edits != r.Edits {
			t.Errorf("listed revision %+v differs from revision %d %+v", lr, i, r)
		}
		full[i] = r
		if i == 0 {
			if r.Parent != -1 || r.Kind != store.KindImport || len(r.Ops) != 0 || r.Edits != 0 {
				t.Errorf("baseline = %+v", r)
			}
			continue
		}
		if r.Parent != i-1 {
			t.Errorf("revision %d has parent %d", i, r.Parent)
		}
		if r.FirstSeq != edits+1 || r.LastSeq != edits+int64(r.Edits) {
			t.Errorf("revision %d holds edits %d..%d; want %d..%d", i, r.FirstSeq, r.LastSeq, edits+1, edits+int64(r.Edits))
		}
		edits += int64(r.Edits)
		replayed, err := full[i-1].Listing.ApplyAll(r.Ops)
		if err != nil {
			t.Errorf("revision %d: its ops do not apply to its parent: %v", i, err)
			continue
		}
		same := sameListing(replayed, r.Listing)
		if r.Kind != store.KindEdit { // a whole listing: its ops set the tools, the envelope may differ
			same = bytes.Equal(listing.Marshal(listing.NewArray(replayed.Tools...), ""), listing.Marshal(listing.NewArray(r.Listing.Tools...), ""))
		}
		if !same {
			t.Errorf("revision %d: parent + ops =\n%s\nstored listing =\n%s", i, replayed.Marshal(""), r.Listing.Marshal(""))
		}
	}
	if edits != w.Seq {
		t.Errorf("revisions hold %d edits; the workspace accepted %d", edits, w.Seq)
	}
	all, err := s.Edits(ctx, ws, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(all)) != w.Seq {
		t.Errorf("Edits lists %d edits; want %d", len(all), w.Seq)
	}
	for i, e := range all {
		if e.Seq != int64(i+1) {
			t.Errorf("edit %d has seq %d", i, e.Seq)
			break
		}
	}
	head, err := s.Revision(ctx, ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	if head.Number != w.Head || !sameListing(head.Listing, full[len(full)-1].Listing) {
		t.Errorf("Revision(-1) is number %d; head is %d", head.Number, w.Head)
	}
	return full
}

func testEditsAndRevisions(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	at := t0.Add(time.Minute)
	res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Message: "clearer search", Now: at,
		Ops: set("/tools/0/description", "Search file contents by regular expression")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 1 || res.Coalesced || res.Revision.Number != 1 || res.Revision.Message != "clearer search" ||
		res.Revision.Field != "/tools/0/description" || !res.Revision.Created.Equal(at) {
		t.Errorf("first edit: %+v", res)
	}
	if got := res.Listing.Tools[0].Get("description").Str; got != "Search file contents by regular expression" {
		t.Errorf("head description = %q", got)
	}
	// A structural edit: move a tool, then remove one (never coalesce).
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "ada-1", Now: at.Add(time.Second),
		Ops: []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 2, To: 0}}}); err != nil {
		t.Fatal(err)
	}
	res, err = s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Now: at.Add(2 * time.Second),
		Ops: []listing.Op{{Kind: listing.OpRemove, Path: "/tools/1/inputSchema"}, {Kind: listing.OpSet, Path: "/tools/1/inputSchema", Value: listing.NewObject()}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision.Number != 3 || res.Revision.Field != "" {
		t.Errorf("third edit: %+v", res.Revision)
	}
	if got := strings.Join(res.Listing.Names(), ","); got != "write,search,read" {
		t.Errorf("tools after move = %s", got)
	}
	full := checkHistory(t, s, w.ID)
	// The baseline is the listing as imported, envelope and all.
	if !sameListing(full[0].Listing, Sample(t)) {
		t.Errorf("baseline changed:\n%s", full[0].Listing.Marshal(""))
	}
	if got := full[3].Listing.NextCursor().String(); got != "abc" {
		t.Errorf("envelope lost: nextCursor = %s", got)
	}
	since, err := s.Edits(ctx, w.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(since) != 2 || since[0].Seq != 2 || since[1].Revision != 3 || len(since[1].Ops) != 2 || since[0].Author != "ada" || since[0].AuthorID != "ada-1" {
		t.Errorf("Edits(after 1) = %+v", since)
	}
	if lim, _ := s.Edits(ctx, w.ID, 0, 1); len(lim) != 1 {
		t.Errorf("Edits with limit 1 returned %d", len(lim))
	}
}

func testCoalescing(t *testing.T, s store.Store) {
	ctx := context.Background()
	desc := "/tools/0/description"
	// Each step is an edit and the revision number it must land in.
	type step struct {
		author string
		ops    []listing.Op
		after  time.Duration // since the previous edit
		rev    int
		name   string // name the head before this edit
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"typing in one field coalesces", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", set(desc, "Se"), time.Second, 1, ""}, {"ada", set(desc, "Sea"), store.CoalesceWindow, 1, ""}}},
		{"a pause starts a revision", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", set(desc, "Se"), store.CoalesceWindow + time.Millisecond, 2, ""}}},
		{"another field starts a revision", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", set("/tools/1/description", "R"), time.Second, 2, ""}, {"ada", set(desc, "Se"), time.Second, 3, ""}}},
		{"the same name under another ID starts a revision", []step{
			{"sam#1", set(desc, "S"), 0, 1, ""}, {"sam#2", set(desc, "Se"), time.Second, 2, ""}}},
		{"another author starts a revision", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"bob", set(desc, "Se"), time.Second, 2, ""}, {"ada", set(desc, "Sea"), time.Second, 3, ""}}},
		{"a clock going back starts a revision", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", set(desc, "Se"), -time.Second, 2, ""}}},
		{"a named revision is never extended", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", set(desc, "Se"), time.Second, 2, "checkpoint"}}},
		{"removals do not coalesce", []step{
			{"ada", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/0/inputSchema"}}, 0, 1, ""},
			{"ada", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/0/description"}}, time.Second, 2, ""}}},
		{"two sets of one field coalesce", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada", append(set(desc, "Se"), set(desc, "Sea")...), time.Second, 1, ""}}},
		{"the baseline is never extended", []step{{"ada", set(desc, "S"), 0, 1, ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t, s, t0)
			at := t0.Add(time.Minute)
			for i, st := range tc.steps {
				at = at.Add(st.after)
				if st.name != "" {
					if _, err := s.NameRevision(ctx, w.ID, i, st.name); err != nil {
						t.Fatal(err)
					}
				}
				// "name#id" is a display name with an author ID.
				name, id, _ := strings.Cut(st.author, "#")
				res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: name, AuthorID: id, Ops: st.ops, Now: at})
				if err != nil {
					t.Fatalf("edit %d: %v", i, err)
				}
				if res.Revision.Number != st.rev || res.Seq != int64(i+1) || res.Coalesced != (i > 0 && tc.steps[i-1].rev == st.rev) {
					t.Errorf("edit %d landed in revision %d (seq %d, coalesced %v); want revision %d", i, res.Revision.Number, res.Seq, res.Coalesced, st.rev)
				}
				// Reading the head after each edit also checks that no stale listing is served
				// once an edit extends a revision that was read before.
				head, err := s.Revision(ctx, w.ID, st.rev)
				if err != nil {
					t.Fatal(err)
				}
				if !sameListing(head.Listing, res.Listing) || head.Edits != res.Revision.Edits {
					t.Errorf("after edit %d, revision %d reads as %s (%d edits); the edit returned %s (%d edits)",
						i, st.rev, head.Listing.Marshal(""), head.Edits, res.Listing.Marshal(""), res.Revision.Edits)
				}
			}
			checkHistory(t, s, w.ID)
		})
	}
	// The rule itself, as the stores apply it.
	head := store.Revision{Number: 3, Kind: store.KindEdit, Author: "ada", Field: desc, Updated: t0, Edits: store.MaxCoalescedEdits}
	if store.Coalesces(head, store.Edit{Author: "ada", Ops: set(desc, "x"), Now: t0}) {
		t.Error("a full revision was extended")
	}
}

func testBadEdit(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	bad := [][]listing.Op{
		{{Kind: listing.OpSet, Path: "/tools/9/description", Value: listing.NewString("x")}},
		{{Kind: listing.OpRemove, Path: "/tools/0/name"}},
		{{Kind: listing.OpSet, Path: "/tools/0/name", Value: listing.NewInt(3)}},
		{{Kind: listing.OpSet, Path: "/envelope", Value: listing.NewString("x")}},
		// The first op applies, the second does not: nothing of the edit may land.
		{set("/tools/0/description", "half")[0], {Kind: listing.OpMove, Path: "/tools", From: 0, To: 7}},
	}
	for i, ops := range bad {
		_, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: ops, Now: t0})
		wantKind(t, fmt.Sprintf("bad edit %d", i), err, store.Invalid)
	}
	got, err := s.Workspace(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != 0 || got.Seq != 0 {
		t.Errorf("after rejected edits: head %d, seq %d; want 0, 0", got.Head, got.Seq)
	}
	head, err := s.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if !sameListing(head.Listing, Sample(t)) {
		t.Error("a rejected edit changed the listing")
	}
}

func testRestoreAndCommit(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	for i, text := range []string{"one", "two"} {
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: set("/tools/1/description", text), Now: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 1, Author: "bob", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision.Number != 3 || res.Revision.Kind != store.KindRestore || res.Revision.RestoredFrom != 1 ||
		res.Revision.Message != "restored revision 1" || res.Coalesced {
		t.Errorf("restore: %+v", res.Revision)
	}
	if got := res.Listing.Tools[1].Get("description").Str; got != "one" {
		t.Errorf("restored description = %q, want one", got)
	}
	// The restore is a revision like any: the edit after it does not extend it.
	res, err = s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bob", Ops: set("/tools/1/description", "three"), Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision.Number != 4 {
		t.Errorf("edit after restore landed in %d", res.Revision.Number)
	}
	other, err := listing.Parse([]byte(`[{"name": "only", "description": "The only tool"}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Commit(ctx, store.Commit{Workspace: w.ID, Author: "cy", Message: "uploaded v2", Listing: other, Now: t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision.Number != 5 || res.Revision.Kind != store.KindReplace || res.Revision.Message != "uploaded v2" {
		t.Errorf("commit: %+v", res.Revision)
	}
	full := checkHistory(t, s, w.ID)
	if !sameListing(full[5].Listing, other) {
		t.Errorf("committed listing stored as %s", full[5].Listing.Marshal(""))
	}
	if !sameListing(full[0].Listing, Sample(t)) {
		t.Error("the baseline changed")
	}
}

func testNameRevision(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: set("/tools/0/title", "Search"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	r, err := s.NameRevision(ctx, w.ID, 1, "release candidate 2")
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "release candidate 2" || r.Number != 1 {
		t.Errorf("named: %+v", r)
	}
	_, err = s.NameRevision(ctx, w.ID, 0, "release candidate 2")
	wantKind(t, "a name used twice", err, store.Conflict)
	_, err = s.NameRevision(ctx, w.ID, 7, "x")
	wantKind(t, "naming a missing revision", err, store.NotFound)
	// Another workspace may use the same name.
	w2 := newWorkspace(t, s, t0)
	if _, err := s.NameRevision(ctx, w2.ID, 0, "release candidate 2"); err != nil {
		t.Errorf("same name in another workspace: %v", err)
	}
	if r, err = s.NameRevision(ctx, w.ID, 1, ""); err != nil || r.Name != "" {
		t.Errorf("clearing the name: %+v, %v", r, err)
	}
	if _, err := s.NameRevision(ctx, w.ID, 0, "release candidate 2"); err != nil {
		t.Errorf("name free again after clearing: %v", err)
	}
	list, err := s.Revisions(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].Name != "release candidate 2" || list[0].Name != "" {
		t.Errorf("revisions = %+v", list)
	}
}

// moduleRoot finds the directory holding go.mod above the test's working directory.
func moduleRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func testRealListings(t *testing.T, s store.Store) {
	dir := filepath.Join(moduleRoot(t), "..", "shared", "listings", "real")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no real listings in %s (the shared folder is absent)", dir)
	}
	ctx := context.Background()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			l, err := listing.Parse(src, listing.Options{Name: f})
			if err != nil {
				t.Fatal(err)
			}
			w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: filepath.Base(f), Listing: l, Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			last := len(l.Tools) - 1
			if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: set(fmt.Sprintf("/tools/%d/description", last), "Edited ✓ \u2028 \"quoted\""), Now: t0}); err != nil {
				t.Fatal(err)
			}
			full := checkHistory(t, s, w.ID)
			if !sameListing(full[0].Listing, l) {
				t.Error("the baseline does not encode as the input did")
			}
			want, _ := l.Apply(set(fmt.Sprintf("/tools/%d/description", last), "Edited ✓ \u2028 \"quoted\"")[0])
			if !sameListing(full[1].Listing, want) {
				t.Error("revision 1 is not the input with the edit")
			}
		})
	}
}

func testTasks(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	_, err := s.Tasks(ctx, w.ID)
	wantKind(t, "no task file yet", err, store.NotFound)
	body := json.RawMessage(`{"tasks": [{"prompt": "find TODOs", "expect": "search"}]}`)
	if _, err := s.PutTasks(ctx, store.TaskFile{Workspace: w.ID, Body: body, Author: "ada", Updated: t0}); err != nil {
		t.Fatal(err)
	}
	body2 := json.RawMessage(`{"tasks": []}`)
	if _, err := s.PutTasks(ctx, store.TaskFile{Workspace: w.ID, Body: body2, Author: "bob", Updated: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tasks(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Body) != string(body2) || got.Author != "bob" || !got.Updated.Equal(t0.Add(time.Second)) {
		t.Errorf("Tasks = %+v", got)
	}
	_, err = s.PutTasks(ctx, store.TaskFile{Workspace: w.ID, Body: json.RawMessage(`{"tasks": }`)})
	wantKind(t, "malformed task file", err, store.Invalid)
	_, err = s.PutTasks(ctx, store.TaskFile{Workspace: w.ID, Body: bytes.Repeat([]byte(" "), store.MaxTasks+1)})
	wantKind(t, "huge task file", err, store.Invalid)
	_, err = s.PutTasks(ctx, store.TaskFile{Workspace: store.NewID(), Body: body})
	wantKind(t, "task file of unknown workspace", err, store.NotFound)
	_, err = s.Tasks(ctx, store.NewID())
	wantKind(t, "tasks of unknown workspace", err, store.NotFound)
	// Created with its tasks.
	w2, err := s.CreateWorkspace(ctx, store.NewWorkspace{Listing: Sample(t), Tasks: body, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Tasks(ctx, w2.ID); err != nil || string(got.Body) != string(body) {
		t.Errorf("tasks given at creation: %+v, %v", got, err)
	}
}

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

func testShareLinks(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	view, err := s.CreateShareLink(ctx, store.NewShareLink{Workspace: w.ID, Capability: store.CanView, Author: "ada", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	edit, err := s.CreateShareLink(ctx, store.NewShareLink{Workspace: w.ID, Capability: store.CanEdit, Author: "ada", Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if view.Token == edit.Token || view.Token == view.ID || view.Token == w.ID {
		t.Errorf("tokens are not distinct: %+v %+v", view, edit)
	}
	for _, l := range []store.ShareLink{view, edit} {
		got, err := s.ShareLink(ctx, l.Token)
		if err != nil {
			t.Fatal(err)
		}
		if got.Workspace != w.ID || got.Capability != l.Capability || got.ID != l.ID || got.Token != "" {
			t.Errorf("ShareLink(%s) = %+v", l.Capability, got)
		}
	}
	list, err := s.ShareLinks(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != view.ID || list[0].Token != "" || list[1].Capability != store.CanEdit {
		t.Errorf("ShareLinks = %+v", list)
	}
	if err := s.RevokeShareLink(ctx, w.ID, edit.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	_, err = s.ShareLink(ctx, edit.Token)
	wantKind(t, "revoked link", err, store.Forbidden)
	if _, err := s.ShareLink(ctx, view.Token); err != nil {
		t.Errorf("revoking one link revoked another: %v", err)
	}
	if err := s.RevokeShareLink(ctx, w.ID, edit.ID, t0.Add(2*time.Hour)); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	list, _ = s.ShareLinks(ctx, w.ID)
	if len(list) != 2 || !list[1].Revoked.Equal(t0.Add(time.Hour)) {
		t.Errorf("revoked link listed as %+v", list)
	}
	_, err = s.ShareLink(ctx, store.NewID())
	wantKind(t, "unknown token", err, store.NotFound)
	_, err = s.ShareLink(ctx, view.ID)
	wantKind(t, "a link's ID is not its token", err, store.NotFound)
	_, err = s.ShareLink(ctx, "<script>")
	wantKind(t, "malformed token", err, store.Invalid)
	_, err = s.CreateShareLink(ctx, store.NewShareLink{Workspace: w.ID, Capability: "admin"})
	wantKind(t, "unknown capability", err, store.Invalid)
	_, err = s.CreateShareLink(ctx, store.NewShareLink{Workspace: store.NewID(), Capability: store.CanView})
	wantKind(t, "link to unknown workspace", err, store.NotFound)
	w2 := newWorkspace(t, s, t0)
	wantKind(t, "revoke through another workspace", s.RevokeShareLink(ctx, w2.ID, view.ID, t0), store.NotFound)
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.ShareLink(ctx, view.Token)
	wantKind(t, "link to a deleted workspace", err, store.NotFound)
}

func testSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	ss, err := s.CreateSession(ctx, store.NewSession{Name: "Ada Lovelace", Now: t0, Expires: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, ss.Token, t0.Add(59*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Ada Lovelace" || got.ID != ss.ID || got.Token != "" || !got.Expires.Equal(t0.Add(time.Hour)) {
		t.Errorf("Session = %+v", got)
	}
	_, err = s.Session(ctx, ss.Token, t0.Add(time.Hour))
	wantKind(t, "expired session", err, store.NotFound)
	_, err = s.CreateSession(ctx, store.NewSession{Name: " ", Now: t0, Expires: t0.Add(time.Hour)})
	wantKind(t, "blank name", err, store.Invalid)
	_, err = s.CreateSession(ctx, store.NewSession{Name: "x", Now: t0, Expires: t0})
	wantKind(t, "already expired", err, store.Invalid)
	other, err := s.CreateSession(ctx, store.NewSession{Name: "Bob", Now: t0, Expires: t0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.PurgeSessions(ctx, t0.Add(24*time.Hour))
	if err != nil || n < 1 {
		t.Errorf("PurgeSessions = %d, %v; want at least the one expired", n, err)
	}
	if _, err := s.Session(ctx, other.Token, t0.Add(25*time.Hour)); err != nil {
		t.Errorf("a live session was purged: %v", err)
	}
	if err := s.DeleteSession(ctx, other.Token); err != nil {
		t.Fatal(err)
	}
	_, err = s.Session(ctx, other.Token, t0)
	wantKind(t, "deleted session", err, store.NotFound)
	if err := s.DeleteSession(ctx, store.NewID()); err != nil {
		t.Errorf("deleting an unknown session: %v", err)
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
	if _, err := s.PutTasks(ctx, store.TaskFile{Workspace: w.ID, Body: json.RawMessage(`{"tasks": [1]}`), Updated: t0}); err != nil {
		t.Fatal(err)
	}
	f, err := s.ForkWorkspace(ctx, store.Fork{From: w.ID, Author: "student", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if f.ID == w.ID || f.ForkedFrom != w.ID || f.Title != w.Title || f.Head != 1 || f.Seq != 1 {
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
	if src.Number != 1 || src.Listing.Tools[0].Get("description").Str != "Start here" {
		t.Errorf("editing the fork changed the source: %+v", src)
	}
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revision(ctx, f.ID, 2); err != nil {
		t.Errorf("the fork lost its history with its source: %v", err)
	}
	_, err = s.ForkWorkspace(ctx, store.Fork{From: w.ID})
	wantKind(t, "fork of a deleted workspace", err, store.NotFound)
}

func testSubscribe(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(t, s, t0)
	other := newWorkspace(t, s, t0)
	events, err := s.Subscribe(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: other.ID, Author: "eve", Ops: set("/tools/0/description", "x"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "s1", Ops: set("/tools/0/description", "x"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NameRevision(ctx, w.ID, 1, "named"); err != nil {
		t.Fatal(err)
	}
	presence := store.Event{Workspace: w.ID, Kind: store.EventPresence, Author: "bob", Field: "/tools/2", Detail: "joined"}
	if err := s.Announce(ctx, presence); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "announcing an edit", s.Announce(ctx, store.Event{Workspace: w.ID, Kind: store.EventEdit}), store.Invalid)
	wantKind(t, "a huge presence detail", s.Announce(ctx, store.Event{Workspace: w.ID, Kind: store.EventPresence,
		Detail: strings.Repeat("\x01", store.MaxDetail+1)}), store.Invalid)
	want := []store.Event{
		{Workspace: w.ID, Kind: store.EventEdit, Seq: 1, Revision: 1, Author: "ada", AuthorID: "s1", Field: "/tools/0/description"},
		{Workspace: w.ID, Kind: store.EventRevision, Revision: 1},
		presence,
	}
	for i, wev := range want {
		select {
		case ev := <-events:
			if ev != wev {
				t.Errorf("event %d = %+v, want %+v", i, ev, wev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d did not arrive within 10 s", i)
		}
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the channel stayed open after its context ended")
		}
	}
}

// ConcurrentClients and ConcurrentEdits size the concurrency test (20 × 200); -short shrinks it.
const (
	ConcurrentClients = 20
	ConcurrentEdits   = 200
)

// testConcurrentEdits has many clients edit one workspace at once, each typing in its own field
// (so that consecutive edits of one client coalesce) and now and then in a shared one. Every edit
// must be accepted, appear once in history in the order the store accepted it, and the final
// listing must equal the baseline with every edit applied in that order.
func testConcurrentEdits(t *testing.T, s store.Store) {
	clients, per := ConcurrentClients, ConcurrentEdits
	if testing.Short() {
		clients, per = 5, 20
	}
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	type ack struct {
		client, n int
		seq       int64
	}
	acks := make(chan ack, clients*per)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			author := fmt.Sprintf("client-%02d", c)
			for n := range per {
				path := fmt.Sprintf("/tools/%d/x-%s", c%3, author)
				if n%10 == 9 {
					path = "/tools/0/description"
				}
				res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: author, Now: time.Now(),
					Ops: set(path, fmt.Sprintf("%s edit %d", author, n))})
				if err != nil {
					errs <- fmt.Errorf("%s edit %d: %w", author, n, err)
					return
				}
				acks <- ack{c, n, res.Seq}
			}
		}()
	}
	wg.Wait()
	close(acks)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	bySeq := map[int64]ack{}
	for a := range acks {
		if prev, dup := bySeq[a.seq]; dup {
			t.Errorf("seq %d acknowledged twice: %+v and %+v", a.seq, prev, a)
		}
		bySeq[a.seq] = a
	}
	if len(bySeq) != clients*per {
		t.Fatalf("%d distinct edits acknowledged; want %d", len(bySeq), clients*per)
	}
	history, err := s.Edits(ctx, w.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != clients*per {
		t.Fatalf("history holds %d edits; want %d", len(history), clients*per)
	}
	next := make([]int, clients) // each client's edits appear in the order it made them
	cur := Sample(t)
	for _, e := range history {
		a, ok := bySeq[e.Seq]
		if !ok {
			t.Fatalf("history has edit %d that nobody was told was accepted", e.Seq)
		}
		if want := fmt.Sprintf("client-%02d edit %d", a.client, a.n); len(e.Ops) != 1 || e.Ops[0].Value.Str != want {
			t.Fatalf("edit %d holds %+v; the client was acknowledged for %q", e.Seq, e.Ops, want)
		}
		if a.n != next[a.client] {
			t.Errorf("client %d's edit %d is at seq %d, after its edit %d", a.client, a.n, e.Seq, next[a.client]-1)
		}
		next[a.client]++
		if cur, err = cur.ApplyAll(e.Ops); err != nil {
			t.Fatal(err)
		}
	}
	head, err := s.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if !sameListing(head.Listing, cur) {
		t.Error("the head listing is not the baseline with every edit applied in the order accepted")
	}
	full := checkHistory(t, s, w.ID)
	coalesced := 0
	for _, r := range full {
		if r.Edits > 1 {
			coalesced += r.Edits - 1
		}
	}
	t.Logf("%d edits by %d clients in %d revisions (%d edits coalesced)", len(history), clients, len(full)-1, coalesced)
}

// BenchmarkEdits measures AppendEdit latency, one edit after another, and reports the median
// and 99th percentile in milliseconds. "new-revision" edits alternate fields so each starts a
// revision (INSERT); "coalesced" edits type into one field (UPDATE of the head).
//
// It runs on the suite's three-tool sample and, when the shared listings are there, on the
// GitHub MCP server's listing (about 200 kB): every revision keeps the whole listing, so the
// listing's size is the cost to watch.
func BenchmarkEdits(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	listings := []struct {
		name string
		l    *listing.Listing
	}{{"sample", Sample(b)}}
	big := filepath.Join(moduleRoot(b), "..", "shared", "listings", "real", "github-mcp-server.json")
	if src, err := os.ReadFile(big); err == nil {
		l, err := listing.Parse(src, listing.Options{Name: big})
		if err != nil {
			b.Fatal(err)
		}
		listings = append(listings, struct {
			name string
			l    *listing.Listing
		}{"github-mcp-server", l})
	}
	for _, lc := range listings {
		for _, mode := range []string{"new-revision", "coalesced"} {
			b.Run(lc.name+"/"+mode, func(b *testing.B) {
				benchmarkEdits(b, s, lc.l, mode)
			})
		}
	}
}

func benchmarkEdits(b *testing.B, s store.Store, l *listing.Listing, mode string) {
	ctx := context.Background()
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "bench", Listing: l, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		path := "/tools/0/description"
		if mode == "new-revision" {
			path = fmt.Sprintf("/tools/%d/description", i%3)
		}
		start := time.Now()
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bench", Now: time.Now(),
			Ops: set(path, fmt.Sprintf("Edit number %d of the benchmark", i))}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	ReportLatency(b, lat)
	b.ReportMetric(float64(len(l.Marshal(""))), "listing-bytes")
}

// ReportLatency reports the p50 and p99 of lat, in milliseconds.
func ReportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}

// FanoutSubscribers is how many subscribers BenchmarkFanout has on one workspace.
const FanoutSubscribers = 200

// BenchmarkFanout has FanoutSubscribers subscribers on one workspace and measures, for each
// edit, the time from calling AppendEdit to each subscriber receiving its event (commit
// included, and on PostgreSQL the NOTIFY round trip): p50 and p99 over all deliveries, and the
// p99 of the slowest delivery of each edit ("all-p99-ms").
func BenchmarkFanout(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(b, s, time.Now())
	var (
		mu      sync.Mutex
		start   time.Time
		pending sync.WaitGroup
		each    []time.Duration
	)
	for range FanoutSubscribers {
		ch, err := s.Subscribe(ctx, w.ID)
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for ev := range ch {
				if ev.Kind != store.EventEdit {
					continue
				}
				mu.Lock()
				each = append(each, time.Since(start))
				mu.Unlock()
				pending.Done()
			}
		}()
	}
	var all []time.Duration
	for i := 0; b.Loop(); i++ {
		pending.Add(FanoutSubscribers)
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bench", Now: time.Now(),
			Ops: set("/tools/0/description", fmt.Sprintf("Edit %d", i))}); err != nil {
			b.Fatal(err)
		}
		pending.Wait()
		all = append(all, time.Since(start))
	}
	b.StopTimer()
	ReportLatency(b, each)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(all[int(0.99*float64(len(all)-1))])/1e6, "all-p99-ms")
}

// BenchmarkIdleSubscribers measures the heap an idle subscription holds (its channel, its
// registration and its context), in bytes per subscriber.
func BenchmarkIdleSubscribers(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	w := newWorkspace(b, s, time.Now())
	const n = 10000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cancels := make([]context.CancelFunc, n)
		for i := range cancels {
			ctx, cancel := context.WithCancel(context.Background())
			if _, err := s.Subscribe(ctx, w.ID); err != nil {
				b.Fatal(err)
			}
			cancels[i] = cancel
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/subscriber")
		for _, c := range cancels {
			c()
		}
	}
}
