package web

// The teacher's side of a workshop: the form that makes a challenge from a workspace, the
// teacher's view with its controls and exports. The leaderboard and the live streams are in
// challenge_board.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// Defaults of the teacher's form.
const (
	defaultChallengeMinutes = 60
	maxChallengeMinutes     = 7 * 24 * 60
)

// challengeForm shows the form that makes a challenge from the workspace in the path.
func (s *Server) challengeForm(c echo.Context) error {
	ctx := c.Request().Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	f := views.ChallengeForm{Title: ws.Name + " challenge", Tokenizer: challenge.DefaultTokenizer, Rendering: challenge.DefaultRendering,
		Errors: true, Promo: true, Instructions: true, Points: strconv.Itoa(challenge.DefaultPenaltyPoints),
		Minutes: strconv.Itoa(defaultChallengeMinutes)}
	if err := s.fillChallengeForm(ctx, &f, ws); err != nil {
		return err
	}
	return htmlPage(c, http.StatusOK, views.ChallengeFormPage(f))
}

// fillChallengeForm adds to a form what does not come from the person: the workspace, the
// choices offered, the starting listing's tokens and the earlier challenges.
func (s *Server) fillChallengeForm(ctx context.Context, f *views.ChallengeForm, ws Workspace) error {
	f.Page, f.WS, f.WSName = s.page, ws.ID, ws.Name
	f.Page.Title = "Run a workshop · " + ws.Name
	f.Tools, f.Practice = len(ws.Listing.Tools), len(ws.Tasks)
	f.Tokenizers, f.Renderings = slices.Clone(cost.Encodings), cost.RenderingNames()
	starts, err := s.startTokens(ctx, ws.Listing)
	if err != nil {
		return err
	}
	f.Starts = starts
	f.ExampleHidden = exampleHidden(ws)
	earlier, err := s.challenges.Of(ctx, ws.ID)
	if err != nil {
		return fmt.Errorf("list the workspace's challenges: %w", err)
	}
	for _, e := range earlier {
		f.Earlier = append(f.Earlier, views.ChallengeLink{ID: e.ID, Title: e.Title, Code: showCode(e.Code), State: string(e.State),
			Created: e.Created.Format("2 Jan 2006 15:04")})
	}
	return nil
}

// startTokens counts the starting listing under every built-in tokenizer and rendering, so
// that the form shows the count of whichever is chosen without asking again.
func (s *Server) startTokens(ctx context.Context, l *listing.Listing) ([]views.StartTokens, error) {
	var out []views.StartTokens
	for _, tok := range cost.Encodings {
		for _, r := range cost.RenderingNames() {
			ctr, err := s.costs.get(costChoice{Tok: tok, Render: r})
			if err != nil {
				return nil, err
			}
			rep, err := ctr.ListingContext(ctx, l)
			if err != nil {
				return nil, fmt.Errorf("count the starting listing: %w", err)
			}
			n := rep.Total.Tokens
			out = append(out, views.StartTokens{Tokenizer: tok, Rendering: r, Tokens: n, Default: challenge.DefaultBudget(n)})
		}
	}
	return out, nil
}

// challengeCreate makes a challenge from the form and opens the teacher's view. A refusal
// shows the form again with the message and everything typed.
func (s *Server) challengeCreate(c echo.Context) error {
	r := c.Request()
	ctx := r.Context()
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, store.MaxChallengeSettings+64<<10)
	f, d, problem := readChallengeForm(r, s.now())
	if problem == "" {
		ch, err := s.challenges.Create(ctx, ws.ID, d, s.who(c))
		var inv *challenge.Invalid
		switch {
		case errors.As(err, &inv):
			problem = inv.Msg
		case err != nil:
			return fmt.Errorf("make a challenge: %w", err)
		default:
			s.log.Info("challenge created", "id", ch.ID, "workspace", ws.ID)
			return c.Redirect(http.StatusSeeOther, "/c/"+ch.ID)
		}
	}
	f.Problem = problem
	if err := s.fillChallengeForm(ctx, &f, ws); err != nil {
		return err
	}
	return htmlPage(c, http.StatusBadRequest, views.ChallengeFormPage(f))
}

// readChallengeForm reads the teacher's form: what was typed (to show again) and the draft,
// or what is wrong with it.
func readChallengeForm(r *http.Request, now time.Time) (views.ChallengeForm, challenge.Draft, string) {
	var f views.ChallengeForm
	var d challenge.Draft
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return f, d, fmt.Sprintf("The form is larger than %d MB: hidden tasks fit in far less.", store.MaxChallengeSettings>>20)
		}
		return f, d, "The form could not be read: send it from this page."
	}
	v := r.PostForm
	f = views.ChallengeForm{Title: v.Get("title"), Hidden: v.Get("hidden"), Budget: strings.TrimSpace(v.Get("budget")),
		Tokenizer: v.Get("tokenizer"), Rendering: v.Get("rendering"), Errors: v.Get("errors") != "", Promo: v.Get("promo") != "",
		Instructions: v.Get("instructions") != "", Points: strings.TrimSpace(v.Get("points")), Minutes: strings.TrimSpace(v.Get("minutes"))}
	if file, _, err := r.FormFile("hiddenfile"); err == nil {
		b, err := io.ReadAll(io.LimitReader(file, store.MaxChallengeSettings+1))
		file.Close()
		if err != nil {
			return f, d, "The uploaded task file could not be read: try again, or paste it."
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			f.Hidden = string(b) // shown in the text box from now on: nothing lost if it is refused
		}
	}
	d.Title, d.Hidden = f.Title, []byte(f.Hidden)
	if strings.TrimSpace(f.Hidden) == "" {
		return f, d, "Give the hidden tasks: paste a task file or upload one."
	}
	if !slices.Contains(cost.Encodings, f.Tokenizer) {
		return f, d, "Choose a tokenizer of the list (" + strings.Join(cost.Encodings, ", ") + ")."
	}
	if !slices.Contains(cost.RenderingNames(), f.Rendering) {
		return f, d, "Choose a rendering of the list."
	}
	d.Budget = challenge.Budget{Tokenizer: f.Tokenizer, Rendering: f.Rendering}
	if f.Budget != "" {
		n, err := strconv.Atoi(f.Budget)
		if err != nil || n < 1 || n > challenge.MaxBudget {
			return f, d, fmt.Sprintf("The token budget %q is not a number of tokens: give 1 to %d, or leave it blank for the default.", f.Budget, challenge.MaxBudget)
		}
		d.Budget.Tokens = n
	}
	points := challenge.DefaultPenaltyPoints
	if f.Points != "" {
		n, err := strconv.Atoi(f.Points)
		if err != nil || n < 0 || n > 100 {
			return f, d, fmt.Sprintf("Points each %q: give a whole number from 0 to 100.", f.Points)
		}
		points = n
	}
	d.Penalties = challenge.Penalties{Points: points, Errors: f.Errors, Rules: []string{}}
	if f.Promo {
		d.Penalties.Rules = append(d.Penalties.Rules, "promotional-wording")
	}
	if f.Instructions {
		d.Penalties.Rules = append(d.Penalties.Rules, "instructions-to-model")
	}
	minutes, err := strconv.Atoi(f.Minutes)
	if err != nil || minutes < 1 || minutes > maxChallengeMinutes {
		return f, d, fmt.Sprintf("Ends in %q minutes: give a whole number from 1 to %d.", f.Minutes, maxChallengeMinutes)
	}
	d.Window = challenge.Window{End: now.Add(time.Duration(minutes) * time.Minute)}
	return f, d, ""
}

// now is the server's clock (the one sessions are dated by).
func (s *Server) now() time.Time { return s.auth.cfg.Now() }

// showCode writes a join code as the projector shows it: ABC-DEF.
func showCode(code string) string {
	if len(code) == 6 {
		return code[:3] + "-" + code[3:]
	}
	return code
}

// joinURL is the address participants type: this server as the teacher's browser reached it.
func (s *Server) joinURL(c echo.Context, code string) string {
	scheme := "http"
	if s.auth.https(c.Request()) {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host + "/join/" + code
}

// challengeParam reads the challenge in the path: a malformed ID is no such challenge.
func (s *Server) challengeParam(c echo.Context) (*challenge.Challenge, error) {
	id := c.Param("cid")
	if !wsIDPattern.MatchString(id) {
		return nil, fail(NotFound, "no such challenge")
	}
	ch, err := s.challenges.Get(c.Request().Context(), id)
	if store.KindOf(err) == store.NotFound {
		return nil, fail(NotFound, "no such challenge: check the link")
	}
	if err != nil {
		return nil, fmt.Errorf("read challenge %s: %w", id, err)
	}
	return ch, nil
}

// teacherView is the teacher's page of a challenge.
func (s *Server) teacherView(c echo.Context) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	m, err := s.teacherModels(ctx, ch.ID)
	if err != nil {
		return err
	}
	v := views.TeacherView{Page: s.page, ID: ch.ID, Title: ch.Title, Workspace: ch.Workspace, Code: showCode(ch.Code),
		JoinURL: s.joinURL(c, ch.Code), State: m.state, Board: m.board, Heat: m.heat}
	v.Page.Title = ch.Title + " · teacher"
	c.Response().Header().Set("Cache-Control", "no-store")
	return htmlPage(c, http.StatusOK, views.TeacherPage(v))
}

// teacherRegions are the live regions of the teacher's view.
type teacherRegions struct {
	state views.ChallengeStateView
	board views.BoardTable
	heat  views.HeatMap
}

// teacherModels reads the state, the leaderboard and the heat map of the teacher's view.
func (s *Server) teacherModels(ctx context.Context, id string) (teacherRegions, error) {
	b, err := s.challenges.Board(ctx, id)
	if err != nil {
		return teacherRegions{}, fmt.Errorf("read the leaderboard: %w", err)
	}
	h, err := s.challenges.Heat(ctx, id)
	if err != nil {
		return teacherRegions{}, fmt.Errorf("read the heat map: %w", err)
	}
	now := time.Now()
	st := views.ChallengeStateView{ID: id, State: string(b.State), Rule: challenge.IdentityRule}
	if !b.Ends.IsZero() && b.State == store.ChallengeOpen {
		st.Ends = untilText(b.Ends, now)
	}
	return teacherRegions{state: st, board: boardTable(b, true, now), heat: heatMap(h, b.State == store.ChallengeRevealed)}, nil
}

// challengeFreeze, challengeUnfreeze and challengeReveal are the teacher's buttons: each
// answers with the teacher's view again.
func (s *Server) challengeFreeze(c echo.Context) error {
	return s.challengeAction(c, s.challenges.Freeze)
}

func (s *Server) challengeUnfreeze(c echo.Context) error {
	return s.challengeAction(c, s.challenges.Unfreeze)
}

func (s *Server) challengeReveal(c echo.Context) error {
	return s.challengeAction(c, s.challenges.Reveal)
}

func (s *Server) challengeAction(c echo.Context, act func(context.Context, string) error) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	err = act(c.Request().Context(), ch.ID)
	var inv *challenge.Invalid
	if errors.As(err, &inv) {
		return fail(Conflict, inv.Msg)
	}
	if err != nil {
		return fmt.Errorf("challenge %s: %w", ch.ID, err)
	}
	return c.Redirect(http.StatusSeeOther, "/c/"+ch.ID)
}

// The exports: attachments that no cache keeps (they hold the hidden tasks and the verdicts).
func (s *Server) challengeResultsCSV(c echo.Context) error {
	return s.challengeExport(c, "csv", "text/csv; charset=utf-8", "results.csv")
}

func (s *Server) challengeResultsJSON(c echo.Context) error {
	return s.challengeExport(c, "json", echo.MIMEApplicationJSON, "results.json")
}

func (s *Server) challengeExport(c echo.Context, format, mime, name string) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	b, err := s.challenges.Export(c.Request().Context(), ch.ID, format)
	if err != nil {
		return fmt.Errorf("export challenge %s: %w", ch.ID, err)
	}
	return attachment(c, mime, "challenge-"+ch.Code+"-"+name, b)
}

// challengeFile downloads the challenge file: what `workbench challenge score --hidden` reads.
func (s *Server) challengeFile(c echo.Context) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	b, err := challenge.Encode(ch.File)
	if err != nil {
		return fmt.Errorf("encode challenge %s: %w", ch.ID, err)
	}
	return attachment(c, echo.MIMEApplicationJSON, "challenge-"+ch.Code+".json", b)
}

// attachment answers a download. name is made of the server's own words and a join code
// (letters and digits), so it needs no quoting beyond the quotes.
func attachment(c echo.Context, mime, name string, b []byte) error {
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, mime, b)
}

// exampleHidden is the built-in workshop's hidden task file when ws holds its starting
// listing's tools (by name, in order: what the hidden tasks name), "" otherwise.
func exampleHidden(ws Workspace) string {
	w := examples.TheWorkshop()
	start, err := listing.Parse(w.Start, listing.Options{Name: examples.WorkshopID})
	if err != nil || !slices.Equal(ws.Listing.Names(), start.Names()) {
		return ""
	}
	return string(w.Hidden)
}
