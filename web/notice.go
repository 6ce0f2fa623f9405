package web

import (
	"slices"
	"sync"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
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
	// Review asks pages whose Review panel is open to show it again (a comment, a resolution
	// or a sign-off; an edit, whose notice asks for History, does too: review.go).
	Review bool
	// Renamed asks the page to show the workspace's name again.
	Renamed bool
	// Challenge asks a participant's page to show its workshop bar again (challenge_join.go).
	Challenge bool
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
	mu    sync.Mutex
	html  map[int]string    // by tool index; -1 is the revision list
	named map[string]string // by name: the sign-off notes by the hash their pages opened (review.go)

	// The review's threads, read once for all the pages and tools of the notice (review.go):
	// apart from mu, since renders under mu read them.
	threadsOnce sync.Once
	threads     []review.Thread
	threadsErr  error
}

// reviewThreads returns the review's threads, read with f the first time. A nil *renders
// reads every time.
func (r *renders) reviewThreads(f func() ([]review.Thread, error)) ([]review.Thread, error) {
	if r == nil {
		return f()
	}
	r.threadsOnce.Do(func() { r.threads, r.threadsErr = f() })
	return r.threads, r.threadsErr
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

// renderNamed is render under a name.
func (r *renders) renderNamed(key string, f func() (string, error)) (string, error) {
	if r == nil {
		return f()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.named[key]; ok {
		return h, nil
	}
	h, err := f()
	if err != nil {
		return "", err
	}
	if r.named == nil {
		r.named = map[string]string{}
	}
	r.named[key] = h
	return h, nil
}

// Patch is one rendered datastar-patch-elements event.
type Patch struct {
	Selector string // empty: patch by the element's own id
	Mode     string // empty: outer morph
	HTML     string
	// list marks the tool list's regions: a page whose list shows a search or another window
	// renders its own instead (tools.go).
	list bool
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
		return who + " just changed the field you are typing in (" + workspace.DescribePath(n.Field) + "). What you type next replaces their text: the last writer wins, and History keeps both."
	}
	return who + " just changed this tool (" + workspace.DescribePath(n.Field) + "). Your form was left as it is so that nothing you type is lost."
}
