package web

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// authRoutes adds sign-in, the display name and share links. The guard decides who may
// reach each (requirementOf).
func (s *Server) authRoutes(e *echo.Echo) {
	e.GET("/login", s.loginPage)
	e.POST("/login", s.login)
	e.POST("/logout", s.logout)
	e.POST("/me/name", s.setName)
	e.GET("/s/:token", s.openShareLink)
	e.GET("/w/:id/share", s.shareList)
	e.POST("/w/:id/share", s.shareCreate)
	e.POST("/w/:id/share/:link/revoke", s.shareRevoke)
}

// safeNext keeps a post-sign-in redirect on this server: a path, never "//host" or a scheme.
func safeNext(next string) string { return localPath(next) }

func (s *Server) loginPage(c echo.Context) error {
	if s.auth.cfg.Mode != AuthToken {
		return fail(NotFound, "this server has no sign-in page: it runs in "+modeName(s.auth.cfg.Mode))
	}
	return htmlPage(c, http.StatusOK, views.LoginPage(s.page, views.Login{Next: safeNext(c.QueryParam("next"))}))
}

func modeName(m AuthMode) string {
	switch m {
	case AuthToken:
		return "token mode"
	case AuthHeader:
		return "header mode, where the authenticating proxy signs people in"
	}
	return "local mode, where everyone on this machine may edit"
}

// login exchanges the admin token for a session. The token is compared and dropped: it is never
// echoed back, kept, or logged.
func (s *Server) login(c echo.Context) error {
	a := s.auth
	if a.cfg.Mode != AuthToken {
		return fail(NotFound, "this server has no sign-in page: it runs in "+modeName(a.cfg.Mode))
	}
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the sign-in form could not be read; send it as the page does (name and token fields)")
	}
	l := views.Login{Next: safeNext(r.PostFormValue("next")), Name: strings.TrimSpace(r.PostFormValue("name"))}
	now := a.cfg.Now()
	res, wait := a.logins.reserve(loginKey(r), now)
	if res == nil {
		a.log.Warn("sign-in throttled: too many wrong admin tokens", "remote", r.RemoteAddr, "retry after", wait.Round(time.Second))
		c.Response().Header().Set("Retry-After", retryAfter(wait))
		l.Problem = "Too many wrong tokens from your address. Wait " + retryAfter(wait) + " seconds, then try again."
		return htmlPage(c, RateLimited.Status(), views.LoginPage(s.page, l))
	}
	name, ok := cleanName(l.Name)
	if !ok {
		res.CancelAt(now) // only wrong tokens count against the address
		l.Problem = fmt.Sprintf("Type the name your edits should show: 1 to %d printable characters.", maxNameLen)
		return htmlPage(c, BadRequest.Status(), views.LoginPage(s.page, l))
	}
	if !a.isAdminToken(r.PostFormValue("token")) {
		// The reservation stands: this attempt spends from the address's bucket.
		a.log.Warn("sign-in refused: wrong admin token", "remote", r.RemoteAddr)
		l.Problem = "That is not this server's admin token. Ask whoever started the server for it."
		return htmlPage(c, Unauthorized.Status(), views.LoginPage(s.page, l))
	}
	res.CancelAt(now)
	sess, err := a.cfg.Store.CreateSession(r.Context(), store.NewSession{Name: name, Now: now, Expires: now.Add(a.cfg.SessionTTL)})
	if err != nil {
		return fmt.Errorf("start session: %w", err)
	}
	a.log.Info("signed in", "session", sess.ID, "name", name)
	// Sign-ins are rare, so each one clears out the sessions that have expired.
	if n, err := a.cfg.Store.PurgeSessions(r.Context(), now); err != nil {
		a.log.Warn("purge expired sessions", "err", err)
	} else if n > 0 {
		a.log.Info("purged expired sessions", "n", n)
	}
	c.SetCookie(a.cookie(r, cookieSession, sess.Token, a.cfg.SessionTTL))
	return c.Redirect(http.StatusSeeOther, l.Next)
}

func (s *Server) logout(c echo.Context) error {
	a := s.auth
	if p, ok := c.Get(ctxPrincipal).(principal); ok && p.session != "" {
		if err := a.cfg.Store.DeleteSession(c.Request().Context(), p.session); err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		s.hub.EndAccess(p.authorID)
	}
	c.SetCookie(a.cookie(c.Request(), cookieSession, "", -1))
	if a.cfg.Mode == AuthToken {
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// setName keeps the display name a person chose, for local mode and share-link visitors.
func (s *Server) setName(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the name form could not be read")
	}
	name, ok := cleanName(r.PostFormValue("name"))
	if !ok {
		return failf(BadRequest, "a display name is 1 to %d printable characters", maxNameLen)
	}
	c.SetCookie(s.auth.cookie(r, cookieName, base64.RawURLEncoding.EncodeToString([]byte(name)), 365*24*time.Hour))
	return c.Redirect(http.StatusSeeOther, safeNext(r.PostFormValue("next")))
}

// openShareLink checks a link and hands its capability to the browser as a cookie for that
// workspace, then shows the workspace. The token leaves the address bar at once, and nothing
// here logs the request's path.
func (s *Server) openShareLink(c echo.Context) error {
	a := s.auth
	if a.cfg.Store == nil {
		return fail(NotFound, "this server keeps no share links")
	}
	tok, err := store.ParseID("share token", c.Param("token"))
	if err != nil {
		return fail(NotFound, "no such share link: check that the whole link was copied")
	}
	l, err := a.cfg.Store.ShareLink(c.Request().Context(), tok)
	switch store.KindOf(err) {
	case store.Forbidden:
		return fail(Forbidden, "this share link was revoked: ask the workspace's owner for a new one")
	case store.NotFound:
		return fail(NotFound, "no such share link: check that the whole link was copied")
	}
	if err != nil {
		a.log.Error("share link lookup failed", "err", err)
		return &Error{Kind: Unavailable, Msg: "the share link could not be checked just now; try again", Err: err}
	}
	c.SetCookie(a.cookie(c.Request(), cookieLink+l.Workspace, tok, linkCookieAge))
	a.log.Info("share link opened", "workspace", l.Workspace, "link", l.ID, "capability", l.Capability)
	return c.Redirect(http.StatusSeeOther, "/w/"+l.Workspace)
}

// shareModel lists a workspace's links; fresh is a link just made, shown once with its URL.
func (s *Server) shareModel(c echo.Context, ws string, fresh *store.ShareLink) (views.SharePanel, error) {
	links, err := s.auth.cfg.Store.ShareLinks(c.Request().Context(), ws)
	if err != nil {
		return views.SharePanel{}, fmt.Errorf("list share links: %w", err)
	}
	m := views.SharePanel{WS: ws, Local: s.auth.cfg.Mode == AuthLocal}
	for _, l := range links {
		row := views.ShareRow{ID: l.ID, Capability: string(l.Capability), Author: l.Author,
			Created: l.Created.UTC().Format("2006-01-02 15:04 UTC"), Revoked: !l.Revoked.IsZero()}
		m.Links = append(m.Links, row)
	}
	if fresh != nil {
		scheme := "http"
		if s.auth.https(c.Request()) {
			scheme = "https"
		}
		m.NewURL = scheme + "://" + c.Request().Host + "/s/" + fresh.Token
		m.NewCapability = string(fresh.Capability)
	}
	return m, nil
}

func (s *Server) needShares() error {
	if s.auth.cfg.Store == nil {
		return fail(NotFound, "this server keeps no share links: start it with a database")
	}
	return nil
}

func (s *Server) patchShare(c echo.Context, m views.SharePanel) error {
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.SharePanelRegion(m))
	return nil
}

func (s *Server) shareList(c echo.Context) error {
	if err := s.needShares(); err != nil {
		return err
	}
	m, err := s.shareModel(c, c.Param("id"), nil)
	if err != nil {
		return err
	}
	return s.patchShare(c, m)
}

func (s *Server) shareCreate(c echo.Context) error {
	if err := s.needShares(); err != nil {
		return err
	}
	var cp store.Capability
	switch q := c.QueryParam("cap"); q {
	case "view":
		cp = store.CanView
	case "edit":
		cp = store.CanEdit
	default:
		return failf(BadRequest, "a share link's capability is view or edit, not %q", q)
	}
	name, _ := s.identity(c)
	l, err := s.auth.cfg.Store.CreateShareLink(c.Request().Context(), store.NewShareLink{Workspace: c.Param("id"),
		Capability: cp, Author: name, Now: s.auth.cfg.Now()})
	if store.KindOf(err) == store.NotFound {
		return fail(NotFound, "no such workspace")
	}
	if err != nil {
		return fmt.Errorf("create share link: %w", err)
	}
	s.log.Info("share link created", "workspace", l.Workspace, "link", l.ID, "capability", l.Capability)
	m, err := s.shareModel(c, c.Param("id"), &l)
	if err != nil {
		return err
	}
	return s.patchShare(c, m)
}

func (s *Server) shareRevoke(c echo.Context) error {
	if err := s.needShares(); err != nil {
		return err
	}
	id, err := store.ParseID("share link id", c.Param("link"))
	if err != nil {
		return fail(NotFound, "no such share link")
	}
	err = s.auth.cfg.Store.RevokeShareLink(c.Request().Context(), c.Param("id"), id, s.auth.cfg.Now())
	if store.KindOf(err) == store.NotFound {
		return fail(NotFound, "no such share link on this workspace")
	}
	if err != nil {
		return fmt.Errorf("revoke share link: %w", err)
	}
	s.log.Info("share link revoked", "workspace", c.Param("id"), "link", id, "streams ended", s.hub.EndAccess("link:"+id))
	m, err := s.shareModel(c, c.Param("id"), nil)
	if err != nil {
		return err
	}
	return s.patchShare(c, m)
}

// grantFork lets someone who edits through a link (not signed in) keep editing the fork they
// just made: it gives their browser an edit link to the copy. The fork handler calls it after
// store.ForkWorkspace; for signed-in people and in local mode it does nothing.
func (s *Server) grantFork(c echo.Context, forkID string) error {
	a := s.auth
	p, _ := c.Get(ctxPrincipal).(principal)
	if a.cfg.Mode == AuthLocal || p.signed || a.cfg.Store == nil {
		return nil
	}
	name, _ := s.identity(c)
	l, err := a.cfg.Store.CreateShareLink(c.Request().Context(), store.NewShareLink{Workspace: forkID,
		Capability: store.CanEdit, Author: name, Now: a.cfg.Now()})
	if err != nil {
		return fmt.Errorf("share the fork: %w", err)
	}
	c.SetCookie(a.cookie(c.Request(), cookieLink+forkID, l.Token, linkCookieAge))
	return nil
}

// teacherOnly refuses, on a participant's copy of a workshop, what the copy's edit link must
// not do: fork it (a fork is unscored and stays editable after the freeze), and start or resume
// model runs (they spend the server's endpoints, its key, for anonymous people). Signed-in
// people, and everyone in local mode, may.
func (s *Server) teacherOnly(c echo.Context) error {
	if s.auth.cfg.Mode == AuthLocal {
		return nil
	}
	if p, ok := c.Get(ctxPrincipal).(principal); ok && p.signed {
		return nil
	}
	id := c.Param("id")
	_, isCopy, err := s.challenges.BarFor(c.Request().Context(), id)
	if err != nil {
		return fmt.Errorf("is %s a participant's copy: %w", id, err)
	}
	if isCopy {
		return fail(Forbidden, "this is your copy in a workshop: in a workshop your copy is scored as it is; "+
			"forks and model runs are for the teacher")
	}
	return nil
}
