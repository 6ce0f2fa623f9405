package review

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// where is what a thread on tool b says at the head.
type where struct {
	Tool     string
	Index    int
	Gone     bool
	Outdated bool
	Now      string
	Label    string
}

type step func(f *fixture)

func editing(ops ...listing.Op) step { return func(f *fixture) { f.edit(ops...) } }
func committing(src string) step     { return func(f *fixture) { f.commit(src) } }
func restoring(n int) step           { return func(f *fixture) { f.restore(n) } }
func undoing() step                  { return func(f *fixture) { f.undo() } }

var followCases = []struct {
	name  string
	field string
	steps []step
	want  where
}{
	{"no edit", "/description", nil, where{"b", 1, false, false, "", "b › description"}},
	{"renamed", "/description", []step{editing(set("/tools/1/name", listing.NewString("beta")))},
		where{"beta", 1, false, false, "", "beta › description"}},
	{"moved first", "", []step{editing(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 1, To: 0})},
		where{"b", 0, false, false, "", "b"}},
	{"another moved past it", "", []step{editing(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 0, To: 2})},
		where{"b", 0, false, false, "", "b"}},
	{"inserted before", "", []step{editing(listing.Op{Kind: listing.OpInsert, Path: "/tools/0", Value: tool("z", "Zeta.")})},
		where{"b", 2, false, false, "", "b"}},
	{"appended", "", []step{editing(listing.Op{Kind: listing.OpInsert, Path: "/tools/-", Value: tool("z", "Zeta.")})},
		where{"b", 1, false, false, "", "b"}},
	{"one before removed", "", []step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/0"})},
		where{"b", 0, false, false, "", "b"}},
	{"removed", "/description", []step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"})},
		where{"b", -1, true, true, "", "b › description"}},
	{"removed after a rename", "", []step{editing(set("/tools/1/name", listing.NewString("beta"))),
		editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"})}, where{"beta", -1, true, true, "", "beta"}},
	{"removal undone", "", []step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"}), undoing()},
		where{"b", 1, false, false, "", "b"}},
	{"move undone", "", []step{editing(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 1, To: 2}), undoing()},
		where{"b", 1, false, false, "", "b"}},
	{"whole listing committed, reordered", "/description",
		[]step{committing(`[{"name": "c", "description": "Gamma closes issues."}, {"name": "x"}, {"name": "b", "description": "Beta finds issues."}]`)},
		where{"b", 2, false, false, "", "b › description"}},
	{"whole listing committed, renamed", "/description",
		[]step{committing(strings.Replace(threeTools, `"name": "b"`, `"name": "bee"`, 1))},
		where{"bee", 1, false, false, "", "bee › description"}},
	{"whole listing committed without it", "",
		[]step{committing(`[{"name": "a", "description": "Alpha does one thing."}]`)}, where{"b", -1, true, true, "", "b"}},
	{"restored after removal", "", []step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"}),
		editing(listing.Op{Kind: listing.OpInsert, Path: "/tools/0", Value: tool("z", "Zeta.")}), restoring(0)},
		where{"b", 1, false, false, "", "b"}},
	{"restored under the name it had before a rename", "", []step{editing(set("/tools/1/name", listing.NewString("beta"))),
		editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"}), restoring(0)},
		where{"b", 1, false, false, "", "b"}},
	{"committed back under its first of three names", "/description", []step{editing(set("/tools/1/name", listing.NewString("beta"))),
		editing(set("/tools/1/name", listing.NewString("bee"))), committing(`[{"name": "a", "description": "Alpha does one thing."}]`),
		committing(threeTools)},
		where{"b", 1, false, false, "", "b › description"}},
	{"description changed", "/description", []step{editing(set("/tools/1/description", listing.NewString("Beta finds bugs.")))},
		where{"b", 1, false, true, "Beta finds bugs.", "b › description"}},
	{"description changed and back", "/description", []step{editing(set("/tools/1/description", listing.NewString("Beta finds bugs."))),
		editing(set("/tools/1/description", listing.NewString("Beta finds issues.")))}, where{"b", 1, false, false, "", "b › description"}},
	{"description change undone", "/description", []step{editing(set("/tools/1/description", listing.NewString("Beta finds bugs."))), undoing()},
		where{"b", 1, false, false, "", "b › description"}},
	{"whole tool follows its description", "", []step{editing(set("/tools/1/description", listing.NewString("Other.")))},
		where{"b", 1, false, true, "Other.", "b"}},
	{"parameter's type changed", "/inputSchema/properties/q",
		[]step{editing(set("/tools/1/inputSchema/properties/q/type", listing.NewString("array")))},
		where{"b", 1, false, false, "", "b › parameter q"}},
	{"parameter's description changed", "/inputSchema/properties/q",
		[]step{editing(set("/tools/1/inputSchema/properties/q/description", listing.NewString("Words.")))},
		where{"b", 1, false, true, "Words.", "b › parameter q"}},
	{"parameter removed", "/inputSchema/properties/q",
		[]step{editing(listing.Op{Kind: listing.OpRemove, Path: "/tools/1/inputSchema/properties/q"})},
		where{"b", 1, false, true, "", "b › parameter q"}},
	{"parameter without description", "/inputSchema/properties/n",
		[]step{editing(set("/tools/1/inputSchema/properties/n/minimum", listing.NewInt(1)))},
		where{"b", 1, false, true, `{"type":"integer","minimum":1}`, "b › parameter n"}},
	{"annotation changed", "/annotations/readOnlyHint", []step{editing(set("/tools/1/annotations/readOnlyHint", listing.NewBool(false)))},
		where{"b", 1, false, true, "false", "b › annotation readOnlyHint"}},
	{"annotations untouched", "/annotations", []step{editing(set("/tools/0/description", listing.NewString("x")))},
		where{"b", 1, false, false, "", "b › annotations"}},
	{"whole set among other ops", "", []step{editing(set("/tools/0/description", listing.NewString("A.")),
		set("/tools", listing.NewArray(tool("z", "Zeta."), tool("c", "Gamma closes issues."), tool("b", "Beta finds issues."))))},
		where{"b", 2, false, false, "", "b"}},
}

// TestThreadsFollowTool follows a thread on tool b through each case's edits, asking after every
// edit (so that the cached places advance step by step) and once more with a service that never
// asked (replaying from the thread's Seq): both must say the same.
func TestThreadsFollowTool(t *testing.T) {
	for _, tc := range followCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, threeTools)
			f.comment("b", tc.field)
			for _, s := range tc.steps {
				s(f)
				if _, err := f.svc.Threads(f.ctx, f.ws); err != nil {
					t.Fatal(err)
				}
			}
			for _, svc := range []*Service{f.svc, f.service()} {
				ts, err := svc.Threads(f.ctx, f.ws)
				if err != nil {
					t.Fatal(err)
				}
				if len(ts) != 1 {
					t.Fatalf("%d threads, want 1", len(ts))
				}
				th := ts[0]
				got := where{th.Tool, th.Index, th.Gone, th.Outdated, th.Now, th.Label}
				if got != tc.want {
					t.Errorf("got  %+v\nwant %+v", got, tc.want)
				}
			}
		})
	}
}

// TestThreadsOrder lists threads in the head's tool order, oldest first within a tool, threads
// of removed tools last, with their replies.
func TestThreadsOrder(t *testing.T) {
	f := newFixture(t, threeTools)
	c1 := f.comment("c", "")
	b1 := f.comment("b", "/description")
	a1 := f.comment("a", "")
	c2 := f.comment("c", "/description")
	r, err := f.svc.Reply(f.ctx, f.ws, b1.ID, "Yes.", Author{Name: "Bo", ID: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	f.edit(listing.Op{Kind: listing.OpRemove, Path: "/tools/0"}) // a goes
	f.edit(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 1, To: 0})
	ts, err := f.svc.Threads(f.ctx, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range ts {
		got = append(got, th.ID)
	}
	if want := []string{c1.ID, c2.ID, b1.ID, a1.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v (c, c, b, a gone)", got, want)
	}
	if len(ts[2].Replies) != 1 || ts[2].Replies[0].ID != r.ID || ts[2].Replies[0].Author != "Bo" {
		t.Errorf("b's replies %+v, want Bo's reply %s", ts[2].Replies, r.ID)
	}
	if !ts[3].Gone || ts[3].Index != -1 || ts[3].Tool != "a" {
		t.Errorf("a's thread %+v, want gone", ts[3])
	}
}

// TestThreadsConcurrent asks for threads from several goroutines while tools are inserted before
// the thread's: the places cached along the way never lead a later answer astray.
func TestThreadsConcurrent(t *testing.T) {
	f := newFixture(t, threeTools)
	f.comment("b", "")
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := f.svc.Threads(f.ctx, f.ws); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		f.edit(listing.Op{Kind: listing.OpInsert, Path: "/tools/0", Value: tool(fmt.Sprint("z", i), "Zeta.")})
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, svc := range []*Service{f.svc, f.service()} {
		ts, err := svc.Threads(f.ctx, f.ws)
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].Index != 21 || ts[0].Tool != "b" {
			t.Errorf("thread at %d on %q, want 21 on b", ts[0].Index, ts[0].Tool)
		}
	}
}

// TestThreadsSameNamedTools follows a thread on one of two tools of one name through edits
// that set every tool: it stays on the tool it was made on (by content), not on the k-th tool of
// that name.
func TestThreadsSameNamedTools(t *testing.T) {
	const two = `{"tools": [{"name": "x", "description": "A deletes."}, {"name": "x", "description": "B reads."}]}`
	tests := []struct {
		name  string
		steps []step
		want  int // the index of the thread's tool at the head
	}{
		{"a move undone", []step{editing(listing.Op{Kind: listing.OpMove, Path: "/tools", From: 0, To: 1}), undoing()}, 0},
		{"swapped by a commit", []step{committing(`[{"name": "x", "description": "B reads."}, {"name": "x", "description": "A deletes."}]`)}, 1},
		{"swapped and edited by a commit", []step{committing(`[{"name": "x", "description": "B reads files."}, {"name": "x", "description": "A deletes files."}]`)}, 1},
		{"the other removed by a commit", []step{committing(`[{"name": "x", "description": "A deletes."}]`)}, 0},
		{"itself removed by a commit", []step{committing(`[{"name": "x", "description": "B reads."}]`)}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, two)
			c, err := f.svc.Comment(f.ctx, f.ws, Target{Index: 0, Tool: "x", Field: "/description"}, "Deletes what?", Author{Name: "Ana"})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.steps {
				s(f)
			}
			for _, svc := range []*Service{f.svc, f.service()} {
				ts, err := svc.Threads(f.ctx, f.ws)
				if err != nil {
					t.Fatal(err)
				}
				if len(ts) != 1 || ts[0].ID != c.ID || ts[0].Index != tc.want || ts[0].Gone != (tc.want < 0) {
					t.Fatalf("threads %+v, want the thread on tool %d", ts, tc.want)
				}
				if tc.want >= 0 && (ts[0].Outdated != strings.Contains(tc.name, "edited")) {
					t.Errorf("outdated %v (now %q)", ts[0].Outdated, ts[0].Now)
				}
			}
		})
	}
}
