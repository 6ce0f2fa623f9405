package web

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
)

// focusWindow is how long after its last edit a page counts as typing in that field: remote
// changes to the tool then arrive as a notice, not as a re-rendered form.
const focusWindow = 20 * time.Second

// page is one open browser page. Its id, ws, who and cred are set when it joins and never
// change, so anything may read them; the rest is behind mu or the methods below.
type page struct {
	id  string
	ws  string
	who Author

	mu      sync.Mutex
	tool    int
	focus   string // the field pointer this page last edited
	focusAt time.Time
	history bool // the History panel has been opened
	review  bool // the Review panel is open: opened, and not left since (review.go)
	// reviewHash and reviewShown are the content hash its sign-off form names and the
	// listing it had when the panel was opened or refreshed (nil: not known).
	reviewHash  string
	reviewShown *listing.Listing
	list        listView // the tool list's search and window (tools.go)
	ch          chan Notice

	// cost is the page's choice in the Cost tab and what it was last sent (cost.go).
	cost pageCost

	// cred is the access the stream was opened with ("session:<id>", "link:<id>", or "" when
	// nothing can take it away); cut is closed when that access ends (sign-out, revocation), and
	// the stream then ends: the browser reconnects and is asked again.
	cred    string
	cut     chan struct{}
	cutOnce sync.Once
}

// pageBacklog is how many notices a page may fall behind before it is sent a full refresh.
const pageBacklog = 16

func newPage(id, ws string, tool int, who Author, cred string) *page {
	return &page{id: id, ws: ws, tool: tool, who: who, ch: make(chan Notice, pageBacklog), cred: cred, cut: make(chan struct{})}
}

// notices is what the page's stream forwards.
func (p *page) notices() <-chan Notice { return p.ch }

// cutOff is closed when the access the page's stream was opened with ends.
func (p *page) cutOff() <-chan struct{} { return p.cut }

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

// deliver puts n on the page's channel without blocking.
func (p *page) deliver(n Notice) {
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

// showsReview reports whether the page has opened its Review panel: live updates render it.
func (p *page) showsReview() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.review
}

// openReview marks the page's Review panel open.
func (p *page) openReview() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.review = true
}

// leaveReview marks the page's Review panel closed: live updates no longer render it (the page
// loads it afresh when it opens the tab again).
func (p *page) leaveReview() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.review, p.reviewHash, p.reviewShown = false, "", nil
}

// showReview marks the page's Review panel open on the listing l of content hash hash (l nil
// when it is not known): what its sign-off form names.
func (p *page) showReview(hash string, l *listing.Listing) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.review, p.reviewHash, p.reviewShown = true, hash, l
}

// reviewShownAt is what showReview recorded.
func (p *page) reviewShownAt() (string, *listing.Listing) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reviewHash, p.reviewShown
}
