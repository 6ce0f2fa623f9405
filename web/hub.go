package web

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// The live hub: the pages open in this process, grouped by workspace into rooms, and the
// notices it fans out to them. The hub owns its lock and its rooms; the server reaches them
// only through the methods below, and the hub reaches the server only through hubHost.

// hubHost is what the hub needs of the server it serves. *Server implements it (hub_host.go);
// it keeps the hub free of the store, the analysis and the renderer.
type hubHost interface {
	// subscribe opens the store's event feed of ws, for the first page of a room.
	subscribe(ctx context.Context, ws string) (<-chan store.Event, error)
	// announcePresence tells every replica where a page is.
	announcePresence(ev store.Event)
	// lock takes the workspace's lock, which orders its changes; it returns the unlock.
	lock(ws string) func()
	// changeNotice completes the notice of a change made elsewhere (another replica) from the
	// workspace as it now stands; ok is false when the pages were shown it already.
	changeNotice(ws string, n Notice, tasks bool) (_ Notice, ok bool)
	// presencePatch renders who is on the workspace.
	presencePatch(ws string, list []presence) Patch
	// onRuns reacts to a run stored here or on another replica (runs_live.go).
	onRuns(ws string)
	// keepAlive is the pages' heartbeat interval: each room checks its roster at it and drops
	// the pages not heard from in three.
	keepAlive() time.Duration
}

// Hub fans a workspace's events out to its pages. A page's stream drains its channel; a page that
// falls behind loses notices rather than slowing everyone (it gets a full refresh instead).
type Hub struct {
	host  hubHost
	mu    sync.Mutex
	pages map[string]*page // by page id
	rooms map[string]*room // by workspace id
}

// newHub returns an empty hub serving host.
func newHub(host hubHost) *Hub {
	return &Hub{host: host, pages: map[string]*page{}, rooms: map[string]*room{}}
}

// join registers a page (or returns the one already registered under id), subscribing to the
// workspace when it is the first page on it in this process.
func (h *Hub) join(ws, id string, tool int, who Author, cred string) (*page, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.pages[id]; ok && p.ws == ws && p.cred == cred && !p.ended() {
		return p, nil
	}
	r := h.rooms[ws]
	if r == nil {
		ctx, cancel := context.WithCancel(context.Background())
		events, err := h.host.subscribe(ctx, ws)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("open the live updates of workspace %s: %w", ws, err)
		}
		r = newRoom(ws, cancel)
		h.rooms[ws] = r
		go h.run(r, events)
	}
	p := newPage(id, ws, tool, who, cred)
	h.pages[id] = p
	r.pages[id] = p
	return p, nil
}

// leave removes a page whose stream ended; the last page of a workspace ends its subscription.
func (h *Hub) leave(p *page) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pages[p.id] != p {
		return
	}
	delete(h.pages, p.id)
	if r := h.rooms[p.ws]; r != nil {
		delete(r.pages, p.id)
		if len(r.pages) == 0 {
			r.cancel()
			delete(h.rooms, p.ws)
		}
	}
}

// EndAccess ends every open stream in this process that was opened with cred (see page.cred):
// a signed-out session or a revoked share link stops receiving updates at once, not at its next
// request. It returns how many streams it ended.
func (h *Hub) EndAccess(cred string) int {
	if cred == "" {
		return 0
	}
	h.mu.Lock()
	var hit []*page
	for _, p := range h.pages {
		if p.cred == cred {
			hit = append(hit, p)
		}
	}
	h.mu.Unlock()
	for _, p := range hit {
		p.end()
	}
	return len(hit)
}

// lookup returns the page with id on workspace ws, or nil.
func (h *Hub) lookup(ws, id string) *page {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.pages[id]; ok && p.ws == ws {
		return p
	}
	return nil
}

// Pages counts the open pages of a workspace in this process.
func (h *Hub) Pages(ws string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil {
		return len(r.pages)
	}
	return 0
}

// Present lists the people (display names) the hub knows to be on a workspace, from every
// replica, sorted.
func (h *Hub) Present(ws string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[ws]
	if r == nil {
		return nil
	}
	var out []string
	for _, pr := range r.roster {
		out = append(out, pr.Name)
	}
	sort.Strings(out)
	return out
}

// presenceRows is who the hub knows to be on a workspace, and self, for a page being rendered.
// The page's own person is there from the first paint: its stream joins the roster a moment
// later, and a header that grew then would move everything under the person's pointer.
func (h *Hub) presenceRows(ws string, names []string, self presence) []views.PresenceRow {
	h.mu.Lock()
	var list []presence
	if r := h.rooms[ws]; r != nil {
		list = r.rosterList()
	}
	h.mu.Unlock()
	return presenceModel(append(list, self), names)
}

// expect stashes the notice of an edit this process made, until its event arrives. Without an
// open page here no event will be delivered, so nothing is kept.
func (h *Hub) expect(ws string, seq int64, n Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil {
		r.pending[seq] = n
	}
}

// shown is what the workspace's pages were last sent as a change (room.shown); nil when no
// page is open.
func (h *Hub) shown(ws string) *state {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil {
		return r.shown
	}
	return nil
}

// setShown records st as sent to the workspace's pages. Callers hold the workspace's lock.
func (h *Hub) setShown(ws string, st *state) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil {
		r.shown = st
	}
}

// shownIfNone records st as what the workspace's pages show when no change was sent to them
// yet (a page joining a room it opens).
func (h *Hub) shownIfNone(ws string, st *state) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil && r.shown == nil {
		r.shown = st
	}
}

// Publish sends n to every page of ws except the one that made the change. That page patched
// itself, all but its History list: the answer to a change is not where its revision shows
// (an answer cut short by the page's next request to the same URL would leave the list
// stale), so it gets the list from its stream, in the store's order, as every other page does.
func (h *Hub) Publish(ws string, n Notice) {
	h.mu.Lock()
	var targets []*page
	var author *page
	if r := h.rooms[ws]; r != nil {
		targets = make([]*page, 0, len(r.pages))
		for id, p := range r.pages {
			if id != n.From {
				targets = append(targets, p)
			} else if n.History {
				author = p
			}
		}
	}
	h.mu.Unlock()
	for _, p := range targets {
		p.deliver(n)
	}
	if author != nil && (author.showsHistory() || author.showsReview()) {
		author.deliver(Notice{Version: n.Version, EditorTool: -1, History: true, cache: n.cache})
	}
}
