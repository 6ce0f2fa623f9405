package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

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
