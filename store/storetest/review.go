package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// testReviews: threads with replies, resolving, sign-offs, their limits and refusals, and
// what deleting and forking a workspace do to its review.
func testReviews(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	anchor := store.Anchor{Tool: "search", Index: 0, Field: "/inputSchema/properties/q", Text: "a <b>query</b>\nover two lines"}
	first, err := s.AddComment(ctx, store.NewComment{Workspace: w.ID, Anchor: anchor, Author: "ada", AuthorID: "s1",
		Body: "Say what q matches.", Revision: 0, Seq: 0, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.AddComment(ctx, store.NewComment{Workspace: w.ID, Thread: first.ID, Author: "bob", Body: "Words of the title.", Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.AddComment(ctx, store.NewComment{Workspace: w.ID, Anchor: store.Anchor{Tool: "read", Index: 1, Finding: "description-too-short", Field: "/description"},
		Author: "bob", Body: "Too short.", Now: t0.Add(2 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == "" || reply.ID == first.ID || reply.Anchor != anchor || reply.Thread != first.ID {
		t.Errorf("AddComment answered %+v and %+v", first, reply)
	}
	got, err := s.Comments(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != first.ID || got[1].ID != reply.ID || got[2].ID != other.ID {
		t.Fatalf("Comments = %+v", got)
	}
	if got[0].Anchor != anchor || got[1].Anchor != anchor || got[0].Author != "ada" || got[0].AuthorID != "s1" || !got[0].Created.Equal(t0) || got[0].Resolved {
		t.Errorf("the thread's first comment read back as %+v", got[0])
	}

	res, err := s.ResolveThread(ctx, store.Resolve{Workspace: w.ID, Thread: first.ID, Resolved: true, By: "bob", Now: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resolved || res.ResolvedBy != "bob" || !res.ResolvedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("ResolveThread = %+v", res)
	}
	got, _ = s.Comments(ctx, w.ID)
	if !got[0].Resolved || got[0].ResolvedBy != "bob" || got[2].Resolved {
		t.Errorf("after resolving: %+v", got)
	}
	if _, err := s.ResolveThread(ctx, store.Resolve{Workspace: w.ID, Thread: first.ID, Resolved: false, By: "ada", Now: t0.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Comments(ctx, w.ID)
	if got[0].Resolved || got[0].ResolvedBy != "" || !got[0].ResolvedAt.IsZero() {
		t.Errorf("reopened thread read back as %+v", got[0])
	}

	so, err := s.AddSignoff(ctx, store.NewSignoff{Workspace: w.ID, Author: "ada", AuthorID: "s1", Verdict: store.Approved, Message: "Ship it.",
		Revision: 0, Hash: "sha256:abc", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddSignoff(ctx, store.NewSignoff{Workspace: w.ID, Author: "bob", Verdict: store.ChangesRequested, Revision: 0, Hash: "sha256:abc", Now: t0.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	sos, err := s.Signoffs(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sos) != 2 || sos[0] != so || sos[1].Verdict != store.ChangesRequested || sos[1].Author != "bob" {
		t.Errorf("Signoffs = %+v (first stored as %+v)", sos, so)
	}
	reviewRefusals(t, s, w.ID, first.ID, reply.ID)

	// A fork starts without a review; deleting a workspace deletes its review.
	f, err := s.ForkWorkspace(ctx, store.Fork{From: w.ID, Author: "eve", Now: t0.Add(3 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := s.Comments(ctx, f.ID); err != nil || len(c) != 0 {
		t.Errorf("a fork's comments: %+v, %v", c, err)
	}
	if so, err := s.Signoffs(ctx, f.ID); err != nil || len(so) != 0 {
		t.Errorf("a fork's sign-offs: %+v, %v", so, err)
	}
	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Comments(ctx, w.ID)
	wantKind(t, "comments of a deleted workspace", err, store.NotFound)
	_, err = s.Signoffs(ctx, w.ID)
	wantKind(t, "sign-offs of a deleted workspace", err, store.NotFound)
}

// reviewRefusals: every bad comment, resolution and sign-off is refused with its kind, and
// changes nothing.
func reviewRefusals(t *testing.T, s store.Store, ws, thread, reply string) {
	ctx := context.Background()
	other := newWorkspace(t, s, t0)
	before, _ := s.Comments(ctx, ws)
	comments := []struct {
		name string
		c    store.NewComment
		kind store.Kind
	}{
		{"empty body", store.NewComment{Workspace: ws, Author: "ada", Body: "  \n "}, store.Invalid},
		{"body too long", store.NewComment{Workspace: ws, Author: "ada", Body: strings.Repeat("é", store.MaxCommentBody+1)}, store.Invalid},
		{"control characters", store.NewComment{Workspace: ws, Author: "ada", Body: "a\x00b"}, store.Invalid},
		{"no author", store.NewComment{Workspace: ws, Body: "x"}, store.Invalid},
		{"author with a newline", store.NewComment{Workspace: ws, Author: "ada\nbob", Body: "x"}, store.Invalid},
		{"negative tool index", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Index: -1}}, store.Invalid},
		{"anchor text too long", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Text: strings.Repeat("x", store.MaxAnchorText+1)}}, store.Invalid},
		{"anchor text with a bidi override", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Text: "a\u202eb"}}, store.Invalid},
		{"anchor field not UTF-8", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Field: "/inputSchema/properties/\xff"}}, store.Invalid},
		{"anchor field too long", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Field: "/" + strings.Repeat("é", store.MaxAnchorField)}}, store.Invalid},
		{"anchor tool name not UTF-8", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Tool: "\xc3"}}, store.Invalid},
		{"anchor tool name too long", store.NewComment{Workspace: ws, Author: "ada", Body: "x", Anchor: store.Anchor{Tool: strings.Repeat("t", store.MaxTitle+1)}}, store.Invalid},
		{"reply to a reply", store.NewComment{Workspace: ws, Thread: reply, Author: "ada", Body: "x"}, store.Invalid},
		{"reply to an unknown thread", store.NewComment{Workspace: ws, Thread: store.NewID(), Author: "ada", Body: "x"}, store.NotFound},
		{"reply to another workspace's thread", store.NewComment{Workspace: other.ID, Thread: thread, Author: "ada", Body: "x"}, store.NotFound},
		{"malformed thread id", store.NewComment{Workspace: ws, Thread: "../x", Author: "ada", Body: "x"}, store.Invalid},
		{"unknown workspace", store.NewComment{Workspace: store.NewID(), Author: "ada", Body: "x"}, store.NotFound},
	}
	for _, tc := range comments {
		_, err := s.AddComment(ctx, tc.c)
		wantKind(t, tc.name, err, tc.kind)
	}
	if after, _ := s.Comments(ctx, ws); len(after) != len(before) {
		t.Errorf("refused comments were stored: %d comments, want %d", len(after), len(before))
	}
	_, err := s.ResolveThread(ctx, store.Resolve{Workspace: ws, Thread: reply, Resolved: true, By: "ada"})
	wantKind(t, "resolving a reply", err, store.Invalid)
	_, err = s.ResolveThread(ctx, store.Resolve{Workspace: other.ID, Thread: thread, Resolved: true, By: "ada"})
	wantKind(t, "resolving another workspace's thread", err, store.NotFound)
	_, err = s.ResolveThread(ctx, store.Resolve{Workspace: ws, Thread: thread, Resolved: true})
	wantKind(t, "resolving with no name", err, store.Invalid)

	sos, _ := s.Signoffs(ctx, ws)
	signoffs := []struct {
		name string
		n    store.NewSignoff
		kind store.Kind
	}{
		{"unknown verdict", store.NewSignoff{Workspace: ws, Author: "ada", Verdict: "lgtm", Hash: "sha256:a"}, store.Invalid},
		{"no hash", store.NewSignoff{Workspace: ws, Author: "ada", Verdict: store.Approved}, store.Invalid},
		{"no author", store.NewSignoff{Workspace: ws, Verdict: store.Approved, Hash: "sha256:a"}, store.Invalid},
		{"a revision past the head", store.NewSignoff{Workspace: ws, Author: "ada", Verdict: store.Approved, Hash: "sha256:a", Revision: 9}, store.NotFound},
		{"a negative revision", store.NewSignoff{Workspace: ws, Author: "ada", Verdict: store.Approved, Hash: "sha256:a", Revision: -1}, store.Invalid},
		{"message too long", store.NewSignoff{Workspace: ws, Author: "ada", Verdict: store.Approved, Hash: "sha256:a", Message: strings.Repeat("x", store.MaxMessage+1)}, store.Invalid},
		{"unknown workspace", store.NewSignoff{Workspace: store.NewID(), Author: "ada", Verdict: store.Approved, Hash: "sha256:a"}, store.NotFound},
	}
	for _, tc := range signoffs {
		_, err := s.AddSignoff(ctx, tc.n)
		wantKind(t, tc.name, err, tc.kind)
	}
	if after, _ := s.Signoffs(ctx, ws); len(after) != len(sos) {
		t.Errorf("refused sign-offs were stored: %d, want %d", len(after), len(sos))
	}
}

// ReviewsAcross writes a review through w and reads it through r, another store on the same
// database: a second replica, or the same database opened again after a restart. With live
// set, w and r are open at once and r must also hear of each change (EventReview).
func ReviewsAcross(t *testing.T, w store.Store, r func() store.Store, live bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := newWorkspace(t, w, t0)
	var events <-chan store.Event
	var rs store.Store
	if live {
		rs = r()
		var err error
		if events, err = rs.Subscribe(ctx, ws.ID); err != nil {
			t.Fatal(err)
		}
	}
	heard := func(what string) {
		if !live {
			return
		}
		select {
		case ev := <-events:
			if ev.Kind != store.EventReview || ev.Workspace != ws.ID {
				t.Errorf("after %s the other store heard %+v, want a review event", what, ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the other store did not hear of %s within 10 s", what)
		}
	}
	c, err := w.AddComment(ctx, store.NewComment{Workspace: ws.ID, Anchor: store.Anchor{Tool: "read", Index: 1, Field: "/description", Text: "Read one file — fully"},
		Author: "ada", Body: "Which file?", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	heard("a comment")
	if _, err := w.AddComment(ctx, store.NewComment{Workspace: ws.ID, Thread: c.ID, Author: "bob", Body: "The one named.", Now: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	heard("a reply")
	if _, err := w.ResolveThread(ctx, store.Resolve{Workspace: ws.ID, Thread: c.ID, Resolved: true, By: "ada", Now: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	heard("a resolution")
	so, err := w.AddSignoff(ctx, store.NewSignoff{Workspace: ws.ID, Author: "ada", AuthorID: "header:ada", Verdict: store.Approved, Revision: 0, Hash: "sha256:0f", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	heard("a sign-off")
	if !live {
		rs = r()
	}
	got, err := rs.Comments(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != c.ID || !got[0].Resolved || got[0].Anchor.Text != "Read one file — fully" || got[1].Body != "The one named." || got[1].Anchor != got[0].Anchor {
		t.Errorf("the other store reads the comments as %+v", got)
	}
	sos, err := rs.Signoffs(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sos) != 1 || sos[0] != so {
		t.Errorf("the other store reads the sign-offs as %+v, want %+v", sos, so)
	}
}

// testSignoffSeals: a sign-off on the head revision seals it, as a name does: the signer's
// next keystroke in the same field a second later starts a new revision, so the signed
// revision's listing stays the one signed. A sign-off naming the head as it was before an edit
// extended it (its Seq) is a Conflict and seals nothing.
func testSignoffSeals(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	desc := "/tools/0/description"
	edit := func(text string, at time.Duration) store.EditResult {
		t.Helper()
		res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "s1", Ops: set(desc, text), Now: t0.Add(at)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := edit("Search the files.", time.Second)
	if first.Revision.Number != 1 {
		t.Fatalf("the first edit landed in revision %d, want 1", first.Revision.Number)
	}
	if _, err := s.AddSignoff(ctx, store.NewSignoff{Workspace: w.ID, Author: "ada", AuthorID: "s1", Verdict: store.Approved,
		Revision: 1, Seq: first.Seq, Hash: "sha256:1", Now: t0.Add(1500 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	next := edit("Search the files. And delete them.", 2*time.Second)
	if next.Coalesced || next.Revision.Number != 2 {
		t.Errorf("an edit of the same field a second after the sign-off: revision %d (coalesced %v), want a new revision 2", next.Revision.Number, next.Coalesced)
	}
	rev, err := s.Revision(ctx, w.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := rev.Listing.Tools[0].Get("description").String(); got != "Search the files." || rev.Edits != 1 {
		t.Errorf("the signed revision 1 now has %d edits and description %q", rev.Edits, got)
	}

	// Revision 2 grows by typing; a sign-off made from its first state arrives late.
	edit("Search the files. And delete them!", 3*time.Second)
	_, err = s.AddSignoff(ctx, store.NewSignoff{Workspace: w.ID, Author: "bob", Verdict: store.Approved, Revision: 2, Seq: next.Seq, Hash: "sha256:2",
		Now: t0.Add(3500 * time.Millisecond)})
	wantKind(t, "a sign-off on a head extended since its Seq", err, store.Conflict)
	if sos, _ := s.Signoffs(ctx, w.ID); len(sos) != 1 {
		t.Errorf("the refused sign-off was stored: %+v", sos)
	}
	if res := edit("Search the files. And delete them!!", 4*time.Second); !res.Coalesced || res.Revision.Number != 2 {
		t.Errorf("after a refused sign-off the head was sealed: revision %d (coalesced %v), want revision 2 extended", res.Revision.Number, res.Coalesced)
	}
	// A sign-off on an older revision leaves the head as it was.
	if _, err := s.AddSignoff(ctx, store.NewSignoff{Workspace: w.ID, Author: "bob", Verdict: store.ChangesRequested, Revision: 1, Hash: "sha256:1",
		Now: t0.Add(4500 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	if res := edit("Search the files. And delete them!!!", 5*time.Second); !res.Coalesced || res.Revision.Number != 2 {
		t.Errorf("a sign-off on revision 1 sealed the head 2: revision %d (coalesced %v)", res.Revision.Number, res.Coalesced)
	}
}

// testHostileAnchor: an anchor's tool name and field are the listing's, whatever characters
// they hold (a parameter named with a bidirectional override is what a reviewer most needs to
// point at): kept and read back as they are.
func testHostileAnchor(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	a := store.Anchor{Tool: "run\u202eexe.txt\x00\n", Index: 0, Field: "/inputSchema/properties/path\u202e\u2066\x07", Text: "the path"}
	c, err := s.AddComment(ctx, store.NewComment{Workspace: w.ID, Anchor: a, Author: "ada", Body: "This name displays as other text.", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Comments(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Anchor != a || len(got) != 1 || got[0].Anchor != a {
		t.Errorf("the anchor %#v was stored as %#v and read back as %#v", a, c.Anchor, got)
	}
}
