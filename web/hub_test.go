package web

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// fakeHost is a hubHost without a server: its store feed is a channel the test writes, and it
// records what the hub asked of it.
type fakeHost struct {
	events chan store.Event
	mu     sync.Mutex
	runs   []string
	locks  map[string]*sync.Mutex
}

func newFakeHost() *fakeHost {
	return &fakeHost{events: make(chan store.Event, 8), locks: map[string]*sync.Mutex{}}
}

func (f *fakeHost) subscribe(ctx context.Context, ws string) (<-chan store.Event, error) {
	return f.events, nil
}

func (f *fakeHost) announcePresence(ev store.Event) { f.events <- ev }

func (f *fakeHost) lock(ws string) func() {
	f.mu.Lock()
	m := f.locks[ws]
	if m == nil {
		m = &sync.Mutex{}
		f.locks[ws] = m
	}
	f.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (f *fakeHost) changeNotice(ws string, n Notice, tasks bool) (Notice, bool) {
	n.Version = 99 // as if read from the store
	return n, true
}

func (f *fakeHost) presencePatch(ws string, list []presence) Patch {
	var names []string
	for _, pr := range list {
		names = append(names, pr.Name)
	}
	slices.Sort(names)
	return Patch{HTML: strings.Join(names, ",")}
}

func (f *fakeHost) onRuns(ws string) {
	f.mu.Lock()
	f.runs = append(f.runs, ws)
	f.mu.Unlock()
}

func (f *fakeHost) keepAlive() time.Duration { return time.Hour }

// nextNotice waits for a notice on p.
func nextNotice(t *testing.T, p *page, what string) Notice {
	t.Helper()
	select {
	case n := <-p.notices():
		return n
	case <-time.After(5 * time.Second):
		t.Fatalf("no notice: %s", what)
		return Notice{}
	}
}

// TestHubThroughItsHost drives the hub through hubHost alone: a room opens with its first page
// and closes with its last; a notice reaches every page but its sender's; an edit made here is
// delivered as it was stashed, one made elsewhere as the host completes it; presence shows who
// is here; ended access cuts the page.
func TestHubThroughItsHost(t *testing.T) {
	const ws = "w1"
	pidA, pidB := strings.Repeat("a", 32), strings.Repeat("b", 32)
	host := newFakeHost()
	h := newHub(host)
	a, err := h.join(ws, pidA, 0, Author{Name: "Ana", ID: "ana"}, "session:1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.join(ws, pidB, 1, Author{Name: "Bo", ID: "bo"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Pages(ws); got != 2 {
		t.Fatalf("Pages = %d, want 2", got)
	}

	h.Publish(ws, Notice{From: pidA, EditorTool: -1})
	if n := nextNotice(t, b, "a published notice"); n.From != pidA {
		t.Errorf("b got %+v", n)
	}
	if len(a.notices()) != 0 {
		t.Errorf("the sender got its own notice")
	}

	h.expect(ws, 1, Notice{From: pidA, Field: "/tools/0/description"})
	host.events <- store.Event{Workspace: ws, Kind: store.EventEdit, Seq: 1, Field: "/tools/0/description"}
	if n := nextNotice(t, b, "an edit made here"); n.Field != "/tools/0/description" || !n.History || n.Version != 0 {
		t.Errorf("the stashed notice arrived as %+v", n)
	}
	host.events <- store.Event{Workspace: ws, Kind: store.EventEdit, Seq: 2, Field: "/tools/1/name", Author: "Cy"}
	for _, p := range []*page{a, b} {
		if n := nextNotice(t, p, "an edit made elsewhere"); n.Version != 99 || n.EditorTool != 1 || n.Author != "Cy" {
			t.Errorf("the remote notice arrived as %+v", n)
		}
	}

	h.announce(a, "join")
	h.announce(b, "join")
	// Presence updates gather a burst: the last one shows both.
	for n := nextNotice(t, b, "presence"); n.Shared == nil || n.Shared[0].HTML != "Ana,Bo"; {
		n = nextNotice(t, b, "presence of both")
	}
	if got := h.Present(ws); !slices.Equal(got, []string{"Ana", "Bo"}) {
		t.Errorf("Present = %v", got)
	}

	if n := h.EndAccess("session:1"); n != 1 || !a.ended() || b.ended() {
		t.Errorf("EndAccess ended %d pages; a ended %v, b ended %v", n, a.ended(), b.ended())
	}
	h.leave(a)
	h.leave(b)
	if got := h.Pages(ws); got != 0 {
		t.Errorf("Pages after both left = %d", got)
	}
}

// TestPageBehindGetsFullRefresh: a page that does not drain its notices loses the oldest, and
// the newest asks it for a full refresh.
func TestPageBehindGetsFullRefresh(t *testing.T) {
	p := newPage("p", "w", 0, Author{}, "")
	for i := range pageBacklog + 1 {
		p.deliver(Notice{Version: i})
	}
	var last Notice
	for len(p.notices()) > 0 {
		last = <-p.notices()
	}
	if last.Version != pageBacklog || !last.Full {
		t.Errorf("the newest notice is %+v; want version %d with Full set", last, pageBacklog)
	}
}

// TestHubAuthorGetsItsHistory (issue 21, point 1): the page that made a change gets no notice
// of it, but when its History panel is open it gets the revision list (and nothing else) from
// its stream, as every other page does.
func TestHubAuthorGetsItsHistory(t *testing.T) {
	const ws = "w1"
	pidA, pidB := strings.Repeat("a", 32), strings.Repeat("b", 32)
	h := newHub(newFakeHost())
	a, err := h.join(ws, pidA, 0, Author{Name: "Ana", ID: "ana"}, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.join(ws, pidB, 0, Author{Name: "Bo", ID: "bo"}, "")
	if err != nil {
		t.Fatal(err)
	}
	change := Notice{From: pidA, EditorTool: 0, Structure: true, Shared: []Patch{{HTML: "<div id=x></div>"}}, History: true, Version: 7}
	h.Publish(ws, change)
	nextNotice(t, b, "the change")
	if len(a.notices()) != 0 {
		t.Fatalf("the author, History closed, got a notice of its own change")
	}
	a.openHistory()
	h.Publish(ws, change)
	nextNotice(t, b, "the change")
	n := nextNotice(t, a, "the author's History")
	if !n.History || n.Shared != nil || n.Structure || n.EditorTool != -1 || n.From != "" || n.Version != 7 {
		t.Errorf("the author got %+v; want the History list only", n)
	}
	h.Publish(ws, Notice{From: pidA, EditorTool: -1})
	if len(a.notices()) != 0 {
		t.Errorf("the author got a notice that does not touch History")
	}
}
