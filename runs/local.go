package runs

import (
	"context"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// localRuns counts the runs this process stores, per workspace, so that the caller's event
// handler can tell the EventRuns of its own saves (whose progress Notify reports, fresher)
// from another replica's. Each PutRun or UpdateRun that succeeds makes one event (TouchRun
// none); the count is raised before the write, so that the event cannot be seen before it,
// and lowered as the event is seen (Service.OwnEvent), or by a write that failed (a Conflict
// included: it sent nothing).
type localRuns struct {
	Store
	mu      sync.Mutex
	pending map[string]int
}

func (l *localRuns) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	l.expect(r.Workspace)
	out, err := l.Store.PutRun(ctx, r)
	if err != nil {
		l.take(r.Workspace)
	}
	return out, err
}

func (l *localRuns) UpdateRun(ctx context.Context, r store.Run, prev time.Time) (store.Run, error) {
	l.expect(r.Workspace)
	out, err := l.Store.UpdateRun(ctx, r, prev)
	if err != nil {
		l.take(r.Workspace)
	}
	return out, err
}

// TouchRun is forwarded as is: it sends no event, so there is nothing to count.
func (l *localRuns) TouchRun(ctx context.Context, ws, id string, prev, at time.Time) error {
	return l.Store.TouchRun(ctx, ws, id, prev, at)
}

// expect counts one write on ws whose event is to come.
func (l *localRuns) expect(ws string) {
	l.mu.Lock()
	l.pending[ws]++
	l.mu.Unlock()
}

// take reports whether one of this process's puts on ws was still waiting for its event, and
// counts it as seen.
func (l *localRuns) take(ws string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[ws] == 0 {
		return false
	}
	l.pending[ws]--
	if l.pending[ws] == 0 {
		delete(l.pending, ws)
	}
	return true
}

// forget drops the count of ws when the caller subscribes to it: events of puts made while it
// was not subscribed were never delivered, and must not hide another replica's later ones.
func (l *localRuns) forget(ws string) {
	l.mu.Lock()
	delete(l.pending, ws)
	l.mu.Unlock()
}
