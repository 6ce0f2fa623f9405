package web

import (
	"sync"
)

// Notice tells the pages open on a workspace that it changed. Shared holds the rendered patches
// every page applies alike (result regions); pages re-render their own editor when
// EditorTool is the tool they show (or any tool, when Structure is set).
type Notice struct {
	Version    int
	From       string // page id of the browser that made the change; it patched itself
	Shared     []Patch
	EditorTool int
	Structure  bool
	// Full asks the page to re-render every region (it missed notices).
	Full bool
}

// Patch is one rendered datastar-patch-elements event.
type Patch struct {
	Selector string // empty: patch by the element's own id
	Mode     string // empty: outer morph
	HTML     string
}

// page is one open browser page.
type page struct {
	id   string
	ws   string
	mu   sync.Mutex
	tool int
	ch   chan Notice
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

// Hub fans notices out to the pages of a workspace. A page's stream drains its channel; a page
// that falls behind loses notices rather than slowing everyone (it gets a full refresh instead).
type Hub struct {
	mu    sync.Mutex
	pages map[string]*page            // by page id
	byWS  map[string]map[string]*page // workspace id → page id → page
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{pages: map[string]*page{}, byWS: map[string]map[string]*page{}}
}

// join registers a page (or returns the one already registered under id).
func (h *Hub) join(ws, id string, tool int) *page {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.pages[id]; ok && p.ws == ws {
		return p
	}
	p := &page{id: id, ws: ws, tool: tool, ch: make(chan Notice, 16)}
	h.pages[id] = p
	if h.byWS[ws] == nil {
		h.byWS[ws] = map[string]*page{}
	}
	h.byWS[ws][id] = p
	return p
}

// leave removes a page whose stream ended.
func (h *Hub) leave(p *page) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pages[p.id] == p {
		delete(h.pages, p.id)
		delete(h.byWS[p.ws], p.id)
		if len(h.byWS[p.ws]) == 0 {
			delete(h.byWS, p.ws)
		}
	}
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

// Publish sends n to every page of ws except the one that made the change.
func (h *Hub) Publish(ws string, n Notice) {
	h.mu.Lock()
	targets := make([]*page, 0, len(h.byWS[ws]))
	for id, p := range h.byWS[ws] {
		if id != n.From {
			targets = append(targets, p)
		}
	}
	h.mu.Unlock()
	for _, p := range targets {
		select {
		case p.ch <- n:
		default:
			// The page is behind: drop the oldest notice and mark the newest as a full refresh.
			select {
			case <-p.ch:
			default:
			}
			n2 := n
			n2.Full = true
			select {
			case p.ch <- n2:
			default:
			}
		}
	}
}

// Pages counts the open pages of a workspace.
func (h *Hub) Pages(ws string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byWS[ws])
}
