package challenge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
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

// TestWatchStopsOnDelete: deleting the teacher's workspace deletes the challenge, and its
// watching stops.
func TestWatchStopsOnDelete(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	r.join(t, c, "Ana")
	if n := r.watching(); n != 1 {
		t.Fatalf("%d challenges watched; want 1", n)
	}
	if err := r.st.DeleteWorkspace(ctx, r.teacher); err != nil {
		t.Fatal(err)
	}
	for i := 0; r.watching() != 0; i++ {
		if i == 3000 {
			t.Fatal("the deleted challenge is still watched")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *rig) watching() int {
	r.s.w.mu.Lock()
	defer r.s.w.mu.Unlock()
	return len(r.s.w.open)
}

// TestWatchCoalesces: a burst of edits is scored in order, the newest last, never an older
// copy after a newer one.
func TestWatchCoalesces(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	log := &scoreLog{Store: r.st, stored: map[string][]stamp{}}
	r.s.Close()
	s := New(log, r.ws, Options{Now: r.clock.now, MaxScoresPerSecond: 5})
	defer s.Close()
	j, err := s.Join(ctx, c, "Ana")
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for k := range 30 {
		e := workspace.Edit{Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description",
			Value: listing.NewString("Get the weather" + strings.Repeat(" and more", k+1))}}}
		ch, err := r.ws.Apply(ctx, j.Participant.Workspace, e, workspace.Author{Name: "Ana"})
		if err != nil {
			t.Fatal(err)
		}
		last = int64(ch.After.Version)
	}
	for {
		log.mu.Lock()
		st := slices.Clone(log.stored[j.Participant.ID])
		log.mu.Unlock()
		if len(st) > 0 && st[len(st)-1].seq == last {
			for i := 1; i < len(st); i++ {
				if st[i].seq <= st[i-1].seq {
					t.Errorf("scored seq %d after %d", st[i].seq, st[i-1].seq)
				}
			}
			t.Logf("30 edits, %d scores stored", len(st))
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the last edit (seq %d) was never scored: %v", last, st)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Once revealed, a challenge stays over: the hidden tasks have been shown with every verdict,
// so reopening the copies for editing and live scoring is refused (and freezing, which would
// lead there), and the state stays.
func TestUnfreezeAfterRevealIsRefused(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	ana := r.join(t, c, "Ana").Participant.Workspace
	r.rescore(t, ana)
	if err := r.s.Reveal(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	// Freezing first is no way round it.
	for _, act := range []struct {
		name string
		do   func(context.Context, string) error
	}{{"freeze", r.s.Freeze}, {"unfreeze", r.s.Unfreeze}} {
		err := act.do(ctx, c.ID)
		var inv *Invalid
		if !errors.As(err, &inv) || !strings.Contains(inv.Msg, "hidden tasks have been shown") {
			t.Errorf("%s after reveal: %v; want *Invalid saying the hidden tasks have been shown", act.name, err)
		}
	}
	if b := r.board(t, c.ID); b.State != store.ChallengeRevealed || !b.Final {
		t.Errorf("after the refused unfreeze: state %s, final %v", b.State, b.Final)
	}
	if why := r.s.Locked(ctx, ana); why == "" {
		t.Error("a revealed challenge's copy is editable")
	}
}

// A freeze scores the copies whose stored score lags their head (an edit whose lock check
// passed just before the freeze), so the frozen board shows what the frozen copies score.
func TestFreezeScoresAnEditInFlight(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	ana := r.join(t, c, "Ana").Participant.Workspace
	r.rescore(t, ana)
	// The edits land unscored: the watcher is stopped, as if the freeze came between the
	// edits and their scoring.
	r.s.Close()
	r.rename(t, ana, 1, "lookup")
	r.describe(t, ana, 1, "Tool.")
	r.s = New(r.st, r.ws, Options{Now: r.clock.now})
	defer r.s.Close()
	if err := r.s.Freeze(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if b := r.board(t, c.ID); b.State != store.ChallengeFrozen || board(b) != "1 Ana 75 0" {
		t.Errorf("frozen board: %s (%s); want Ana's frozen copy's 75", board(b), b.State)
	}
}

// ended checks that a challenge past its end reads as over everywhere: frozen on the board and
// in the bar, the copy locked with the end's reason, and its watching stopped.
func (r *rig) ended(t *testing.T, c *Challenge, ws string) {
	t.Helper()
	ctx := context.Background()
	if b := r.board(t, c.ID); b.State != store.ChallengeFrozen {
		t.Errorf("board state %q; want frozen", b.State)
	}
	bar, _, err := r.s.BarFor(ctx, ws)
	if err != nil || bar.State != store.ChallengeFrozen || !strings.Contains(bar.Locked, "ended at") {
		t.Errorf("bar: state %q, locked %q, %v", bar.State, bar.Locked, err)
	}
	if why := r.s.Locked(ctx, ws); !strings.Contains(why, "ended at") {
		t.Errorf("Locked = %q; want the end", why)
	}
	for i := 0; r.watching() != 0; i++ {
		if i == 3000 {
			t.Fatal("the ended challenge is still watched")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// When the end comes, the challenge freezes by itself: its event tells every page (no page
// has to ask), and its watching stops.
func TestEndFreezes(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	end := t0.Add(50 * time.Millisecond)
	c := r.create(t, Draft{Hidden: []byte(hidden), Window: Window{End: end}})
	ana := r.join(t, c, "Ana").Participant.Workspace
	events, err := r.st.Subscribe(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	r.clock.set(end)
	for {
		select {
		case ev := <-events:
			if ev.Kind != store.EventChallenge || ev.Field != "" {
				continue
			}
		case <-ctx.Done():
			t.Fatal("no change of state came at the end")
		}
		break
	}
	r.ended(t, c, ana)
}

// A challenge found past its end (nobody followed it when the end came: a restart) is frozen
// as soon as it is read.
func TestEndFoundPassedFreezes(t *testing.T) {
	r := newRig(t)
	end := t0.Add(time.Hour)
	c := r.create(t, Draft{Hidden: []byte(hidden), Window: Window{End: end}})
	ana := r.join(t, c, "Ana").Participant.Workspace
	r.s.Close()
	r.clock.set(end.Add(24 * time.Hour))
	r.s = New(r.st, r.ws, Options{Now: r.clock.now})
	defer r.s.Close()
	r.ended(t, c, ana)
}

// After a restart, with no page open, a participant's edit alone starts the watching (the web
// asks Locked before every edit) and the edit is scored.
func TestWatchStartsOnAnEditAfterRestart(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	ana := r.join(t, c, "Ana").Participant
	r.rescore(t, ana.Workspace)
	r.s.Close()
	r.s = New(r.st, r.ws, Options{Now: r.clock.now})
	defer r.s.Close()
	if why := r.s.Locked(ctx, ana.Workspace); why != "" {
		t.Fatal(why)
	}
	r.rename(t, ana.Workspace, 1, "lookup")
	r.describe(t, ana.Workspace, 1, "Tool.")
	for {
		p, err := r.st.ParticipantOf(ctx, ana.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := decodeScore(p.Live); d != nil && d.Score == 75 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the edit was never scored")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A participant's copy deleted mid-workshop gives up its seat and leaves the board.
func TestWatchDropsADeletedCopy(t *testing.T) {
	r := newRig(t)
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	j := r.join(t, c, "Ana")
	if err := r.st.DeleteWorkspace(context.Background(), j.Participant.Workspace); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		r.s.w.mu.Lock()
		n := len(r.s.w.open[c.ID].seats)
		r.s.w.mu.Unlock()
		if n == 0 {
			break
		}
		if i == 3000 {
			t.Fatal("the deleted copy's seat is still held")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b := r.board(t, c.ID); len(b.Rows) != 0 {
		t.Errorf("board after the deletion: %s", board(b))
	}
}

// An edit that lands after the freeze (its lock check passed before) is scored by the reveal,
// live and final; revealing again changes nothing.
func TestRevealScoresAnEditAfterTheFreeze(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	ana := r.join(t, c, "Ana").Participant.Workspace
	r.rescore(t, ana)
	if err := r.s.Freeze(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	r.clock.set(t0.Add(time.Minute))
	r.rename(t, ana, 1, "lookup")
	r.describe(t, ana, 1, "Tool.")
	r.clock.set(t0.Add(2 * time.Minute))
	if err := r.s.Reveal(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	first, err := r.s.Export(ctx, c.ID, "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc exportDoc
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	if p := doc.Participants[0]; p.Live.Score != 75 || p.Final.Score != 100 || !p.Live.Reached.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("after the reveal: live %d reached %v, final %d; want 75 reached at the reveal, and 100", p.Live.Score, p.Live.Reached, p.Final.Score)
	}
	r.clock.set(t0.Add(3 * time.Minute))
	if err := r.s.Reveal(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if again, _ := r.s.Export(ctx, c.ID, "json"); string(again) != string(first) {
		t.Errorf("the second reveal changed the export:\n%s\n%s", first, again)
	}
}

// A challenge nobody joined has an empty heat map, exports and reveals.
func TestNobodyJoined(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	c := r.create(t, Draft{Hidden: []byte(hidden)})
	if _, err := r.s.Heat(ctx, c.ID); err != nil {
		t.Errorf("heat: %v", err)
	}
	for _, f := range []string{"csv", "json"} {
		if _, err := r.s.Export(ctx, c.ID, f); err != nil {
			t.Errorf("export %s: %v", f, err)
		}
	}
	if err := r.s.Reveal(ctx, c.ID); err != nil {
		t.Errorf("reveal: %v", err)
	}
}
