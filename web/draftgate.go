package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
)

// A drafting ask waits on a model for up to the request's deadline (a minute by default). Were
// it to hold one of the server's request slots meanwhile (bound), one editor asking a slow
// endpoint eight times would take every slot of a two-core server and every other page would
// be refused. So drafting asks pass a gate of their own, which answers at once when it is full
// (the dialog says the model is busy; no waiting, no error page), and an ask that passed it
// gives back its request slot while it waits on the model (releaseSlot): the gate, not the
// slots, bounds the asks in flight, and the slots stay for the pages.
const (
	// maxDraftsPerWorkspace bounds one workspace's asks in flight: two lets a person compare
	// two endpoints at once, and no more.
	maxDraftsPerWorkspace = 2
	// maxDraftsPerServer bounds the asks in flight on the server, whoever asks: each holds a
	// goroutine, an endpoint connection, and scores candidates on the CPU when the model answers.
	maxDraftsPerServer = 4
)

// draftGate counts the drafting asks in flight, by workspace and in all.
type draftGate struct {
	mu    sync.Mutex
	byWS  map[string]int
	total int
}

// enter lets an ask of workspace ws in, or says why not in the dialog's words. leave must be
// called once the ask is done.
func (g *draftGate) enter(ws string) (leave func(), busy string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byWS == nil {
		g.byWS = map[string]int{}
	}
	switch {
	case g.byWS[ws] >= maxDraftsPerWorkspace:
		return nil, modelBusy(g.byWS[ws])
	case g.total >= maxDraftsPerServer:
		return nil, modelBusy(g.total)
	}
	g.byWS[ws]++
	g.total++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.total--
			if g.byWS[ws]--; g.byWS[ws] <= 0 {
				delete(g.byWS, ws)
			}
		})
	}, ""
}

func modelBusy(n int) string {
	return fmt.Sprintf("The model is busy with %d other requests; try again in a moment.", n)
}

// APIDraftGate lets the API's drafting request r in through the pages' gate (the API's
// Options.DraftGate), or says in words why not: one gate bounds the asks of the pages and of
// the API, four on the server. The API's asks are counted by caller, two each as a workspace's
// are: by the signed-in person or chosen name, and under one "api" for callers with neither.
func (s *Server) APIDraftGate(r *http.Request) (leave func(), busy string) {
	key := "api"
	if p, err := s.auth.who(r); err == nil && (p.signed || p.named) {
		id := p.authorID
		if id == "" {
			id = p.name
		}
		key = "api:" + id // a workspace's key is 32 hex digits: these never meet
	}
	return s.draftGate.enter(key)
}

// ReleaseSlot gives back the request slot r holds, if any (the API's Options.Release): called
// by the API's drafting request once it passed APIDraftGate, before it waits on the model.
func (s *Server) ReleaseSlot(r *http.Request) { releaseSlot(r.Context()) }

// slotKey is the context key of a request's slot (bound puts it there).
type slotKey struct{}

// heldSlot is a request slot that can be given back once, before the request ends.
type heldSlot struct {
	once sync.Once
	l    *limiter
}

func (h *heldSlot) release() { h.once.Do(h.l.release) }

// releaseSlot gives back the request slot of ctx's request, if it holds one: called by a
// drafting ask that passed the gate, before it waits on the model.
func releaseSlot(ctx context.Context) {
	if h, ok := ctx.Value(slotKey{}).(*heldSlot); ok {
		h.release()
	}
}
