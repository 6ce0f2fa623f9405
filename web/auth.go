package web

// Identity and access. Three modes decide who a request comes from:
//
//   - local (the default, loopback only): everyone who reaches the server may create and edit
//     every workspace; a display name chosen once is kept in a cookie, beside a random author id.
//   - token: a shared admin token, typed once on /login, is exchanged for a session (a cookie
//     whose token the store keeps only hashed). API clients send it as "Authorization: Bearer".
//   - header: an authenticating proxy names the person in a header; the header is believed only
//     from the --trusted-proxy addresses, and every request from any other address is refused.
//
// In the token and header modes a signed-in person may create workspaces and edit every one;
// anyone else reaches one workspace only through a share link, with the link's capability
// (view or edit), which a cookie carries and every request checks again (so a revoked link stops
// working at once). Only signed-in people manage share links and only editors fork; on a
// participant's copy of a workshop, only signed-in people fork or start model runs
// (teacherOnly).

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// AuthMode names how the server identifies people.
type AuthMode string

// The auth modes.
const (
	AuthLocal  AuthMode = ""       // loopback only: everyone may edit
	AuthToken  AuthMode = "token"  // a shared admin token exchanged for a session
	AuthHeader AuthMode = "header" // a trusted proxy's header names the person
)

// AccessStore is what access control needs of a store; store.Store has these methods.
type AccessStore interface {
	CreateShareLink(ctx context.Context, l store.NewShareLink) (store.ShareLink, error)
	ShareLink(ctx context.Context, token string) (store.ShareLink, error)
	ShareLinks(ctx context.Context, workspace string) ([]store.ShareLink, error)
	RevokeShareLink(ctx context.Context, workspace, id string, now time.Time) error
	CreateSession(ctx context.Context, s store.NewSession) (store.Session, error)
	Session(ctx context.Context, token string, now time.Time) (store.Session, error)
	DeleteSession(ctx context.Context, token string) error
	PurgeSessions(ctx context.Context, now time.Time) (int, error)
}

// AuthConfig says how the server identifies people; the zero value is local mode.
type AuthConfig struct {
	Mode AuthMode
	// Token is the admin token of AuthToken. It is compared, never logged or shown.
	Token string
	// Header names the person in AuthHeader (default X-Forwarded-User).
	Header string
	// TrustedProxies are the addresses whose Header, X-Forwarded-Proto and ClientIPHeader are
	// believed.
	TrustedProxies []netip.Prefix
	// ClientIPHeader is where a trusted proxy reports the client's address: X-Forwarded-For
	// (the default) or Forwarded (RFC 7239). The sign-in throttle keys on that address.
	ClientIPHeader string
	// Store keeps sessions and share links; nil turns share links (and token mode) off.
	Store AccessStore
	// SessionTTL is how long a token-mode sign-in lasts (default 7 days).
	SessionTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// MinTokenLength is the shortest admin token accepted: anything shorter could be guessed.
const MinTokenLength = 16

const (
	cookieSession = "wb_session"
	cookieName    = "wb_name"
	cookieAuthor  = "wb_author"
	cookieLink    = "wb_link_" // + workspace id: the share-link token for that workspace
	maxNameLen    = 60
	linkCookieAge = 30 * 24 * time.Hour
)

// Capability is what a request may do with one workspace.
type Capability int

// The capabilities, weakest first.
const (
	CapNone Capability = iota
	CapView
	CapEdit
)

func (c Capability) String() string {
	switch c {
	case CapView:
		return "view"
	case CapEdit:
		return "edit"
	}
	return "none"
}

// access is the server's auth state.
type access struct {
	cfg    AuthConfig
	log    *slog.Logger
	logins *loginLimiter // wrong secrets per client: sign-in tokens, bearer tokens, share links
	joins  *loginLimiter // new seats in workshops per client (joinChallenge)
	codes  *loginLimiter // unknown join codes per client (challengeOfCode)
}

func newAccess(cfg AuthConfig, log *slog.Logger) (*access, error) {
	switch cfg.Mode {
	case AuthLocal:
	case AuthToken:
		if len(cfg.Token) < MinTokenLength {
			// The message says how long, never what.
			return nil, fmt.Errorf("web: token auth needs an admin token of at least %d characters (got %d)", MinTokenLength, len(cfg.Token))
		}
		if cfg.Store == nil {
			return nil, errors.New("web: token auth keeps sessions in a store; none was given")
		}
	case AuthHeader:
		if len(cfg.TrustedProxies) == 0 {
			return nil, errors.New("web: header auth needs at least one trusted proxy address")
		}
		if cfg.Header == "" {
			cfg.Header = "X-Forwarded-User"
		}
	default:
		return nil, fmt.Errorf("web: unknown auth mode %q (want token or header, or none for local mode)", cfg.Mode)
	}
	switch {
	case cfg.ClientIPHeader == "" || strings.EqualFold(cfg.ClientIPHeader, "X-Forwarded-For"):
		cfg.ClientIPHeader = "X-Forwarded-For"
	case strings.EqualFold(cfg.ClientIPHeader, "Forwarded"):
		cfg.ClientIPHeader = "Forwarded"
	default:
		return nil, fmt.Errorf("web: the client address header %q is not one a proxy writes: use X-Forwarded-For or Forwarded", cfg.ClientIPHeader)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 7 * 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &access{cfg: cfg, log: log, logins: newLoginLimiter(),
		joins: newClientLimiter(joinBurst, joinRefill), codes: newClientLimiter(codeBurst, codeRefill)}, nil
}

// principal is who a request comes from.
type principal struct {
	name     string
	authorID string
	signed   bool      // a team member: session, trusted header or admin bearer token
	session  string    // the session token, for sign-out
	expires  time.Time // when the session ends (zero: not a session)
	named    bool      // the person chose the name (local mode and link visitors)
}

// errUntrusted is a header-mode request from an address that is not a trusted proxy.
var errUntrusted = errors.New("untrusted address")

// remoteAddr is the connection's peer address. X-Forwarded-For is never read: anyone can send it.
func remoteAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func (a *access) trusted(r *http.Request) bool {
	addr, ok := remoteAddr(r)
	return ok && a.trustedAddr(addr)
}

func (a *access) trustedAddr(addr netip.Addr) bool {
	for _, p := range a.cfg.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// client is the address of the person behind a request: the connection's peer, or, when that
// is a trusted proxy, the nearest address its ClientIPHeader names that is not another trusted
// proxy. Each proxy appends the peer it saw on the right, so the entries left of the first
// untrusted one are whatever the client wrote, and are never read. An entry a proxy wrote that
// is no address (RFC 7239's "unknown" or an obfuscated name) stops the walk at the proxy.
func (a *access) client(r *http.Request) (netip.Addr, bool) {
	addr, ok := remoteAddr(r)
	if !ok || !a.trustedAddr(addr) {
		return addr, ok
	}
	hops := forwardedHops(r.Header, a.cfg.ClientIPHeader)
	for i := len(hops) - 1; i >= 0; i-- {
		h, ok := parseHop(hops[i])
		if !ok {
			break
		}
		if !a.trustedAddr(h) {
			return h, true
		}
		addr = h
	}
	return addr, true
}

// forwardedHops lists the addresses of a client address header, left (the first client) to
// right (the last proxy's peer), over all its lines.
func forwardedHops(h http.Header, name string) []string {
	var hops []string
	for _, line := range h.Values(name) {
		for _, elem := range strings.Split(line, ",") {
			if name != "Forwarded" {
				hops = append(hops, elem)
				continue
			}
			// Forwarded: for=192.0.2.60;proto=http;by=203.0.113.43 — only "for" names the client.
			for _, pair := range strings.Split(elem, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(k, "for") {
					hops = append(hops, v)
				}
			}
		}
	}
	return hops
}

// parseHop reads one address of a client address header: 192.0.2.60, 2001:db8::1,
// "[2001:db8::1]:4711" or 192.0.2.60:4711.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

// clientKey is the request context key of the client's address (the guard sets it).
type clientKey struct{}

// clientAddr is the address the guard found for r (access.client), else the peer's.
func clientAddr(r *http.Request) (netip.Addr, bool) {
	if a, ok := r.Context().Value(clientKey{}).(netip.Addr); ok {
		return a, a.IsValid()
	}
	return remoteAddr(r)
}

// https reports whether the browser reached us over https: directly, or through a trusted proxy
// that says so.
func (a *access) https(r *http.Request) bool {
	return r.TLS != nil || (a.trusted(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func (a *access) isAdminToken(t string) bool {
	return a.cfg.Mode == AuthToken && t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(a.cfg.Token)) == 1
}

// who identifies a request. Its only error is errUntrusted (header mode) or a store failure.
func (a *access) who(r *http.Request) (principal, error) {
	var p principal
	switch a.cfg.Mode {
	case AuthToken:
		if a.isAdminToken(bearer(r)) {
			return principal{name: "api", authorID: "token", signed: true, named: true}, nil
		}
		if ck, err := r.Cookie(cookieSession); err == nil {
			if tok, err := store.ParseID("session token", ck.Value); err == nil {
				s, err := a.cfg.Store.Session(r.Context(), tok, a.cfg.Now())
				switch {
				case err == nil:
					return principal{name: s.Name, authorID: "session:" + s.ID, signed: true, session: tok, named: true, expires: s.Expires}, nil
				case store.KindOf(err) != store.NotFound:
					return p, fmt.Errorf("look up session: %w", err)
				}
			}
		}
	case AuthHeader:
		if !a.trusted(r) {
			return p, errUntrusted
		}
		if u, ok := cleanName(r.Header.Get(a.cfg.Header)); ok {
			return principal{name: u, authorID: "header:" + u, signed: true, named: true}, nil
		}
	}
	// Local mode, and people who came by a share link: the name they chose, if any.
	if ck, err := r.Cookie(cookieName); err == nil {
		if b, err := base64.RawURLEncoding.DecodeString(ck.Value); err == nil {
			if n, ok := cleanName(string(b)); ok {
				p.name, p.named = n, true
			}
		}
	}
	if p.name == "" {
		p.name = "Anonymous"
	}
	if ck, err := r.Cookie(cookieAuthor); err == nil && wsIDPattern.MatchString(ck.Value) {
		p.authorID = "browser:" + ck.Value
	}
	return p, nil
}

// cleanName checks a display name: trimmed, 1 to maxNameLen characters, printable.
func cleanName(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxNameLen {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", false
		}
	}
	return s, true
}

// grant is what a request may do with one workspace, and why not more.
type grant struct {
	cap    Capability
	link   bool   // the capability comes from a share link
	linkID string // that link's id (not its token), which revoking names
	reason string // why the capability is none, for the message
}

// capabilityFor decides what p may do with workspace ws.
func (a *access) capabilityFor(r *http.Request, p principal, ws string) (grant, error) {
	if a.cfg.Mode == AuthLocal || p.signed {
		return grant{cap: CapEdit}, nil
	}
	tok := bearer(r)
	if tok == "" {
		if ck, err := r.Cookie(cookieLink + ws); err == nil {
			tok = ck.Value
		}
	}
	if tok == "" || a.cfg.Store == nil {
		return grant{reason: "signin"}, nil
	}
	if _, err := store.ParseID("share token", tok); err != nil {
		return grant{reason: "signin"}, nil
	}
	l, err := a.cfg.Store.ShareLink(r.Context(), tok)
	switch store.KindOf(err) {
	case store.Forbidden:
		return grant{reason: "revoked"}, nil
	case store.NotFound:
		return grant{reason: "signin"}, nil
	}
	if err != nil {
		return grant{}, fmt.Errorf("look up share link: %w", err)
	}
	if l.Workspace != ws {
		return grant{reason: "signin"}, nil
	}
	g := grant{cap: CapView, link: true, linkID: l.ID}
	if l.Capability == store.CanEdit {
		g.cap = CapEdit
	}
	return g, nil
}

// streamAccess names the access a live stream rests on, so that ending it ends the stream:
// "session:<id>" with the session's expiry, "link:<id>" for a share link, "" for access nothing
// revokes (local mode, header mode, the admin bearer token).
func streamAccess(c echo.Context) (cred string, until time.Time) {
	if p, ok := c.Get(ctxPrincipal).(principal); ok && p.session != "" {
		return p.authorID, p.expires
	}
	if g, ok := c.Get(ctxGrant).(grant); ok && g.link && g.linkID != "" {
		return "link:" + g.linkID, time.Time{}
	}
	return "", time.Time{}
}

// accessStands checks again, for an open stream, the access it was opened with: a link revoked
// or a session ended on another replica reaches this process's hub by no event, so each stream
// asks at its heartbeat. A store failure keeps the stream (the next heartbeat asks again).
func (s *Server) accessStands(c echo.Context, cred string) bool {
	if cred == "" {
		return true
	}
	r := c.Request()
	p, err := s.auth.who(r)
	if err != nil {
		s.log.Warn("stream: check access again", "err", err)
		return true
	}
	if strings.HasPrefix(cred, "session:") {
		return p.session != "" && p.authorID == cred
	}
	g, err := s.auth.capabilityFor(r, p, c.Param("id"))
	if err != nil {
		s.log.Warn("stream: check access again", "err", err)
		return true
	}
	return g.link && "link:"+g.linkID == cred
}

// requirement is what a route needs.
type requirement int

const (
	reqOpen   requirement = iota // anyone (sign-in, static files, share links, the name form)
	reqSigned                    // a signed-in person in the auth modes; anyone in local mode
	reqView                      // view capability on the workspace in the path
	reqEdit                      // edit capability on the workspace in the path
	reqManage                    // edit capability and, in the auth modes, signed in
	reqAPI                       // the JSON API's workspace endpoints: its Access hook decides
)

// readPOSTs are the workspace routes that take POST but change nothing stored: a viewer may
// call them. Every other POST, PUT, PATCH or DELETE under /w/:id needs the edit capability, so
// a route added later is an edit route unless it is listed here.
var readPOSTs = map[string]bool{
	"/w/:id/select":       true, // which tool the page shows
	"/w/:id/tools":        true, // the tool list's search and window
	"/w/:id/export/notes": true, // the Go export's notes for the current revision
	"/w/:id/tasks/export": true, // the task export's link and losses for a format
}

// openRoutes need nothing.
var openRoutes = map[string]bool{
	"/static/*": true, "/login": true, "/logout": true, "/s/:token": true, "/me/name": true,
	// A workshop's leaderboard and joining hold nothing hidden (challenge.go).
	"/board/:cid": true, "/board/:cid/stream": true, "/join": true, "/join/:code": true,
}

// manageRoutes need the right to manage sharing.
var manageRoutes = map[string]bool{
	"/w/:id/share": true, "/w/:id/share/:link/revoke": true,
	// The approvals a release needs: a share link may comment and sign off, never weaken the gate.
	"/w/:id/review/require": true,
	// Making a workshop challenge: the starting listing and the hidden tasks are the teacher's.
	"/w/:id/challenge": true,
}

func readMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// requirementOf classifies a request by its route.
func requirementOf(c echo.Context) requirement {
	path, method := c.Path(), c.Request().Method
	switch {
	case openRoutes[path]:
		return reqOpen
	case manageRoutes[path]:
		return reqManage
	case strings.HasPrefix(path, "/api/"):
		if c.Param("id") != "" || path == "/api/v1/workspaces" {
			return reqAPI
		}
		return reqSigned
	case strings.HasPrefix(path, "/w/:id"):
		if readMethod(method) || readPOSTs[path] {
			return reqView
		}
		return reqEdit
	}
	return reqSigned
}

// Context keys of the guard's findings.
const (
	ctxPrincipal = "wb.principal"
	ctxGrant     = "wb.grant"
)

// guard identifies every request, checks it against its route's requirement, and leaves the
// principal and the grant in the context for identity, capability and the views.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a := s.auth
		r := c.Request()
		if len(a.cfg.TrustedProxies) > 0 {
			// The throttles key on the person behind a trusted proxy (loginKey reads it).
			client, _ := a.client(r)
			r = r.WithContext(context.WithValue(r.Context(), clientKey{}, client))
			c.SetRequest(r)
		}
		switch c.Path() {
		case "", "/*":
			return next(c) // no route: Echo answers 404 or 405
		case "/static/*":
			// Style sheets and scripts hold nothing of anyone's: no session lookup for them.
			if a.cfg.Mode == AuthHeader && !a.trusted(r) {
				return fail(Forbidden, "this server accepts requests only through its authenticating proxy")
			}
			return next(c)
		}
		p, err := a.who(r)
		if errors.Is(err, errUntrusted) {
			// Header mode: a request that bypassed the proxy. Say so without echoing its headers.
			return fail(Forbidden, "this server accepts requests only through its authenticating proxy")
		}
		if err != nil {
			return err
		}
		if err := s.throttleBearer(c, p); err != nil {
			return err
		}
		if a.cfg.Mode == AuthLocal || !p.signed {
			s.ensureAuthorCookie(c, &p)
		}
		c.Set(ctxPrincipal, p)
		v := views.Viewer{Mode: string(a.cfg.Mode), Name: p.name, Named: p.named, Signed: p.signed,
			SignOut: p.session != "", Shares: a.cfg.Store != nil}
		if v.Mode == "" {
			v.Mode = "local"
		}
		req := requirementOf(c)
		ws := c.Param("id")
		switch req {
		case reqOpen, reqAPI:
		case reqSigned:
			if a.cfg.Mode != AuthLocal && !p.signed {
				return a.refuse(c, grant{reason: "signin"}, false)
			}
		default:
			if !wsIDPattern.MatchString(ws) {
				return fail(NotFound, "no such workspace")
			}
			g, err := a.capabilityFor(r, p, ws)
			if err != nil {
				return err
			}
			c.Set(ctxGrant, g)
			switch {
			case g.cap == CapNone:
				return a.refuse(c, g, false)
			case req == reqEdit && g.cap < CapEdit:
				return a.refuse(c, g, true)
			case req == reqManage && (g.cap < CapEdit || (a.cfg.Mode != AuthLocal && !p.signed)):
				return a.refuse(c, grant{cap: g.cap, reason: "manage"}, true)
			}
			if req == reqEdit {
				// A workshop copy while its challenge is frozen, revealed, not started or over.
				if why := s.challenges.Locked(r.Context(), ws); why != "" {
					return fail(Forbidden, why)
				}
			}
			v.Capability = g.cap.String()
			v.Manage = a.cfg.Mode == AuthLocal || p.signed
		}
		c.SetRequest(r.WithContext(views.WithViewer(r.Context(), v)))
		if c.Path() == "/s/:token" && a.cfg.Mode != AuthLocal {
			return s.throttleLink(c, next)
		}
		return next(c)
	}
}

// throttleBearer spends one attempt from the client's bucket of wrong secrets (loginlimit.go,
// the bucket wrong sign-ins spend from) for every bearer token that is neither the admin
// token nor a share link's, and answers 429 with Retry-After while the bucket is empty, the
// right token included (else the throttle would not bound guessing). The request itself goes
// on: its route refuses a wrong token as before. Local mode reads no token; in header mode a
// person the proxy signed in is not guessing (and the proxy may pass its own token along).
func (s *Server) throttleBearer(c echo.Context, p principal) error {
	a := s.auth
	r := c.Request()
	tok := bearer(r)
	if tok == "" || a.cfg.Mode == AuthLocal || (a.cfg.Mode == AuthHeader && p.signed) {
		return nil
	}
	now := a.cfg.Now()
	res, wait := a.logins.reserve(loginKey(r), now)
	if res == nil {
		client, _ := clientAddr(r)
		a.log.Warn("bearer token throttled: too many wrong tokens", "client", client.String(), "retry after", wait.Round(time.Second))
		c.Response().Header().Set("Retry-After", retryAfter(wait))
		return fail(RateLimited, "too many wrong tokens from your address: wait "+retryAfter(wait)+
			" seconds, then try again (until then every token is refused, the right one too)")
	}
	known, err := a.knownBearer(r.Context(), tok, p)
	if err != nil || known {
		res.CancelAt(now) // only wrong tokens count
		return err
	}
	client, _ := clientAddr(r)
	a.log.Warn("wrong bearer token", "client", client.String(), "path", r.URL.Path)
	return nil
}

// knownBearer reports whether tok is the admin token (who has checked it) or a share link's,
// revoked ones included: a revoked link was issued, not guessed.
func (a *access) knownBearer(ctx context.Context, tok string, p principal) (bool, error) {
	if p.authorID == "token" {
		return true, nil
	}
	if a.cfg.Store == nil {
		return false, nil
	}
	if _, err := store.ParseID("share token", tok); err != nil {
		return false, nil
	}
	_, err := a.cfg.Store.ShareLink(ctx, tok)
	switch store.KindOf(err) {
	case store.NotFound:
		return false, nil
	case store.Forbidden:
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up share link: %w", err)
	}
	return true, nil
}

// throttleLink spends from the client's bucket for every share link that does not exist
// (the handler answers 404), and answers 429 while the bucket is empty. Links carry 128
// random bits, so this is defence in depth: it also keeps a guesser from loading the store.
func (s *Server) throttleLink(c echo.Context, next echo.HandlerFunc) error {
	a := s.auth
	r := c.Request()
	now := a.cfg.Now()
	res, wait := a.logins.reserve(loginKey(r), now)
	if res == nil {
		client, _ := clientAddr(r)
		a.log.Warn("share link throttled: too many unknown links", "client", client.String(), "retry after", wait.Round(time.Second))
		c.Response().Header().Set("Retry-After", retryAfter(wait))
		return fail(RateLimited, "too many unknown share links from your address: wait "+retryAfter(wait)+
			" seconds, then open the link again (check that the whole link was copied)")
	}
	err := next(c)
	if statusFor(err) != NotFound.Status() {
		res.CancelAt(now)
	}
	return err
}

// localNext replaces the "next" parameter of the routes that redirect to it after a form
// (sign-in, the display name) with localPath's verdict, before their handlers read it.
func (s *Server) localNext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		switch {
		case c.Path() == "/login" && r.Method == http.MethodGet:
			if q := r.URL.Query(); q.Has("next") {
				q.Set("next", localPath(q.Get("next")))
				u := *r.URL
				u.RawQuery = q.Encode()
				r.URL = &u
			}
		case (c.Path() == "/login" || c.Path() == "/me/name") && r.Method == http.MethodPost:
			// The forms are small: the handlers allow 16 KiB, so does this.
			r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
			if err := r.ParseForm(); err != nil {
				return fail(BadRequest, "the form could not be read; send it as the page does")
			}
			if r.PostForm.Has("next") {
				r.PostForm.Set("next", localPath(r.PostForm.Get("next")))
				r.Form.Set("next", r.PostForm.Get("next"))
			}
		}
		return next(c)
	}
}

// localPath keeps a redirect target on this server: a path that starts with a single "/",
// with no backslash, control character or white space anywhere (browsers drop tabs and line
// breaks from URLs, so "/\t/evil.example" would become "//evil.example", another host), and
// that net/url reads as a path with no scheme or host; the same holds once its escapes are
// decoded. Anything else becomes "/".
func localPath(next string) string {
	bad := func(p string) bool {
		if !utf8.ValidString(p) || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') {
			return true
		}
		for _, r := range p {
			if unicode.IsControl(r) || unicode.IsSpace(r) || r == utf8.RuneError {
				return true
			}
		}
		return false
	}
	if bad(next) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	if dec, err := url.PathUnescape(u.EscapedPath()); err != nil || bad(dec) {
		return "/"
	}
	if q, err := url.QueryUnescape(u.RawQuery); err != nil || strings.ContainsFunc(q, func(r rune) bool { return unicode.IsControl(r) }) {
		return "/"
	}
	return next
}

// refuse answers a request that lacks what its route needs: a page GET in token mode without
// any capability goes to the sign-in page, everything else gets a 403 that says what would work.
func (a *access) refuse(c echo.Context, g grant, readOnly bool) error {
	r := c.Request()
	page := r.Method == http.MethodGet && r.Header.Get("Datastar-Request") == "" && !strings.HasPrefix(r.URL.Path, "/api/")
	if a.cfg.Mode == AuthToken && g.reason == "signin" && page {
		return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
	}
	msg := "you are not signed in"
	switch {
	case readOnly && g.reason == "manage":
		msg = "only signed-in team members manage share links and forks"
	case readOnly:
		msg = "this workspace was shared with you read-only: a view link cannot change it"
	case g.reason == "revoked":
		msg = "this share link was revoked: ask the workspace's owner for a new one"
	case a.cfg.Mode == AuthToken:
		msg = "you are not signed in: sign in on /login with the server's admin token, or open a share link"
	case a.cfg.Mode == AuthHeader:
		msg = "you are not signed in: sign in through the authenticating proxy, or open a share link"
	}
	return fail(Forbidden, msg)
}

// ensureAuthorCookie gives a browser a random author id the first time it comes, so that two
// people who chose the same name stay apart in history and presence.
func (s *Server) ensureAuthorCookie(c echo.Context, p *principal) {
	if p.authorID != "" {
		return
	}
	id := NewID()
	p.authorID = "browser:" + id
	c.SetCookie(s.auth.cookie(c.Request(), cookieAuthor, id, 365*24*time.Hour))
}

// cookie builds one of the server's cookies: HttpOnly, SameSite=Lax, Secure over https.
func (a *access) cookie(r *http.Request, name, value string, age time.Duration) *http.Cookie {
	ck := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: a.https(r)}
	if age < 0 {
		ck.MaxAge = -1
	} else {
		ck.MaxAge = int(age / time.Second)
		ck.Expires = a.cfg.Now().Add(age)
	}
	return ck
}

// who is the author of a request.
func (s *Server) who(c echo.Context) Author {
	name, id := s.ident(c)
	return workspace.AuthorName(Author{Name: name, ID: id})
}

// identity is who the request comes from, as edits record it: a display name and an id that
// tells apart two people with the same name ("session:…", "header:NAME", "browser:…", "token").
func (s *Server) identity(c echo.Context) (name, authorID string) {
	if p, ok := c.Get(ctxPrincipal).(principal); ok {
		return p.name, p.authorID
	}
	p, err := s.auth.who(c.Request())
	if err != nil {
		return "Anonymous", ""
	}
	return p.name, p.authorID
}

// capability is what the request may do with workspace ws. Handlers that change a workspace
// are already behind the guard; this answers for the ones that ask for another workspace than
// the one in the path.
func (s *Server) capability(c echo.Context, ws string) Capability {
	if g, ok := c.Get(ctxGrant).(grant); ok && c.Param("id") == ws {
		return g.cap
	}
	p, err := s.auth.who(c.Request())
	if err != nil {
		return CapNone
	}
	g, err := s.auth.capabilityFor(c.Request(), p, ws)
	if err != nil {
		return CapNone
	}
	return g.cap
}

// requireEdit answers 403 unless the request may edit the workspace in its path. The guard
// already applies it to every write route; handlers call it again where a check near the
// write reads better.
func (s *Server) requireEdit(c echo.Context) error {
	if s.capability(c, c.Param("id")) < CapEdit {
		return fail(Forbidden, "this workspace was shared with you read-only: a view link cannot change it")
	}
	return nil
}

// APIAccess is the JSON API's access hook (api.Options.Access): the same rules as the pages.
// API clients in token mode send "Authorization: Bearer TOKEN" (the admin token, or a share
// link's token for that link's workspace); browsers send their cookies.
func (s *Server) APIAccess(r *http.Request, workspace string, write bool) (string, error) {
	a := s.auth
	p, err := a.who(r)
	if errors.Is(err, errUntrusted) {
		return "", errors.New("this server accepts requests only through its authenticating proxy")
	}
	if err != nil {
		return "", err
	}
	name := p.name
	if !p.named {
		name = "api"
	}
	if workspace == "" {
		if a.cfg.Mode != AuthLocal && !p.signed {
			return "", errors.New("creating a workspace needs a signed-in person: send Authorization: Bearer with the admin token, or sign in through the proxy")
		}
		return name, nil
	}
	g, err := a.capabilityFor(r, p, workspace)
	if err != nil {
		return "", err
	}
	switch {
	case g.cap == CapNone && g.reason == "revoked":
		return "", errors.New("this share link was revoked")
	case g.cap == CapNone:
		return "", errors.New("no access to this workspace: send Authorization: Bearer with the admin token or a share link's token")
	case write && g.cap < CapEdit:
		return "", errors.New("a view link cannot change the workspace")
	}
	if write {
		if why := s.challenges.Locked(r.Context(), workspace); why != "" {
			return "", errors.New(why)
		}
	}
	return name, nil
}
