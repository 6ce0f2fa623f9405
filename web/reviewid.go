package web

// Who a review records (issue 22): the gate counts people by author ID, so the ID must be one
// the person cannot choose. The rules, the same for the pages and the JSON API:
//
//   - Local mode: the browser's author cookie (browser:ID) and the name chosen in it, as edits
//     record them. Local mode serves one machine; everyone on it may edit anyway. An API call
//     with no cookies is "api" (no ID).
//   - Token and header mode, signed-in people: the authenticated identity — a session
//     (in token mode user:NAME, the name given at sign-in: two sessions of one person are one
//     reviewer), the trusted proxy's header (header:NAME) or the
//     admin bearer token ("token", named "api").
//   - Token and header mode, share-link holders: the link. The author ID is "link:<link id>"
//     and the name the one they chose, marked "(edit link)": every holder of one link is one
//     reviewer, whatever names and cookies they send, so the link's latest sign-off is the one
//     that counts and a link can never stand in for several people or replace a signed-in
//     person's verdict. A link that may edit may comment and sign off (issue 22: "edit links
//     can comment and approve").
//
// Only the review's author follows these rules: edits keep their own author (undo is per
// browser, web/auth.go identity).

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// reviewAuthorOf is the review identity of p with grant g on a workspace; fallback is the name
// of someone who chose none ("Anonymous" on the pages, "api" for the API).
func (a *access) reviewAuthorOf(p principal, g grant, fallback string) review.Author {
	name := p.name
	if !p.named {
		name = fallback
	}
	who := review.Author{Name: name, ID: p.authorID}
	// A token-mode session is a sign-in, not a person: the name signed in with is all the server
	// knows of who it is, so two sessions (two browsers, a sign-in after expiry) under one name are
	// one reviewer. (The admin bearer token stays "token", the API's own reviewer, named "api".)
	if a.cfg.Mode == AuthToken && p.session != "" {
		who.ID = "user:" + p.name
	}
	if a.cfg.Mode != AuthLocal && !p.signed {
		who.ID = ""
		if g.link && g.linkID != "" {
			who.ID = "link:" + g.linkID
			who.Name = name + " (" + g.cap.String() + " link)"
		}
	}
	w := workspace.AuthorName(workspace.Author{Name: who.Name, ID: who.ID})
	return review.Author{Name: w.Name, ID: w.ID}
}

// reviewAuthor is who makes a page's review request, as the review records it.
func (s *Server) reviewAuthor(c echo.Context) review.Author {
	// The guard left both: review actions are routes under /w/:id.
	p, _ := c.Get(ctxPrincipal).(principal)
	g, _ := c.Get(ctxGrant).(grant)
	return s.auth.reviewAuthorOf(p, g, "Anonymous")
}

// ReviewIdentity is the JSON API's review identity hook (api.Options.Identity): the author of
// a comment or sign-off made through the API on workspace ws, by the rules above. The API has
// already checked the request's access with APIAccess.
func (s *Server) ReviewIdentity(r *http.Request, ws string) (review.Author, error) {
	p, err := s.auth.who(r)
	if errors.Is(err, errUntrusted) {
		return review.Author{}, errors.New("this server accepts requests only through its authenticating proxy")
	}
	if err != nil {
		return review.Author{}, err
	}
	g, err := s.auth.capabilityFor(r, p, ws)
	if err != nil {
		return review.Author{}, err
	}
	if s.auth.cfg.Mode != AuthLocal && !p.signed && !g.link {
		return review.Author{}, errors.New("no access to this workspace: send Authorization: Bearer with the admin token or a share link's token")
	}
	return s.auth.reviewAuthorOf(p, g, "api"), nil
}

// reviewRequireKey is the store meta key of the approvals-required setting, on whose EventMeta
// the hub shows every page the gate again.
const reviewRequireKey = review.RequireMetaKey

// reviewRequire sets the workspace's approvals-required setting from the panel's select.
// Every page shows the gate again on the store's EventMeta (hub_room.go).
func (s *Server) reviewRequire(c echo.Context) error {
	if err := reviewForm(c); err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Request().PostFormValue("require"))
	if err != nil {
		return refuse(c, fmt.Sprintf("The approvals required were not changed: choose a number from 1 to %d.", review.MaxRequireSetting))
	}
	if err := s.review.SetRequire(c.Request().Context(), c.Param("id"), n); err != nil {
		if refusable(err) {
			return refuse(c, "The approvals required were not changed: "+reviewErrText(err)+".")
		}
		return fmt.Errorf("set the approvals required: %w", err)
	}
	return s.reviewDone(c, nil)
}

// signoffTooLong says why a sign-off's message is longer than the store keeps ("" if not).
func signoffTooLong(msg string) string {
	if n := utf8.RuneCountInString(msg); n > store.MaxMessage {
		return fmt.Sprintf("The message is %d characters long; a sign-off's message holds at most %d. Shorten it (your text is still in the box).", n, store.MaxMessage)
	}
	return ""
}
