package web

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// presence is one page somewhere (this process or another replica) open on a workspace.
type presence struct {
	PID      string
	Name     string
	AuthorID string
	Field    string // "/tools/N": the tool the page shows
	seen     time.Time
}

// room is one workspace with pages open in this process: one store subscription feeds them all,
// so edits from this process and from other replicas arrive the same way. Its fields are
// guarded by the hub's lock.
type room struct {
	ws     string
	pages  map[string]*page
	cancel context.CancelFunc
	// pending are the notices of edits made through this process, by sequence number, waiting
	// for their event: the originating handler rendered them already.
	pending map[int64]Notice
	roster  map[string]presence // by page id
	seen    int64               // highest edit seq delivered
	// presenceDue is set while a presence update is scheduled.
	presenceDue bool
	// shown is what the room's pages were last sent as a change: the diff base of the next
	// change, and how an event from another replica knows it was shown already. Set when the
	// first page joins, it lives as long as the room (a read that analyses a newer head must
	// not move it, or the change that brought that head would never be sent).
	shown *state
	// profile is the workspace's profile as last read from the store, while profileKnown;
	// profileGen counts the profile events heard, so that a read that raced one is not kept
	// (profile.go).
	profile      string
	profileKnown bool
	profileGen   uint64
}

func newRoom(ws string, cancel context.CancelFunc) *room {
	return &room{ws: ws, pages: map[string]*page{}, cancel: cancel, pending: map[int64]Notice{}, roster: map[string]presence{}}
}

// rosterList copies the roster (under the hub's lock).
func (r *room) rosterList() []presence {
	list := make([]presence, 0, len(r.roster))
	for _, pr := range r.roster {
		list = append(list, pr)
	}
	return list
}

// run turns the room's store events into notices until the subscription ends.
func (h *Hub) run(r *room, events <-chan store.Event) {
	tick := time.NewTicker(h.host.keepAlive())
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			h.handle(r, ev)
		case <-tick.C:
			h.expire(r)
		}
	}
}

func (h *Hub) handle(r *room, ev store.Event) {
	switch ev.Kind {
	case store.EventEdit, store.EventTasks:
		h.onEdit(r, ev)
	case store.EventPresence:
		h.onPresence(r, ev)
	case store.EventRuns:
		// A run was stored here or on another replica: the server decides what its pages show.
		h.host.onRuns(r.ws)
	case store.EventReview:
		// One render of the review for all the pages (forwardReview).
		h.Publish(r.ws, Notice{EditorTool: -1, Review: true, cache: &renders{}})
	case store.EventRevision:
		h.Publish(r.ws, Notice{EditorTool: -1, History: true})
	case store.EventTitle:
		h.Publish(r.ws, Notice{EditorTool: -1, History: true, Renamed: true})
	case store.EventMeta:
		if ev.Field == profileMetaKey { // set here or on another replica: every page follows it
			h.forgetProfile(r)
			h.Publish(r.ws, Notice{Full: true})
		}
		if ev.Field == reviewRequireKey { // the approvals required: the gate again
			h.Publish(r.ws, Notice{EditorTool: -1, Review: true, cache: &renders{}})
		}
	case store.EventChallenge:
		// A participant's score or their challenge's state: the bar of their copy's pages.
		h.Publish(r.ws, Notice{EditorTool: -1, Challenge: true})
	case store.EventResync, store.EventDeleted:
		h.forgetProfile(r)
		h.Publish(r.ws, Notice{Full: true, History: true})
	}
}

// onEdit delivers an accepted edit of the listing or the task file: the notice the originating
// handler stashed, or, for an edit made by another replica, one rendered here from the new head.
func (h *Hub) onEdit(r *room, ev store.Event) {
	// Under the workspace's lock: the handler that made the edit stashes its notice (expect)
	// before it lets go of it.
	unlock := h.host.lock(r.ws)
	h.mu.Lock()
	n, local := r.pending[ev.Seq]
	delete(r.pending, ev.Seq)
	for seq := range r.pending {
		if seq < ev.Seq { // their events were lost; the state diff covers them
			delete(r.pending, seq)
		}
	}
	stale := ev.Seq <= r.seen
	if !stale {
		r.seen = ev.Seq
	}
	h.mu.Unlock()
	unlock()
	if local {
		n.History = true
		h.Publish(r.ws, n)
		return
	}
	if stale {
		return
	}
	// An edit made by another replica. The tasks that differ from what was shown get their
	// fields on every page (the table whole when its shape changed): see Server.changeNotice.
	n, whole := Notice{EditorTool: -1, Author: ev.Author, AuthorID: ev.AuthorID, History: true}, false
	if ev.Kind == store.EventEdit {
		whole = ev.Field == ""
		n.EditorTool, n.Structure, n.Field = toolOfPtr(ev.Field), whole, ev.Field
	}
	if n, ok := h.host.changeNotice(r.ws, n, whole); ok {
		h.Publish(r.ws, n)
	}
}

// announce tells every replica where page p is: state is "join", "here" (a heartbeat or a move)
// or "left".
func (h *Hub) announce(p *page, state string) {
	h.host.announcePresence(store.Event{Workspace: p.ws, Kind: store.EventPresence, Author: p.who.Name, AuthorID: p.who.ID,
		Field: "/tools/" + strconv.Itoa(p.selected()), Detail: p.id + " " + state})
}

// onPresence updates the room's roster and shows it on every page.
func (h *Hub) onPresence(r *room, ev store.Event) {
	pid, state, _ := strings.Cut(ev.Detail, " ")
	if !wsIDPattern.MatchString(pid) {
		return // not one of ours
	}
	h.mu.Lock()
	prev, known := r.roster[pid]
	_, local := r.pages[pid]
	var mine []*page
	changed := true
	if state == "left" {
		delete(r.roster, pid)
		changed = known
	} else {
		// A heartbeat of a page that has not moved changes nothing on screen.
		changed = !known || prev.Name != ev.Author || prev.AuthorID != ev.AuthorID || prev.Field != ev.Field
		r.roster[pid] = presence{PID: pid, Name: ev.Author, AuthorID: ev.AuthorID, Field: ev.Field, seen: time.Now()}
		if state == "join" && !known && !local {
			// Someone arrived on another replica: tell them who is here.
			for _, p := range r.pages {
				mine = append(mine, p)
			}
		}
	}
	h.mu.Unlock()
	for _, p := range mine {
		h.announce(p, "here")
	}
	if changed {
		h.schedulePresence(r)
	}
}

// minPresenceExpiry is the least silence that drops a page from the roster: with a short
// keep-alive (tests, a proxy that needs one), three missed ticks are a GC pause or a busy
// machine, not a dead replica, and dropping a live page sends every page two needless patches.
const minPresenceExpiry = 2 * time.Second

// expire drops pages that stopped sending heartbeats (a replica that died).
func (h *Hub) expire(r *room) {
	h.mu.Lock()
	changed := false
	limit := max(3*h.host.keepAlive(), minPresenceExpiry)
	for pid, pr := range r.roster {
		if time.Since(pr.seen) > limit {
			delete(r.roster, pid)
			changed = true
		}
	}
	h.mu.Unlock()
	if changed {
		h.schedulePresence(r)
	}
}

// presenceDelay gathers the presence changes of a burst (a room of people arriving at once)
// into one update, so that n arrivals cost each page one patch rather than n.
const presenceDelay = 100 * time.Millisecond

func (h *Hub) schedulePresence(r *room) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.presenceDue {
		return
	}
	r.presenceDue = true
	time.AfterFunc(presenceDelay, func() {
		h.mu.Lock()
		r.presenceDue = false
		h.mu.Unlock()
		h.showPresence(r)
	})
}

// showPresence sends the presence region to every page of the room.
func (h *Hub) showPresence(r *room) {
	h.mu.Lock()
	list := r.rosterList()
	h.mu.Unlock()
	h.Publish(r.ws, Notice{EditorTool: -1, Shared: []Patch{h.host.presencePatch(r.ws, list)}})
}
