package challenge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// watchers re-score participants' copies as they change, for each open challenge this process
// has touched. Each participant has a seat: a subscription to their workspace's events that
// kicks a scorer, which scores the copy as it is now, at most one scoring at a time, so that a
// burst of edits is scored once it settles and the newest edit is always scored last; a rate
// limiter bounds how often. A challenge that leaves "open" stops its watching.
type watchers struct {
	mu   sync.Mutex
	base context.Context
	stop context.CancelFunc
	open map[string]*chWatch // by challenge ID
}

// chWatch is the watching of one open challenge.
type chWatch struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     string
	c      *Challenge       // as last read (w.mu)
	seats  map[string]*seat // by participant ID
}

// seat is one participant's copy as the scorer knows it.
type seat struct {
	p    store.Participant // ID, Challenge and Workspace are what is read
	kick chan struct{}     // holds one pending "score again"
	lim  *rate.Limiter

	mu     sync.Mutex // held while scoring: one scoring at a time
	loaded bool       // doc and seq are the stored ones
	doc    *scoreDoc  // the live score stored last (nil: none)
	seq    int64      // the copy's Seq that doc (or an equal result) was computed at
}

func (w *watchers) init() {
	w.base, w.stop = context.WithCancel(context.Background())
	w.open = map[string]*chWatch{}
}

// Close stops watching every challenge: the server is shutting down. Scores already stored
// stay; a later Service starts watching again when asked.
func (s *Service) Close() {
	s.w.stop()
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	clear(s.w.open)
}

// follow starts watching c's participants when c is open, and stops when it is not.
func (w *watchers) follow(s *Service, c *Challenge) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cw, ok := w.open[c.ID]
	if c.State != store.ChallengeOpen {
		if ok {
			cw.cancel()
			delete(w.open, c.ID)
		}
		return
	}
	if ok {
		cw.c = c
		return
	}
	if w.base.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(w.base)
	cw = &chWatch{ctx: ctx, cancel: cancel, id: c.ID, c: c, seats: map[string]*seat{}}
	// Subscribed before anything else runs, so that a join or a deletion right after this
	// call is never missed.
	events, err := s.st.Subscribe(ctx, c.ID)
	if err != nil {
		cancel() // the next call that touches the challenge starts again
		return
	}
	gone, err := s.st.Subscribe(ctx, c.Workspace)
	if err != nil {
		gone = nil
	}
	w.open[c.ID] = cw
	go s.watchChallenge(cw, events, gone)
	if end := c.File.Window.End; !end.IsZero() {
		go s.freezeAtEnd(cw, end)
	}
}

// expireRetry is how soon a challenge whose end could not freeze it (the store failed) is tried
// again.
const expireRetry = 5 * time.Second

// freezeAtEnd freezes the watched challenge when its end comes, which stops its watching; the
// freeze's event tells every page. Replicas that follow the challenge each do it: a second
// freeze changes nothing.
func (s *Service) freezeAtEnd(cw *chWatch, end time.Time) {
	wait := end.Sub(s.opt.Now())
	for {
		t := time.NewTimer(wait)
		select {
		case <-cw.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if now := s.opt.Now(); now.Before(end) {
			wait = end.Sub(now) // the wall clock was behind the timer's
			continue
		}
		// Reading the challenge past its end freezes it (load), which cancels cw.ctx before
		// the freeze has scored the copies that lag: the read does not stop with it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(cw.ctx), time.Minute)
		c, err := s.Get(ctx, cw.id)
		cancel()
		if err == nil && c.State != store.ChallengeOpen {
			return
		}
		wait = expireRetry
	}
}

// drop stops watching a challenge (deleted, or its events cannot be followed).
func (w *watchers) drop(cw *chWatch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cw.cancel()
	if w.open[cw.id] == cw {
		delete(w.open, cw.id)
	}
}

// joined seats a participant who has just joined, and scores their copy.
func (w *watchers) joined(s *Service, c *Challenge, p store.Participant) {
	w.follow(s, c)
	w.mu.Lock()
	defer w.mu.Unlock()
	if cw, ok := w.open[c.ID]; ok {
		s.seat(cw, p)
	}
}

// current returns the challenge as the watching knows it and the participant's seat (a new one,
// not watched, when the challenge is not watched here).
func (w *watchers) current(s *Service, c *Challenge, p store.Participant) (*Challenge, *seat) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cw, ok := w.open[c.ID]; ok {
		if st, ok := cw.seats[p.ID]; ok {
			return cw.c, st
		}
	}
	return c, newSeat(p, s.opt.MaxScoresPerSecond)
}

func newSeat(p store.Participant, perSecond float64) *seat {
	return &seat{p: p, kick: make(chan struct{}, 1), lim: rate.NewLimiter(rate.Limit(perSecond), 2)}
}

// seat starts watching a participant's copy, unless it is watched; w.mu is held.
func (s *Service) seat(cw *chWatch, p store.Participant) {
	if _, ok := cw.seats[p.ID]; ok {
		return
	}
	st := newSeat(p, s.opt.MaxScoresPerSecond)
	// Subscribed before the goroutine starts, so that an edit or a deletion right after the
	// join is never missed.
	ctx, cancel := context.WithCancel(cw.ctx)
	events, err := s.st.Subscribe(ctx, p.Workspace)
	if err != nil {
		cancel() // not seated: the next event of the challenge seats it again
		return
	}
	cw.seats[p.ID] = st
	go s.watchSeat(ctx, cancel, cw, st, events)
}

// watchChallenge follows a challenge's own events: participants who joined through another
// process, and changes of state; and the teacher's workspace, whose deletion deletes the
// challenge.
func (s *Service) watchChallenge(cw *chWatch, events, gone <-chan store.Event) {
	if gone != nil {
		go func() {
			for ev := range gone {
				if ev.Kind == store.EventDeleted {
					s.w.drop(cw)
				}
			}
		}()
	}
	s.seatAll(cw)
	for ev := range events {
		switch {
		case ev.Kind == store.EventResync:
			s.seatAll(cw)
			_, _ = s.Get(cw.ctx, cw.id)
		case ev.Kind != store.EventChallenge:
		case ev.Field == "":
			// A change of state: reading the challenge stops the watching when it is no
			// longer open.
			_, _ = s.Get(cw.ctx, cw.id)
		case !s.seated(cw, ev.Field):
			s.seatAll(cw)
		}
	}
}

func (s *Service) seated(cw *chWatch, participant string) bool {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	_, ok := cw.seats[participant]
	return ok
}

// seatAll seats every participant of the challenge not yet seated.
func (s *Service) seatAll(cw *chWatch) {
	ps, err := s.st.Participants(cw.ctx, cw.id)
	if err != nil {
		return
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if cw.ctx.Err() != nil {
		return
	}
	for _, p := range ps {
		s.seat(cw, p)
	}
}

// watchSeat scores a participant's copy now (it may have changed while nobody watched) and
// after every edit, until the challenge's watching stops or the copy is deleted.
func (s *Service) watchSeat(ctx context.Context, cancel context.CancelFunc, cw *chWatch, st *seat, events <-chan store.Event) {
	defer cancel()
	go s.scorer(ctx, cw, st)
	st.kick <- struct{}{}
	for ev := range events {
		switch ev.Kind {
		case store.EventEdit, store.EventTasks, store.EventResync:
			select {
			case st.kick <- struct{}{}:
			default: // a scoring is pending already: it will read this edit
			}
		case store.EventDeleted:
			s.locks.forget(st.p.Workspace)
			s.w.mu.Lock()
			delete(cw.seats, st.p.ID)
			s.w.mu.Unlock()
			return
		}
	}
}

// scorer scores the seat's copy each time it is kicked, within the rate limit.
func (s *Service) scorer(ctx context.Context, cw *chWatch, st *seat) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-st.kick:
		}
		if err := st.lim.Wait(ctx); err != nil {
			return
		}
		s.w.mu.Lock()
		c := cw.c
		s.w.mu.Unlock()
		// A failed scoring is tried again at the next edit; there is nobody to tell.
		_ = s.score(ctx, c, st)
	}
}

// Rescore scores a participant's copy now (tests and benchmarks; the watchers call the same).
func (s *Service) Rescore(ctx context.Context, workspace string) error {
	p, err := s.st.ParticipantOf(ctx, workspace)
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	c, err := s.Get(ctx, p.Challenge)
	if err != nil {
		return err
	}
	c, st := s.w.current(s, c, p)
	return s.score(ctx, c, st)
}

// score scores the seat's copy on the live split as it is now, and stores the score when it
// differs from the one stored. Scores stand still while the challenge is not open.
func (s *Service) score(ctx context.Context, c *Challenge, st *seat) error {
	if c.State != store.ChallengeOpen {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded {
		p, err := s.st.ParticipantOf(ctx, st.p.Workspace)
		if err != nil {
			return fmt.Errorf("score: %w", err)
		}
		if st.doc, err = decodeScore(p.Live); err != nil {
			return err
		}
		st.seq, st.loaded = p.Seq, true
	}
	w, err := s.ws.Read(ctx, st.p.Workspace)
	if err != nil {
		if errors.Is(err, workspace.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("score: %w", err)
	}
	seq := int64(w.Version)
	if st.doc != nil && seq == st.seq {
		return nil
	}
	r, err := Score(ctx, w.Listing, c.File, Live)
	if err != nil {
		return err
	}
	if st.doc != nil && sameResult(st.doc.Result, r) {
		st.seq = seq // nothing to store: the leaderboard stays as it is
		return nil
	}
	doc := st.doc.next(r, s.opt.Now())
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	if _, err := s.st.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: st.p.ID, Seq: seq, Score: b, Now: s.opt.Now()}); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	st.doc, st.seq = doc, seq
	return nil
}

// sameResult reports whether two results would show alike everywhere.
func sameResult(a, b Result) bool {
	return a.Split == b.Split && a.Score == b.Score && a.Clear == b.Clear && a.Ambiguous == b.Ambiguous && a.Tasks == b.Tasks &&
		a.Tokens == b.Tokens && a.Budget == b.Budget && a.OverBudget == b.OverBudget && a.PenaltyPoints == b.PenaltyPoints &&
		slices.Equal(a.Penalties, b.Penalties) && slices.Equal(a.Verdicts, b.Verdicts)
}

// Freeze makes every copy read-only and stops scoring, then scores the copies whose stored
// score lags their head (an edit just before the freeze), so that the frozen board shows what
// the frozen copies score. A revealed challenge stays revealed: freezing it would lead to
// unfreezing it.
func (s *Service) Freeze(ctx context.Context, id string) error {
	// Read from the store, not by Get: Get freezes a challenge past its end by Freeze.
	rec, err := s.st.Challenge(ctx, id)
	if err != nil {
		return fmt.Errorf("read challenge: %w", err)
	}
	if rec.State == store.ChallengeRevealed {
		return invalid(revealedMsg)
	}
	c, err := s.setState(ctx, id, store.ChallengeFrozen)
	if err != nil {
		return err
	}
	ps, err := s.st.Participants(ctx, id)
	if err != nil {
		return fmt.Errorf("freeze: %w", err)
	}
	for _, p := range ps {
		if _, _, err := s.catchUp(ctx, c, p); err != nil {
			return fmt.Errorf("freeze: %w", err)
		}
	}
	return nil
}

// Unfreeze opens a frozen challenge again: copies may be edited and are scored. A revealed
// challenge stays over (its hidden tasks have been shown with every verdict), and so does one
// past its end.
func (s *Service) Unfreeze(ctx context.Context, id string) error {
	c, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case c.State == store.ChallengeRevealed:
		return invalid(revealedMsg)
	case ended(c, s.opt.Now()):
		return invalid("the challenge ended at %s, so it cannot be opened again; make a new challenge for another round", c.File.Window.End.Format(timeFormat))
	}
	_, err = s.setState(ctx, id, store.ChallengeOpen)
	return err
}

// revealedMsg is why a revealed challenge cannot be frozen or opened again.
const revealedMsg = "the challenge's results are revealed and its hidden tasks have been shown, so it cannot be opened again; make a new challenge for another round"

func (s *Service) setState(ctx context.Context, id string, state store.ChallengeState) (*Challenge, error) {
	rec, err := s.st.SetChallengeState(ctx, id, state, s.opt.Now())
	if err != nil {
		return nil, fmt.Errorf("challenge %s: %w", state, err)
	}
	return s.load(ctx, rec)
}

// Reveal freezes the challenge if it is not, scores every participant's copy on the final
// split, stores the final scores and moves the challenge to revealed.
func (s *Service) Reveal(ctx context.Context, id string) error {
	c, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if c.State == store.ChallengeOpen {
		if err := s.Freeze(ctx, id); err != nil {
			return err
		}
	}
	ps, err := s.st.Participants(ctx, id)
	if err != nil {
		return fmt.Errorf("reveal: %w", err)
	}
	for _, p := range ps {
		if err := s.reveal(ctx, c, p); err != nil {
			return err
		}
	}
	_, err = s.setState(ctx, id, store.ChallengeRevealed)
	return err
}

// reveal scores one participant's copy on the final split, and on the live one when the live
// score is behind the copy (an edit that landed after the freeze). The final score keeps the
// live score's times: the tie-break is who reached their standing first.
func (s *Service) reveal(ctx context.Context, c *Challenge, p store.Participant) error {
	live, w, err := s.catchUp(ctx, c, p)
	if err != nil || w == nil {
		return err
	}
	r, err := Score(ctx, w.Listing, c.File, Final)
	if err != nil {
		return err
	}
	doc := &scoreDoc{Result: r, Reached: live.Reached, Improved: live.Improved}
	return s.putScore(ctx, c, p, int64(w.Version), doc, true)
}

// catchUp scores a participant's copy on the live split when the stored live score is behind
// the copy, whatever the challenge's state, and returns the live score with the copy read
// (nil, nil: the copy is deleted).
func (s *Service) catchUp(ctx context.Context, c *Challenge, p store.Participant) (*scoreDoc, *workspace.Workspace, error) {
	w, err := s.ws.Read(ctx, p.Workspace)
	if errors.Is(err, workspace.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", p.Workspace, err)
	}
	live, err := decodeScore(p.Live)
	if err != nil {
		return nil, nil, err
	}
	if live != nil && p.Seq == int64(w.Version) {
		return live, &w, nil
	}
	r, err := Score(ctx, w.Listing, c.File, Live)
	if err != nil {
		return nil, nil, err
	}
	if live != nil && sameResult(live.Result, r) {
		return live, &w, nil
	}
	live = live.next(r, s.opt.Now())
	if err := s.putScore(ctx, c, p, int64(w.Version), live, false); err != nil {
		return nil, nil, err
	}
	return live, &w, nil
}

// putScore stores a participant's live or final score document.
func (s *Service) putScore(ctx context.Context, c *Challenge, p store.Participant, seq int64, doc *scoreDoc, final bool) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("store score: %w", err)
	}
	_, err = s.st.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: seq, Score: b, Final: final, Now: s.opt.Now()})
	if err != nil {
		return fmt.Errorf("store score: %w", err)
	}
	return nil
}
