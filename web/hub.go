package web

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// Notice tells the pages open on a workspace that it changed. Shared holds the rendered patches
// every page applies alike (result regions, presence); each page then decides about its editor:
// it is re-rendered when EditorTool is the tool the page shows (or any tool, when Structure is
// set), unless the person is typing in that tool, who gets a short notice instead.
type Notice struct {
	Version    int
	From       string // page id of the browser that made the change; it patched itself
	Shared     []Patch
	EditorTool int
	Structure  bool
	// Tools are the tools whose content the change left different from what was sent before
	// (EditorTool's, and any that a change from elsewhere brought in with it): pages showing
	// one render it again, as for EditorTool. ParamsMoved are those whose parameters were
	// added, removed or moved: a page typing in one is told its next parameter change will be
	// refused.
	Tools       []int
	ParamsMoved []int
	// Field is the JSON pointer the change set ("" when it was not one field); Author and
	// AuthorID say who changed it, for "someone else just changed the field you are typing in".
	Field    string
	Author   string
	AuthorID string
	// TaskRows are the tasks whose fields the change left different: other pages show them.
	TaskRows []int
	// Undo is the author's undo state after the change, when known: the author's other pages
	// (tabs, replicas) show it too.
	Undo *store.UndoState
	// History asks pages whose History panel is open to show the revisions again.
	History bool
	// Full asks the page to re-render every region (it missed notices).
	Full bool
	// State is the workspace as the change left it, when the sender has it: pages render
	// their editor from it instead of each reading the store.
	State *state
	cache *renders
}

// renders keeps what the pages of one notice render alike (a tool's form, the revision list),
// rendered by the first page that needs it: 200 pages on a tool cost one render.
type renders struct {
	mu   sync.Mutex
	html map[int]string // by tool index; -1 is the revision list
}

// render returns the HTML under key, making it with f the first time. A nil *renders (a notice
// made without one) renders every time.
func (r *renders) render(key int, f func() (string, error)) (string, error) {
	if r == nil {
		return f()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.html[key]; ok {
		return h, nil
	}
	h, err := f()
	if err != nil {
		return "", err
	}
	if r.html == nil {
		r.html = map[int]string{}
	}
	r.html[key] = h
	return h, nil
}

// Patch is one rendered datastar-patch-elements event.
type Patch struct {
	Selector string // empty: patch by the element's own id
	Mode     string // empty: outer morph
	HTML     string
}

// focusWindow is how long after its last edit a page counts as typing in that field: remote
// changes to the tool then arrive as a notice, not as a re-rendered form.
const focusWindow = 20 * time.Second

// page is one open browser page.
type page struct {
	id  string
	ws  string
	who Author

	mu      sync.Mutex
	tool    int
	focus   string // the field pointer this page last edited
	focusAt time.Time
	history bool // the History panel has been opened
	ch      chan Notice

	// cred is the access the stream was opened with ("session:<id>", "link:<id>", or "" when
	// nothing can take it away); cut is closed when that access ends (sign-out, revocation), and
	// the stream then ends: the browser reconnects and is asked again.
	cred    string
	cut     chan struct{}
	cutOnce sync.Once
}

// end closes the page's stream because the access behind it ended.
func (p *page) end() { p.cutOnce.Do(func() { close(p.cut) }) }

func (p *page) ended() bool {
	select {
	case <-p.cut:
		return true
	default:
		return false
	}
}

func (p *page) selected() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tool
}

func (p *page) setSelected(t int) {
	p.mu.Lock()
	p.tool = t
	p.mu.Unlock()
}

// setFocus records the field the page is typing in (it reports it with each edit).
func (p *page) setFocus(ptr string) {
	p.mu.Lock()
	p.focus, p.focusAt = ptr, time.Now()
	p.mu.Unlock()
}

// typingIn returns the field the page edited within focusWindow, if it belongs to tool t.
func (p *page) typingIn(t int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.focus == "" || time.Since(p.focusAt) > focusWindow || toolOfPtr(p.focus) != t {
		return ""
	}
	return p.focus
}

// typingTask reports whether the page edited task i within focusWindow.
func (p *page) typingTask(i int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Since(p.focusAt) <= focusWindow && strings.HasPrefix(p.focus, "tasks/"+strconv.Itoa(i)+"/")
}

func (p *page) showsHistory() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.history
}

func (p *page) openHistory() {
	p.mu.Lock()
	p.history = true
	p.mu.Unlock()
}

// toolOfPtr is the tool index of a pointer under /tools/N, else -1.
func toolOfPtr(ptr string) int {
	toks, err := listing.SplitPointer(ptr)
	if err != nil || len(toks) < 2 || toks[0] != "tools" {
		return -1
	}
	n, err := strconv.Atoi(toks[1])
	if err != nil {
		return -1
	}
	return n
}

// presence is one page somewhere (this process or another replica) open on a workspace.
type presence struct {
	PID      string
	Name     string
	AuthorID string
	Field    string // "/tools/N": the tool the page shows
	seen     time.Time
}

// room is one workspace with pages open in this process: one store subscription feeds them all,
// so edits from this process and from other replicas arrive the same way.
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
}

// Hub fans a workspace's events out to its pages. A page's stream drains its channel; a page that
// falls behind loses notices rather than slowing everyone (it gets a full refresh instead).
type Hub struct {
	s     *Server
	mu    sync.Mutex
	pages map[string]*page // by page id
	rooms map[string]*room // by workspace id
}

// newHub returns an empty hub for s.
func newHub(s *Server) *Hub {
	return &Hub{s: s, pages: map[string]*page{}, rooms: map[string]*room{}}
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
		events, err := h.s.db.Subscribe(ctx, ws)
		if err != nil {
			cancel()
			return nil, storeErr(err)
		}
		// After subscribing: a put between the two then shows twice here, rather than a count
		// left over from a put whose event never came hiding another replica's.
		h.s.runs.local.forget(ws)
		r = &room{ws: ws, pages: map[string]*page{}, cancel: cancel, pending: map[int64]Notice{}, roster: map[string]presence{}}
		h.rooms[ws] = r
		go h.run(r, events)
	}
	p := &page{id: id, ws: ws, tool: tool, who: who, ch: make(chan Notice, 16), cred: cred, cut: make(chan struct{})}
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

// expect stashes the notice of an edit this process made, until its event arrives. Without an
// open page here no event will be delivered, so nothing is kept.
func (h *Hub) expect(ws string, seq int64, n Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[ws]; r != nil {
		r.pending[seq] = n
	}
}

// Publish sends n to every page of ws except the one that made the change.
func (h *Hub) Publish(ws string, n Notice) {
	h.mu.Lock()
	var targets []*page
	if r := h.rooms[ws]; r != nil {
		targets = make([]*page, 0, len(r.pages))
		for id, p := range r.pages {
			if id != n.From {
				targets = append(targets, p)
			}
		}
	}
	h.mu.Unlock()
	for _, p := range targets {
		deliver(p, n)
	}
}

// deliver puts n on the page's channel without blocking.
func deliver(p *page, n Notice) {
	select {
	case p.ch <- n:
	default:
		// The page is behind: drop the oldest notice and mark the newest as a full refresh.
		select {
		case <-p.ch:
		default:
		}
		n.Full = true
		select {
		case p.ch <- n:
		default:
		}
	}
}

// run turns the room's store events into notices until the subscription ends.
func (h *Hub) run(r *room, events <-chan store.Event) {
	tick := time.NewTicker(h.s.alive)
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
		// A run was stored here or on another replica: see onRuns.
		h.onRuns(r)
	case store.EventRevision, store.EventTitle:
		h.Publish(r.ws, Notice{EditorTool: -1, History: true})
	case store.EventResync, store.EventDeleted:
		h.Publish(r.ws, Notice{Full: true, History: true})
	}
}

// onEdit delivers an accepted edit of the listing or the task file: the notice the originating
// handler stashed, or, for an edit made by another replica, one rendered here from the new head.
func (h *Hub) onEdit(r *room, ev store.Event) {
	unlock := h.s.lock(r.ws)
	h.mu.Lock()
	n, local := r.pending[ev.Seq]
	delete(r.pending, ev.Seq)
	for seq := range r.pending {
		if seq < ev.Seq { // their events were lost; the state diff below covers them
			delete(r.pending, seq)
		}
	}
	stale := ev.Seq <= r.seen
	if !stale {
		r.seen = ev.Seq
	}
	h.mu.Unlock()
	if local {
		unlock()
		n.History = true
		h.Publish(r.ws, n)
		return
	}
	if stale {
		unlock()
		return
	}
	unlock()
	if ev.Kind == store.EventTasks {
		// The tasks that differ from what was shown get their fields on every page (the table
		// whole when its shape changed): see onRemoteChange.
		h.onRemoteChange(r, ev, Notice{EditorTool: -1, Author: ev.Author, AuthorID: ev.AuthorID, History: true}, false)
		return
	}
	structure := ev.Field == ""
	h.onRemoteChange(r, ev, Notice{EditorTool: toolOfPtr(ev.Field), Structure: structure, Field: ev.Field,
		Author: ev.Author, AuthorID: ev.AuthorID, History: true}, structure)
}

// changedTools lists the tools whose content differs between two states of one listing shape
// (nil when the shapes differ: everything is rendered again then).
func changedTools(old, st *state) []int {
	if old == nil || len(old.ws.Listing.Tools) != len(st.ws.Listing.Tools) {
		return nil
	}
	var out []int
	for i, t := range st.ws.Listing.Tools {
		if o := old.ws.Listing.Tools[i]; o != t && listing.HashOf(o) != listing.HashOf(t) {
			out = append(out, i)
		}
	}
	return out
}

// paramsMoved lists the tools whose parameters' shape differs between two states of one tools
// shape.
func paramsMoved(old, st *state) []int {
	if old == nil || old.ws.ToolsShape != st.ws.ToolsShape {
		return nil
	}
	var out []int
	for t, v := range st.ws.ParamsShapes {
		if old.ws.ParamsShapes[t] != v {
			out = append(out, t)
		}
	}
	return out
}

// onRemoteChange renders the shared regions that differ from what this process last showed;
// tasks says the task table must be re-rendered whole.
func (h *Hub) onRemoteChange(r *room, ev store.Event, n Notice, tasks bool) {
	s := h.s
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock := s.lock(r.ws)
	ws, err := s.store.Get(ctx, r.ws, Author{})
	if err != nil {
		unlock()
		s.log.Warn("live update: read workspace", "ws", r.ws, "err", err)
		h.Publish(r.ws, Notice{Full: true})
		return
	}
	old := s.shownState(r.ws)
	if old != nil && old.version >= ws.Version {
		// Already shown: a change sent since carried this one's state (or a later one).
		unlock()
		return
	}
	st := s.current(ws)
	s.setShown(r.ws, st)
	n.Version = ws.Version
	n.State, n.cache = st, &renders{}
	// Tools moved since this process last sent a change (the edit's field does not say: a
	// restore is one set of the tools). Moved parameters are the edited tool's: the pages
	// showing it render it again, as for any edit of it.
	if old == nil || old.ws.ToolsShape != st.ws.ToolsShape {
		n.Structure = true
	}
	n.Tools, n.ParamsMoved = changedTools(old, st), paramsMoved(old, st)
	rows, reshaped := changedTaskRows(old, st)
	n.Shared = sharedPatches(ctx, old, st, tasks || reshaped)
	if !tasks && !reshaped {
		n.TaskRows = rows
	}
	unlock()
	h.Publish(r.ws, n)
}

// announce tells every replica where page p is: state is "join", "here" (a heartbeat or a move)
// or "left".
func (h *Hub) announce(p *page, state string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev := store.Event{Workspace: p.ws, Kind: store.EventPresence, Author: p.who.Name, AuthorID: p.who.ID,
		Field: "/tools/" + strconv.Itoa(p.selected()), Detail: p.id + " " + state}
	if err := h.s.db.Announce(ctx, ev); err != nil {
		h.s.log.Warn("announce presence", "ws", p.ws, "err", err)
	}
}

// onPresence updates the room's roster and shows it on every page.
func (h *Hub) onPresence(r *room, ev store.Event) {
	pid, state, _ := strings.Cut(ev.Detail, " ")
	if !wsIDPattern.MatchString(pid) {
		return // not one of ours
	}
	h.mu.Lock()
	_, known := r.roster[pid]
	_, local := r.pages[pid]
	var mine []*page
	prev := r.roster[pid]
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

// expire drops pages that stopped sending heartbeats (a replica that died).
func (h *Hub) expire(r *room) {
	h.mu.Lock()
	changed := false
	for pid, pr := range r.roster {
		if time.Since(pr.seen) > 3*h.s.alive {
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
	list := make([]presence, 0, len(r.roster))
	for _, pr := range r.roster {
		list = append(list, pr)
	}
	h.mu.Unlock()
	var names []string
	if st := h.s.namesState(r.ws); st != nil {
		names = st.names
	}
	html := render(context.Background(), presenceView(list, names))
	h.Publish(r.ws, Notice{EditorTool: -1, Shared: []Patch{{HTML: html}}})
}

// presenceRows is who the hub knows to be on a workspace, for a page being rendered.
func (h *Hub) presenceRows(ws string, names []string) []views.PresenceRow {
	h.mu.Lock()
	var list []presence
	if r := h.rooms[ws]; r != nil {
		for _, pr := range r.roster {
			list = append(list, pr)
		}
	}
	h.mu.Unlock()
	return presenceModel(list, names)
}

// fieldNoticeText says who changed what the person is typing in.
func fieldNoticeText(n Notice, typing string) string {
	who := n.Author
	if who == "" {
		who = "Someone"
	}
	if slices.Contains(n.ParamsMoved, toolOfPtr(typing)) {
		return who + " just added, removed or moved a parameter of this tool. Your form was left as it is; a parameter change you make in it now will not be saved (you get its text back with the table as it stands), while the tool's other fields still save."
	}
	if n.Field != "" && n.Field == typing {
		return who + " just changed the field you are typing in (" + describePath(n.Field) + "). What you type next replaces their text: the last writer wins, and History keeps both."
	}
	return who + " just changed this tool (" + describePath(n.Field) + "). Your form was left as it is so that nothing you type is lost."
}

// heldFlusher lets a stream write several SSE events and flush once: the Datastar generator
// flushes after every event, and while hold is set those flushes wait for flush.
type heldFlusher struct {
	http.ResponseWriter
	hold bool // only the stream's own goroutine touches it
}

// Flush is what the generator calls after each event.
func (h *heldFlusher) Flush() {
	if !h.hold {
		_ = h.flush()
	}
}

func (h *heldFlusher) flush() error {
	return http.NewResponseController(h.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the connection's own writer for everything else.
func (h *heldFlusher) Unwrap() http.ResponseWriter { return h.ResponseWriter }
