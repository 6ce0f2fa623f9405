package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

var settings = json.RawMessage(`{"hidden": [{"task": "find the secret tool", "expect": "search"}], "budget": 400}`)

func newChallenge(t testing.TB, s store.Store, ws string, at time.Time) store.Challenge {
	t.Helper()
	c, err := s.CreateChallenge(context.Background(), store.NewChallenge{Workspace: ws, Title: "Workshop", Owner: "ada", OwnerID: "s1", Settings: settings, Now: at})
	if err != nil {
		t.Fatalf("create challenge: %v", err)
	}
	return c
}

// join makes a participant's copy (a new workspace) and adds it to challenge c.
func join(t testing.TB, s store.Store, c, name string, at time.Time) store.Participant {
	t.Helper()
	w := newWorkspace(t, s, at)
	p, err := s.AddParticipant(context.Background(), store.NewParticipant{Challenge: c, Name: name, Workspace: w.ID, LinkID: store.NewID(), Now: at})
	if err != nil {
		t.Fatalf("join %q: %v", name, err)
	}
	return p
}

// testChallenges: a challenge as stored, found by ID and by its join code as people type it,
// listed newest first, and what CreateChallenge refuses.
func testChallenges(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	if _, err := store.ParseID("challenge ID", c.ID); err != nil || c.ID == w.ID {
		t.Errorf("challenge ID %q: %v", c.ID, err)
	}
	if len(c.Code) != store.CodeLength || strings.Trim(c.Code, store.CodeAlphabet) != "" {
		t.Errorf("join code %q is not %d characters of %s", c.Code, store.CodeLength, store.CodeAlphabet)
	}
	want := store.Challenge{ID: c.ID, Code: c.Code, Workspace: w.ID, Title: "Workshop", Owner: "ada", OwnerID: "s1", Settings: settings,
		State: store.ChallengeOpen, Created: t0, Changed: t0}
	if got, err := s.Challenge(ctx, c.ID); err != nil || !sameChallenge(got, want) || !sameChallenge(c, want) {
		t.Errorf("Challenge = %+v, %v; CreateChallenge answered %+v; want %+v", got, err, c, want)
	}
	lower := strings.ToLower(c.Code)
	for _, code := range []string{c.Code, lower, " " + lower + "\t", lower[:3] + "-" + lower[3:], c.Code[:2] + " " + c.Code[2:]} {
		got, err := s.ChallengeByCode(ctx, code)
		if err != nil || got.ID != c.ID {
			t.Errorf("ChallengeByCode(%q) = %s, %v; want %s", code, got.ID, err, c.ID)
		}
	}
	for _, code := range []string{"", "ZZZZZZ", "zzz-zzz", "ZZZZZZ2", "-" + c.Code, c.Code + "-", c.Code + "A", c.Code[:5], c.Code[:2] + "--" + c.Code[2:], c.Code[:2] + "-" + c.Code[2:4] + "-" + c.Code[4:],
		"A0O1IL", "ÀBCDEF", "' OR 1=1 --", strings.Repeat(c.Code, 1000), "ABCDE\x00", "ſſſſſſ"} {
		_, err := s.ChallengeByCode(ctx, code)
		wantKind(t, fmt.Sprintf("code %.20q", code), err, store.NotFound)
		if err != nil && strings.Contains(err.Error(), code) && code != "" {
			t.Errorf("the error for code %.20q repeats it: %v", code, err)
		}
	}

	later := newChallenge(t, s, w.ID, t0.Add(time.Minute))
	other := newWorkspace(t, s, t0)
	for _, tc := range []struct {
		ws   string
		want []string
	}{{w.ID, []string{later.ID, c.ID}}, {other.ID, nil}} {
		list, err := s.ChallengesOf(ctx, tc.ws)
		if err != nil || list == nil || len(list) != len(tc.want) {
			t.Fatalf("ChallengesOf = %+v, %v; want %d", list, err, len(tc.want))
		}
		for i, id := range tc.want {
			if list[i].ID != id {
				t.Errorf("ChallengesOf[%d] = %s, want %s (newest first)", i, list[i].ID, id)
			}
		}
	}
	if later.Code == c.Code {
		t.Errorf("two challenges hold the code %s", c.Code)
	}
	_, err := s.Challenge(ctx, store.NewID())
	wantKind(t, "an unknown challenge", err, store.NotFound)
	_, err = s.Challenge(ctx, "../x")
	wantKind(t, "a malformed challenge ID", err, store.Invalid)
	_, err = s.ChallengesOf(ctx, "nope")
	wantKind(t, "challenges of a malformed workspace ID", err, store.Invalid)
	challengeRefusals(t, s, w.ID)
}

func sameChallenge(a, b store.Challenge) bool {
	return a.ID == b.ID && a.Code == b.Code && a.Workspace == b.Workspace && a.Title == b.Title && a.Owner == b.Owner &&
		a.OwnerID == b.OwnerID && string(a.Settings) == string(b.Settings) && a.State == b.State && a.Created.Equal(b.Created) && a.Changed.Equal(b.Changed)
}

func challengeRefusals(t *testing.T, s store.Store, ws string) {
	ctx := context.Background()
	ok := store.NewChallenge{Workspace: ws, Title: "Workshop", Owner: "ada", Settings: settings}
	for _, tc := range []struct {
		name   string
		change func(*store.NewChallenge)
		want   store.Kind
	}{
		{"malformed workspace", func(c *store.NewChallenge) { c.Workspace = "x" }, store.Invalid},
		{"unknown workspace", func(c *store.NewChallenge) { c.Workspace = store.NewID() }, store.NotFound},
		{"no title", func(c *store.NewChallenge) { c.Title = " " }, store.Invalid},
		{"long title", func(c *store.NewChallenge) { c.Title = strings.Repeat("é", store.MaxTitle+1) }, store.Invalid},
		{"bidi title", func(c *store.NewChallenge) { c.Title = "abc\u202etxt.exe" }, store.Invalid},
		{"control in owner", func(c *store.NewChallenge) { c.Owner = "ada\x1b[31m" }, store.Invalid},
		{"long owner ID", func(c *store.NewChallenge) { c.OwnerID = strings.Repeat("x", store.MaxAuthor+1) }, store.Invalid},
		{"no settings", func(c *store.NewChallenge) { c.Settings = nil }, store.Invalid},
		{"settings not JSON", func(c *store.NewChallenge) { c.Settings = json.RawMessage(`{"hidden":`) }, store.Invalid},
		{"settings too large", func(c *store.NewChallenge) {
			c.Settings = json.RawMessage(`"` + strings.Repeat("x", store.MaxChallengeSettings) + `"`)
		}, store.Invalid},
	} {
		c := ok
		tc.change(&c)
		_, err := s.CreateChallenge(ctx, c)
		wantKind(t, tc.name, err, tc.want)
	}
	if list, err := s.ChallengesOf(ctx, ws); err != nil || len(list) != 2 {
		t.Errorf("after the refusals the workspace has %d challenges (%v), want 2", len(list), err)
	}
}

// nextEvent returns the next event on ch, failing the test after 10 s.
func nextEvent(t *testing.T, ch <-chan store.Event, what string) store.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no event within 10 s", what)
		return store.Event{}
	}
}

// expectEvents reads the next event of each subscription that want names; a marker
// (a presence event announced after the change) shows that a change sent nothing.
func expectEvents(t *testing.T, what string, subs map[string]<-chan store.Event, want map[string]store.Event) {
	t.Helper()
	for key, w := range want {
		ev := nextEvent(t, subs[key], what)
		if ev != w {
			t.Errorf("%s: the subscriber of %s got %+v, want %+v", what, key, ev, w)
		}
	}
}

func marker(t *testing.T, s store.Store, keys ...string) map[string]store.Event {
	t.Helper()
	want := map[string]store.Event{}
	for _, k := range keys {
		ev := store.Event{Workspace: k, Kind: store.EventPresence, Detail: "marker"}
		if err := s.Announce(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		want[k] = ev
	}
	return want
}

// subscribe subscribes to key and reads until a marker announced after subscribing: events
// of earlier changes that PostgreSQL's LISTEN brings late are behind the test then.
// The subscription ends with the test.
func subscribe(t *testing.T, s store.Store, key string) <-chan store.Event {
	t.Helper()
	ch, err := s.Subscribe(t.Context(), key)
	if err != nil {
		t.Fatalf("subscribe to %s: %v", key, err)
	}
	want := marker(t, s, key)[key]
	for ev := nextEvent(t, ch, "subscribing"); ev != want; ev = nextEvent(t, ch, "subscribing") {
	}
	return ch
}

// testChallengeState: state changes, and the events that a change of state, a join and a
// score send to the challenge's subscribers and to the participants' workspaces.
func testChallengeState(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	board := subscribe(t, s, c.ID)
	teacher := subscribe(t, s, w.ID)
	p := join(t, s, c.ID, "Ada", t0)
	copyEvents := subscribe(t, s, p.Workspace)
	subs := map[string]<-chan store.Event{c.ID: board, p.Workspace: copyEvents, w.ID: teacher}
	expectEvents(t, "a join", map[string]<-chan store.Event{c.ID: board}, map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge, Field: p.ID}})

	steps := []struct {
		state store.ChallengeState
		at    time.Duration
		sends bool
	}{
		{store.ChallengeFrozen, time.Minute, true},
		{store.ChallengeFrozen, 2 * time.Minute, false}, // the state it is in: nothing changes
		{store.ChallengeOpen, 3 * time.Minute, true},    // a teacher may unfreeze
		{store.ChallengeRevealed, 4 * time.Minute, true},
	}
	changed := t0
	for _, st := range steps {
		got, err := s.SetChallengeState(ctx, c.ID, st.state, t0.Add(st.at))
		if err != nil {
			t.Fatal(err)
		}
		if st.sends {
			changed = t0.Add(st.at)
		}
		if got.State != st.state || !got.Changed.Equal(changed) || !got.Created.Equal(t0) || got.Code != c.Code {
			t.Errorf("SetChallengeState(%s) = %+v, want changed at %v", st.state, got, changed)
		}
		if read, _ := s.Challenge(ctx, c.ID); !sameChallenge(read, got) {
			t.Errorf("after SetChallengeState(%s) Challenge = %+v, want %+v", st.state, read, got)
		}
		if st.sends {
			expectEvents(t, "state "+string(st.state), subs, map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge},
				p.Workspace: {Workspace: p.Workspace, Kind: store.EventChallenge}})
		}
		// Nothing else came: not to the teacher's workspace, nor a second event.
		expectEvents(t, "the marker after state "+string(st.state), subs, marker(t, s, c.ID, p.Workspace, w.ID))
	}
	_, err := s.SetChallengeState(ctx, c.ID, "closed", t0)
	wantKind(t, "an unknown state", err, store.Invalid)
	_, err = s.SetChallengeState(ctx, store.NewID(), store.ChallengeFrozen, t0)
	wantKind(t, "the state of an unknown challenge", err, store.NotFound)
	_, err = s.SetChallengeState(ctx, "", store.ChallengeFrozen, t0)
	wantKind(t, "the state of no challenge", err, store.Invalid)
}

// testParticipants: joining, the order of participants, whose copy a workspace is, and the
// names and workspaces a join refuses.
func testParticipants(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	other := newChallenge(t, s, w.ID, t0)
	// Joined at one instant: the order is still the order of joining.
	names := []string{"Zoë", "ada", "Bob Smith", "李"}
	var ps []store.Participant
	for _, n := range names {
		ps = append(ps, join(t, s, c.ID, n, t0))
	}
	got, err := s.Participants(ctx, c.ID)
	if err != nil || len(got) != len(names) {
		t.Fatalf("Participants = %+v, %v", got, err)
	}
	for i, p := range got {
		if p.ID != ps[i].ID || p.Name != names[i] || p.Challenge != c.ID || p.Workspace != ps[i].Workspace || p.LinkID != ps[i].LinkID ||
			!p.Joined.Equal(t0) || p.Seq != 0 || p.Live != nil || p.Final != nil || !p.Scored.IsZero() {
			t.Errorf("participant %d = %+v, want %+v", i, p, ps[i])
		}
		if of, err := s.ParticipantOf(ctx, p.Workspace); err != nil || of.ID != p.ID || of.Name != p.Name {
			t.Errorf("ParticipantOf(%s) = %+v, %v; want %s", p.Workspace, of, err, p.ID)
		}
	}
	if list, err := s.Participants(ctx, other.ID); err != nil || list == nil || len(list) != 0 {
		t.Errorf("Participants of an empty challenge = %#v, %v", list, err)
	}
	_, err = s.ParticipantOf(ctx, w.ID)
	wantKind(t, "ParticipantOf a teacher's workspace", err, store.NotFound)
	_, err = s.Participants(ctx, store.NewID())
	wantKind(t, "participants of an unknown challenge", err, store.NotFound)

	fresh := newWorkspace(t, s, t0).ID
	for _, tc := range []struct {
		name      string
		challenge string
		who       string
		ws        string
		link      string
		want      store.Kind
	}{
		{"the same name", c.ID, "ada", fresh, "", store.Conflict},
		{"the name in capitals", c.ID, "ADA", fresh, "", store.Conflict},
		{"the name with spaces", c.ID, " Bob   SMITH ", fresh, "", store.Conflict},
		{"the name in full width", c.ID, "Ａｄａ", fresh, "", store.Conflict},
		{"the name with a zero-width space", c.ID, "a\u200bda", fresh, "", store.Conflict},
		{"the accented name in capitals", c.ID, "ZOË", fresh, "", store.Conflict},
		{"a copy twice", c.ID, "Carol", ps[0].Workspace, "", store.Conflict},
		{"a copy in another challenge", other.ID, "Carol", ps[0].Workspace, "", store.Conflict},
		{"the teacher's workspace", c.ID, "Carol", w.ID, "", store.Invalid},
		{"no name", c.ID, "  ", fresh, "", store.Invalid},
		{"an invisible name", c.ID, "\u200b\u200d", fresh, "", store.Invalid},
		{"a long name", c.ID, strings.Repeat("x", store.MaxParticipantName+1), fresh, "", store.Invalid},
		{"a control character", c.ID, "Eve\x07", fresh, "", store.Invalid},
		{"a newline", c.ID, "Eve\nAda 100 points", fresh, "", store.Invalid},
		{"a bidi override", c.ID, "Eve\u202eniw", fresh, "", store.Invalid},
		{"a bidi isolate", c.ID, "\u2067Eve", fresh, "", store.Invalid},
		{"invalid UTF-8", c.ID, "Eve\xff", fresh, "", store.Invalid},
		{"a malformed link ID", c.ID, "Carol", fresh, "link", store.Invalid},
		{"a malformed workspace ID", c.ID, "Carol", "ws", "", store.Invalid},
		{"an unknown workspace", c.ID, "Carol", store.NewID(), "", store.NotFound},
		{"an unknown challenge", store.NewID(), "Carol", fresh, "", store.NotFound},
		{"a malformed challenge ID", "c", "Carol", fresh, "", store.Invalid},
	} {
		_, err := s.AddParticipant(ctx, store.NewParticipant{Challenge: tc.challenge, Name: tc.who, Workspace: tc.ws, LinkID: tc.link, Now: t0})
		wantKind(t, tc.name, err, tc.want)
	}
	if got, _ := s.Participants(ctx, c.ID); len(got) != len(names) {
		t.Errorf("after the refusals the challenge has %d participants, want %d", len(got), len(names))
	}
	// Names are per challenge: another challenge may have its own Ada.
	if p, err := s.AddParticipant(ctx, store.NewParticipant{Challenge: other.ID, Name: "Ada", Workspace: fresh, Now: t0}); err != nil || p.LinkID != "" {
		t.Errorf("Ada joining a second challenge: %+v, %v", p, err)
	}
}

// testParticipantLimit: people joining at once past MaxParticipants: exactly the limit get
// in, the rest are refused with the limit in the message, and a participant who leaves makes
// room. (Eight at a time, which also keeps the test short on PostgreSQL.)
func testParticipantLimit(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	const over = 5
	errs := make([]error, store.MaxParticipants+over)
	wss := make([]string, len(errs))
	parallel(len(errs), func(i int) {
		ws, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "copy", Listing: Sample(t), Now: t0})
		if err != nil {
			errs[i] = err
			return
		}
		wss[i] = ws.ID
		_, errs[i] = s.AddParticipant(ctx, store.NewParticipant{Challenge: c.ID, Name: fmt.Sprintf("p%d", i), Workspace: ws.ID, Now: t0})
	})
	var refused []int
	for i, err := range errs {
		if err == nil {
			continue
		}
		refused = append(refused, i)
		wantKind(t, "a participant past the limit", err, store.Invalid)
		if !strings.Contains(err.Error(), fmt.Sprint(store.MaxParticipants)) {
			t.Errorf("the refusal does not give the limit: %v", err)
		}
	}
	got, err := s.Participants(ctx, c.ID)
	if err != nil || len(got) != store.MaxParticipants || len(refused) != over {
		t.Fatalf("%d of %d joined (%v), %d were refused; want %d and %d", len(got), len(errs), err, len(refused), store.MaxParticipants, over)
	}
	if err := s.DeleteWorkspace(ctx, got[7].Workspace); err != nil {
		t.Fatal(err)
	}
	p, err := s.AddParticipant(ctx, store.NewParticipant{Challenge: c.ID, Name: "late", Workspace: wss[refused[0]], Now: t0})
	if err != nil {
		t.Fatalf("joining once a participant left: %v", err)
	}
	got, err = s.Participants(ctx, c.ID)
	if err != nil || len(got) != store.MaxParticipants || got[len(got)-1].ID != p.ID {
		t.Errorf("Participants after a leave and a join: %d, %v; want %d ending with the newcomer", len(got), err, store.MaxParticipants)
	}
}

// parallel runs fn(0) … fn(n-1), eight at a time.
func parallel(n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// testConcurrentJoins: people joining one challenge at once all get in, each name once.
func testConcurrentJoins(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	const n = 12
	wss := make([]string, 2*n)
	for i := range wss {
		wss[i] = newWorkspace(t, s, t0).ID
	}
	errs := make([]error, len(wss))
	var wg sync.WaitGroup
	for i := range wss {
		wg.Go(func() {
			name := fmt.Sprintf("p%d", i)
			if i >= n {
				name = "Same" // every second half joins with one name: one of them wins
			}
			_, errs[i] = s.AddParticipant(ctx, store.NewParticipant{Challenge: c.ID, Name: name, Workspace: wss[i], Now: t0})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil && i >= n:
			won++
		case i < n && err != nil:
			t.Errorf("join %d: %v", i, err)
		case i >= n && store.KindOf(err) != store.Conflict:
			t.Errorf("join %d with a taken name: %v, want a conflict", i, err)
		}
	}
	got, err := s.Participants(ctx, c.ID)
	if won != 1 || err != nil || len(got) != n+1 {
		t.Errorf("%d joins of one name won, want 1; the challenge has %d participants (%v), want %d", won, len(got), err, n+1)
	}
}

// testScores: a live score older than the one stored is ignored, a final score is stored
// whatever its Seq, and each stored score is sent to the board and to the participant's copy.
func testScores(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	board := subscribe(t, s, c.ID)
	p := join(t, s, c.ID, "Ada", t0)
	q := join(t, s, c.ID, "Bob", t0)
	for _, who := range []store.Participant{p, q} {
		expectEvents(t, "a join", map[string]<-chan store.Event{c.ID: board}, map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge, Field: who.ID}})
	}
	copyEvents := subscribe(t, s, p.Workspace)
	subs := map[string]<-chan store.Event{c.ID: board, p.Workspace: copyEvents}
	sent := map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge, Field: p.ID},
		p.Workspace: {Workspace: p.Workspace, Kind: store.EventChallenge, Field: p.ID}}
	score := func(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"score": %d, "tokens": 120}`, n)) }
	steps := []struct {
		name      string
		seq       int64
		score     json.RawMessage
		final     bool
		at        time.Duration
		wantSeq   int64
		wantLive  json.RawMessage
		wantFinal json.RawMessage
		scored    time.Duration
		sends     bool
	}{
		{"first live score", 3, score(10), false, time.Second, 3, score(10), nil, time.Second, true},
		{"an older scoring finishing late", 2, score(5), false, 2 * time.Second, 3, score(10), nil, time.Second, false},
		{"the same seq scored again", 3, score(11), false, 3 * time.Second, 3, score(11), nil, 3 * time.Second, true},
		{"a newer edit", 7, score(20), false, 4 * time.Second, 7, score(20), nil, 4 * time.Second, true},
		{"the final score, whatever its seq", 1, score(15), true, 5 * time.Second, 7, score(20), score(15), 4 * time.Second, true},
		{"a final score again", 0, score(16), true, 6 * time.Second, 7, score(20), score(16), 4 * time.Second, true},
		{"a live score after the final", 8, score(21), false, 7 * time.Second, 8, score(21), score(16), 7 * time.Second, true},
	}
	for _, st := range steps {
		got, err := s.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: st.seq, Score: st.score, Final: st.final, Now: t0.Add(st.at)})
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		list, _ := s.Participants(ctx, c.ID)
		of, _ := s.ParticipantOf(ctx, p.Workspace)
		for what, pp := range map[string]store.Participant{"PutScore": got, "Participants": list[0], "ParticipantOf": of} {
			if pp.ID != p.ID || pp.Seq != st.wantSeq || string(pp.Live) != string(st.wantLive) || string(pp.Final) != string(st.wantFinal) ||
				!pp.Scored.Equal(t0.Add(st.scored)) || pp.Name != "Ada" || !pp.Joined.Equal(t0) {
				t.Errorf("%s: %s = %+v (live %s, final %s), want seq %d, live %s, final %s, scored %v", st.name, what, pp, pp.Live, pp.Final,
					st.wantSeq, st.wantLive, st.wantFinal, t0.Add(st.scored))
			}
		}
		if list[1].Live != nil || list[1].Seq != 0 || list[1].ID != q.ID {
			t.Errorf("%s: the other participant changed: %+v", st.name, list[1])
		}
		if st.sends {
			expectEvents(t, st.name, subs, sent)
		}
		expectEvents(t, st.name+" (marker)", subs, marker(t, s, c.ID, p.Workspace))
	}
	for _, tc := range []struct {
		name string
		u    store.ScoreUpdate
		want store.Kind
	}{
		{"another challenge's participant", store.ScoreUpdate{Challenge: newChallenge(t, s, w.ID, t0).ID, Participant: p.ID, Score: score(1)}, store.NotFound},
		{"an unknown participant", store.ScoreUpdate{Challenge: c.ID, Participant: store.NewID(), Score: score(1)}, store.NotFound},
		{"a malformed participant ID", store.ScoreUpdate{Challenge: c.ID, Participant: "p", Score: score(1)}, store.Invalid},
		{"a malformed challenge ID", store.ScoreUpdate{Challenge: "", Participant: p.ID, Score: score(1)}, store.Invalid},
		{"no score", store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: 9}, store.Invalid},
		{"a score that is not JSON", store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: 9, Score: json.RawMessage(`{"score":`)}, store.Invalid},
		{"a score too large", store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: 9, Score: json.RawMessage(`"` + strings.Repeat("x", store.MaxScore) + `"`)}, store.Invalid},
		{"a negative seq", store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: -1, Score: score(1)}, store.Invalid},
	} {
		_, err := s.PutScore(ctx, tc.u)
		wantKind(t, tc.name, err, tc.want)
	}
	if of, _ := s.ParticipantOf(ctx, p.Workspace); of.Seq != 8 || string(of.Live) != string(score(21)) {
		t.Errorf("a refused score changed the stored one: %+v", of)
	}
}

// testChallengeCascades: deleting a participant's copy deletes their record; deleting the
// teacher's workspace deletes its challenges and their records but not the participants'
// copies; a fork of the teacher's workspace has no challenges.
func testChallengeCascades(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	c := newChallenge(t, s, w.ID, t0)
	p := join(t, s, c.ID, "Ada", t0)
	q := join(t, s, c.ID, "Bob", t0)
	if _, err := s.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: q.ID, Seq: 1, Score: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	fork, err := s.ForkWorkspace(ctx, store.Fork{From: w.ID, Author: "bob", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := s.ChallengesOf(ctx, fork.ID); err != nil || len(list) != 0 {
		t.Errorf("a fork of the teacher's workspace has challenges: %+v, %v", list, err)
	}
	if _, err := s.ParticipantOf(ctx, fork.ID); store.KindOf(err) != store.NotFound {
		t.Errorf("a fork is somebody's copy: %v", err)
	}

	if err := s.DeleteWorkspace(ctx, p.Workspace); err != nil {
		t.Fatal(err)
	}
	_, err = s.ParticipantOf(ctx, p.Workspace)
	wantKind(t, "the participant whose copy was deleted", err, store.NotFound)
	if list, err := s.Participants(ctx, c.ID); err != nil || len(list) != 1 || list[0].ID != q.ID {
		t.Errorf("Participants after a copy was deleted = %+v, %v; want Bob alone", list, err)
	}
	// The name is free again: Ada may join with a new copy.
	again := join(t, s, c.ID, "ada", t0)

	if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Challenge(ctx, c.ID)
	wantKind(t, "the challenge of a deleted workspace", err, store.NotFound)
	_, err = s.ChallengeByCode(ctx, c.Code)
	wantKind(t, "the code of a deleted challenge", err, store.NotFound)
	_, err = s.Participants(ctx, c.ID)
	wantKind(t, "the participants of a deleted challenge", err, store.NotFound)
	for _, ws := range []string{q.Workspace, again.Workspace} {
		_, err = s.ParticipantOf(ctx, ws)
		wantKind(t, "a participant of a deleted challenge", err, store.NotFound)
		if _, err := s.Workspace(ctx, ws); err != nil {
			t.Errorf("a participant's copy went with the teacher's workspace: %v", err)
		}
	}
	if list, err := s.ChallengesOf(ctx, w.ID); err != nil || len(list) != 0 {
		t.Errorf("ChallengesOf a deleted workspace = %+v, %v", list, err)
	}
	// A copy whose challenge is gone may join another.
	d := newChallenge(t, s, fork.ID, t0)
	if _, err := s.AddParticipant(ctx, store.NewParticipant{Challenge: d.ID, Name: "Bob", Workspace: q.Workspace, Now: t0}); err != nil {
		t.Errorf("a former copy joining another challenge: %v", err)
	}
}

// ChallengesAcross: a leaderboard served by one replica (r) hears of joins, scores and
// changes of state made on another (w), and reads what they stored.
func ChallengesAcross(t *testing.T, w, r store.Store) {
	ctx := context.Background()
	ws := newWorkspace(t, w, t0)
	c := newChallenge(t, w, ws.ID, t0)
	board := subscribe(t, r, c.ID)
	p := join(t, w, c.ID, "Ada", t0)
	expectEvents(t, "a join on the other replica", map[string]<-chan store.Event{c.ID: board},
		map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge, Field: p.ID}})
	copyEvents := subscribe(t, r, p.Workspace)
	subs := map[string]<-chan store.Event{c.ID: board, p.Workspace: copyEvents}
	if _, err := w.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: 4, Score: json.RawMessage(`{"score": 3}`), Now: t0}); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, "a score on the other replica", subs, map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge, Field: p.ID},
		p.Workspace: {Workspace: p.Workspace, Kind: store.EventChallenge, Field: p.ID}})
	if _, err := w.SetChallengeState(ctx, c.ID, store.ChallengeFrozen, t0); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, "a freeze on the other replica", subs, map[string]store.Event{c.ID: {Workspace: c.ID, Kind: store.EventChallenge},
		p.Workspace: {Workspace: p.Workspace, Kind: store.EventChallenge}})
	got, err := r.Challenge(ctx, c.ID)
	if err != nil || got.State != store.ChallengeFrozen || string(got.Settings) != string(settings) {
		t.Errorf("the other replica reads the challenge as %+v, %v", got, err)
	}
	list, err := r.Participants(ctx, c.ID)
	if err != nil || len(list) != 1 || list[0].Seq != 4 || string(list[0].Live) != `{"score": 3}` {
		t.Errorf("the other replica reads the participants as %+v, %v", list, err)
	}
}
