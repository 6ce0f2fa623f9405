package review

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// gate is what a Status says, in short.
type gate struct {
	Passed    bool
	Approvals int
	Approved  int
	Reasons   []string
}

func approving(name string) step { return func(f *fixture) { f.signOff(name, store.Approved) } }
func objecting(name string) step { return func(f *fixture) { f.signOff(name, store.ChangesRequested) } }
func describing(text string) step {
	return editing(set("/tools/1/description", listing.NewString(text)))
}
func erring(n int) step { return func(f *fixture) { f.errs = n } }
func threading() step   { return func(f *fixture) { f.comment("b", "/description") } }
func resolvingAll() step {
	return func(f *fixture) {
		ts, err := f.svc.Threads(f.ctx, f.ws)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, th := range ts {
			if err := f.svc.Resolve(f.ctx, f.ws, th.ID, true, Author{Name: "Bo", ID: "bo"}); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

const stale0 = "0 of 1 required approvals on this revision (Ana approved revision 0, which has changed since)"

var gateCases = []struct {
	name    string
	require int
	steps   []step
	want    gate
}{
	{"no sign-off", 1, nil, gate{false, 0, -1, []string{"0 of 1 required approvals on this revision"}}},
	{"approved", 1, []step{approving("Ana")}, gate{true, 1, 0, []string{}}},
	{"require 0 means 1", 0, []step{approving("Ana")}, gate{true, 1, 0, []string{}}},
	{"stale after an edit", 1, []step{approving("Ana"), describing("Beta finds bugs.")}, gate{false, 0, 0, []string{stale0}}},
	{"current again after the edit is undone", 1, []step{approving("Ana"), describing("Beta finds bugs."), undoing()},
		gate{true, 1, 0, []string{}}},
	{"approved again after the edit", 1, []step{approving("Ana"), describing("Beta finds bugs."), approving("Ana")},
		gate{true, 1, 1, []string{}}},
	{"a change request blocks", 1, []step{approving("Ana"), objecting("Bo")},
		gate{false, 1, 0, []string{"Bo requested changes on this revision"}}},
	{"a stale change request does not", 1, []step{objecting("Bo"), describing("Fixed."), approving("Ana")},
		gate{true, 1, 1, []string{}}},
	{"a person's latest verdict counts", 1, []step{approving("Ana"), objecting("Ana")},
		gate{false, 0, -1, []string{"0 of 1 required approvals on this revision", "Ana requested changes on this revision"}}},
	{"an open thread blocks", 1, []step{threading(), approving("Ana")}, gate{false, 1, 0, []string{"1 thread is open"}}},
	{"two open threads", 1, []step{threading(), threading(), approving("Ana")}, gate{false, 1, 0, []string{"2 threads are open"}}},
	{"resolved threads do not", 1, []step{threading(), threading(), resolvingAll(), approving("Ana")}, gate{true, 1, 0, []string{}}},
	{"errors block", 1, []step{erring(3), approving("Ana")}, gate{false, 1, 0, []string{"the listing has 3 error findings"}}},
	{"one error", 1, []step{erring(1), approving("Ana")}, gate{false, 1, 0, []string{"the listing has 1 error finding"}}},
	{"two people required, one approved", 2, []step{approving("Ana")},
		gate{false, 1, 0, []string{"1 of 2 required approvals on this revision"}}},
	{"two people required, both approved", 2, []step{approving("Ana"), approving("Bo")}, gate{true, 2, 0, []string{}}},
	{"one person approving twice counts once", 2, []step{approving("Ana"), approving("Ana")},
		gate{false, 1, 0, []string{"1 of 2 required approvals on this revision"}}},
	{"one stale, one current", 2, []step{approving("Ana"), describing("Beta finds bugs."), approving("Bo")},
		gate{false, 1, 1, []string{"1 of 2 required approvals on this revision (Ana approved revision 0, which has changed since)"}}},
}

func TestStatusGate(t *testing.T) {
	for _, tc := range gateCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, threeTools)
			for _, s := range tc.steps {
				s(f)
			}
			st, err := f.svc.Status(f.ctx, f.ws, tc.require)
			if err != nil {
				t.Fatal(err)
			}
			got := gate{st.Passed, st.Approvals, st.Approved, st.Reasons}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			head := f.head()
			if st.Revision != head.Number || st.Hash != Hash(head.Listing) {
				t.Errorf("status of revision %d %s, want the head %d %s", st.Revision, st.Hash, head.Number, Hash(head.Listing))
			}
		})
	}
}

// TestChangedSince says what changed since a stale approval, in at most ten lines, and compares
// with the listing approved even when its revision was extended by coalescing afterwards.
func TestChangedSince(t *testing.T) {
	many := `[`
	for i := range 12 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`{"name": "t%d", "description": "Tool %d."}`, i, i)
	}
	many += `]`
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"description", []step{describing("Beta finds bugs.")}, []string{"b: description changed"}},
		{"rename and parameter", []step{editing(set("/tools/1/name", listing.NewString("beta")),
			set("/tools/1/inputSchema/properties/q/type", listing.NewString("array")))},
			[]string{"tool b renamed to beta", "beta: parameter q changed"}},
		{"added and removed", []step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/0"}),
			editing(listing.Op{Kind: listing.OpInsert, Path: "/tools/-", Value: tool("z", "Zeta.")})},
			[]string{"tool a removed", "tool z added"}},
		{"annotation and move", []step{editing(set("/tools/1/annotations/readOnlyHint", listing.NewBool(false))),
			editing(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 2, To: 0})},
			[]string{"tool c moved", "b: annotations changed"}},
		{"many", []step{committing(many)}, []string{"tool a removed", "tool b removed", "tool c removed", "tool t0 added",
			"tool t1 added", "tool t2 added", "tool t3 added", "tool t4 added", "tool t5 added", "6 more changes"}},
		{"revision extended after the sign-off", []step{typing("B.")}, []string{"b: description changed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, threeTools)
			typing("Beta")(f)
			approving("Ana")(f)
			for _, s := range tc.steps {
				s(f)
			}
			st, err := f.svc.Status(f.ctx, f.ws, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Signoffs) != 1 || st.Signoffs[0].Current || !reflect.DeepEqual(st.Signoffs[0].Changed, tc.want) {
				t.Fatalf("sign-offs %+v, want one stale saying %q", st.Signoffs, tc.want)
			}
		})
	}
}

// typing sets b's description two seconds after the last edit, as Ana: it extends her last
// revision when that set b's description too.
func typing(text string) step {
	return func(f *fixture) {
		f.now = f.head().Updated.Add(2*time.Second - time.Minute)
		describing(text)(f)
	}
}

// TestApprovedIsTheListingApproved: an approval made mid-burst seals its revision, so the
// typing that follows starts a new one and Approved (the fetch --compare approved: pin) names
// a revision whose listing has ApprovedHash, the hash approved; the head at that revision is
// current, never "changed since".
func TestApprovedIsTheListingApproved(t *testing.T) {
	f := newFixture(t, threeTools)
	typing("Beta finds")(f)
	so, err := f.svc.SignOff(f.ctx, f.ws, store.Approved, "", Author{Name: "Ana", ID: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := f.svc.Status(f.ctx, f.ws, 1); err != nil || !st.Passed || st.Approved != so.Revision || st.ApprovedHash != so.Hash {
		t.Errorf("at the approved head: %+v, %v", st, err)
	}
	f.now = f.head().Updated.Add(time.Second - time.Minute)
	describing("Beta finds and DELETES issues.")(f) // a second later: would have coalesced
	st, err := f.svc.Status(f.ctx, f.ws, 1)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := f.st.Revision(f.ctx, f.ws, st.Approved)
	if err != nil {
		t.Fatal(err)
	}
	if st.Approved != so.Revision || st.ApprovedHash != so.Hash || Hash(rev.Listing) != so.Hash || st.Revision == so.Revision {
		t.Errorf("approved revision %d (%s), head %d; pin revision %d (%s) whose listing hashes %s",
			so.Revision, so.Hash, st.Revision, st.Approved, st.ApprovedHash, Hash(rev.Listing))
	}
	want := fmt.Sprintf("0 of 1 required approvals on this revision (Ana approved revision %d, which has changed since)", so.Revision)
	if !reflect.DeepEqual(st.Reasons, []string{want}) {
		t.Errorf("reasons %q, want %q", st.Reasons, want)
	}
}

// TestSignoffOnExtendedRevision: a sign-off whose revision's listing has another hash (one
// extended by typing before sign-offs sealed their revision) says so rather than comparing
// with a listing nobody signed, and is no pin.
func TestSignoffOnExtendedRevision(t *testing.T) {
	f := newFixture(t, threeTools)
	describing("Beta finds bugs.")(f)
	if _, err := f.st.AddSignoff(f.ctx, store.NewSignoff{Workspace: f.ws, Author: "Ana", AuthorID: "ana", Verdict: store.Approved,
		Revision: 1, Hash: Hash(parse(t, threeTools)), Now: f.tick()}); err != nil {
		t.Fatal(err)
	}
	describing("Beta finds bugs and issues.")(f)
	st, err := f.svc.Status(f.ctx, f.ws, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Approved != -1 || st.ApprovedHash != "" || len(st.Signoffs) != 1 ||
		!reflect.DeepEqual(st.Signoffs[0].Changed, []string{"revision 1 was extended after the sign-off"}) {
		t.Errorf("approved %d %q, sign-offs %+v", st.Approved, st.ApprovedHash, st.Signoffs)
	}
}
