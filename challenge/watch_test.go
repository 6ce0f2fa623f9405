package challenge

import (
	"context"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// TestWatch: an edit of a participant's copy reaches the leaderboard through the watcher,
// with no Rescore; once frozen, edits are not scored.
func TestWatch(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	events, err := r.st.Subscribe(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	ana := r.join(t, c, "Ana").Participant
	// waitScore waits for a score of Ana's on the board.
	waitScore := func(want int) {
		t.Helper()
		for {
			b := r.board(t, c.ID)
			if len(b.Rows) == 1 && b.Rows[0].Scored && b.Rows[0].Score == want {
				return
			}
			select {
			case <-events:
			case <-ctx.Done():
				t.Fatalf("the board never showed %d: %s", want, board(b))
			}
		}
	}
	waitScore(100)
	r.rename(t, ana.Workspace, 1, "lookup")
	r.describe(t, ana.Workspace, 1, "Tool.")
	waitScore(75)
	if err := r.s.Freeze(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	r.describe(t, ana.Workspace, 1, "Search recent news articles by keyword.")
	if err := r.s.Rescore(ctx, ana.Workspace); err != nil {
		t.Fatal(err)
	}
	if b := r.board(t, c.ID); b.Rows[0].Score != 75 || b.State != store.ChallengeFrozen {
		t.Errorf("frozen, the board moved: %s", board(b))
	}
	// Unfrozen, the copy is scored as it is now.
	if err := r.s.Unfreeze(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	waitScore(100)
}

// TestWatchAfterRestart: a service that starts after edits were made scores them as soon as
// the challenge is touched (the leaderboard asks).
func TestWatchAfterRestart(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	ana := r.join(t, c, "Ana").Participant
	r.rescore(t, ana.Workspace)
	r.s.Close()
	r.rename(t, ana.Workspace, 1, "lookup")
	r.describe(t, ana.Workspace, 1, "Tool.")
	s2 := New(r.st, r.ws, Options{Now: r.clock.now})
	defer s2.Close()
	events, err := r.st.Subscribe(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := s2.Board(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Rows[0].Score == 75 {
			return
		}
		select {
		case <-events:
		case <-ctx.Done():
			t.Fatalf("the edit made while nobody watched was never scored: %s", board(b))
		}
	}
}
