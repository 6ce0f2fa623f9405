package challenge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// lockCache answers Locked from memory: which challenge a workspace is a copy of (most are
// none), and each challenge as last read. Every edit of every workspace asks it, so a miss costs
// a query and an answer is kept: a copy's challenge never changes, a challenge's state is read
// again after a short while (another process may have frozen it) or at once when this process
// changes it or sees its event.
type lockCache struct {
	mu     sync.Mutex
	copies map[string]copyEntry
	chs    map[string]chEntry
}

type copyEntry struct {
	challenge string // "" when the workspace is nobody's copy
	until     time.Time
}

type chEntry struct {
	c     *Challenge
	until time.Time
}

// How long answers are kept, and how many.
const (
	copyTTL    = 10 * time.Minute // a participant's copy stays theirs
	notCopyTTL = 10 * time.Second // a workspace becomes a copy only by a join, which tells this process (others' joins: this long)
	stateTTL   = 2 * time.Second  // a state changed by another process shows within this
	maxCopies  = 1 << 14
	maxStates  = 1 << 10
)

func (lc *lockCache) copyOf(ws string, now time.Time) (challenge string, ok bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	e, ok := lc.copies[ws]
	if !ok || now.After(e.until) {
		return "", false
	}
	return e.challenge, true
}

func (lc *lockCache) putCopy(ws, challenge string, now time.Time) {
	ttl := copyTTL
	if challenge == "" {
		ttl = notCopyTTL
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.copies == nil {
		lc.copies = map[string]copyEntry{}
	}
	if _, ok := lc.copies[ws]; !ok && len(lc.copies) >= maxCopies {
		evict(lc.copies, maxCopies, now, func(e copyEntry) time.Time { return e.until })
	}
	lc.copies[ws] = copyEntry{challenge: challenge, until: now.Add(ttl)}
}

func (lc *lockCache) challenge(id string, now time.Time) (*Challenge, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	e, ok := lc.chs[id]
	if !ok || now.After(e.until) {
		return nil, false
	}
	return e.c, true
}

func (lc *lockCache) putChallenge(c *Challenge, now time.Time) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.chs == nil {
		lc.chs = map[string]chEntry{}
	}
	if _, ok := lc.chs[c.ID]; !ok && len(lc.chs) >= maxStates {
		evict(lc.chs, maxStates, now, func(e chEntry) time.Time { return e.until })
	}
	lc.chs[c.ID] = chEntry{c: c, until: now.Add(stateTTL)}
}

// forget drops the workspace's entry (its copy was deleted).
func (lc *lockCache) forget(ws string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	delete(lc.copies, ws)
}

// evict makes room in a full map: the expired entries go, or else any one.
func evict[V any](m map[string]V, limit int, now time.Time, until func(V) time.Time) {
	for k, v := range m {
		if now.After(until(v)) {
			delete(m, k)
		}
	}
	if len(m) < limit {
		return
	}
	for k := range m {
		delete(m, k)
		return
	}
}

// copyOf returns the challenge a workspace is a copy of (nil: none), from memory when it can.
// A store that fails is an error, unless it said the workspace is nobody's copy.
func (s *Service) copyOf(ctx context.Context, ws string) (*Challenge, error) {
	now := s.opt.Now()
	cid, known := s.locks.copyOf(ws, now)
	if !known {
		p, err := s.st.ParticipantOf(ctx, ws)
		switch {
		case store.KindOf(err) == store.NotFound:
			s.locks.putCopy(ws, "", now)
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("whose copy is %s: %w", ws, err)
		}
		cid = p.Challenge
		s.locks.putCopy(ws, cid, now)
	}
	if cid == "" {
		return nil, nil
	}
	if c, ok := s.locks.challenge(cid, now); ok {
		return c, nil
	}
	return s.Get(ctx, cid)
}

// unreadable is why a copy may not be edited when the store could not say whether it may: an
// edit let through could land in a frozen challenge.
const unreadable = "The workshop's state could not be read just now; try again."

// lockReason says why a copy of c may not be edited at now ("" when it may). A challenge past
// its end says so, though its end froze it.
func lockReason(c *Challenge, now time.Time) string {
	w := c.File.Window
	switch {
	case c.State == store.ChallengeRevealed:
		return "The challenge is over and its results are revealed: your copy is read-only."
	case ended(c, now):
		return fmt.Sprintf("The challenge ended at %s: your copy is read-only.", w.End.Format(timeFormat))
	case c.State == store.ChallengeFrozen:
		return "The teacher has frozen the challenge: your copy is read-only until they unfreeze it."
	case !w.Start.IsZero() && now.Before(w.Start):
		return fmt.Sprintf("The challenge starts at %s: your copy is read-only until then.", w.Start.Format(timeFormat))
	}
	return ""
}

// ended reports whether c has an end and now is past it.
func ended(c *Challenge, now time.Time) bool {
	end := c.File.Window.End
	return !end.IsZero() && !now.Before(end)
}
