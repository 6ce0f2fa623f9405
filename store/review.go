package store

import (
	"context"
	"time"
)

// Reviews keeps a workspace's review: comment threads anchored to a tool, a field of it or a
// finding, and sign-offs (approvals and change requests) on revisions. Each change sends an
// EventReview. Deleting a workspace deletes its review; a fork starts without one (a fork is
// another piece of work, reviewed on its own).
type Reviews interface {
	// AddComment stores a comment: the first of a new thread (c.Thread empty; c.Anchor says
	// where), or a reply to thread c.Thread (its anchor is the thread's; a reply to a missing
	// thread is NotFound, to a reply rather than a thread Invalid). A workspace holds at most
	// MaxComments comments: past that it is Invalid, with the limit in the message.
	AddComment(ctx context.Context, c NewComment) (Comment, error)
	// Comments lists a workspace's comments, oldest first: threads and replies together, each
	// reply after its thread's first comment in time order.
	Comments(ctx context.Context, workspace string) ([]Comment, error)
	// ResolveThread marks thread id resolved (or, with r.Resolved false, open again), naming who
	// did it and when; NotFound if no such thread, Invalid if id is a reply.
	ResolveThread(ctx context.Context, r Resolve) (Comment, error)
	// AddSignoff records a sign-off on the revision it names. A sign-off on the head seals it
	// as NameRevision does: coalescing never extends it afterwards, so the revision's listing
	// stays the one signed (one on an older revision needs nothing: only the head grows). With
	// s.Seq set, a head extended since that Seq is a Conflict. A workspace keeps at most
	// MaxSignoffs sign-offs: past that it is Invalid.
	AddSignoff(ctx context.Context, s NewSignoff) (Signoff, error)
	// Signoffs lists a workspace's sign-offs, oldest first.
	Signoffs(ctx context.Context, workspace string) ([]Signoff, error)
}

// Limits of a review.
const (
	MaxCommentBody = 4000 // characters of one comment
	MaxComments    = 5000 // comments (threads and replies) on one workspace
	MaxSignoffs    = 2000 // sign-offs on one workspace
	MaxAnchorText  = 2000 // characters of an anchor's Text (longer text is clipped by the caller)
	MaxAnchorField = 1024 // characters of an anchor's Field (a JSON pointer inside a tool)
	MaxAnchorRule  = 100  // characters of an anchor's Finding (a rule ID)
	MaxHash        = 100  // characters of a sign-off's Hash
)

// Anchor says what a thread is about, as it was when the thread started: a tool (by its name and
// place at the revision the thread was made on), a field inside it, or a finding on it.
type Anchor struct {
	// Tool and Index are the tool's name and place in the listing at Comment.Revision.
	Tool  string `json:"tool"`
	Index int    `json:"index"`
	// Field is a JSON pointer inside the tool: "" for the whole tool, "/description",
	// "/inputSchema/properties/NAME" for a parameter, "/annotations/readOnlyHint", …; for a
	// finding, the finding's location.
	Field string `json:"field,omitempty"`
	// Finding is the rule ID of the finding the thread is about, if it is about one.
	Finding string `json:"finding,omitempty"`
	// Text is the text the comment was made on (the field's value, the finding's message),
	// so that a page can say the thread is outdated and show it as it was.
	Text string `json:"text,omitempty"`
}

// NewComment is what AddComment needs.
type NewComment struct {
	Workspace string
	// Thread is the ID of the thread replied to; empty starts a thread at Anchor.
	Thread   string
	Anchor   Anchor
	Author   string
	AuthorID string
	Body     string
	// Revision and Seq are the head revision and the workspace's Seq the comment was made on.
	Revision int
	Seq      int64
	Now      time.Time
}

// Comment is one stored comment. A thread is its first comment (Thread empty) with the
// replies whose Thread is its ID. The first keeps the anchor and the resolved state; a reply is
// stored without an anchor and read back (Comments, AddComment's answer) with its thread's.
type Comment struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Thread    string    `json:"thread,omitempty"`
	Anchor    Anchor    `json:"anchor"`
	Author    string    `json:"author"`
	AuthorID  string    `json:"authorId,omitempty"`
	Body      string    `json:"body"`
	Revision  int       `json:"revision"`
	Seq       int64     `json:"seq"`
	Created   time.Time `json:"created"`
	// Resolved, ResolvedBy and ResolvedAt are a thread's state (first comments only).
	Resolved   bool      `json:"resolved,omitempty"`
	ResolvedBy string    `json:"resolvedBy,omitempty"`
	ResolvedAt time.Time `json:"resolvedAt,omitzero"`
}

// Resolve is what ResolveThread needs.
type Resolve struct {
	Workspace string
	Thread    string
	Resolved  bool
	By        string // display name: a thread shows who resolved it, and needs no more
	Now       time.Time
}

// Verdict is what a sign-off says.
type Verdict string

// The verdicts.
const (
	Approved         Verdict = "approved"
	ChangesRequested Verdict = "changes"
)

// NewSignoff is what AddSignoff needs.
type NewSignoff struct {
	Workspace string
	Author    string
	AuthorID  string
	Verdict   Verdict
	Message   string
	// Revision is the revision signed off and Hash its listing's content hash ("sha256:…"):
	// the sign-off holds for any head whose listing has that hash.
	Revision int
	Hash     string
	// Seq, when above 0, is the workspace's Seq the hash was computed at (the head's
	// LastSeq): a sign-off on the head revision extended since is a Conflict, so that the
	// revision sealed is the listing signed.
	Seq int64
	Now time.Time
}

// Signoff is one stored sign-off.
type Signoff struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Author    string    `json:"author"`
	AuthorID  string    `json:"authorId,omitempty"`
	Verdict   Verdict   `json:"verdict"`
	Message   string    `json:"message,omitempty"`
	Revision  int       `json:"revision"`
	Hash      string    `json:"hash"`
	Created   time.Time `json:"created"`
}
