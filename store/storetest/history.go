package storetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

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
		// "ada!" is ada making an Alone edit (a quick fix).
		{"an alone edit extends no typing", []step{
			{"ada", set(desc, "S"), 0, 1, ""}, {"ada!", set(desc, "Se"), time.Second, 2, ""}}},
		{"typing does not extend an alone edit", []step{
			{"ada!", set(desc, "S"), 0, 1, ""}, {"ada", set(desc, "Se"), time.Second, 2, ""}, {"ada", set(desc, "Sea"), time.Second, 2, ""}}},
		{"two alone edits of one field are two revisions", []step{
			{"ada!", set(desc, "S"), 0, 1, ""}, {"ada!", set(desc, "Se"), time.Second, 2, ""}}},
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
				author, alone := strings.CutSuffix(st.author, "!")
				name, id, _ := strings.Cut(author, "#")
				res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: name, AuthorID: id, Ops: st.ops, Now: at, Alone: alone})
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

func testRealListings(t *testing.T, s store.Store) {
	dir, _ := testutil.SharedPath(t, "listings", "real")
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
