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
	"maps"
	"os"
	"path/filepath"
	"reflect"
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
		{"TaskCoalescing", testTaskCoalescing},
		{"TasksShape", testTasksShape},
		{"ToolsShape", testToolsShape},
		{"MakeOps", testMakeOps},
		{"Undo", testUndo},
		{"UndoTasks", testUndoTasks},
		{"UndoTaskField", testUndoTaskField},
		{"UndoLargeValues", testUndoLargeValues},
		{"UndoBursts", testUndoBursts},
		{"UndoFollowsMovedTool", testUndoFollowsMovedTool},
		{"UndoDuplicateNames", testUndoDuplicateNames},
		{"LongHistoryDeletes", testLongHistoryDeletes},
		{"RevisionPages", testRevisionPages},
		{"ConcurrentImports", testConcurrentImports},
		{"Meta", testMeta},
		{"Runs", testRuns},
		{"RunCompareAndSwap", testRunCompareAndSwap},
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
	list := allRevisions(t, s, ws)
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
	list, err := s.Revisions(ctx, w.ID, store.RevisionPage{})
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
// GitHub MCP server's listing (about 200 kB), where an edit writes the one tool it changed (tools
// are stored once by hash) and its undo step.
func BenchmarkEdits(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	listings := []struct {
		name string
		l    *listing.Listing
	}{{"sample", Sample(b)}}
	big := filepath.Join(moduleRoot(b), "..", "shared", "listings", "real", "github-mcp-server.json")
	if src, err := os.ReadFile(big); err != nil {
		b.Logf("skipping the github-mcp-server listing: %v", err)
	} else {
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
		// As the browser sends a keystroke: by a person, as a step of their undo.
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bench", AuthorID: "bench", Now: time.Now(),
			Ops: set(path, fmt.Sprintf("Edit number %d of the benchmark", i)), Undo: &store.Undoable{Path: path, Key: path}}); err != nil {
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

// allRevisions pages through a workspace's revisions, newest first.
func allRevisions(t *testing.T, s store.Store, ws string) []store.Revision {
	t.Helper()
	var all []store.Revision
	for before := 0; ; {
		page, err := s.Revisions(context.Background(), ws, store.RevisionPage{Before: before})
		if err != nil {
			t.Fatalf("revisions before %d: %v", before, err)
		}
		all = append(all, page...)
		before = page[len(page)-1].Number
		if before == 0 {
			return all
		}
	}
}

// testRevisionPages pages through a long history: every revision once, newest first, and the
// edges of a page request.
func testRevisionPages(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	const head = 449
	for i := range head {
		// Alternate tools: every edit starts a revision.
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ann", Ops: set(fmt.Sprintf("/tools/%d/description", i%2), fmt.Sprint(i)), Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	numbers := func(revs []store.Revision) []int {
		var out []int
		for _, r := range revs {
			out = append(out, r.Number)
		}
		return out
	}
	// from..to, descending.
	run := func(from, to int) []int {
		var out []int
		for n := from; n >= to; n-- {
			out = append(out, n)
		}
		return out
	}
	var seen []int
	pages := 0
	for before := 0; ; pages++ {
		page, err := s.Revisions(ctx, w.ID, store.RevisionPage{Before: before, Limit: 100})
		if err != nil {
			t.Fatalf("page before %d: %v", before, err)
		}
		seen = append(seen, numbers(page)...)
		if before = page[len(page)-1].Number; before == 0 {
			break
		}
	}
	if want := run(head, 0); !slices.Equal(seen, want) || pages != 4 {
		t.Errorf("paging by 100 over %d pages gave %v; want %v in 5 pages", pages+1, seen, want)
	}

	for _, tc := range []struct {
		name string
		page store.RevisionPage
		want []int
	}{
		{"the zero page: the newest DefaultRevisionLimit", store.RevisionPage{}, run(head, head-store.DefaultRevisionLimit+1)},
		{"negative Before: from the head", store.RevisionPage{Before: -5, Limit: 3}, run(head, head-2)},
		{"Before past the head: from the head", store.RevisionPage{Before: head + 1000, Limit: 3}, run(head, head-2)},
		{"Before past any revision number", store.RevisionPage{Before: 1 << 33, Limit: 3}, run(head, head-2)},
		{"Before the head", store.RevisionPage{Before: head, Limit: 2}, run(head-1, head-2)},
		{"Before 1: the baseline alone", store.RevisionPage{Before: 1, Limit: 10}, []int{0}},
		{"a short last page", store.RevisionPage{Before: 3, Limit: 10}, []int{2, 1, 0}},
		{"a Limit above the maximum: every revision of this short history", store.RevisionPage{Limit: store.MaxRevisionLimit + 1}, run(head, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Revisions(ctx, w.ID, tc.page)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(numbers(got), tc.want) {
				t.Errorf("Revisions(%+v) = %v; want %v", tc.page, numbers(got), tc.want)
			}
		})
	}
	_, err := s.Revisions(ctx, w.ID, store.RevisionPage{Limit: -1})
	wantKind(t, "a negative Limit", err, store.Invalid)
	_, err = s.Revisions(ctx, store.NewID(), store.RevisionPage{Before: 1})
	wantKind(t, "a page of no workspace", err, store.NotFound)
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
// them; an edit whose positions come from before is refused.
func testToolsShape(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	type shapes struct {
		tools  int64
		params map[int]int64
	}
	read := func() shapes {
		t.Helper()
		rec, err := s.Workspace(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		return shapes{rec.ToolsShape, rec.ParamsShapes}
	}
	edit := func(ops ...listing.Op) func() (store.EditResult, error) {
		return func() (store.EditResult, error) {
			return s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "ada", Ops: ops, Now: t0,
				Undo: &store.Undoable{Path: store.UndoScope(ops)}})
		}
	}
	undo := func() (store.EditResult, error) {
		return s.Step(ctx, store.Step{Workspace: w.ID, Author: "ada", AuthorID: "ada", Now: t0})
	}
	schema := func(text string) *listing.Value {
		v, err := listing.ParseJSON([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
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
		{"a description", edit(set("/tools/0/description", "x")...), same, -1, same},
		{"its undo", undo, same, -1, same},
		{"a tool renamed", edit(set("/tools/1/name", "read_file")...), same, -1, same},
		{"a parameter's field", edit(set("/tools/0/inputSchema/properties/q/description", "the query")...), same, -1, same},
		{"a parameter renamed in place", edit(listing.Op{Kind: listing.OpSet, Path: "/tools/0/inputSchema",
			Value: schema(`{"type": "object", "properties": {"query": {"type": "string"}}}`)}), same, -1, same},
		{"a parameter added", edit(listing.Op{Kind: listing.OpSet, Path: "/tools/0/inputSchema",
			Value: schema(`{"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}}`)}), same, 0, thisSeq},
		{"parameters moved in another tool", edit(listing.Op{Kind: listing.OpSet, Path: "/tools/2/inputSchema",
			Value: schema(`{"type": "object", "properties": {"a": {}}}`)}), same, 2, thisSeq},
		{"their undo", undo, same, 2, thisSeq},
		{"a tool moved", edit(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 0, To: 2}), thisSeq, -1, cleared},
		{"a tool added", edit(listing.Op{Kind: listing.OpInsert, Path: "/tools/-", Value: schema(`{"name": "new", "inputSchema": {"type": "object"}}`)}), thisSeq, -1, cleared},
		{"a tool removed", edit(listing.Op{Kind: listing.OpRemove, Path: "/tools/3"}), thisSeq, -1, cleared},
		{"its undo", undo, thisSeq, -1, cleared},
		{"a task file", func() (store.EditResult, error) {
			return s.PutTasks(ctx, store.TaskEdit{Workspace: w.ID, Body: json.RawMessage(`[{"task": "a"}]`), Now: t0})
		}, same, -1, same},
		{"a restore", func() (store.EditResult, error) {
			return s.Restore(ctx, store.Restore{Workspace: w.ID, Number: 1, Now: t0})
		}, thisSeq, -1, cleared},
		{"a commit", func() (store.EditResult, error) {
			return s.Commit(ctx, store.Commit{Workspace: w.ID, Listing: Sample(t), Now: t0})
		}, thisSeq, -1, cleared},
	}
	for _, st := range steps {
		before := read()
		res, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := read()
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
	// Tool 1's parameters move; an edit of tool 0's parameters from before is still accepted,
	// one of tool 1's is not; nor is an edit from before the tools moved.
	if _, err := edit(listing.Op{Kind: listing.OpSet, Path: "/tools/1/inputSchema", Value: schema(`{"type": "object", "properties": {"b": {}}}`)})(); err != nil {
		t.Fatal(err)
	}
	cur := read()
	old := int64(0)
	if p1 := cur.params[1]; p1 == 0 {
		t.Fatal("tool 1's parameters moved, but its shape did not")
	} else if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: set("/tools/1/description", "current"), ToolsBase: &cur.tools, ParamsTool: 1, ParamsBase: &p1, Now: t0}); err != nil {
		t.Errorf("an edit of tool 1 from its current parameters' shape: %v", err)
	}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Ops: set("/tools/0/description", "other tool"), ToolsBase: &cur.tools, ParamsTool: 0, ParamsBase: &old, Now: t0}); err != nil {
		t.Errorf("an edit of a tool whose parameters did not move: %v", err)
	}
	for _, e := range []store.Edit{
		{Workspace: w.ID, Ops: set("/tools/1/description", "stale"), ToolsBase: &cur.tools, ParamsTool: 1, ParamsBase: &old, Now: t0},
		{Workspace: w.ID, Ops: set("/tools/1/description", "stale"), ToolsBase: &old, Now: t0},
	} {
		_, err := s.AppendEdit(ctx, e)
		wantKind(t, "an edit from before the shape moved", err, store.Conflict)
		if !errors.Is(err, store.ErrToolsReshaped) {
			t.Errorf("its cause is %v, want ErrToolsReshaped", err)
		}
	}
	// An edit that moved a parameter is a revision of its own: the same person's next edit of
	// that schema, a moment later, does not extend it.
	added, err := edit(listing.Op{Kind: listing.OpSet, Path: "/tools/0/inputSchema", Value: schema(`{"type": "object", "properties": {"x": {}, "new": {}}}`)})()
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := edit(listing.Op{Kind: listing.OpSet, Path: "/tools/0/inputSchema", Value: schema(`{"type": "object", "properties": {"x": {}, "renamed": {}}}`)})()
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Coalesced || renamed.Revision.Number == added.Revision.Number {
		t.Errorf("a rename right after a parameter was added extended its revision %d", added.Revision.Number)
	}
	cur = read()
	f, err := s.ForkWorkspace(ctx, store.Fork{From: w.ID, Title: "fork", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if f.ToolsShape != cur.tools || !maps.Equal(f.ParamsShapes, cur.params) {
		t.Errorf("a fork's shapes are %d %v, want its source's %+v", f.ToolsShape, f.ParamsShapes, cur)
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
