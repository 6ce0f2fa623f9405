package web

import (
	"net/netip"
	"sync"
)

// The projector's leaderboard stream needs no sign-in and holds a goroutine and a rendering
// of the board per score event, so the open ones are bounded: per client (a projector, the
// teacher's tabs, a few phones behind one address) and per challenge (a room's worth of
// phones, well over MaxParticipants' usual rooms). Past either the stream is refused with 429;
// a stream gives its place back when it closes.
const (
	boardStreamsPerClient    = 8
	boardStreamsPerChallenge = 600
)

// boardStreams counts the open leaderboard streams.
type boardStreams struct {
	mu           sync.Mutex
	perChallenge int // the bound per challenge (boardStreamsPerChallenge; tests lower it)
	client       map[netip.Prefix]int
	challenge    map[string]int
}

func newBoardStreams() *boardStreams {
	return &boardStreams{perChallenge: boardStreamsPerChallenge, client: map[netip.Prefix]int{}, challenge: map[string]int{}}
}

// take holds a place for a stream of challenge cid from client key. It says which bound is
// full ("client" or "challenge") when there is no place, and "" when it took one: the caller
// then gives it back with release.
func (b *boardStreams) take(key netip.Prefix, cid string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client[key] >= boardStreamsPerClient {
		return "client"
	}
	if b.challenge[cid] >= b.perChallenge {
		return "challenge"
	}
	b.client[key]++
	b.challenge[cid]++
	return ""
}

// release gives back the place take held.
func (b *boardStreams) release(key netip.Prefix, cid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client[key]--; b.client[key] <= 0 {
		delete(b.client, key)
	}
	if b.challenge[cid]--; b.challenge[cid] <= 0 {
		delete(b.challenge, cid)
	}
}

// open is the number of open streams of challenge cid.
func (b *boardStreams) open(cid string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.challenge[cid]
}
