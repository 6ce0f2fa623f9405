package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing/remote"
	"github.com/tool-workbench/workbench/store"
)

// Attacks on the server as a whole, each through the real router with the JSON API mounted as
// serve mounts it: a page the user visits (DNS rebinding, cross-site requests), a guesser of
// secrets, and clients that hold the server's request slots.

// apiCode is the code of an API error answer ("" when the answer is not one).
func apiCode(rec *httptest.ResponseRecorder) string {
	var got struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || json.Unmarshal(rec.Body.Bytes(), &got) != nil {
		return ""
	}
	return got.Error.Code
}

// request builds a request as a browser on host would send it: a POST carries that host's
// Origin, as a DNS-rebinding page's requests do.
func hostRequest(method, path, host, body string) *http.Request {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = host
	switch {
	case strings.HasPrefix(path, "/api/"):
		req.Header.Set("Content-Type", "application/json")
	case body != "":
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	return req
}

// TestHostCheckLocalMode: in local mode only loopback names reach the server, on every route
// (pages, the stream, static files, the API, unknown paths), so a DNS-rebinding page (Host
// attacker.example, a matching Origin) gets nothing: no workspace read, none changed.
func TestHostCheckLocalMode(t *testing.T) {
	rig := newAuthRig(t, AuthConfig{})
	ws := rig.ws
	apiBody := `{"listing": ` + authListing + `}`
	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/", ""},
		{http.MethodGet, "/w/" + ws, ""},
		{http.MethodGet, "/w/" + ws + "/listing.json", ""},
		{http.MethodGet, "/w/" + ws + "/stream?datastar=" + url.QueryEscape(`{"pid":"`+strings.Repeat("a", 32)+`"}`), ""},
		{http.MethodGet, "/static/app.css", ""},
		{http.MethodGet, "/rules", ""},
		{http.MethodGet, "/no/such/page", ""},
		{http.MethodPost, "/workspaces", url.Values{"listing": {authListing}}.Encode()},
		{http.MethodPost, "/fetch", url.Values{"url": {"http://127.0.0.1:1/mcp"}}.Encode()},
		{http.MethodGet, "/api/v1/workspaces/" + ws + "/listing", ""},
		{http.MethodPut, "/api/v1/workspaces/" + ws + "/listing", `{"listing": {"tools": []}}`},
		{http.MethodPost, "/api/v1/workspaces", apiBody},
		{http.MethodPost, "/api/v1/check", apiBody},
		{http.MethodGet, "/api/v1/openapi.json", ""},
		{http.MethodGet, "/api/v1/nothing", ""},
	}
	foreign := []string{"attacker.example:8080", "attacker.example", "ATTACKER.example.:8080", "127.0.0.1.attacker.example:8080",
		"localhost.attacker.example", "0.0.0.0:8080", "192.168.1.10:8080", "[fe80::1]:8080", "[::]:8080", "", "localhost:8080@attacker.example"}
	for _, host := range foreign {
		for _, rt := range routes {
			t.Run(fmt.Sprintf("%s %s Host %q", rt.method, rt.path, host), func(t *testing.T) {
				// A stream that was let in would never end: the context bounds it.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				rec := rig.visitor().do(t, hostRequest(rt.method, rt.path, host, rt.body).WithContext(ctx))
				if rec.Code != http.StatusMisdirectedRequest {
					t.Fatalf("status %d, want 421: %.300s", rec.Code, rec.Body.String())
				}
				body := rec.Body.String()
				if !strings.Contains(body, "127.0.0.1") || !strings.Contains(body, "--allowed-host") {
					t.Errorf("the refusal does not say what would work: %.400s", body)
				}
				if strings.HasPrefix(rt.path, "/api/") {
					if code := apiCode(rec); code != "wrong_host" {
						t.Errorf("API refusal code %q, want wrong_host: %s", code, body)
					}
				}
			})
		}
	}
	if head := rig.head(t); head.Seq != 0 || head.Head != 0 {
		t.Errorf("the workspace changed under refused requests: seq %d, head %d", head.Seq, head.Head)
	}
	// Loopback names, with or without a port, are served.
	for _, host := range []string{"127.0.0.1:8080", "127.0.0.1", "127.9.9.9:1", "localhost:8080", "LocalHost", "localhost.:8080",
		"workbench.localhost:8080", "[::1]:8080", "[::1]", "[::ffff:127.0.0.1]:8080"} {
		for _, rt := range []struct{ method, path, body string }{
			{http.MethodGet, "/", ""},
			{http.MethodGet, "/api/v1/workspaces/" + ws + "/listing", ""},
			{http.MethodPost, "/api/v1/check", apiBody},
			{http.MethodPost, "/workspaces", url.Values{"listing": {authListing}}.Encode()},
		} {
			rec := rig.visitor().do(t, hostRequest(rt.method, rt.path, host, rt.body))
			if rec.Code >= 400 {
				t.Errorf("%s %s Host %q: status %d: %.300s", rt.method, rt.path, host, rec.Code, rec.Body.String())
			}
		}
	}
}

// TestHostCheckStopsStdioLaunch: with --allow-stdio, a DNS-rebinding page's POST /fetch (Host
// attacker.example, a matching Origin) launched a command; it must not start.
func TestHostCheckStopsStdioLaunch(t *testing.T) {
	s := fetchServer(t, remote.LocalPolicy(), nil)
	s.fetch.AllowStdio = true
	mark := filepath.Join(t.TempDir(), "pwned")
	req := hostRequest(http.MethodPost, "/fetch", "attacker.example:8080",
		url.Values{"transport": {"stdio"}, "command": {"touch " + mark}}.Encode())
	rec := do(t, s, req)
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("status %d, want 421: %.300s", rec.Code, rec.Body.String())
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the rebinding page launched a command (it created %s)", mark)
	}
}

// TestHostCheckAuthModes: in the auth modes the operator names the public hosts; any other
// Host is refused. Without a list any Host is served (every request authenticates there).
func TestHostCheckAuthModes(t *testing.T) {
	named := newRig(t, Config{Auth: AuthConfig{Mode: AuthToken, Token: adminToken},
		AllowedHosts: []string{"workbench.example.com", "10.0.0.5:8443"}})
	tests := []struct {
		host string
		want int
	}{
		{"workbench.example.com", http.StatusOK},
		{"WORKBENCH.example.com.:443", http.StatusOK},
		{"10.0.0.5:8443", http.StatusOK},
		{"10.0.0.5:8080", http.StatusMisdirectedRequest}, // the entry names a port
		{"attacker.example", http.StatusMisdirectedRequest},
		{"example.com", http.StatusMisdirectedRequest},
		{"127.0.0.1:8080", http.StatusMisdirectedRequest}, // loopback is local mode's, not a team's
	}
	for _, tt := range tests {
		req := hostRequest(http.MethodGet, "/login", tt.host, "")
		if rec := named.visitor().do(t, req); rec.Code != tt.want {
			t.Errorf("Host %q: status %d, want %d: %.200s", tt.host, rec.Code, tt.want, rec.Body.String())
		}
		req = hostRequest(http.MethodGet, "/api/v1/workspaces/"+named.ws+"/listing", tt.host, "")
		req.Header.Set("Authorization", "Bearer "+adminToken)
		want := tt.want
		if rec := named.visitor().do(t, req); rec.Code != want {
			t.Errorf("API, Host %q: status %d, want %d: %.200s", tt.host, rec.Code, want, rec.Body.String())
		}
	}
	open := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	if rec := open.visitor().do(t, hostRequest(http.MethodGet, "/login", "anything.example", "")); rec.Code != http.StatusOK {
		t.Errorf("without AllowedHosts, auth mode: status %d", rec.Code)
	}
	// Local mode serves loopback and the named hosts.
	local := newRig(t, Config{AllowedHosts: []string{"dev.internal"}})
	for host, want := range map[string]int{"dev.internal:8080": http.StatusOK, "localhost:8080": http.StatusOK, "attacker.example": http.StatusMisdirectedRequest} {
		if rec := local.visitor().do(t, hostRequest(http.MethodGet, "/", host, "")); rec.Code != want {
			t.Errorf("local mode with dev.internal allowed, Host %q: status %d, want %d", host, rec.Code, want)
		}
	}
	if _, err := New(Config{Store: newTestStore(t), Engine: newServer(t).engine, AllowedHosts: []string{"http://x/"}}); err == nil || !strings.Contains(err.Error(), "host name") {
		t.Errorf("a URL as an allowed host: err = %v, want one that asks for a host name", err)
	}
}

// TestAPIRefusesCrossSiteWithOrigin: a browser's state-changing API request whose
// Sec-Fetch-Site is cross-site or same-site is refused even when its Origin matches the Host
// (a proxy or a rebinding page can make them match); same-origin, none and absent pass.
func TestAPIRefusesCrossSiteWithOrigin(t *testing.T) {
	rig := newAuthRig(t, AuthConfig{})
	body := `{"listing": ` + authListing + `}`
	for _, tt := range []struct {
		site string
		want int
	}{
		{"cross-site", http.StatusForbidden},
		{"same-site", http.StatusForbidden},
		{"CROSS-SITE", http.StatusForbidden},
		{"same-origin", http.StatusCreated},
		{"none", http.StatusCreated},
		{"", http.StatusCreated},
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/workspaces", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "http://example.com") // httptest's Host
		if tt.site != "" {
			req.Header.Set("Sec-Fetch-Site", tt.site)
		}
		rec := rig.visitor().do(t, req)
		if rec.Code != tt.want {
			t.Errorf("Sec-Fetch-Site %q: status %d, want %d: %s", tt.site, rec.Code, tt.want, rec.Body.String())
			continue
		}
		if tt.want == http.StatusForbidden && apiCode(rec) != "cross_origin" {
			t.Errorf("Sec-Fetch-Site %q: code %q, want cross_origin", tt.site, apiCode(rec))
		}
	}
}

// bearerGet reads the workspace's listing through the API with a bearer token from remote.
func bearerGet(t *testing.T, r *authRig, remote, token string) *httptest.ResponseRecorder {
	t.Helper()
	b := r.visitor()
	b.remote = remote
	req := httptest.NewRequest(http.MethodGet, "/api/v1/workspaces/"+r.ws+"/listing", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return b.do(t, req)
}

// TestBearerTokensThrottled: wrong bearer tokens (the admin token's guesses and share-link
// guesses alike) spend from the same per-client bucket as wrong sign-ins; an empty bucket
// answers 429 with Retry-After, in the API's shape, even for the right token.
func TestBearerTokensThrottled(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken, Now: clock.now})
	wrong := "guess-" + strings.Repeat("y", 20)
	shareGuess := strings.Repeat("ab", 16) // the form of a share-link token
	steps := []struct {
		name, remote, tok string
		advance           time.Duration
		want              int
		retry             string
	}{
		{"wrong 1", "192.0.2.1:1000", wrong, 0, http.StatusForbidden, ""},
		{"right is free", "192.0.2.1:1000", adminToken, 0, http.StatusOK, ""},
		{"wrong 2", "192.0.2.1:1001", wrong, 0, http.StatusForbidden, ""},
		{"share-link guess 3", "192.0.2.1:1002", shareGuess, 0, http.StatusForbidden, ""},
		{"wrong 4", "192.0.2.1:1003", wrong, 0, http.StatusForbidden, ""},
		{"wrong 5", "192.0.2.1:1004", wrong, 0, http.StatusForbidden, ""},
		{"throttled", "192.0.2.1:1005", wrong, 0, http.StatusTooManyRequests, "12"},
		{"throttled with the right token", "192.0.2.1:1006", adminToken, 0, http.StatusTooManyRequests, "12"},
		{"another client", "198.51.100.7:1000", adminToken, 0, http.StatusOK, ""},
		{"one more after the refill", "192.0.2.1:1007", wrong, 12 * time.Second, http.StatusForbidden, ""},
		{"then throttled again", "192.0.2.1:1008", shareGuess, 0, http.StatusTooManyRequests, "12"},
	}
	for _, st := range steps {
		clock.add(st.advance)
		rec := bearerGet(t, r, st.remote, st.tok)
		if rec.Code != st.want || rec.Header().Get("Retry-After") != st.retry {
			t.Fatalf("%s: status %d Retry-After %q, want %d %q: %s", st.name, rec.Code, rec.Header().Get("Retry-After"), st.want, st.retry, rec.Body.String())
		}
		if st.want == http.StatusTooManyRequests && apiCode(rec) != "rate_limited" {
			t.Errorf("%s: code %q, want rate_limited: %s", st.name, apiCode(rec), rec.Body.String())
		}
	}
	// The sign-in form and the API share one bucket per client.
	b := r.visitor()
	b.remote = "192.0.2.1:2000"
	if rec := b.form(t, "/login", url.Values{"token": {wrong}, "name": {"Ada"}}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("sign-in after the API's guesses: status %d, want 429", rec.Code)
	}
	// Share-link guesses on /s/:token spend from it as well.
	guesser := r.visitor()
	guesser.remote = "203.0.113.9:1"
	for i := range loginBurst {
		if rec := guesser.get(t, "/s/"+store.NewID()); rec.Code != http.StatusNotFound {
			t.Fatalf("share-link guess %d: status %d, want 404", i+1, rec.Code)
		}
	}
	if rec := guesser.get(t, "/s/"+store.NewID()); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("share-link guess %d: status %d Retry-After %q, want 429 with Retry-After", loginBurst+1, rec.Code, rec.Header().Get("Retry-After"))
	}
	for _, secret := range []string{adminToken, wrong, shareGuess} {
		if strings.Contains(r.log.String(), secret) {
			t.Errorf("the log holds a submitted token %q", secret)
		}
	}
}

// TestBearerFromProxyNotCounted: in header mode an authenticating proxy may pass its own
// Authorization header along; a signed-in person's requests are not guesses.
func TestBearerFromProxyNotCounted(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthHeader, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}})
	for i := range 3 * loginBurst {
		b := r.visitor()
		b.remote = "10.0.0.1:4000"
		b.header.Set("X-Forwarded-User", "ada")
		req := httptest.NewRequest(http.MethodGet, "/api/v1/workspaces/"+r.ws+"/listing", nil)
		req.Header.Set("Authorization", "Bearer proxy-id-token-"+strings.Repeat("x", 40))
		if rec := b.do(t, req); rec.Code != http.StatusOK {
			t.Fatalf("request %d: status %d: %s", i+1, rec.Code, rec.Body.String())
		}
	}
}

// TestThrottleKeyBehindProxy: behind a trusted proxy the sign-in throttle keys on the client
// address the proxy reports, so one guesser does not lock everyone out; addresses written by
// the client itself (the left of X-Forwarded-For, or the header from an untrusted peer) are
// never believed.
func TestThrottleKeyBehindProxy(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}
	wrong := "guess-" + strings.Repeat("x", 20)
	type try struct {
		name, remote, header, value string
		tok                         string
		want                        int
	}
	run := func(t *testing.T, header string, tries []try) {
		clock := &fakeClock{t: time.Now()}
		r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken, Now: clock.now, TrustedProxies: proxies, ClientIPHeader: header})
		for _, tr := range tries {
			b := r.visitor()
			b.remote = tr.remote
			if tr.header != "" {
				b.header.Set(tr.header, tr.value)
			}
			tok := tr.tok
			if tok == "" {
				tok = wrong
			}
			if rec := b.form(t, "/login", url.Values{"token": {tok}, "name": {"Ada"}}); rec.Code != tr.want {
				t.Fatalf("%s: status %d, want %d", tr.name, rec.Code, tr.want)
			}
		}
	}
	xff := "X-Forwarded-For"
	var tries []try
	for i := range loginBurst {
		// The guesser writes a new address of its own on the left each time.
		tries = append(tries, try{name: fmt.Sprintf("guess %d", i+1), remote: "10.0.0.1:5000", header: xff,
			value: fmt.Sprintf("192.0.2.%d, 203.0.113.5", i+1), want: http.StatusUnauthorized})
	}
	tries = append(tries,
		try{name: "guesser throttled", remote: "10.0.0.1:5000", header: xff, value: "198.51.100.200, 203.0.113.5", want: http.StatusTooManyRequests},
		try{name: "another person through the same proxy", remote: "10.0.0.1:5001", header: xff, value: "198.51.100.9", tok: adminToken, want: http.StatusSeeOther},
		try{name: "another person's wrong token", remote: "10.0.0.1:5001", header: xff, value: "198.51.100.10", want: http.StatusUnauthorized},
		try{name: "through a second trusted proxy", remote: "10.0.0.2:5000", header: xff, value: "203.0.113.5, 10.0.0.1", want: http.StatusTooManyRequests},
		try{name: "IPv6 client", remote: "10.0.0.1:5000", header: xff, value: "2001:db8::7", want: http.StatusUnauthorized},
	)
	t.Run("X-Forwarded-For", func(t *testing.T) { run(t, "", tries) })

	// From an address that is not a trusted proxy the header is the client's own words.
	var direct []try
	for i := range loginBurst {
		direct = append(direct, try{name: fmt.Sprintf("direct guess %d", i+1), remote: "192.0.2.50:1", header: xff,
			value: fmt.Sprintf("198.51.100.%d", i+1), want: http.StatusUnauthorized})
	}
	direct = append(direct, try{name: "direct guesser throttled", remote: "192.0.2.50:1", header: xff, value: "198.51.100.99", want: http.StatusTooManyRequests})
	t.Run("untrusted peer", func(t *testing.T) { run(t, "", direct) })

	fwd := "Forwarded"
	var rfc []try
	for i := range loginBurst {
		rfc = append(rfc, try{name: fmt.Sprintf("Forwarded guess %d", i+1), remote: "10.0.0.1:5000", header: fwd,
			value: fmt.Sprintf(`for=192.0.2.%d;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1`, i+1), want: http.StatusUnauthorized})
	}
	rfc = append(rfc,
		try{name: "Forwarded guesser throttled", remote: "10.0.0.1:5000", header: fwd, value: `for="[2001:db8:cafe::99]"`, want: http.StatusTooManyRequests},
		try{name: "Forwarded, another person", remote: "10.0.0.1:5000", header: fwd, value: `for=198.51.100.9`, want: http.StatusUnauthorized},
		// With Forwarded configured, X-Forwarded-For is whatever the client wrote: it does not
		// move the guesser to its throttled /64 (the key is the proxy's own address).
		try{name: "X-Forwarded-For ignored", remote: "10.0.0.1:5000", header: xff, value: "2001:db8:cafe::5", want: http.StatusUnauthorized},
	)
	t.Run("Forwarded", func(t *testing.T) { run(t, fwd, rfc) })
}

var nextField = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestLoginNextStaysOnServer: the page to return to after signing in (and after choosing a
// name) is a path on this server; everything a browser could read as another host becomes "/".
func TestLoginNextStaysOnServer(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	tests := []struct{ next, want string }{
		{"/w/" + strings.Repeat("a", 32) + "?tool=2", "/w/" + strings.Repeat("a", 32) + "?tool=2"},
		{"/", "/"},
		{"/rules#schema", "/rules#schema"},
		{"", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/\r\n/evil.example", "/"},
		{"/ /evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/a\\b", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"https:evil.example", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{" /rules", "/"},
		{"/%09/evil.example", "/"},
		{"/%0d%0a/evil.example", "/"},
		{"/%2F/evil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"/%2f%2fevil.example", "/"},
		{"/%zz", "/"},
		{"/\u00a0/evil.example", "/"},
		{"/\u2028/evil.example", "/"},
		{"/\x00", "/"},
		{"/\xff", "/"},
	}
	for _, tt := range tests {
		// The sign-in page carries next into its form.
		page := r.visitor().get(t, "/login?next="+url.QueryEscape(tt.next))
		m := nextField.FindStringSubmatch(page.Body.String())
		if m == nil {
			t.Fatalf("next %q: no next field on the sign-in page (status %d)", tt.next, page.Code)
		}
		if got := htmlUnescape(m[1]); got != tt.want {
			t.Errorf("GET /login?next=%q: the form's next is %q, want %q", tt.next, got, tt.want)
		}
		// Signing in redirects there.
		b := r.visitor()
		rec := b.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Ada"}, "next": {tt.next}})
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != tt.want {
			t.Errorf("POST /login next=%q: status %d Location %q, want 303 %q", tt.next, rec.Code, loc, tt.want)
		}
		// So does choosing a display name.
		rec = r.visitor().form(t, "/me/name", url.Values{"name": {"Ada"}, "next": {tt.next}})
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != tt.want {
			t.Errorf("POST /me/name next=%q: status %d Location %q, want 303 %q", tt.next, rec.Code, loc, tt.want)
		}
	}
	// The raw query as a browser sends it (the tab percent-encoded).
	page := r.visitor().get(t, "/login?next=/%09/evil.example")
	if m := nextField.FindStringSubmatch(page.Body.String()); m == nil || htmlUnescape(m[1]) != "/" {
		t.Errorf("GET /login?next=/%%09/evil.example: next field %q, want /", m)
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&#9;", "\t", "&#10;", "\n", "&#13;", "\r").Replace(s)
}

// blockingRig is a local-mode server with a test route that waits for its request's context
// to end (or for release), counting the requests inside it.
type blockingRig struct {
	*authRig
	inside  chan struct{}
	release chan struct{}
}

func newBlockingRig(t *testing.T, cfg Config) *blockingRig {
	b := &blockingRig{inside: make(chan struct{}, 64), release: make(chan struct{})}
	cfg.Mount = func(e *echo.Echo) {
		e.GET("/test/block", func(c echo.Context) error {
			b.inside <- struct{}{}
			select {
			case <-c.Request().Context().Done():
				return c.Request().Context().Err()
			case <-b.release:
				return c.String(http.StatusOK, "released")
			case <-time.After(10 * time.Second):
				return c.String(http.StatusTeapot, "no deadline")
			}
		})
		e.GET("/api/v1/test/block", func(c echo.Context) error {
			select {
			case <-c.Request().Context().Done():
				return c.Request().Context().Err()
			case <-time.After(10 * time.Second):
				return c.String(http.StatusTeapot, "no deadline")
			}
		})
	}
	b.authRig = newRig(t, cfg)
	return b
}

// TestRequestDeadline: every request but the live stream has a deadline, which a handler
// that waits on its context sees; the answer says what happened, in the API's shape there.
func TestRequestDeadline(t *testing.T) {
	r := newBlockingRig(t, Config{RequestTimeout: 100 * time.Millisecond})
	start := time.Now()
	rec := r.visitor().get(t, "/test/block")
	if took := time.Since(start); rec.Code != http.StatusServiceUnavailable || took > 5*time.Second {
		t.Fatalf("status %d after %v, want 503 at the deadline: %s", rec.Code, took, rec.Body.String())
	}
	if !strings.Contains(rec.Body.String(), "took longer than") {
		t.Errorf("the answer does not say the request ran out of time: %s", rec.Body.String())
	}
	rec = r.visitor().get(t, "/api/v1/test/block")
	if rec.Code != http.StatusServiceUnavailable || apiCode(rec) != "unavailable" {
		t.Errorf("API: status %d code %q, want 503 unavailable: %s", rec.Code, apiCode(rec), rec.Body.String())
	}
	// The live stream has none: it ends when the page goes (here when its context does).
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	req := httptest.NewRequest(http.MethodGet, "/w/"+r.ws+"/stream?datastar="+url.QueryEscape(`{"pid":"`+strings.Repeat("c", 32)+`"}`), nil)
	start = time.Now()
	r.visitor().do(t, req.WithContext(ctx))
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("the live stream ended after %v: it got the requests' deadline", took)
	}
}

// TestInFlightBound: past MaxInFlight requests at once (with no waiting room) the next request
// is answered 503 with Retry-After at once; static files take no slot; with a waiting room, a
// slot freed within QueueWait serves a waiting request, and a full room turns the next away.
func TestInFlightBound(t *testing.T) {
	const n = 3
	r := newBlockingRig(t, Config{MaxInFlight: n, QueueWait: -1, RequestTimeout: 20 * time.Second})
	var wg sync.WaitGroup
	codes := make(chan int, n)
	for range n {
		wg.Go(func() { codes <- r.visitor().get(t, "/test/block").Code })
	}
	for range n {
		select {
		case <-r.inside:
		case <-time.After(10 * time.Second):
			t.Fatal("the blocking requests did not start")
		}
	}
	for _, path := range []string{"/", "/api/v1/openapi.json"} {
		rec := r.visitor().get(t, path)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("GET %s with %d requests in flight: status %d Retry-After %q, want 503 with Retry-After", path, n, rec.Code, rec.Header().Get("Retry-After"))
		}
		if !strings.Contains(rec.Body.String(), "busy") {
			t.Errorf("GET %s: the answer does not say the server is busy: %.300s", path, rec.Body.String())
		}
		if strings.HasPrefix(path, "/api/") && apiCode(rec) != "unavailable" {
			t.Errorf("GET %s: code %q, want unavailable", path, apiCode(rec))
		}
	}
	if rec := r.visitor().get(t, r.s.page.CSS); rec.Code != http.StatusOK {
		t.Errorf("a static file while full: status %d", rec.Code)
	}
	close(r.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a request in flight answered %d", c)
		}
	}
	if rec := r.visitor().get(t, "/"); rec.Code != http.StatusOK {
		t.Errorf("after the slots were freed: status %d", rec.Code)
	}

	// With a waiting room, a request over the bound waits for a slot that frees in time.
	q := newBlockingRig(t, Config{MaxInFlight: 1, QueueWait: 5 * time.Second, RequestTimeout: 20 * time.Second})
	first := make(chan int, 1)
	go func() { first <- q.visitor().get(t, "/test/block").Code }()
	<-q.inside
	second := make(chan int, 1)
	go func() { second <- q.visitor().get(t, "/").Code }()
	time.Sleep(50 * time.Millisecond)
	close(q.release)
	if c := <-first; c != http.StatusOK {
		t.Errorf("first: %d", c)
	}
	if c := <-second; c != http.StatusOK {
		t.Errorf("the waiting request: %d, want 200", c)
	}

	// A full waiting room: one slot taken, queueFactor requests waiting, the next is refused
	// at once.
	full := newBlockingRig(t, Config{MaxInFlight: 1, QueueWait: 10 * time.Second, RequestTimeout: 20 * time.Second})
	var held sync.WaitGroup
	held.Go(func() { full.visitor().get(t, "/test/block") })
	<-full.inside
	for range queueFactor {
		held.Go(func() { full.visitor().get(t, "/test/block") })
	}
	for full.s.limit.waiting.Load() < queueFactor {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if rec := full.visitor().get(t, "/"); rec.Code != http.StatusServiceUnavailable || time.Since(start) > 2*time.Second {
		t.Errorf("with the waiting room full: status %d after %v, want 503 at once", rec.Code, time.Since(start))
	}
	close(full.release)
	held.Wait()
}

// TestStdioToken: a server with stdio on has a launch token of its own; with stdio off no
// token is accepted, the empty one included.
func TestStdioToken(t *testing.T) {
	on := fetchServer(t, remote.LocalPolicy(), nil)
	off := fetchServer(t, remote.LocalPolicy(), nil)
	eng := on.engine
	on2, err := New(Config{Store: newTestStore(t), Engine: eng, Fetch: FetchConfig{AllowStdio: true, Policy: remote.LocalPolicy()}})
	if err != nil {
		t.Fatal(err)
	}
	on3, err := New(Config{Store: newTestStore(t), Engine: eng, Fetch: FetchConfig{AllowStdio: true, Policy: remote.LocalPolicy()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(on2.stdioToken) != 32 || on2.stdioToken == on3.stdioToken {
		t.Fatalf("stdio tokens %q and %q: want 128 random bits per process", on2.stdioToken, on3.stdioToken)
	}
	if !on2.stdioTokenOK(on2.stdioToken) || on2.stdioTokenOK(on3.stdioToken) || on2.stdioTokenOK("") || on2.stdioTokenOK(on2.stdioToken+"0") {
		t.Errorf("stdioTokenOK accepts the wrong tokens or refuses its own")
	}
	for _, s := range []*Server{on, off} { // built without AllowStdio
		if s.stdioTokenOK("") || s.stdioTokenOK(s.stdioToken) {
			t.Errorf("a server with stdio off accepts a launch token")
		}
	}
}

// FuzzClientAddressHeader: any X-Forwarded-For or Forwarded value a client or proxy writes is
// read without a panic into hops, each of which parses to a plain address (no zone, IPv4 in
// its own form) or to nothing.
func FuzzClientAddressHeader(f *testing.F) {
	for _, s := range []string{"192.0.2.60", "203.0.113.1, 198.51.100.2", `for="[2001:db8::1]:4711";proto=https`,
		"for=192.0.2.60;by=203.0.113.43, for=unknown", "::ffff:192.0.2.1", "fe80::1%eth0", `for=";,="`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, name := range []string{"X-Forwarded-For", "Forwarded"} {
			h := http.Header{}
			h.Add(name, v)
			hops := forwardedHops(h, name)
			if len(hops) > len(v)+1 {
				t.Fatalf("%s %q: %d hops from %d bytes", name, v, len(hops), len(v))
			}
			for _, hop := range hops {
				if a, ok := parseHop(hop); ok && (!a.IsValid() || a.Zone() != "" || a.Is4In6()) {
					t.Fatalf("%s %q: hop %q parsed to %v", name, v, hop, a)
				}
			}
		}
	})
}
