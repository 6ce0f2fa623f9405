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

func testSubscribe(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(t, s, t0)
	other := newWorkspace(t, s, t0)
	events, err := s.Subscribe(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: other.ID, Author: "eve", Ops: set("/tools/0/description", "x"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", AuthorID: "s1", Ops: set("/tools/0/description", "x"), Now: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NameRevision(ctx, w.ID, 1, "named"); err != nil {
		t.Fatal(err)
	}
	// A document beside the workspace (its profile, say) changes what other replicas show.
	for _, v := range []json.RawMessage{json.RawMessage(`"openai-functions"`), nil, nil} { // the second delete changes nothing
		if err := s.PutMeta(ctx, w.ID, "profile", v); err != nil {
			t.Fatal(err)
		}
	}
	presence := store.Event{Workspace: w.ID, Kind: store.EventPresence, Author: "bob", Field: "/tools/2", Detail: "joined"}
	if err := s.Announce(ctx, presence); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "announcing an edit", s.Announce(ctx, store.Event{Workspace: w.ID, Kind: store.EventEdit}), store.Invalid)
	wantKind(t, "a huge presence detail", s.Announce(ctx, store.Event{Workspace: w.ID, Kind: store.EventPresence,
		Detail: strings.Repeat("\x01", store.MaxDetail+1)}), store.Invalid)
	want := []store.Event{
		{Workspace: w.ID, Kind: store.EventEdit, Seq: 1, Revision: 1, Author: "ada", AuthorID: "s1", Field: "/tools/0/description"},
		{Workspace: w.ID, Kind: store.EventRevision, Revision: 1},
		{Workspace: w.ID, Kind: store.EventMeta, Field: "profile"},
		{Workspace: w.ID, Kind: store.EventMeta, Field: "profile"},
		presence,
	}
	for i, wev := range want {
		select {
		case ev := <-events:
			if ev != wev {
				t.Errorf("event %d = %+v, want %+v", i, ev, wev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d did not arrive within 10 s", i)
		}
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the channel stayed open after its context ended")
		}
	}
}

// ConcurrentClients and ConcurrentEdits size the concurrency test (20 × 200); -short shrinks it.
const (
	ConcurrentClients = 20
	ConcurrentEdits   = 200
)

// testConcurrentEdits has many clients edit one workspace at once, each typing in its own field
// (so that consecutive edits of one client coalesce) and now and then in a shared one. Every edit
// must be accepted, appear once in history in the order the store accepted it, and the final
// listing must equal the baseline with every edit applied in that order.
func testConcurrentEdits(t *testing.T, s store.Store) {
	clients, per := ConcurrentClients, ConcurrentEdits
	if testing.Short() {
		clients, per = 5, 20
	}
	ctx := context.Background()
	w := newWorkspace(t, s, t0)
	type ack struct {
		client, n int
		seq       int64
	}
	acks := make(chan ack, clients*per)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			author := fmt.Sprintf("client-%02d", c)
			for n := range per {
				path := fmt.Sprintf("/tools/%d/x-%s", c%3, author)
				if n%10 == 9 {
					path = "/tools/0/description"
				}
				res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: author, Now: time.Now(),
					Ops: set(path, fmt.Sprintf("%s edit %d", author, n))})
				if err != nil {
					errs <- fmt.Errorf("%s edit %d: %w", author, n, err)
					return
				}
				acks <- ack{c, n, res.Seq}
			}
		}()
	}
	wg.Wait()
	close(acks)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	bySeq := map[int64]ack{}
	for a := range acks {
		if prev, dup := bySeq[a.seq]; dup {
			t.Errorf("seq %d acknowledged twice: %+v and %+v", a.seq, prev, a)
		}
		bySeq[a.seq] = a
	}
	if len(bySeq) != clients*per {
		t.Fatalf("%d distinct edits acknowledged; want %d", len(bySeq), clients*per)
	}
	history, err := s.Edits(ctx, w.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != clients*per {
		t.Fatalf("history holds %d edits; want %d", len(history), clients*per)
	}
	next := make([]int, clients) // each client's edits appear in the order it made them
	cur := Sample(t)
	for _, e := range history {
		a, ok := bySeq[e.Seq]
		if !ok {
			t.Fatalf("history has edit %d that nobody was told was accepted", e.Seq)
		}
		if want := fmt.Sprintf("client-%02d edit %d", a.client, a.n); len(e.Ops) != 1 || e.Ops[0].Value.Str != want {
			t.Fatalf("edit %d holds %+v; the client was acknowledged for %q", e.Seq, e.Ops, want)
		}
		if a.n != next[a.client] {
			t.Errorf("client %d's edit %d is at seq %d, after its edit %d", a.client, a.n, e.Seq, next[a.client]-1)
		}
		next[a.client]++
		if cur, err = cur.ApplyAll(e.Ops); err != nil {
			t.Fatal(err)
		}
	}
	head, err := s.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if !sameListing(head.Listing, cur) {
		t.Error("the head listing is not the baseline with every edit applied in the order accepted")
	}
	full := checkHistory(t, s, w.ID)
	coalesced := 0
	for _, r := range full {
		if r.Edits > 1 {
			coalesced += r.Edits - 1
		}
	}
	t.Logf("%d edits by %d clients in %d revisions (%d edits coalesced)", len(history), clients, len(full)-1, coalesced)
}
