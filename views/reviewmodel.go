package views

import "fmt"

// Review is the Review panel (issue 22): the release gate, everyone's latest sign-off, the
// sign-off form and the comment threads. Every string in it is user text or made from it, and
// is only ever rendered as escaped content or a form field's value.
type Review struct {
	WS       string
	Revision int // the head
	Hash     string
	// FormHash, when set, is the hash the sign-off form names instead of Hash: the listing the
	// page was shown when it opened the panel, kept when the editor's Comment action draws the
	// panel again.
	FormHash  string
	Passed    bool
	Reasons   []string
	Require   int
	Approvals int
	Errors    int
	Open      int
	Signoffs  []ReviewSignoff
	Threads   []ReviewThread
	// Problem is why the panel could not be read (the rest is empty then).
	Problem string
}

// ReviewSignoff is one person's latest sign-off.
type ReviewSignoff struct {
	Who      string
	Approved bool
	Message  string
	Revision int
	When     string // RFC 3339, for the time element
	WhenText string
	Current  bool
	Changed  []string
}

// ReviewThread is one thread as it stands at the head.
type ReviewThread struct {
	ID       string
	Label    string
	Resolved bool
	// ResolvedBy names who resolved it, when it is.
	ResolvedBy string
	Gone       bool
	Outdated   bool
	Was, Now   string // the anchored text when the thread started, and at the head
	Comments   []ReviewComment
}

// ReviewComment is one comment of a thread.
type ReviewComment struct {
	Author   string
	When     string
	WhenText string
	Body     string
	Revision int
}

// ReviewNew is the new-thread form, anchored to the page's selected tool.
type ReviewNew struct {
	WS     string
	Tool   int    // -1: the listing has no tools
	Name   string // the tool's name, sent back so that the server can tell it moved
	Fields []ReviewField
	// Chosen is the field the form is preset to (its Value).
	Chosen string
}

// ReviewField is one choice of the new-thread form's field picker. Value is what the form
// sends: a JSON pointer inside the tool ("" for the whole tool), or, for a finding, "!RULE "
// and the finding's pointer.
type ReviewField struct {
	Value string
	Label string
	Open  int // open threads on it
}

// reviewGate says the gate's answer in words.
func reviewGate(r Review) string {
	if r.Passed {
		return fmt.Sprintf("Ready to release: revision %d is approved by %s, with no open thread and no error finding.", r.Revision, howMany(r.Approvals, "person", "people"))
	}
	return fmt.Sprintf("Not ready to release (revision %d, %d of %d approvals):", r.Revision, r.Approvals, r.Require)
}

// ReviewChanged is what changed in the listing since a page opened its Review panel: Count
// changes (0: none; -1: some, which is not known), Lines saying which (at most 10).
type ReviewChanged struct {
	WS    string
	Count int
	Lines []string
}

// shortHash is the start of a content hash, for people.
func shortHash(h string) string {
	const n = len("sha256:") + 12
	if len(h) > n {
		return h[:n] + "…"
	}
	return h
}

// reviewExpr posts the closest form to a review route; path is a constant of this package.
func reviewExpr(ws, path string) string {
	return fmt.Sprintf("@post('%s', {contentType: 'form'})", wsURL(ws, "review/"+path))
}

// reviewTabExpr shows the Review panel and loads it.
func reviewTabExpr(ws string) string {
	return "$panel = 'review'; " + getExpr(ws, "review")
}

// reviewLeaveExpr tells the server that the page left the Review panel for another tab, so
// that live updates stop rendering the panel for it (the tab loads it afresh on return).
func reviewLeaveExpr(ws string) string {
	return "$panel != 'review' && " + getExpr(ws, "review/leave")
}

// commentExpr opens the Review panel's new-thread form preset to a field of tool t: field
// is one of the constant anchors of this package ("desc", "param", "finding") and n the
// parameter's or finding's position in the tool, so that no user text enters the expression.
func commentExpr(ws string, t int, field string, n int) string {
	return fmt.Sprintf("$panel = 'review'; $view = 'results'; @get('%s?t=%d&at=%s&n=%d')", wsURL(ws, "review"), t, field, n)
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// reviewCountID is the id of parameter p's open-thread count in the editor.
func reviewCountID(p int) string { return "rc-p-" + itoa(p) }

// requireChoices are the approvals-required setting's choices (1 to review.MaxRequireSetting;
// web's TestReviewFormLimits holds the two together).
var requireChoices = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// requireID is the approvals-required select's id, which names the value it was drawn with:
// a live update that changes the setting replaces the select instead of morphing it, since a
// morph keeps the option a browser shows once someone has picked one.
func requireID(n int) string { return "review-require-" + itoa(n) }

// formHash is the hash the sign-off form names: FormHash when set, else the head's.
func formHash(r Review) string {
	if r.FormHash != "" {
		return r.FormHash
	}
	return r.Hash
}
