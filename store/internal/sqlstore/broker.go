package sqlstore

import (
	"context"
	"sync"

	"github.com/tool-workbench/workbench/store"
)

// subBuffer is how many events a subscriber may fall behind before the oldest are dropped. Events
// carry sequence numbers, so a subscriber that lost some fetches them with Store.Edits.
const subBuffer = 32

// Broker fans events out to the subscribers of each workspace in this process. It never blocks
// the publisher: a full subscriber loses its oldest event.
type Broker struct {
	mu   sync.Mutex
	subs map[string]map[chan store.Event]struct{}
}

// NewBroker returns a broker with no subscribers.
func NewBroker() *Broker { return &Broker{subs: map[string]map[chan store.Event]struct{}{}} }

// Subscribe registers a subscriber until ctx ends, when its channel is closed. No goroutine waits
// per subscriber (context.AfterFunc), so an idle subscriber costs its channel and little else.
func (b *Broker) Subscribe(ctx context.Context, workspace string) <-chan store.Event {
	ch := make(chan store.Event, subBuffer)
	b.mu.Lock()
	m := b.subs[workspace]
	if m == nil {
		m = map[chan store.Event]struct{}{}
		b.subs[workspace] = m
	}
	m[ch] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs[workspace], ch)
		if len(b.subs[workspace]) == 0 {
			delete(b.subs, workspace)
		}
		close(ch)
	})
	return ch
}

// Publish delivers ev to the workspace's subscribers.
func (b *Broker) Publish(ev store.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs[ev.Workspace] {
		send(ch, ev)
	}
}

// PublishAll delivers an event of kind k to every subscriber of every workspace.
func (b *Broker) PublishAll(k store.EventKind) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ws, m := range b.subs {
		for ch := range m {
			send(ch, store.Event{Workspace: ws, Kind: k})
		}
	}
}

// Subscribers counts the subscribers of a workspace.
func (b *Broker) Subscribers(workspace string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs[workspace])
}

// send puts ev on ch, dropping the oldest event when ch is full. Callers hold the broker's lock,
// so no other sender races; a receiver may, which the non-blocking selects allow for.
func send(ch chan store.Event, ev store.Event) {
	for {
		select {
		case ch <- ev:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}
