package web

// Joining a workshop and the participant's bar. A participant is never signed in: joining
// hands their browser the edit share link of a new workspace of their own (a copy of the
// starting listing), as opening a share link does, and a join cookie that brings them back to
// that copy, never a second one, when they open the join page again. What these pages and the
// bar show is public: the challenge's title and rule, and the participant's PublicResult.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
	"github.com/tool-workbench/workbench/workspace"
)

// Joins per client: a burst for a room behind one NAT, then one a minute, so that one
// anonymous client holding the projector's code cannot take every seat. Only a new seat
// spends (a browser that gets its copy back does not). Wrong join codes spend from a bucket of
// their own (challengeOfCode), never from the sign-in bucket: a room's typos must not lock its
// teacher out of /login.
const (
	joinBurst  = 60
	joinRefill = time.Minute
	codeBurst  = 30
	codeRefill = 2 * time.Second
)

// cookieJoin + a challenge ID holds the share-link token of this browser's copy.
const cookieJoin = "wb_join_"

// maxCodeInput bounds what the code form reads: a code is store.CodeLength characters, and a
// typed code may carry spaces and a dash.
const maxCodeInput = 20

// joinCodeForm asks for a code; ?code= goes straight to that code's page.
func (s *Server) joinCodeForm(c echo.Context) error {
	if q := c.QueryParam("code"); q != "" {
		return s.toCode(c, q)
	}
	return htmlPage(c, http.StatusOK, views.JoinCodePage(s.titled("Join a workshop"), views.JoinCode{}))
}

// joinCode reads the code form.
func (s *Server) joinCode(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the code form could not be read; send it as the page does")
	}
	return s.toCode(c, r.PostFormValue("code"))
}

// toCode sends the browser to a code's page, or shows the form again if the text cannot be a
// code. Only looking a code up spends from the guess bucket (joinNameForm).
func (s *Server) toCode(c echo.Context, typed string) error {
	code, ok := normalCode(typed)
	if !ok {
		kept := typed
		if utf8.RuneCountInString(kept) > maxCodeInput {
			kept = string([]rune(kept)[:maxCodeInput])
		}
		return htmlPage(c, http.StatusBadRequest, views.JoinCodePage(s.titled("Join a workshop"), views.JoinCode{Code: kept,
			Problem: fmt.Sprintf("A code is %d letters and digits, as your teacher shows it.", store.CodeLength)}))
	}
	return c.Redirect(http.StatusSeeOther, "/join/"+code)
}

// normalCode reads a typed code as the store does: case-insensitive, without spaces or dashes.
// It refuses text that cannot be a code (so that it never reaches a URL).
func normalCode(typed string) (string, bool) {
	if len(typed) > 4*maxCodeInput {
		return "", false
	}
	code := strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, typed)
	if code == "" || len(code) > maxCodeInput {
		return "", false
	}
	for _, r := range code {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return "", false
		}
	}
	return code, true
}

// challengeOfCode looks up the challenge of the path's code. Every code that names no
// challenge spends from the client's bucket of unknown codes (codeBurst, then one every
// codeRefill; not the sign-in bucket, so a room's typos never lock out its teacher's sign-in),
// and an empty bucket answers 429 to every code from that client, the right one too: codes
// are short, and a right code served while wrong ones are refused would tell a guesser it has
// found one. The burst is wide enough that a room's typos never empty it; only a guesser does.
// A nil challenge with a nil error means the answer (the code form with its problem) was
// written.
func (s *Server) challengeOfCode(c echo.Context) (*challenge.Challenge, error) {
	a := s.auth
	r := c.Request()
	now := a.cfg.Now()
	res, wait := a.codes.reserve(loginKey(r), now)
	if res == nil {
		client, _ := clientAddr(r)
		a.log.Warn("join code throttled: too many unknown codes", "client", client.String(), "retry after", wait.Round(time.Second))
		c.Response().Header().Set("Retry-After", retryAfter(wait))
		return nil, fail(RateLimited, "too many unknown codes from your address: wait "+retryAfter(wait)+
			" seconds, then type the code again (check it against the one your teacher shows)")
	}
	code, ok := normalCode(c.Param("code"))
	var ch *challenge.Challenge
	var err error
	if ok {
		ch, err = s.challenges.ByCode(r.Context(), code)
	}
	if !ok || store.KindOf(err) == store.NotFound {
		client, _ := clientAddr(r)
		a.log.Warn("unknown join code", "client", client.String())
		return nil, htmlPage(c, http.StatusNotFound, views.JoinCodePage(s.titled("Join a workshop"), views.JoinCode{
			Problem: "No workshop has this code. Check it against the one your teacher shows, and type it again."}))
	}
	res.CancelAt(now) // only wrong codes count
	if err != nil {
		return nil, fmt.Errorf("look up join code: %w", err)
	}
	return ch, nil
}

// joinNameForm is a challenge's join page.
func (s *Server) joinNameForm(c echo.Context) error {
	ch, err := s.challengeOfCode(c)
	if ch == nil {
		return err
	}
	m := s.joinModel(c, ch)
	if p, _, ok := s.rejoined(c, ch); ok {
		m.Back = p.Name
	}
	return htmlPage(c, http.StatusOK, views.JoinNamePage(s.titled(ch.Title+" · Join"), m))
}

// joinModel is the join page of ch, with the name the browser chose before, if any.
func (s *Server) joinModel(c echo.Context, ch *challenge.Challenge) views.JoinName {
	m := views.JoinName{Code: ch.Code, Title: ch.Title, Rule: challenge.IdentityRule, Closed: s.closedReason(ch)}
	if p, ok := c.Get(ctxPrincipal).(principal); ok && p.named {
		m.Name = p.name
	}
	return m
}

// closedReason says why nobody may join ch now ("" when they may). Join decides; this says it
// on the page before anyone types a name.
func (s *Server) closedReason(ch *challenge.Challenge) string {
	now := s.auth.cfg.Now()
	w := ch.File.Window
	switch {
	case ch.State == store.ChallengeRevealed:
		return "This workshop is over: the final ranking has been revealed."
	case !w.End.IsZero() && !now.Before(w.End):
		// Checked before frozen: the end freezes a challenge, and "ended" is what happened.
		return "This workshop has ended: it closed at " + w.End.UTC().Format("15:04 UTC") + "."
	case ch.State == store.ChallengeFrozen:
		return "This workshop is frozen: nobody can join now, and edits no longer count. Ask your teacher."
	case !w.Start.IsZero() && now.Before(w.Start):
		return "This workshop has not started yet: it opens at " + w.Start.UTC().Format("15:04 UTC") + ". Come back then."
	}
	return ""
}

// rejoined is the participant this browser joined ch as (its join cookie), if the copy is
// still theirs.
func (s *Server) rejoined(c echo.Context, ch *challenge.Challenge) (store.Participant, string, bool) {
	ck, err := c.Request().Cookie(cookieJoin + ch.ID)
	if err != nil {
		return store.Participant{}, "", false
	}
	tok, err := store.ParseID("share token", ck.Value)
	if err != nil {
		return store.Participant{}, "", false
	}
	p, err := s.challenges.Rejoin(c.Request().Context(), ch, tok)
	if err != nil {
		if store.KindOf(err) != store.NotFound {
			s.log.Warn("rejoin: look up the copy", "challenge", ch.ID, "err", err)
		}
		return store.Participant{}, "", false
	}
	return p, tok, true
}

// joinChallenge joins the challenge (or, for a browser that joined it before, opens its copy
// again) and shows the copy.
func (s *Server) joinChallenge(c echo.Context) error {
	ch, err := s.challengeOfCode(c)
	if ch == nil {
		return err
	}
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return fail(BadRequest, "the join form could not be read; send it as the page does")
	}
	if p, tok, ok := s.rejoined(c, ch); ok {
		// Someone who closed the tab (or typed a name again) gets their copy back.
		s.giveCopy(c, ch, p, tok)
		return c.Redirect(http.StatusSeeOther, "/w/"+p.Workspace)
	}
	m := s.joinModel(c, ch)
	if m.Closed != "" {
		return htmlPage(c, http.StatusConflict, views.JoinNamePage(s.titled(ch.Title+" · Join"), m))
	}
	typed := r.PostFormValue("name")
	m.Name = keepTyped(typed)
	name, problem := joinName(typed)
	if r.PostFormValue("rejoin") != "" {
		problem = "This browser's copy could not be found (its cookie was cleared or has expired). Join again with your name."
	}
	if problem != "" {
		m.Problem = problem
		return htmlPage(c, http.StatusBadRequest, views.JoinNamePage(s.titled(ch.Title+" · Join"), m))
	}
	now := s.auth.cfg.Now()
	seat, wait := s.auth.joins.reserve(loginKey(r), now)
	if seat == nil {
		client, _ := clientAddr(r)
		s.log.Warn("join throttled: too many joins from one address", "challenge", ch.ID, "client", client.String())
		c.Response().Header().Set("Retry-After", retryAfter(wait))
		return failf(RateLimited, "%d people have joined from your address in a short time, which is as many as one "+
			"address may: wait %s seconds and join again, or ask your teacher (if you have joined before, open "+
			"the join link in the browser you joined with: it brings your copy back)", joinBurst, retryAfter(wait))
	}
	j, err := s.challenges.Join(r.Context(), ch, name)
	if err != nil {
		seat.CancelAt(now) // no seat was taken
	}
	if inv := (*challenge.Invalid)(nil); errors.As(err, &inv) {
		m.Problem = inv.Msg
		return htmlPage(c, http.StatusConflict, views.JoinNamePage(s.titled(ch.Title+" · Join"), m))
	}
	if err != nil {
		return fmt.Errorf("join challenge %s: %w", ch.ID, err)
	}
	s.log.Info("participant joined", "challenge", ch.ID, "workspace", j.Participant.Workspace)
	s.giveCopy(c, ch, j.Participant, j.Token)
	return c.Redirect(http.StatusSeeOther, "/w/"+j.Participant.Workspace)
}

// giveCopy hands the browser its copy: the share link's token for the workspace (as opening
// the link does), the join cookie that brings it back here, and the participant's name, so
// that presence and History show it.
func (s *Server) giveCopy(c echo.Context, ch *challenge.Challenge, p store.Participant, tok string) {
	r := c.Request()
	c.SetCookie(s.auth.cookie(r, cookieLink+p.Workspace, tok, linkCookieAge))
	c.SetCookie(s.auth.cookie(r, cookieJoin+ch.ID, tok, linkCookieAge))
	if n, ok := cleanName(p.Name); ok {
		c.SetCookie(s.auth.cookie(r, cookieName, base64.RawURLEncoding.EncodeToString([]byte(n)), 365*24*time.Hour))
	}
}

// joinName cleans a display name as titles are cleaned (control and bidirectional characters
// become spaces), or says what is wrong with it.
func joinName(typed string) (name, problem string) {
	if strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(typed, ""))) == "" {
		return "", "Type the name the leaderboard should show."
	}
	name = workspace.Title(typed)
	if utf8.RuneCountInString(strings.TrimSpace(typed)) > store.MaxParticipantName {
		return "", fmt.Sprintf("A name is at most %d characters: shorten it a little.", store.MaxParticipantName)
	}
	return name, ""
}

// keepTyped is the typed name as the form shows it again: bounded, valid UTF-8 (templ escapes it).
func keepTyped(typed string) string {
	typed = strings.ToValidUTF8(typed, "")
	if utf8.RuneCountInString(typed) > 4*store.MaxParticipantName {
		typed = string([]rune(typed)[:4*store.MaxParticipantName])
	}
	return typed
}

// titled is the server's page with a title.
func (s *Server) titled(title string) views.Page {
	p := s.page
	p.Title = title + " · Tool Workbench"
	return p
}

// challengeBar is the bar of a workspace that is a participant's copy (nil for any other, and
// when the challenge cannot be read: the page works without it).
func (s *Server) challengeBar(ctx context.Context, ws string) *views.ChallengeBar {
	b, ok, err := s.challenges.BarFor(ctx, ws)
	if err != nil {
		s.log.Warn("challenge bar", "workspace", ws, "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	return barView(ws, b, s.auth.cfg.Now())
}

// barView is the view of a bar: only the challenge's public settings and a PublicResult.
func barView(ws string, b challenge.Bar, now time.Time) *views.ChallengeBar {
	v := &views.ChallengeBar{WS: ws, Challenge: b.Challenge, Title: b.Title, Name: b.Name, State: string(b.State),
		Locked: b.Locked, Places: b.Places, Rule: b.Rule}
	if v.Rule == "" {
		v.Rule = challenge.IdentityRule
	}
	if r := b.Score; r != nil {
		v.Scored = true
		v.Score, v.Clear, v.Ambiguous, v.Tasks = r.Score, r.Clear, r.Ambiguous, r.Tasks
		v.Tokens, v.Budget, v.OverBudget, v.PenaltyPoints = r.Tokens, r.Budget, r.OverBudget, r.PenaltyPoints
		for _, p := range r.Penalties {
			v.Penalties = append(v.Penalties, views.ChallengePenalty{Rule: p.Rule, Tool: p.Tool, Message: p.Message, Points: p.Points})
		}
	}
	if !b.Ends.IsZero() {
		v.Ends = b.Ends.UTC().Format("15:04 UTC")
		if left := b.Ends.Sub(now); left > 0 {
			v.Left = fmt.Sprintf(" (%d min left)", int(left.Round(time.Minute)/time.Minute))
		}
	}
	return v
}

// patchBar sends a page the bar of its workspace again (the score or the state changed).
func (s *Server) patchBar(sse *datastar.ServerSentEventGenerator, ws string) error {
	b := s.challengeBar(sse.Context(), ws)
	if b == nil {
		return nil
	}
	return sse.PatchElementTempl(views.ChallengeBarRegion(*b))
}
