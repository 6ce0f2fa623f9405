package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

var refusedComments = []struct {
	name   string
	target Target
	body   string
	kind   store.Kind
	says   string
}{
	{"negative index", Target{Index: -1, Tool: "a"}, "x", store.Invalid, "negative"},
	{"index past the end", Target{Index: 3, Tool: "d"}, "x", store.Conflict, "it has 3 tools now, no tool 4; reload"},
	{"huge index", Target{Index: 1 << 40, Tool: "d"}, "x", store.Conflict, "reload"},
	{"wrong name", Target{Index: 2, Tool: "b"}, "x", store.Conflict, `tool 3 is now "c", not "b"; reload`},
	{"no name", Target{Index: 1}, "x", store.Invalid, "no tool named"},
	{"missing field", Target{Index: 0, Tool: "a", Field: "/title"}, "x", store.Invalid, `tool "a" has no /title`},
	{"missing parameter", Target{Index: 1, Tool: "b", Field: "/inputSchema/properties/zz"}, "x", store.Invalid, "has no /inputSchema/properties/zz"},
	{"not a pointer", Target{Index: 1, Tool: "b", Field: "description"}, "x", store.Invalid, "not a JSON pointer"},
	{"field too long", Target{Index: 1, Tool: "b", Finding: "R1", Text: "m", Field: "/" + strings.Repeat("x", 2000)}, "x", store.Invalid, "limit is 1024"},
	{"rule too long", Target{Index: 1, Tool: "b", Finding: strings.Repeat("r", 101), Text: "m"}, "x", store.Invalid, "limit is 100"},
	{"missing field with a control character", Target{Index: 1, Tool: "b", Field: "/inputSchema/properties/a\nb"}, "x", store.Invalid, "has no /inputSchema/properties/a\ufffdb"},
	{"field not UTF-8", Target{Index: 1, Tool: "b", Field: "/inputSchema/properties/\xff"}, "x", store.Invalid, "the field is not valid UTF-8"},
	{"finding without its message", Target{Index: 1, Tool: "b", Finding: "desc-short"}, "x", store.Invalid, "needs the finding's message"},
	{"empty body", Target{Index: 0, Tool: "a"}, " \n\t ", store.Invalid, "the comment is empty"},
	{"5,000-character body", Target{Index: 0, Tool: "a"}, strings.Repeat("é", 5000), store.Invalid, "5000 characters long; the limit is 4000"},
	{"control character", Target{Index: 0, Tool: "a"}, "ring\a", store.Invalid, "control character U+0007"},
	{"bidi override", Target{Index: 0, Tool: "a"}, "abc\u202edef", store.Invalid, "bidirectional control"},
	{"not UTF-8", Target{Index: 0, Tool: "a"}, "\xff", store.Invalid, "not valid UTF-8"},
}

func TestCommentRefused(t *testing.T) {
	f := newFixture(t, threeTools)
	for _, tc := range refusedComments {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Comment(f.ctx, f.ws, tc.target, tc.body, Author{Name: "Ana"})
			if err == nil || store.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v (%v), want %v saying %q", err, store.KindOf(err), tc.kind, tc.says)
			}
		})
	}
	if cs, err := f.st.Comments(f.ctx, f.ws); err != nil || len(cs) != 0 {
		t.Errorf("comments %v, %v: want none stored", cs, err)
	}
}

// TestCommentAnchors keeps the text each kind of anchor is made on, cleaned of what the store
// refuses, and the author as given (Anonymous when nameless).
func TestCommentAnchors(t *testing.T) {
	hostile := `[{"name": "x\u0007y", "description": "` + strings.Repeat("d", 2100) + `"},
		{"name": "b", "description": "Bad\u202etext\r\nhere", "inputSchema": {"properties": {"q": {"type": "string"}}}, "annotations": {"readOnlyHint": true}}]`
	f := newFixture(t, hostile)
	tests := []struct {
		target   Target
		who      Author
		wantText string
		wantBy   string
	}{
		{Target{Index: 0, Tool: "x\ay"}, Author{Name: " Ana ", ID: "ana"}, strings.Repeat("d", store.MaxAnchorText), "Ana"},
		{Target{Index: 1, Tool: "b", Field: "/description"}, Author{}, "Bad\ufffdtext\ufffd\nhere", "Anonymous"},
		{Target{Index: 1, Tool: "b", Field: "/inputSchema/properties/q"}, Author{Name: "Bo"}, `{"type":"string"}`, "Bo"},
		{Target{Index: 1, Tool: "b", Field: "/annotations"}, Author{Name: "Bo"}, `{"readOnlyHint":true}`, "Bo"},
		{Target{Index: 1, Tool: "b", Field: "/annotations/readOnlyHint"}, Author{Name: "Bo"}, "true", "Bo"},
		{Target{Index: 1, Tool: "b", Field: "/title", Finding: "title-missing", Text: " Tool has no title. "}, Author{Name: "Bo"}, "Tool has no title.", "Bo"},
	}
	for _, tc := range tests {
		c, err := f.svc.Comment(f.ctx, f.ws, tc.target, "Line one\r\nline two\r", tc.who)
		if err != nil {
			t.Fatalf("comment on %+v: %v", tc.target, err)
		}
		if c.Anchor.Text != tc.wantText || c.Author != tc.wantBy || c.Body != "Line one\nline two" {
			t.Errorf("comment on %+v: anchor text %q, author %q, body %q; want %q, %q, %q",
				tc.target, c.Anchor.Text, c.Author, c.Body, tc.wantText, tc.wantBy, "Line one\nline two")
		}
	}
	ts, err := f.svc.Threads(f.ctx, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range ts {
		if th.Outdated {
			t.Errorf("thread %s is outdated (now %q, was %q) with no edit", th.Label, th.Now, th.Anchor.Text)
		}
	}
	if ts[0].Anchor.Tool != "x\ay" || ts[0].Tool != "x\ay" || ts[0].Label != "x\ufffdy" {
		t.Errorf("thread on the hostile name: anchor %q, tool %q, label %q", ts[0].Anchor.Tool, ts[0].Tool, ts[0].Label)
	}
}

// TestCommentOnHostileNames: a parameter and a tool whose names hold a bidirectional override
// (the very thing a reviewer must be able to point at) take a thread, on the field and on a
// finding there; the anchor keeps the names as the listing has them, so that the thread
// follows and comes back on them, and shows them cleaned.
func TestCommentOnHostileNames(t *testing.T) {
	src := `{"tools": [{"name": "x", "description": "d", "inputSchema": {"type": "object", "properties": {"path\u202e": {"type": "string", "description": "p"}}}},
		{"name": "run\u202eexe.txt", "description": "Runs it."}]}`
	f := newFixture(t, src)
	param := "/inputSchema/properties/path\u202e"
	targets := []Target{{Index: 0, Tool: "x", Field: param}, {Index: 0, Tool: "x", Field: param, Finding: "name-invisible", Text: "hidden character"},
		{Index: 1, Tool: "run\u202eexe.txt", Field: "/description"}}
	for _, tg := range targets {
		if _, err := f.svc.Comment(f.ctx, f.ws, tg, "This name displays as other text.", Author{Name: "Ana"}); err != nil {
			t.Fatalf("comment on %q %q: %v", tg.Tool, tg.Field, err)
		}
	}
	f.edit(listing.Op{Kind: listing.OpRemove, Path: "/tools/1"})
	f.restore(0) // the tool comes back, by its name
	ts, err := f.svc.Threads(f.ctx, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ label, field, tool string }{
		{"x › parameter path\ufffd", param, "x"},
		{"x › finding name-invisible", param, "x"},
		{"run\ufffdexe.txt › description", "/description", "run\u202eexe.txt"},
	}
	if len(ts) != len(want) {
		t.Fatalf("%d threads, want %d", len(ts), len(want))
	}
	for i, w := range want {
		th := ts[i]
		if th.Label != w.label || th.Anchor.Field != w.field || th.Tool != w.tool || th.Anchor.Tool != w.tool || th.Gone || th.Outdated {
			t.Errorf("thread %d: label %q, field %q, tool %q (anchor %q), gone %v, outdated %v; want %q, %q, %q",
				i, th.Label, th.Anchor.Field, th.Tool, th.Anchor.Tool, th.Gone, th.Outdated, w.label, w.field, w.tool)
		}
	}
}

// TestRepliesAndResolve refuses a thread of another workspace, a reply to a reply and an empty
// thread ID, and resolves and reopens a thread naming who did it.
func TestRepliesAndResolve(t *testing.T) {
	f := newFixture(t, threeTools)
	other := newFixture(t, threeTools)
	c := f.comment("b", "")
	foreign := other.comment("a", "")
	r, err := f.svc.Reply(f.ctx, f.ws, c.ID, "Agreed.", Author{Name: "Bo", ID: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	refusals := []struct {
		name string
		err  error
		kind store.Kind
	}{
		{"reply to another workspace's thread", second(f.svc.Reply(f.ctx, f.ws, foreign.ID, "x", Author{Name: "Bo"})), store.NotFound},
		{"reply to a reply", second(f.svc.Reply(f.ctx, f.ws, r.ID, "x", Author{Name: "Bo"})), store.Invalid},
		{"reply to no thread", second(f.svc.Reply(f.ctx, f.ws, " ", "x", Author{Name: "Bo"})), store.Invalid},
		{"empty reply", second(f.svc.Reply(f.ctx, f.ws, c.ID, "", Author{Name: "Bo"})), store.Invalid},
		{"reply in a missing workspace", second(f.svc.Reply(f.ctx, strings.Repeat("0", 32), c.ID, "x", Author{Name: "Bo"})), store.NotFound},
		{"resolve another workspace's thread", f.svc.Resolve(f.ctx, f.ws, foreign.ID, true, Author{Name: "Bo"}), store.NotFound},
		{"resolve a reply", f.svc.Resolve(f.ctx, f.ws, r.ID, true, Author{Name: "Bo"}), store.Invalid},
	}
	for _, tc := range refusals {
		if tc.err == nil || store.KindOf(tc.err) != tc.kind {
			t.Errorf("%s: error %v, want %v", tc.name, tc.err, tc.kind)
		}
	}
	for _, resolved := range []bool{true, false, true} {
		if err := f.svc.Resolve(f.ctx, f.ws, c.ID, resolved, Author{Name: "Cy", ID: "cy"}); err != nil {
			t.Fatal(err)
		}
		ts, err := f.svc.Threads(f.ctx, f.ws)
		if err != nil {
			t.Fatal(err)
		}
		if th := ts[0]; th.Resolved != resolved || (th.ResolvedBy == "Cy") != resolved || len(th.Replies) != 1 {
			t.Errorf("after resolving %v: %+v", resolved, th)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestSignOff names the head's revision and hash, refuses a verdict it does not know, and,
// given the hash the person read, refuses once the head has another.
func TestSignOff(t *testing.T) {
	f := newFixture(t, threeTools)
	read := Hash(f.head().Listing)
	f.edit(set("/tools/0/description", listing.NewString("Changed.")))
	_, err := f.svc.SignOffAt(f.ctx, f.ws, store.Approved, "ok", Author{Name: "Ana"}, read)
	if store.KindOf(err) != store.Conflict || !strings.Contains(err.Error(), "reload") {
		t.Errorf("sign-off on a hash no longer the head's: %v, want a Conflict", err)
	}
	if _, err := f.svc.SignOff(f.ctx, f.ws, "maybe", "", Author{Name: "Ana"}); store.KindOf(err) != store.Invalid {
		t.Errorf("unknown verdict: %v, want Invalid", err)
	}
	if _, err := f.svc.SignOff(f.ctx, f.ws, store.Approved, "bell\a", Author{Name: "Ana"}); store.KindOf(err) != store.Invalid {
		t.Errorf("control character in the message: %v, want Invalid", err)
	}
	if _, err := f.svc.SignOff(f.ctx, strings.Repeat("0", 32), store.Approved, "", Author{Name: "Ana"}); store.KindOf(err) != store.NotFound {
		t.Errorf("missing workspace: %v, want NotFound", err)
	}
	head := f.head()
	so, err := f.svc.SignOffAt(f.ctx, f.ws, store.Approved, " Looks good.\r\n", Author{Name: "Ana", ID: "ana"}, Hash(head.Listing))
	if err != nil {
		t.Fatal(err)
	}
	if so.Revision != head.Number || so.Hash != Hash(head.Listing) || so.Message != "Looks good." || so.AuthorID != "ana" {
		t.Errorf("sign-off %+v, want revision %d, hash %s", so, head.Number, Hash(head.Listing))
	}
	if _, err := f.svc.Status(f.ctx, f.ws, MaxRequire+1); store.KindOf(err) != store.Invalid {
		t.Errorf("require %d: %v, want Invalid", MaxRequire+1, err)
	}
	noErrors := New(f.st, Options{})
	if _, err := noErrors.Status(f.ctx, f.ws, 1); err == nil {
		t.Error("Status without Options.Errors answered")
	}
	failing := New(f.st, Options{Errors: func(context.Context, string, *listing.Listing) (int, error) { return 0, errors.New("lint broke") }})
	if _, err := failing.Status(f.ctx, f.ws, 1); err == nil || !strings.Contains(err.Error(), "lint broke") {
		t.Errorf("Status with a failing error count: %v", err)
	}
}

// TestHash is the hash of the bytes GET listing.json serves, the same for the same content.
func TestHash(t *testing.T) {
	l := parse(t, threeTools)
	sum := sha256.Sum256(export.JSON(l, export.JSONOptions{}))
	if got, want := Hash(l), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	if Hash(parse(t, threeTools)) != Hash(l) {
		t.Error("the same listing read twice hashes differently")
	}
	edited, err := l.Apply(set("/tools/0/description", listing.NewString("x")))
	if err != nil {
		t.Fatal(err)
	}
	if Hash(edited) == Hash(l) {
		t.Error("an edited listing hashes as before")
	}
}
