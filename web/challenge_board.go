package web

// The leaderboards of a workshop (the projector's /board/... and the teacher's view) and
// their live streams. The projector's is open to anyone with its link, so it is built from
// challenge.Board's public fields only: names, scores, tokens, penalties, times; never a task,
// a verdict or a participant's workspace.

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/views"
)

// boardGap is the shortest time between two renders of a stream's regions: a burst of score
// events (a room typing) is rendered once when it settles or when the gap has passed, and a
// lone event at once.
const boardGap = 50 * time.Millisecond

// maxHeatColumns bounds the heat map's participants (a column each): the exports hold all.
const maxHeatColumns = 80

// boardTable is the leaderboard's view model. teacher adds each participant's workspace.
func boardTable(b challenge.Board, teacher bool, now time.Time) views.BoardTable {
	t := views.BoardTable{ID: b.Challenge, Final: b.Final, Teacher: teacher}
	for i, r := range b.Rows {
		row := views.BoardRow{Rank: r.Rank, Name: r.Name, Score: r.Score, Scored: r.Scored, Clear: r.Clear, Tasks: r.Tasks,
			Tokens: r.Tokens, Budget: r.Budget, Over: r.OverBudget, Penalties: r.Penalties, Since: sinceText(r.Improved, now)}
		if teacher {
			row.Workspace = r.Workspace
		}
		if i > 0 && r.Scored && b.Rows[i-1].Scored && b.Rows[i-1].Score == r.Score {
			p := b.Rows[i-1]
			if p.Tokens != r.Tokens {
				row.Tie = fmt.Sprintf("same score as #%d, with more tokens", p.Rank)
			} else {
				row.Tie = fmt.Sprintf("same score and tokens as #%d, who reached it first", p.Rank)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sinceText says how long ago t was, as a leaderboard reads it ("" for never).
func sinceText(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	default:
		return fmt.Sprintf("%d h %02d min ago", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}

// untilText says when t is, from now.
func untilText(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "now: time is up"
	case d < time.Minute:
		return "in less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("in %d min (%s)", int(d/time.Minute)+1, t.Format("15:04"))
	default:
		return fmt.Sprintf("at %s", t.Format("15:04, 2 Jan"))
	}
}

// heatMap is the heat map's view model: the tasks the fewest participants win first.
func heatMap(h challenge.Heat, revealed bool) views.HeatMap {
	m := views.HeatMap{Revealed: revealed}
	cols := min(len(h.Participants), maxHeatColumns)
	m.More = len(h.Participants) - cols
	scored := 0
	for _, p := range h.Participants[:cols] {
		m.Names = append(m.Names, p.Name)
	}
	for _, p := range h.Participants {
		if p.Scored {
			scored++
		}
	}
	for t, task := range h.Tasks {
		row := views.HeatRow{Split: string(task.Split), Index: task.Index, Text: task.Text, Expect: task.Expect, Won: task.Won, Of: scored}
		for p := range cols {
			cell := views.HeatCell{Name: h.Participants[p].Name, Status: "none"}
			if h.Participants[p].Scored && t < len(h.Cells) && p < len(h.Cells[t]) {
				v := h.Cells[t][p]
				cell.Picked = v.Picked
				switch {
				case v.Win && v.Half:
					cell.Status = "half"
				case v.Win:
					cell.Status = "won"
				default:
					cell.Status = "lost"
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		m.Rows = append(m.Rows, row)
	}
	slices.SortStableFunc(m.Rows, func(a, b views.HeatRow) int { return a.Won - b.Won })
	return m
}

// leaderboard is the projector's page: open to anyone with the link, nothing hidden on it.
func (s *Server) leaderboard(c echo.Context) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	b, err := s.challenges.Board(c.Request().Context(), ch.ID)
	if err != nil {
		return fmt.Errorf("read the leaderboard: %w", err)
	}
	p := s.boardPage(c, ch, b)
	p.Page.Title = ch.Title + " · leaderboard"
	c.Response().Header().Set("Cache-Control", "no-store")
	return htmlPage(c, http.StatusOK, views.BoardPageView(p))
}

// boardPage is the projector's view model.
func (s *Server) boardPage(c echo.Context, ch *challenge.Challenge, b challenge.Board) views.BoardPage {
	return views.BoardPage{Page: s.page, ID: ch.ID, Title: ch.Title, Code: showCode(ch.Code), JoinURL: s.joinURL(c, ch.Code),
		State: string(b.State), Board: boardTable(b, false, time.Now())}
}

// leaderboardStream keeps the projector's page live: its heading and table.
func (s *Server) leaderboardStream(c echo.Context) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	key := loginKey(c.Request())
	switch s.boards.take(key, ch.ID) {
	case "client":
		s.log.Warn("leaderboard stream refused: too many from one address", "challenge", ch.ID)
		return failf(RateLimited, "%d leaderboard pages are open from your address, which is as many as one "+
			"address may keep live: close one of them and reload this one", boardStreamsPerClient)
	case "challenge":
		s.log.Warn("leaderboard stream refused: too many open", "challenge", ch.ID)
		return failf(RateLimited, "%d leaderboard pages of this workshop are open, which is as many as the "+
			"server keeps live: watch the projector, or close a page and reload this one", s.boards.perChallenge)
	}
	defer s.boards.release(key, ch.ID)
	return s.challengeStream(c, ch.ID, func(sse *datastar.ServerSentEventGenerator, sent regions) error {
		b, err := s.challenges.Board(sse.Context(), ch.ID)
		if err != nil {
			return err
		}
		p := s.boardPage(c, ch, b)
		if err := sent.patch(sse, "board-head", views.BoardHead(p)); err != nil {
			return err
		}
		return sent.patch(sse, "board-rows", views.BoardRows(p.Board))
	})
}

// teacherStream keeps the teacher's view live: the state, the leaderboard and the heat map.
func (s *Server) teacherStream(c echo.Context) error {
	ch, err := s.challengeParam(c)
	if err != nil {
		return err
	}
	return s.challengeStream(c, ch.ID, func(sse *datastar.ServerSentEventGenerator, sent regions) error {
		m, err := s.teacherModels(sse.Context(), ch.ID)
		if err != nil {
			return err
		}
		if err := sent.patch(sse, "ch-state", views.ChallengeState(m.state)); err != nil {
			return err
		}
		if err := sent.patch(sse, "board-rows", views.BoardRows(m.board)); err != nil {
			return err
		}
		return sent.patch(sse, "heat-map", views.HeatRegion(m.heat))
	})
}

// regions are the hashes of the regions a stream last sent, by element ID: a region is sent
// again only when its HTML differs (a score event of one participant leaves the heat map and
// most rows as they were).
type regions map[string]uint64

// patch sends a region unless the page has it already.
func (r regions) patch(sse *datastar.ServerSentEventGenerator, id string, c templ.Component) error {
	html := render(sse.Context(), c)
	h := fnv.New64a()
	_, _ = io.WriteString(h, html)
	if sum := h.Sum64(); r[id] != sum {
		r[id] = sum
		return sse.PatchElements(html)
	}
	return nil
}

// challengeStream runs a challenge page's stream: it subscribes to the challenge's events,
// sends the page's regions at once (a change between the page's render and the subscription
// is in them), then again after events, at most once per boardGap: a lone event is rendered
// at once, a burst once. The heartbeat renders them too, which keeps "2 min ago" true, and
// sends a comment, which keeps idle proxies from closing the stream.
func (s *Server) challengeStream(c echo.Context, id string, send func(*datastar.ServerSentEventGenerator, regions) error) error {
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	events, err := s.db.Subscribe(ctx, id)
	if err != nil {
		return fmt.Errorf("subscribe to challenge %s: %w", id, err)
	}
	cred, until := streamAccess(c)
	hf := &heldFlusher{ResponseWriter: c.Response().Writer}
	sse := newSSEOn(hf, c.Request())
	sent := regions{}
	flush := func() bool {
		hf.hold = true
		err := send(sse, sent)
		hf.hold = false
		if err != nil {
			s.log.Warn("challenge stream: render", "challenge", id, "err", err)
			return false
		}
		return hf.flush() == nil
	}
	if !flush() {
		return nil
	}
	last := time.Now()
	tick := time.NewTicker(s.alive)
	defer tick.Stop()
	var expired <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(until.Sub(s.auth.cfg.Now()))
		defer t.Stop()
		expired = t.C
	}
	var wait *time.Timer
	var waiting <-chan time.Time
	defer func() {
		if wait != nil {
			wait.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-expired:
			return nil
		case _, ok := <-events:
			if !ok {
				return nil
			}
			if waiting != nil {
				continue // a render is due: this event is in it
			}
			if gap := boardGap - time.Since(last); gap > 0 {
				wait = time.NewTimer(gap)
				waiting = wait.C
				continue
			}
		case <-waiting:
			waiting = nil
		case <-tick.C:
			if !s.accessStands(c, cred) {
				return nil // signed out on another replica
			}
			if waiting != nil {
				continue // a render is due
			}
			// Written past the generator, as the workspace stream does (stream.go).
			if _, err := io.WriteString(hf.ResponseWriter, ": keep-alive\n\n"); err != nil {
				return nil
			}
		}
		if !flush() {
			return nil
		}
		last = time.Now()
	}
}
