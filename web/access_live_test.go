package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// ended waits until the stream ends, failing the test if it is still open after liveWait.
func (r *sseReader) ended(t testing.TB, what string) {
	t.Helper()
	timer := time.NewTimer(liveWait)
	defer timer.Stop()
	for {
		select {
		case e, open := <-r.events:
			if !open {
				return
			}
			r.seen = append(r.seen, e)
		case <-timer.C:
			t.Fatalf("%s: the stream was still open after %s; it carried:\n%s", what, liveWait, r.summary())
		}
	}
}

// streamStatus is the status a fresh stream request gets (the browser's reconnect).
func streamStatus(t *testing.T, base, ws string, mod func(*http.Request)) int {
	t.Helper()
	q := url.QueryEscape(`{"pid":"` + fmt.Sprintf("%032x", 99) + `","tool":0,"ver":0}`)
	req, _ := http.NewRequest(http.MethodGet, base+"/w/"+ws+"/stream?datastar="+q, nil)
	mod(req)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitPages waits until the workspace has n open pages in the hub (a stream's end is seen by
// the client slightly before the handler's deferred leave runs).
func waitOpenPages(t *testing.T, s *Server, ws string, n int) {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for s.hub.Pages(ws) != n {
		if time.Now().After(deadline) {
			t.Fatalf("the workspace has %d open pages, want %d", s.hub.Pages(ws), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func withCookie(c *http.Cookie) func(*http.Request) {
	return func(r *http.Request) { r.AddCookie(c) }
}

// TestRevokingALinkEndsItsStreams: a page open through a share link stops receiving updates
// when the link is revoked, and its reconnect is refused; a page opened otherwise stays open.
func TestRevokingALinkEndsItsStreams(t *testing.T) {
	for _, cp := range []store.Capability{store.CanView, store.CanEdit} {
		t.Run(string(cp), func(t *testing.T) {
			r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
			srv := httptest.NewServer(r.s.Handler())
			t.Cleanup(srv.Close)
			l := r.link(t, cp)
			other := r.link(t, cp)
			guest := withCookie(&http.Cookie{Name: cookieLink + r.ws, Value: l.Token})
			bystander := withCookie(&http.Cookie{Name: cookieLink + r.ws, Value: other.Token})
			ver := r.head(t).Seq
			cut := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 1), 0, int(ver), guest)
			dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 2), 0, int(ver), bystander)
			dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 3), 0, int(ver), func(q *http.Request) {
				q.Header.Set("Authorization", "Bearer "+adminToken)
			})
			waitOpenPages(t, r.s, r.ws, 3)

			admin := r.visitor()
			admin.header.Set("Authorization", "Bearer "+adminToken)
			if rec := admin.datastar(t, http.MethodPost, "/w/"+r.ws+"/share/"+l.ID+"/revoke", nil); rec.Code != http.StatusOK {
				t.Fatalf("revoke: %d %s", rec.Code, rec.Body.String())
			}
			cut.ended(t, "after revoking its link")
			waitOpenPages(t, r.s, r.ws, 2)
			if code := streamStatus(t, srv.URL, r.ws, guest); code != http.StatusForbidden {
				t.Errorf("reconnect with the revoked link: status %d, want 403", code)
			}
			if code := streamStatus(t, srv.URL, r.ws, bystander); code != http.StatusOK {
				t.Errorf("stream with the other link: status %d, want 200", code)
			}
		})
	}
}

// TestSignOutEndsItsStreams: in token mode signing out ends the streams of that session (every
// tab), not those of another session, and the reconnect is refused.
func TestSignOutEndsItsStreams(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	srv := httptest.NewServer(r.s.Handler())
	t.Cleanup(srv.Close)
	signIn := func(name string) *visitor {
		b := r.visitor()
		if rec := b.form(t, "/login", url.Values{"token": {adminToken}, "name": {name}}); rec.Code != http.StatusSeeOther {
			t.Fatalf("sign in: %d %s", rec.Code, rec.Body.String())
		}
		return b
	}
	ada, bob := signIn("Ada"), signIn("Bob")
	adaCk, bobCk := *ada.cookies[cookieSession], *bob.cookies[cookieSession]
	ver := int(r.head(t).Seq)
	tab1 := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 1), 0, ver, withCookie(&adaCk))
	tab2 := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 2), 0, ver, withCookie(&adaCk))
	dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 3), 0, ver, withCookie(&bobCk))
	waitOpenPages(t, r.s, r.ws, 3)
	if rec := ada.form(t, "/logout", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout: %d", rec.Code)
	}
	tab1.ended(t, "tab 1 after signing out")
	tab2.ended(t, "tab 2 after signing out")
	waitOpenPages(t, r.s, r.ws, 1)
	if code := streamStatus(t, srv.URL, r.ws, withCookie(&adaCk)); code == http.StatusOK {
		t.Errorf("reconnect with the ended session: status %d", code)
	}
}

// TestSessionExpiryEndsItsStream: a stream does not outlive the session it was opened with.
func TestSessionExpiryEndsItsStream(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken, SessionTTL: 2 * time.Second})
	srv := httptest.NewServer(r.s.Handler())
	t.Cleanup(srv.Close)
	b := r.visitor()
	if rec := b.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Ada"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d", rec.Code)
	}
	ck := *b.cookies[cookieSession]
	st := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 1), 0, int(r.head(t).Seq), withCookie(&ck))
	st.ended(t, "after the session expired")
}

// TestRevokedElsewhereEndsStream: a link revoked on another replica (here: straight in the
// store, so no hub hears of it) ends the stream at its next heartbeat, as does a session ended
// there.
func TestRevokedElsewhereEndsStream(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	r.s.alive = 50 * time.Millisecond // before any stream or room starts
	srv := httptest.NewServer(r.s.Handler())
	t.Cleanup(srv.Close)
	l := r.link(t, store.CanView)
	ver := int(r.head(t).Seq)
	link := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 1), 0, ver, withCookie(&http.Cookie{Name: cookieLink + r.ws, Value: l.Token}))
	b := r.visitor()
	if rec := b.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Ada"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d", rec.Code)
	}
	ck := *b.cookies[cookieSession]
	sess := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 2), 0, ver, withCookie(&ck))
	keep := dialSSE(t, srv.URL, r.ws, fmt.Sprintf("%032x", 3), 0, ver, func(q *http.Request) {
		q.Header.Set("Authorization", "Bearer "+adminToken)
	})
	// Both streams live through heartbeats while their access stands.
	for _, st := range []*sseReader{link, sess} {
		st.next(t, "a heartbeat", func(e event) bool { return e.Type == commentEvent })
		st.next(t, "a second heartbeat", func(e event) bool { return e.Type == commentEvent })
	}
	ctx := context.Background()
	if err := r.st.RevokeShareLink(ctx, r.ws, l.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := r.st.DeleteSession(ctx, ck.Value); err != nil {
		t.Fatal(err)
	}
	link.ended(t, "after its link was revoked elsewhere")
	sess.ended(t, "after its session ended elsewhere")
	keep.next(t, "a heartbeat of the bearer-token stream", func(e event) bool { return e.Type == commentEvent })
}
