package runner

import (
	"context"
	"sync"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Job is a run in the background, for a server: progress arrives on a channel, Cancel stops it
// (finished calls are kept), Wait returns the result.
type Job struct {
	events chan Progress
	cancel context.CancelFunc
	done   chan struct{}
	run    *Run
	err    error
	mu     sync.Mutex
	last   Progress
}

// Start begins a run in the background. Events receives every progress report; a slow reader
// misses intermediate reports rather than slowing the run (Latest always has the newest), and
// the channel closes when the run ends. opts.Progress, if set, is still called.
func Start(ctx context.Context, c *Client, l *listing.Listing, tasks []selection.Task, opts Options) *Job {
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{events: make(chan Progress, 64), cancel: cancel, done: make(chan struct{})}
	user := opts.Progress
	opts.Progress = func(p Progress) {
		if user != nil {
			user(p)
		}
		j.mu.Lock()
		j.last = p
		j.mu.Unlock()
		select {
		case j.events <- p:
		default:
		}
	}
	go func() {
		defer close(j.done)
		defer close(j.events)
		defer cancel()
		j.run, j.err = Execute(ctx, c, l, tasks, opts)
	}()
	return j
}

// Events is the progress channel; it closes when the run ends.
func (j *Job) Events() <-chan Progress { return j.events }

// Latest is the newest progress report.
func (j *Job) Latest() Progress {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.last
}

// Cancel stops the run; calls in flight are abandoned, finished ones kept.
func (j *Job) Cancel() { j.cancel() }

// Done is closed when the run has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait blocks until the run ends and returns what Execute returned.
func (j *Job) Wait() (*Run, error) {
	<-j.done
	return j.run, j.err
}
