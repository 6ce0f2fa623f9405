package challenge

import (
	"context"
	"sync"
)

// flights shares leaderboard reads: every open leaderboard page asks for the board at every
// score of every participant, and with many pages open the same reads pile up. A caller joins
// the next read of its challenge, which starts once the read in progress (if any) is done, so
// that it always sees what was stored before it asked; however many callers come meanwhile,
// the store is read at most twice per burst.
type flights struct {
	mu sync.Mutex
	m  map[string]*flightGroup
}

type flightGroup struct {
	running bool
	next    *flight // the read that starts after the one running; later callers share it
}

type flight struct {
	done chan struct{}
	b    Board
	err  error
}

func (fs *flights) board(ctx context.Context, id string, read func(context.Context) (Board, error)) (Board, error) {
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = map[string]*flightGroup{}
	}
	g := fs.m[id]
	if g == nil {
		g = &flightGroup{}
		fs.m[id] = g
	}
	if g.next == nil {
		g.next = &flight{done: make(chan struct{})}
	}
	f := g.next
	start := !g.running
	if start {
		g.running, g.next = true, nil
	}
	fs.mu.Unlock()
	if start {
		// The read serves other callers too: one caller leaving does not stop it.
		fs.run(context.WithoutCancel(ctx), id, g, f, read)
	}
	select {
	case <-f.done:
		return f.b, f.err
	case <-ctx.Done():
		return Board{}, ctx.Err()
	}
}

// run reads f, then hands the next read, if callers are waiting for one, to a goroutine.
func (fs *flights) run(ctx context.Context, id string, g *flightGroup, f *flight, read func(context.Context) (Board, error)) {
	f.b, f.err = read(ctx)
	close(f.done)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	next := g.next
	if next == nil {
		g.running = false
		delete(fs.m, id)
		return
	}
	g.next = nil
	go fs.run(ctx, id, g, next, read)
}
