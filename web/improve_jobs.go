package web

// The improvement loop's background jobs (issue 18): "Improve with a model…" runs
// drafting.Improve outside the request that started it, since it takes minutes. A job belongs
// to one workspace; a workspace runs one at a time and the server at most maxImprovesRunning,
// each bounded by the server's lifetime (the runs service's context), improveTimeout and its
// call budget. The page polls the job's status; the job is kept until the next one of its
// workspace replaces it, or draftTTL after it ended.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/listing"
)

const (
	// maxImprovesRunning bounds the improvements a server runs at once.
	maxImprovesRunning = 2
	// maxImproveJobs bounds the jobs kept, ended ones included.
	maxImproveJobs = 256
	// improveTimeout bounds one improvement.
	improveTimeout = 30 * time.Minute
	// maxImproveLines bounds the progress lines a job keeps (the newest).
	maxImproveLines = 200
	// improveCloseWait bounds how long Server.Close waits for the cancelled loops to end (a
	// loop ends at its next model call or task run, which see the cancelled context).
	improveCloseWait = 10 * time.Second
)

// origTool is a tool as the job found it: Apply refuses when the head's differs, in its
// description or anywhere else (hash: its schema, title, annotations), since the loop judged
// the rewrites against the tool as it was.
type origTool struct {
	name, desc string
	hash       listing.Hash
}

// improveJob is one improvement of one workspace.
type improveJob struct {
	id, ws, endpoint string
	orig             []origTool
	cancel           context.CancelFunc

	mu       sync.Mutex
	running  bool
	canceled bool
	lines    []string
	rep      *drafting.ImproveReport
	problem  string
	applied  string
	// applying is set while an Apply stores the job's revision, and stays set once it stored
	// it: a job applies once (a second tab, a replayed POST, or Apply after Undo would store
	// the same rewrites again over a listing they were not judged against).
	applying bool
	ended    time.Time
}

// addLine keeps a line of the job's progress, the newest maxImproveLines only; j.mu is held.
func (j *improveJob) addLine(line string) {
	j.lines = append(j.lines, oneLine(line, 300))
	if n := len(j.lines); n > maxImproveLines {
		j.lines = append(j.lines[:0:0], j.lines[n-maxImproveLines:]...)
	}
}

// progress keeps a line of the loop's progress (the loop may tell it from its own goroutines).
func (j *improveJob) progress(line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.addLine(line)
}

// finish records how the loop ended.
func (j *improveJob) finish(rep *drafting.ImproveReport, problem string, now time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.running, j.rep, j.problem, j.ended = false, rep, problem, now
}

// snapshot is the job's state, read under its lock.
type improveSnapshot struct {
	running, canceled bool
	lines             []string
	rep               *drafting.ImproveReport
	problem, applied  string
}

func (j *improveJob) snapshot() improveSnapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	return improveSnapshot{running: j.running, canceled: j.canceled, lines: append([]string(nil), j.lines...),
		rep: j.rep, problem: j.problem, applied: j.applied}
}

// improveJobs are the server's jobs, by workspace.
type improveJobs struct {
	mu   sync.Mutex
	byWS map[string]*improveJob
	life improveLife
}

// improveLife is the loops' lifetime, the server's: Server.Close cancels every loop and waits
// for them to end, so that none calls a model after the server closed.
type improveLife struct {
	mu     sync.Mutex
	closed bool
	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

func (l *improveLife) init() {
	if l.ctx == nil {
		l.ctx, l.stop = context.WithCancel(context.Background())
	}
}

// start counts a loop in and returns the context that Close cancels, with done to call when
// the loop ended; false once the server closed.
func (l *improveLife) start() (ctx context.Context, done func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	if l.closed {
		return nil, nil, false
	}
	l.wg.Add(1)
	return l.ctx, l.wg.Done, true
}

// close cancels the loops and waits up to wait for them to end; false when some did not.
func (l *improveLife) close(wait time.Duration) bool {
	l.mu.Lock()
	l.init()
	l.closed = true
	l.mu.Unlock()
	l.stop()
	ended := make(chan struct{})
	go func() {
		l.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return true
	case <-time.After(wait):
		return false
	}
}

// get returns ws's job (running or ended, while kept), or nil.
func (js *improveJobs) get(ws string, now time.Time) *improveJob {
	js.mu.Lock()
	defer js.mu.Unlock()
	j := js.byWS[ws]
	if j == nil {
		return nil
	}
	j.mu.Lock()
	expired := !j.running && now.Sub(j.ended) > draftTTL
	j.mu.Unlock()
	if expired {
		delete(js.byWS, ws)
		return nil
	}
	return j
}

// add makes j ws's job, or says in words why it may not start now.
func (js *improveJobs) add(j *improveJob, now time.Time) string {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.byWS == nil {
		js.byWS = map[string]*improveJob{}
	}
	running := 0
	var oldest *improveJob
	var oldestEnded time.Time
	for ws, o := range js.byWS {
		o.mu.Lock()
		r, ended := o.running, o.ended
		o.mu.Unlock()
		switch {
		case r && ws == j.ws:
			return "An improvement is already running on this workspace; wait for it to end, or cancel it."
		case r:
			running++
		case now.Sub(ended) > draftTTL:
			delete(js.byWS, ws)
		case oldest == nil || ended.Before(oldestEnded):
			oldest, oldestEnded = o, ended
		}
	}
	if running >= maxImprovesRunning {
		return fmt.Sprintf("This server is already running %d improvements, its most at once; try again when one has ended.", running)
	}
	if _, ok := js.byWS[j.ws]; !ok && len(js.byWS) >= maxImproveJobs && oldest != nil {
		delete(js.byWS, oldest.ws)
	}
	js.byWS[j.ws] = j
	return ""
}

// changedTools are the tools the revised listing changed, with their index, as found when the
// job started, and their new description.
type changedTool struct {
	index          int
	name, old, new string
	hash           listing.Hash // the tool's content when the job started
}

func (j *improveJob) changed(rep *drafting.ImproveReport) []changedTool {
	if rep == nil || rep.Revised == nil {
		return nil
	}
	var out []changedTool
	for i, t := range rep.Revised.Tools {
		if i >= len(j.orig) {
			break
		}
		d := t.Get("description").String()
		if o := j.orig[i]; t.Get("name").String() == o.name && d != o.desc {
			out = append(out, changedTool{index: i, name: o.name, old: o.desc, new: d, hash: o.hash})
		}
	}
	return out
}

// snapshotTools is each tool's name and description.
func snapshotTools(l *listing.Listing) []origTool {
	out := make([]origTool, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = origTool{name: t.Get("name").String(), desc: t.Get("description").String(), hash: listing.HashOf(t)}
	}
	return out
}
