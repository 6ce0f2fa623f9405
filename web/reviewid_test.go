package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
	"github.com/tool-workbench/workbench/views"
)

// reviewRig is an authRig whose JSON API has the review, wired as serve wires it: one review
// service for the pages and the API, the API's identity hook the server's.
func reviewRig(t *testing.T, cfg AuthConfig) *authRig {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var s *Server
	rv := review.New(st, review.Options{Errors: func(context.Context, string, *listing.Listing) (int, error) { return 0, nil }})
	jsonAPI := api.New(api.Options{Log: log, Workspaces: st, Review: rv,
		Access:   func(r *http.Request, ws string, write bool) (string, error) { return s.APIAccess(r, ws, write) },
		Identity: func(r *http.Request, ws string) (review.Author, error) { return s.ReviewIdentity(r, ws) }})
	s, err = New(Config{Auth: cfg, Store: st, Engine: eng, Log: log, DatastarJS: []byte("//"), APIErrors: jsonAPI.HTTPErrorHandler, Review: rv,
		Mount: func(e *echo.Echo) { jsonAPI.Register(e.Group(api.Prefix)) }})
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse([]byte(authListing), listing.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "L", Author: "setup", Listing: l, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return &authRig{s: s, st: st, log: &buf, ws: w.ID}
}

// apiReview posts a JSON body to the workspace's review API (path "signoffs" or "comments")
// with the visitor's cookies and the given header pairs.
func (b *visitor) apiReview(t *testing.T, path, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/workspaces/"+b.rig.ws+"/review/"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return b.do(t, req)
}

// pageSignoff approves on the Review panel as the page does.
func (b *visitor) pageSignoff(t *testing.T, verdict string) {
	t.Helper()
	rec := b.reviewPost(t, "/w/"+b.rig.ws+"/review/signoff?verdict="+verdict, url.Values{"message": {"ok"}})
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("sign off on the page: %d %.300s", rec.Code, rec.Body.String())
	}
}

func (r *authRig) gate(t *testing.T, require int) review.Status {
	t.Helper()
	st, err := r.s.review.Status(context.Background(), r.ws, require)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func nameCookie(name string) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(name))}
}

func signoffAuthors(st review.Status) []string {
	var out []string
	for _, s := range st.Signoffs {
		out = append(out, s.Author+" <"+s.AuthorID+"> "+string(s.Verdict))
	}
	return out
}

// TestReviewIdentityOnePersonPageAndAPI: one person who approves on the page and through the
// API is one approval, in every mode: header mode (the proxy's name), token mode (a session
// and the admin token are two people, but each counts once), and local mode (a browser's
// cookies, sent to the API too).
func TestReviewIdentityOnePersonPageAndAPI(t *testing.T) {
	header := AuthConfig{Mode: AuthHeader, Header: "X-Forwarded-User", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	for _, tc := range []struct {
		name   string
		cfg    AuthConfig
		setup  func(b *visitor)
		wantID string
	}{
		{"header mode", header, func(b *visitor) { b.header.Set("X-Forwarded-User", "alice") }, "header:alice"},
		{"local mode", AuthConfig{}, func(b *visitor) { b.get(t, "/") }, "browser:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reviewRig(t, tc.cfg)
			b := r.visitor()
			tc.setup(b)
			b.pageSignoff(t, "approved")
			if rec := b.apiReview(t, "signoffs", `{"verdict":"approved"}`); rec.Code != http.StatusCreated {
				t.Fatalf("API sign-off: %d %s", rec.Code, rec.Body)
			}
			st := r.gate(t, 2)
			if st.Passed || st.Approvals != 1 || len(st.Signoffs) != 1 {
				t.Fatalf("one person approved twice: passed %v, %d approvals, sign-offs %q; want one approval", st.Passed, st.Approvals, signoffAuthors(st))
			}
			if id := st.Signoffs[0].AuthorID; !strings.HasPrefix(id, tc.wantID) {
				t.Errorf("sign-off recorded under %q; want %s…", id, tc.wantID)
			}
		})
	}
}

// TestReviewIdentityLinkIsOneReviewer: in token mode, whoever holds one edit link is one
// reviewer, whatever names and author cookies they send, through the API (the link's token
// as bearer) and through the page (the link's cookie): three "people" are one approval,
// recorded under the link with the chosen name marked.
func TestReviewIdentityLinkIsOneReviewer(t *testing.T) {
	names := []string{"Alice (release manager)", "Bob", "Carol"}
	for _, via := range []string{"api", "page"} {
		t.Run(via, func(t *testing.T) {
			r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
			link := r.link(t, store.CanEdit)
			b := r.visitor()
			if via == "page" {
				if rec := b.get(t, "/s/"+link.Token); rec.Code != http.StatusSeeOther {
					t.Fatalf("open the link: %d", rec.Code)
				}
			}
			for i, name := range names {
				b.cookies[cookieName] = nameCookie(name)
				b.cookies[cookieAuthor] = &http.Cookie{Name: cookieAuthor, Value: strings.Repeat(string(rune('a'+i)), 32)}
				if via == "page" {
					b.pageSignoff(t, "approved")
					continue
				}
				if rec := b.apiReview(t, "signoffs", `{"verdict":"approved"}`, "Authorization", "Bearer "+link.Token); rec.Code != http.StatusCreated {
					t.Fatalf("API sign-off as %s: %d %s", name, rec.Code, rec.Body)
				}
			}
			st := r.gate(t, 2)
			if st.Passed || st.Approvals != 1 {
				t.Fatalf("one edit link passed require 2: %d approvals, sign-offs %q", st.Approvals, signoffAuthors(st))
			}
			if got, want := signoffAuthors(st), []string{"Carol (edit link) <link:" + link.ID + "> approved"}; !slices.Equal(got, want) {
				t.Errorf("latest sign-offs %q; want %q", got, want)
			}
		})
	}
}

// TestReviewIdentityLinkCannotReplaceAdmin: the admin's change request (the bearer token)
// stands after an edit link's holder approves: two reviewers, and the gate stays closed.
func TestReviewIdentityLinkCannotReplaceAdmin(t *testing.T) {
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	link := r.link(t, store.CanEdit)
	if rec := r.visitor().apiReview(t, "signoffs", `{"verdict":"changes","message":"do not ship"}`, "Authorization", "Bearer "+adminToken); rec.Code != http.StatusCreated {
		t.Fatalf("admin's sign-off: %d %s", rec.Code, rec.Body)
	}
	if rec := r.visitor().apiReview(t, "signoffs", `{"verdict":"approved"}`, "Authorization", "Bearer "+link.Token); rec.Code != http.StatusCreated {
		t.Fatalf("link's sign-off: %d %s", rec.Code, rec.Body)
	}
	st := r.gate(t, 1)
	if st.Passed || !slices.Contains(st.Reasons, "api requested changes on this revision") {
		t.Errorf("the admin's change request was replaced: passed %v, reasons %q, sign-offs %q", st.Passed, st.Reasons, signoffAuthors(st))
	}
	if got := signoffAuthors(st); len(got) != 2 || !strings.Contains(got[1], "<token> changes") {
		t.Errorf("latest sign-offs %q; want the link's and the admin token's", got)
	}
}

// TestReviewIdentityNoForgedAuthor: no request member names the author. The API refuses an
// "author" or "authorId" member (nothing stored); the page ignores such form fields.
func TestReviewIdentityNoForgedAuthor(t *testing.T) {
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	link := r.link(t, store.CanEdit)
	b := r.visitor()
	for _, body := range []string{
		`{"verdict":"approved","author":"Mallory"}`,
		`{"verdict":"approved","authorId":"session:mallory"}`,
	} {
		if rec := b.apiReview(t, "signoffs", body, "Authorization", "Bearer "+link.Token); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s; want 400", body, rec.Code, rec.Body)
		}
	}
	rec := b.apiReview(t, "comments", `{"tool":"books_search","index":0,"body":"hi","author":"Mallory"}`, "Authorization", "Bearer "+link.Token)
	if rec.Code != http.StatusBadRequest {
		t.Errorf("comment with an author: %d %s; want 400", rec.Code, rec.Body)
	}
	if sos, _ := r.st.Signoffs(context.Background(), r.ws); len(sos) != 0 {
		t.Errorf("refused sign-offs were stored: %+v", sos)
	}
	b.get(t, "/s/"+link.Token)
	b.cookies[cookieName] = nameCookie("Grace")
	if rec := b.reviewPost(t, "/w/"+r.ws+"/review/signoff?verdict=approved", url.Values{"author": {"Mallory"}, "authorId": {"session:x"}}); rec.Code != http.StatusOK {
		t.Fatalf("page sign-off: %d", rec.Code)
	}
	if got, want := signoffAuthors(r.gate(t, 1)), []string{"Grace (edit link) <link:" + link.ID + "> approved"}; !slices.Equal(got, want) {
		t.Errorf("page sign-off recorded as %q; want %q", got, want)
	}
}

// TestReviewIdentityComment: a link holder's comment keeps the chosen name, marked, under the
// link's ID; a signed-in person's comment through the API is the session's, not "api".
func TestReviewIdentityComment(t *testing.T) {
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	link := r.link(t, store.CanEdit)
	b := r.visitor()
	b.cookies[cookieName] = nameCookie("Ana")
	body := `{"tool":"books_search","index":0,"field":"/description","body":"Which catalogue?"}`
	if rec := b.apiReview(t, "comments", body, "Authorization", "Bearer "+link.Token); rec.Code != http.StatusCreated {
		t.Fatalf("comment: %d %s", rec.Code, rec.Body)
	}
	var c store.Comment
	if err := json.Unmarshal(b.apiReview(t, "comments", body, "Authorization", "Bearer "+adminToken).Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	cs, err := r.st.Comments(context.Background(), r.ws)
	if err != nil || len(cs) != 2 {
		t.Fatalf("comments: %v %v", cs, err)
	}
	got := []string{cs[0].Author + " <" + cs[0].AuthorID + ">", cs[1].Author + " <" + cs[1].AuthorID + ">"}
	if want := []string{"Ana (edit link) <link:" + link.ID + ">", "api <token>"}; !slices.Equal(got, want) {
		t.Errorf("comment authors %q; want %q", got, want)
	}
}

// TestReviewRequireSetting: an editor sets the approvals required from the panel; the panel's
// gate, the API's GET without ?require and Status(0) use it; ?require still decides for a CI
// job that says; a view link cannot change it; a value outside 1..10 is refused.
func TestReviewRequireSetting(t *testing.T) {
	ctx := context.Background()
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	editor, linker, viewer := r.signedIn(t, "Ada"), r.visitor(), r.visitor()
	linker.get(t, "/s/"+r.link(t, store.CanEdit).Token)
	viewer.get(t, "/s/"+r.link(t, store.CanView).Token)
	path := "/w/" + r.ws + "/review/require"
	for _, bad := range []string{"0", "11", "two", ""} {
		rec := editor.reviewPost(t, path, url.Values{"require": {bad}})
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "were not changed") {
			t.Errorf("require=%q: %d %.200s; want it refused in the panel", bad, rec.Code, rec.Body.String())
		}
	}
	if rec := viewer.reviewPost(t, path, url.Values{"require": {"3"}}); rec.Code != http.StatusForbidden {
		t.Errorf("a view link set the approvals required: %d", rec.Code)
	}
	// An edit link comments and signs off, but never changes what the gate asks for.
	if rec := linker.reviewPost(t, path, url.Values{"require": {"3"}}); rec.Code != http.StatusForbidden {
		t.Errorf("an edit link set the approvals required: %d", rec.Code)
	}
	if n, err := r.s.review.Require(ctx, r.ws); err != nil || n != 1 {
		t.Fatalf("the setting after refusals: %d, %v; want the default 1", n, err)
	}
	rec := editor.reviewPost(t, path, url.Values{"require": {"2"}})
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, "0 of 2 required approvals") || !strings.Contains(body, `<option value="2" selected>`) {
		t.Fatalf("set require 2: %d %.600s", rec.Code, body)
	}
	if b, err := r.st.Meta(ctx, r.ws, review.RequireMetaKey); err != nil || string(b) != "2" {
		t.Errorf("stored setting %q, %v; want the JSON number 2", b, err)
	}
	editor.pageSignoff(t, "approved")
	for _, tc := range []struct {
		query   string
		require int
		passed  bool
	}{{"", 2, false}, {"?require=1", 1, true}} {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/workspaces/"+r.ws+"/review"+tc.query, nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		rec := r.visitor().do(t, req)
		var ans struct{ Status review.Status }
		if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("GET review%s: %d %s", tc.query, rec.Code, rec.Body)
		}
		if ans.Status.Require != tc.require || ans.Status.Passed != tc.passed {
			t.Errorf("GET review%s: require %d passed %v; want %d %v", tc.query, ans.Status.Require, ans.Status.Passed, tc.require, tc.passed)
		}
	}
	panel := viewer.datastar(t, http.MethodGet, "/w/"+r.ws+"/review", nil).Body.String()
	if !strings.Contains(panel, "1 of 2 required approvals") {
		t.Errorf("the viewer's panel does not use the setting: %.600s", panel)
	}
}

// TestReviewFormLimits holds the views' constants to the store's and the review's: the
// sign-off box's maxlength is what the store keeps, the approvals-required choices 1..10.
func TestReviewFormLimits(t *testing.T) {
	ctx := views.WithViewer(context.Background(), views.Viewer{Capability: "edit"})
	box := render(ctx, views.ReviewSignoffMessage())
	if want := fmt.Sprintf(`maxlength="%d"`, store.MaxMessage); !strings.Contains(box, want) {
		t.Errorf("sign-off message box %s; want %s", box, want)
	}
	gate := render(ctx, views.ReviewGate(views.Review{WS: strings.Repeat("a", 32), Require: 1}))
	if got, want := strings.Count(gate, "<option"), review.MaxRequireSetting; got != want || !strings.Contains(gate, fmt.Sprintf(`value="%d"`, want)) {
		t.Errorf("the approvals-required select has %d choices; want 1 to %d: %s", got, want, gate)
	}
}

// TestReviewRequireLive: a page whose Review panel is open on another server of the store (a
// replica) shows the new approvals-required setting without a reload.
func TestReviewRequireLive(t *testing.T) {
	st := newTestStore(t)
	s1, s2 := serverOn(t, st), serverOn(t, st)
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	id := openExample(t, s1, "library-2-draft")
	page := openStreamSignals(t, ts2.URL, id, bo, fmt.Sprintf(`{"pid":%q,"tool":0,"ver":-1,"panel":"review"}`, strings.Repeat("c", 32)))
	page.waitFor(t, "the review", func(s string) bool { return strings.Contains(s, "0 of 1 required approvals") })
	page.reset()
	reviewFormAs(t, s1, ana, "/w/"+id+"/review/require", url.Values{"require": {"2"}})
	page.waitFor(t, "the new setting", func(s string) bool {
		return strings.Contains(s, "0 of 2 required approvals") && strings.Contains(s, `<option value="2" selected>`)
	})
}

// signedIn is a visitor signed in with the admin token under name (token mode).
func (r *authRig) signedIn(t *testing.T, name string) *visitor {
	t.Helper()
	b := r.visitor()
	if rec := b.form(t, "/login", url.Values{"token": {adminToken}, "name": {name}, "next": {"/w/" + r.ws}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in as %s: %d %s", name, rec.Code, rec.Body)
	}
	return b
}

// TestReviewIdentityOneNameTwoSessions: in token mode a sign-in's name is who the person is, so
// one person signed in on two browsers (or again after a session ended) approves once.
func TestReviewIdentityOneNameTwoSessions(t *testing.T) {
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	r.signedIn(t, "alice").pageSignoff(t, "approved")
	r.signedIn(t, "alice").pageSignoff(t, "approved")
	if st := r.gate(t, 2); st.Passed || st.Approvals != 1 {
		t.Errorf("alice on two browsers: passed %v with %d approvals, sign-offs %q; want one approval", st.Passed, st.Approvals, signoffAuthors(st))
	}
	r.signedIn(t, "bob").pageSignoff(t, "approved")
	if st := r.gate(t, 2); !st.Passed {
		t.Errorf("alice and bob: %q, sign-offs %q; want it passed", st.Reasons, signoffAuthors(st))
	}
}

// TestReviewExportUsesRequire: the exported report's gate asks for the workspace's approvals
// required, as the panel does.
func TestReviewExportUsesRequire(t *testing.T) {
	r := reviewRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	ada := r.signedIn(t, "Ada")
	if rec := ada.reviewPost(t, "/w/"+r.ws+"/review/require", url.Values{"require": {"2"}}); rec.Code != http.StatusOK {
		t.Fatalf("set require 2: %d", rec.Code)
	}
	ada.pageSignoff(t, "approved")
	md, err := r.s.reviewSection(context.Background(), r.ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(md); !strings.Contains(got, "**Fails**") || strings.Contains(got, "**Passes**") {
		t.Errorf("one approval of two required, the report says:\n%.400s", got)
	}
}
