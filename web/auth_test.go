package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// adminToken is the token-mode secret of these tests; no page, header or log line may carry it.
const adminToken = "s3cret-admin-token-7f2c9e81d4"

const authListing = `{"tools": [{"name": "books_search", "description": "Search the catalogue by title or author.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}`

// authRig is a server on a real SQLite store, with the JSON API mounted as serve mounts it, and
// everything it logged.
type authRig struct {
	s   *Server
	st  store.Store
	log *bytes.Buffer
	ws  string
}

func newAuthRig(t *testing.T, cfg AuthConfig) *authRig {
	t.Helper()
	return newRig(t, Config{Auth: cfg})
}

// newRig is newAuthRig with the rest of the server's Config too (its Store, Engine, Log,
// DatastarJS, Mount and APIErrors are the rig's).
func newRig(t *testing.T, cfg Config) *authRig {
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
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var s *Server
	jsonAPI := api.New(api.Options{Log: log, Workspaces: st, Access: func(r *http.Request, ws string, write bool) (string, error) {
		return s.APIAccess(r, ws, write)
	}})
	cfg.Store, cfg.Engine, cfg.Log, cfg.DatastarJS, cfg.APIErrors = st, eng, log, []byte("// test client"), jsonAPI.HTTPErrorHandler
	mount := cfg.Mount
	cfg.Mount = func(e *echo.Echo) {
		jsonAPI.Register(e.Group(api.Prefix))
		if mount != nil {
			mount(e)
		}
	}
	s, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse([]byte(authListing), listing.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "Library", Author: "setup", Listing: l, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return &authRig{s: s, st: st, log: &buf, ws: w.ID}
}

// visitor is one person's browser: its cookies and its address.
type visitor struct {
	rig     *authRig
	cookies map[string]*http.Cookie
	remote  string
	header  http.Header // sent with every request
}

func (r *authRig) visitor() *visitor {
	return &visitor{rig: r, cookies: map[string]*http.Cookie{}, remote: "127.0.0.1:50000", header: http.Header{}}
}

// do sends a request and keeps the cookies the answer sets.
func (b *visitor) do(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	req.RemoteAddr = b.remote
	for k, vs := range b.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	b.rig.s.Handler().ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return rec
}

func (b *visitor) get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	return b.do(t, httptest.NewRequest(http.MethodGet, path, nil))
}

func (b *visitor) form(t *testing.T, path string, v url.Values) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://example.com") // httptest's Host: a same-origin form post
	return b.do(t, req)
}

// datastar posts signals as the page does.
func (b *visitor) datastar(t *testing.T, method, path string, sig map[string]any) *httptest.ResponseRecorder {
	t.Helper()
	body, _ := json.Marshal(sig)
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.Header.Set("Origin", "http://example.com")
	return b.do(t, req)
}

func (r *authRig) head(t *testing.T) store.Workspace {
	t.Helper()
	w, err := r.st.Workspace(context.Background(), r.ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (r *authRig) link(t *testing.T, cp store.Capability) store.ShareLink {
	t.Helper()
	l, err := r.st.CreateShareLink(context.Background(), store.NewShareLink{Workspace: r.ws, Capability: cp, Author: "setup", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// writeRoutes are every route that needs the edit capability, with its parameters filled in.
func writeRoutes(t *testing.T, r *authRig) []struct{ method, path string } {
	t.Helper()
	var out []struct{ method, path string }
	for _, rt := range r.s.echo.Routes() {
		if !strings.HasPrefix(rt.Path, "/w/:id") || readMethod(rt.Method) || readPOSTs[rt.Path] || rt.Method == echo.RouteNotFound {
			continue
		}
		p := strings.ReplaceAll(rt.Path, ":id", r.ws)
		for _, seg := range strings.Split(p, "/") {
			if strings.HasPrefix(seg, ":") {
				p = strings.Replace(p, seg, "1", 1)
			}
		}
		out = append(out, struct{ method, path string }{rt.Method, p})
	}
	if len(out) < 8 {
		t.Fatalf("only %d write routes found under /w/:id; the route walk is broken", len(out))
	}
	return out
}

func TestViewLinkCannotEdit(t *testing.T) {
	for _, mode := range []AuthConfig{{Mode: AuthToken, Token: adminToken},
		{Mode: AuthHeader, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}} {
		t.Run(string(mode.Mode), func(t *testing.T) {
			r := newAuthRig(t, mode)
			view := r.link(t, store.CanView)
			b := r.visitor()
			rec := b.get(t, "/s/"+view.Token)
			if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/w/"+r.ws {
				t.Fatalf("open view link: %d %s", rec.Code, rec.Header().Get("Location"))
			}
			page := b.get(t, "/w/"+r.ws)
			if page.Code != http.StatusOK {
				t.Fatalf("view link: workspace page %d: %.300s", page.Code, page.Body.String())
			}
			body := page.Body.String()
			for _, want := range []string{`data-testid="read-only"`, `<fieldset class="edit-only" style="display:contents" disabled`} {
				if !strings.Contains(body, want) {
					t.Errorf("read-only page lacks %s", want)
				}
			}
			if strings.Contains(body, `data-testid="share-menu"`) {
				t.Error("a viewer is offered the share menu")
			}
			// Reading stays open to a viewer.
			for _, p := range []string{"/w/" + r.ws + "/listing.json", "/api/v1/workspaces/" + r.ws + "/listing"} {
				if rec := b.get(t, p); rec.Code != http.StatusOK {
					t.Errorf("GET %s with a view link: %d", p, rec.Code)
				}
			}
			before := r.head(t)
			for _, rt := range writeRoutes(t, r) {
				rec := b.datastar(t, rt.method, rt.path, map[string]any{"tool": 0, "val": "changed"})
				if rec.Code != http.StatusForbidden {
					t.Errorf("%s %s with a view link: status %d, want 403: %.200s", rt.method, rt.path, rec.Code, rec.Body.String())
				}
			}
			for _, p := range []string{"/w/" + r.ws + "/share?cap=edit", "/api/v1/workspaces/" + r.ws + "/listing"} {
				method := http.MethodPost
				if strings.HasPrefix(p, "/api/") {
					method = http.MethodPut
				}
				if rec := b.datastar(t, method, p, map[string]any{"result": map[string]any{"tools": []any{}}}); rec.Code != http.StatusForbidden {
					t.Errorf("%s %s with a view link: %d, want 403", method, p, rec.Code)
				}
			}
			// The view token as an API bearer cannot write either.
			req := httptest.NewRequest(http.MethodPut, "/api/v1/workspaces/"+r.ws+"/listing", strings.NewReader(`{"listing": {"tools": []}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+view.Token)
			if rec := r.visitor().do(t, req); rec.Code != http.StatusForbidden {
				t.Errorf("PUT listing with a view token as bearer: %d, want 403", rec.Code)
			}
			if after := r.head(t); after.Seq != before.Seq || after.Head != before.Head {
				t.Errorf("a viewer changed the workspace: seq %d → %d", before.Seq, after.Seq)
			}
			// A view link reaches only its own workspace, and not the pages that create workspaces.
			if rec := b.get(t, "/"); rec.Code != http.StatusForbidden && rec.Code != http.StatusSeeOther {
				t.Errorf("GET / with only a view link: %d", rec.Code)
			}
			if rec := b.form(t, "/workspaces", url.Values{"listing": {authListing}}); rec.Code != http.StatusForbidden {
				t.Errorf("import with only a view link: %d, want 403", rec.Code)
			}
		})
	}
}

func TestEditLinkEdits(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	edit := r.link(t, store.CanEdit)
	b := r.visitor()
	b.get(t, "/s/"+edit.Token)
	if rec := b.form(t, "/me/name", url.Values{"name": {"Grace"}, "next": {"/w/" + r.ws}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("set name: %d %s", rec.Code, rec.Body.String())
	}
	page := b.get(t, "/w/"+r.ws)
	if page.Code != http.StatusOK || strings.Contains(page.Body.String(), `data-testid="read-only"`) {
		t.Fatalf("edit link page: %d, read-only badge shown: %v", page.Code, strings.Contains(page.Body.String(), `data-testid="read-only"`))
	}
	if strings.Contains(page.Body.String(), `data-testid="share-menu"`) {
		t.Error("an edit-link visitor (not signed in) is offered the share menu")
	}
	before := r.head(t)
	rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Find books by title, author or subject."})
	if rec.Code != http.StatusOK {
		t.Fatalf("edit through an edit link: %d %s", rec.Code, rec.Body.String())
	}
	if after := r.head(t); after.Seq != before.Seq+1 {
		t.Fatalf("seq %d → %d, want one edit", before.Seq, after.Seq)
	}
	rev, err := r.st.Revision(context.Background(), r.ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	if rev.Author != "Grace" || !strings.HasPrefix(rev.AuthorID, "browser:") {
		t.Errorf("edit recorded as %q (%q), want Grace with her browser's id", rev.Author, rev.AuthorID)
	}
	// Managing links is for signed-in people.
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/share?cap=edit", nil); rec.Code != http.StatusForbidden {
		t.Errorf("an edit-link visitor made a share link: %d", rec.Code)
	}
}

func TestRevokedLinkRefused(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	admin := r.visitor()
	admin.header.Set("Authorization", "Bearer "+adminToken)
	rec := admin.datastar(t, http.MethodPost, "/w/"+r.ws+"/share?cap=edit", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("create link: %d %s", rec.Code, rec.Body.String())
	}
	u := regexpFind(t, rec.Body.String(), `http://example\.com/s/[0-9a-f]{32}`)
	tok := u[len(u)-32:]
	links, err := r.st.ShareLinks(context.Background(), r.ws)
	if err != nil || len(links) != 1 {
		t.Fatalf("links %v, %v", links, err)
	}
	guest := r.visitor()
	guest.get(t, "/s/"+tok)
	if rec := guest.get(t, "/w/"+r.ws); rec.Code != http.StatusOK {
		t.Fatalf("guest before revoking: %d", rec.Code)
	}
	rec = admin.datastar(t, http.MethodPost, "/w/"+r.ws+"/share/"+links[0].ID+"/revoke", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "share-revoked") {
		t.Fatalf("revoke: %d %s", rec.Code, rec.Body.String())
	}
	for _, tc := range []struct {
		b    *visitor
		path string
	}{{guest, "/w/" + r.ws}, {r.visitor(), "/s/" + tok}} {
		rec := tc.b.get(t, tc.path)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "revoked") {
			t.Errorf("GET %s after revoking: %d %s", tc.path, rec.Code, rec.Body.String())
		}
	}
	if rec := guest.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"val": "x"}); rec.Code != http.StatusForbidden {
		t.Errorf("edit with a revoked link: %d", rec.Code)
	}
	for _, bad := range []string{"/s/" + strings.Repeat("0", 32), "/s/short", "/s/" + strings.ToUpper(tok)} {
		if rec := r.visitor().get(t, bad); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", bad, rec.Code)
		}
	}
}

func TestTokenLogin(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	b := r.visitor()
	rec := b.get(t, "/w/"+r.ws)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login?next=%2Fw%2F"+r.ws {
		t.Fatalf("signed-out page: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"val": "x"}); rec.Code != http.StatusForbidden {
		t.Errorf("signed-out edit: %d", rec.Code)
	}
	if rec := b.get(t, "/login?next=/w/"+r.ws); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `name="token"`) {
		t.Fatalf("login page: %d", rec.Code)
	}
	tests := []struct {
		name, token, user string
		want              int
	}{
		{"wrong token", adminToken + "x", "Ada", http.StatusUnauthorized},
		{"prefix of the token", adminToken[:10], "Ada", http.StatusUnauthorized},
		{"empty token", "", "Ada", http.StatusUnauthorized},
		{"no name", adminToken, "  ", http.StatusBadRequest},
		{"right token", adminToken, "Ada", http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := b.form(t, "/login", url.Values{"token": {tt.token}, "name": {tt.user}, "next": {"/w/" + r.ws}})
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body.String())
			}
			_, signed := b.cookies[cookieSession]
			if signed != (tt.want == http.StatusSeeOther) {
				t.Fatalf("session cookie set = %v", signed)
			}
		})
	}
	ck := b.cookies[cookieSession]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
		t.Errorf("session cookie over http: HttpOnly %v SameSite %v Secure %v", ck.HttpOnly, ck.SameSite, ck.Secure)
	}
	page := b.get(t, "/w/"+r.ws)
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), `data-testid="whoami">Ada<`) ||
		!strings.Contains(page.Body.String(), `data-testid="share-menu"`) {
		t.Fatalf("signed-in page: %d", page.Code)
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Find books."}); rec.Code != http.StatusOK {
		t.Fatalf("signed-in edit: %d %s", rec.Code, rec.Body.String())
	}
	rev, _ := r.st.Revision(context.Background(), r.ws, -1)
	if rev.Author != "Ada" || !strings.HasPrefix(rev.AuthorID, "session:") {
		t.Errorf("edit recorded as %q (%q)", rev.Author, rev.AuthorID)
	}
	// Over https the cookie is Secure.
	https := r.visitor()
	req := httptest.NewRequest(http.MethodPost, "https://example.com/login", strings.NewReader(url.Values{"token": {adminToken}, "name": {"Ada"}}.Encode()))
	req.TLS = &tls.ConnectionState{}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	https.do(t, req)
	if c := https.cookies[cookieSession]; c == nil || !c.Secure {
		t.Errorf("session cookie over https is not Secure: %+v", c)
	}
	// Signing out ends the session in the store, not just the cookie.
	old := *b.cookies[cookieSession]
	if rec := b.form(t, "/logout", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout: %d", rec.Code)
	}
	replay := r.visitor()
	replay.cookies[cookieSession] = &old
	if rec := replay.get(t, "/w/"+r.ws); rec.Code != http.StatusSeeOther {
		t.Errorf("ended session still works: %d", rec.Code)
	}
	// Open redirects are not possible through next.
	evil := r.visitor()
	if rec := evil.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Eve"}, "next": {"//evil.example/x"}}); rec.Header().Get("Location") != "/" {
		t.Errorf("next=//evil.example redirected to %q", rec.Header().Get("Location"))
	}
}

func TestTokenModeAPI(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	tests := []struct {
		name, method, path, auth, body string
		want                           int
	}{
		{"no credentials", "GET", "/api/v1/workspaces/" + r.ws + "/listing", "", "", http.StatusForbidden},
		{"wrong token", "GET", "/api/v1/workspaces/" + r.ws + "/listing", "Bearer nope-" + adminToken, "", http.StatusForbidden},
		{"admin token reads", "GET", "/api/v1/workspaces/" + r.ws + "/listing", "Bearer " + adminToken, "", http.StatusOK},
		{"admin token writes", "PUT", "/api/v1/workspaces/" + r.ws + "/listing", "Bearer " + adminToken, `{"listing": ` + authListing + `}`, http.StatusOK},
		{"create needs sign-in", "POST", "/api/v1/workspaces", "", `{"title": "x", "listing": ` + authListing + `}`, http.StatusForbidden},
		{"admin creates", "POST", "/api/v1/workspaces", "Bearer " + adminToken, `{"title": "x", "listing": ` + authListing + `}`, http.StatusCreated},
		{"check needs sign-in", "POST", "/api/v1/check", "", `{"listing": ` + authListing + `}`, http.StatusForbidden},
		{"admin checks", "POST", "/api/v1/check", "Bearer " + adminToken, `{"listing": ` + authListing + `}`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := r.visitor().do(t, req)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body.String())
			}
			if rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"error"`) {
				t.Errorf("refusal is not in the API's error shape: %s", rec.Body.String())
			}
		})
	}
}

func TestHeaderModeTrustsOnlyTheProxy(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthHeader, Header: "X-Forwarded-User",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("fd00::/64")}})
	tests := []struct {
		name, remote, user, xff string
		want                    int
	}{
		{"proxy names the person", "10.0.0.1:4000", "alice", "", http.StatusOK},
		{"proxy over IPv6", "[fd00::7]:4000", "alice", "", http.StatusOK},
		{"proxy without a name", "10.0.0.1:4000", "", "", http.StatusForbidden},
		{"another address with the header", "10.0.0.2:4000", "alice", "", http.StatusForbidden},
		{"another address forging X-Forwarded-For", "10.0.0.2:4000", "alice", "10.0.0.1", http.StatusForbidden},
		{"another address without the header", "10.0.0.2:4000", "", "", http.StatusForbidden},
		{"loopback is not the proxy", "127.0.0.1:4000", "alice", "", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []string{"/", "/w/" + r.ws} {
				b := r.visitor()
				b.remote = tt.remote
				if tt.user != "" {
					b.header.Set("X-Forwarded-User", tt.user)
				}
				if tt.xff != "" {
					b.header.Set("X-Forwarded-For", tt.xff)
				}
				if rec := b.get(t, p); rec.Code != tt.want {
					t.Errorf("GET %s: %d, want %d", p, rec.Code, tt.want)
				}
			}
		})
	}
	// The proxy's name is the author of edits; a direct request's edit is refused and changes nothing.
	direct := r.visitor()
	direct.remote = "10.0.0.9:1"
	direct.header.Set("X-Forwarded-User", "mallory")
	if rec := direct.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "x"}); rec.Code != http.StatusForbidden {
		t.Errorf("direct edit: %d", rec.Code)
	}
	b := r.visitor()
	b.remote = "10.0.0.1:4000"
	b.header.Set("X-Forwarded-User", "alice")
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Find books."}); rec.Code != http.StatusOK {
		t.Fatalf("edit through the proxy: %d %s", rec.Code, rec.Body.String())
	}
	rev, _ := r.st.Revision(context.Background(), r.ws, -1)
	if rev.Author != "alice" || rev.AuthorID != "header:alice" {
		t.Errorf("edit recorded as %q (%q), want alice", rev.Author, rev.AuthorID)
	}
}

func TestLocalModeName(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	page := b.get(t, "/w/"+r.ws)
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), `data-testid="name-form"`) {
		t.Fatalf("local page: %d, name form shown: %v", page.Code, strings.Contains(page.Body.String(), "name-form"))
	}
	if b.cookies[cookieAuthor] == nil {
		t.Fatal("no author id cookie after the first page")
	}
	for _, bad := range []string{"", "   ", strings.Repeat("n", maxNameLen+1), "tab\there"} {
		if rec := b.form(t, "/me/name", url.Values{"name": {bad}}); rec.Code != http.StatusBadRequest {
			t.Errorf("name %q: %d, want 400", bad, rec.Code)
		}
	}
	if rec := b.form(t, "/me/name", url.Values{"name": {"Zoë <b>"}, "next": {"/w/" + r.ws}}); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/w/"+r.ws {
		t.Fatalf("set name: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	page = b.get(t, "/w/"+r.ws)
	if !strings.Contains(page.Body.String(), `value="Zoë &lt;b&gt;"`) {
		t.Error("the chosen name is not shown (escaped) in the name form")
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Find books."}); rec.Code != http.StatusOK {
		t.Fatalf("local edit: %d %s", rec.Code, rec.Body.String())
	}
	rev, _ := r.st.Revision(context.Background(), r.ws, -1)
	if rev.Author != "Zoë <b>" || rev.AuthorID != "browser:"+b.cookies[cookieAuthor].Value {
		t.Errorf("edit recorded as %q (%q)", rev.Author, rev.AuthorID)
	}
	// Local mode: no sign-in page, everyone edits, the plain URL is enough.
	if rec := b.get(t, "/login"); rec.Code != http.StatusNotFound {
		t.Errorf("/login in local mode: %d", rec.Code)
	}
}

// TestCrossOriginRefused sends every state-changing route a request from another origin.
func TestCrossOriginRefused(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	n := 0
	for _, rt := range r.s.echo.Routes() {
		if readMethod(rt.Method) || rt.Method == echo.RouteNotFound || rt.Name == "api.methodNotAllowed" {
			continue
		}
		p := rt.Path
		for _, seg := range strings.Split(p, "/") {
			switch {
			case seg == ":id":
				p = strings.Replace(p, seg, r.ws, 1)
			case strings.HasPrefix(seg, ":"):
				p = strings.Replace(p, seg, "1", 1)
			}
		}
		p = strings.ReplaceAll(p, "*", "x")
		for _, h := range []map[string]string{
			{"Origin": "https://evil.example"},
			{"Origin": "null"},
			{"Sec-Fetch-Site": "cross-site"},
		} {
			b := r.visitor()
			b.header.Set("Authorization", "Bearer "+adminToken) // would be allowed from the same origin
			req := httptest.NewRequest(rt.Method, p, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range h {
				req.Header.Set(k, v)
			}
			rec := b.do(t, req)
			if rec.Code != http.StatusForbidden {
				t.Errorf("%s %s with %v: %d, want 403", rt.Method, p, h, rec.Code)
			}
		}
		n++
	}
	if n < 15 {
		t.Fatalf("only %d state-changing routes found", n)
	}
	if w := r.head(t); w.Seq != 0 {
		t.Errorf("a cross-origin request changed the workspace (seq %d)", w.Seq)
	}
}

// TestTokenNeverShown drives a token-mode server through sign-in, failures, API calls and
// errors, and looks for the admin token in every answer and log line.
func TestTokenNeverShown(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	var answers []string
	keep := func(rec *httptest.ResponseRecorder) {
		var h strings.Builder
		rec.Header().Write(&h)
		answers = append(answers, h.String()+rec.Body.String())
	}
	b := r.visitor()
	keep(b.get(t, "/"))
	keep(b.get(t, "/login"))
	keep(b.form(t, "/login", url.Values{"token": {adminToken + "!"}, "name": {"Ada"}}))
	keep(b.form(t, "/login", url.Values{"token": {adminToken}, "name": {strings.Repeat("x", 100)}}))
	keep(b.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Ada"}, "next": {"/w/" + r.ws}}))
	keep(b.get(t, "/w/"+r.ws))
	keep(b.get(t, "/w/"+strings.Repeat("f", 32)))
	keep(b.datastar(t, http.MethodPost, "/w/"+r.ws+"/share?cap=view", nil))
	keep(b.datastar(t, http.MethodPost, "/w/"+r.ws+"/share?cap=admin", nil))
	for _, auth := range []string{"Bearer " + adminToken, "Bearer " + adminToken + "x", "bearer " + adminToken} {
		req := httptest.NewRequest(http.MethodPut, "/api/v1/workspaces/"+r.ws+"/listing", strings.NewReader(`{"listing": 5}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth)
		keep(r.visitor().do(t, req))
	}
	keep(b.form(t, "/logout", nil))
	for i, a := range answers {
		if strings.Contains(a, adminToken) || strings.Contains(a, adminToken[:12]) {
			t.Errorf("answer %d shows the admin token:\n%s", i, a)
		}
	}
	if strings.Contains(r.log.String(), adminToken[:12]) {
		t.Errorf("the log shows the admin token:\n%s", r.log.String())
	}
	if !strings.Contains(r.log.String(), "sign-in refused") {
		t.Errorf("a refused sign-in is not logged:\n%s", r.log.String())
	}
}

func TestRequirementOfRoutes(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	// Every route under /w/:id is either a read or needs the edit capability; none is open.
	for _, rt := range r.s.echo.Routes() {
		if !strings.HasPrefix(rt.Path, "/w/:id") || rt.Method == echo.RouteNotFound {
			continue
		}
		e := echo.New()
		c := e.NewContext(httptest.NewRequest(rt.Method, "/", nil), httptest.NewRecorder())
		c.SetPath(rt.Path)
		req := requirementOf(c)
		if req == reqOpen || req == reqSigned || req == reqAPI {
			t.Errorf("%s %s: requirement %d, want a workspace capability", rt.Method, rt.Path, req)
		}
		if !readMethod(rt.Method) && !readPOSTs[rt.Path] && req < reqEdit {
			t.Errorf("%s %s changes the workspace but needs only view", rt.Method, rt.Path)
		}
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"Ada", "Ada", true},
		{"  Ada Lovelace ", "Ada Lovelace", true},
		{"", "", false},
		{"\x00", "", false},
		{"a\nb", "", false},
		{"\xff", "", false},
		{strings.Repeat("é", maxNameLen), strings.Repeat("é", maxNameLen), true},
		{strings.Repeat("é", maxNameLen+1), "", false},
	}
	for _, tt := range tests {
		got, ok := cleanName(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("cleanName(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/w/abc": "/w/abc", "": "/", "//evil.example": "/", "/\\evil.example": "/", "https://evil.example": "/",
		"javascript:alert(1)": "/", "/ok?x=1": "/ok?x=1", "/a\r\nSet-Cookie: x": "/",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func regexpFind(t *testing.T, s, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindString(s)
	if m == "" {
		t.Fatalf("no %s in:\n%s", pattern, s)
	}
	return m
}

// FuzzWho feeds hostile cookies and headers to the request identification of every mode: it
// never panics, a name is always a clean display name, and only the proxy's header signs in.
func FuzzWho(f *testing.F) {
	f.Add("QWRh", "0123456789abcdef0123456789abcdef", "Bearer x", "alice", "10.0.0.1:1")
	f.Add("\x00\xff", "zz", "bearer "+adminToken, "\n", "10.0.0.2:1")
	f.Add("", "", "", "", "garbage")
	modes := []*access{}
	for _, cfg := range []AuthConfig{{}, {Mode: AuthHeader, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}}} {
		a, err := newAccess(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			f.Fatal(err)
		}
		modes = append(modes, a)
	}
	f.Fuzz(func(t *testing.T, nameCookie, authorCookie, authz, user, remote string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = remote
		req.Header.Set("Authorization", authz)
		req.Header.Set("X-Forwarded-User", user)
		req.AddCookie(&http.Cookie{Name: cookieName, Value: nameCookie})
		req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: authorCookie})
		for _, a := range modes {
			p, err := a.who(req)
			if err != nil {
				if a.cfg.Mode != AuthHeader || a.trusted(req) {
					t.Fatalf("mode %q: %v", a.cfg.Mode, err)
				}
				continue
			}
			if n, ok := cleanName(p.name); !ok || n != p.name {
				t.Fatalf("mode %q: name %q is not a clean display name", a.cfg.Mode, p.name)
			}
			if p.signed && (a.cfg.Mode != AuthHeader || !a.trusted(req)) {
				t.Fatalf("mode %q: signed in from %q", a.cfg.Mode, remote)
			}
		}
	})
}

func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/w/x", "//evil", "/\\evil", "https://x", "", "/a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := safeNext(in)
		if got != "/" && got != in {
			t.Fatalf("safeNext(%q) = %q: neither the input nor /", in, got)
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") || strings.ContainsAny(got, "\r\n") {
			t.Fatalf("safeNext(%q) = %q leaves the server", in, got)
		}
	})
}

func TestCapabilityHelpers(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	view, edit := r.link(t, store.CanView), r.link(t, store.CanEdit)
	other := strings.Repeat("a", 32)
	tests := []struct {
		name      string
		cookie    string
		bearer    string
		ws        string
		want      Capability
		mayChange bool
	}{
		{"view link", view.Token, "", r.ws, CapView, false},
		{"edit link", edit.Token, "", r.ws, CapEdit, true},
		{"link of another workspace", edit.Token, "", other, CapNone, false},
		{"admin bearer", "", adminToken, r.ws, CapEdit, true},
		{"share token as bearer", "", view.Token, r.ws, CapView, false},
		{"nothing", "", "", r.ws, CapNone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/w/"+tt.ws+"/edit", nil)
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: cookieLink + tt.ws, Value: tt.cookie})
				req.AddCookie(&http.Cookie{Name: cookieLink + r.ws, Value: tt.cookie})
			}
			if tt.bearer != "" {
				req.Header.Set("Authorization", "Bearer "+tt.bearer)
			}
			c := r.s.echo.NewContext(req, httptest.NewRecorder())
			c.SetParamNames("id")
			c.SetParamValues(tt.ws)
			if got := r.s.capability(c, tt.ws); got != tt.want {
				t.Errorf("capability = %v, want %v", got, tt.want)
			}
			err := r.s.requireEdit(c)
			if tt.mayChange != (err == nil) || (err != nil && statusFor(err) != http.StatusForbidden) {
				t.Errorf("requireEdit = %v, want allowed %v", err, tt.mayChange)
			}
		})
	}
}
