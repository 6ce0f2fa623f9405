// Package review is a workspace's review before release: comment threads anchored to a tool, a
// field of it or a finding, which follow their tool through renames and moves and say when the
// text they were made on has changed; sign-offs that name a revision's content hash and go
// stale when the listing changes; and the release gate that answers whether the head is
// approved by enough people with no open threads and no error findings.
//
// A thread follows its tool by replaying the tool-level ops of the edits since it was made
// (listing.PairByContent for ops that set every tool: commits, restores, undos), with the places
// kept per workspace so that each call replays only what is new (locate.go). A sign-off names Hash, the
// sha256 of the listing as GET listing.json exports it: it holds for any head with that content.
//
// It knows nothing of HTTP or HTML; the browser, the JSON API and the CLI all ask it. The errors
// of a request's own making are *store.Error values whose kinds the front ends already map to
// statuses; a failure to read or replay the history is a plain (internal) error.
package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Store is what the review needs of a store.Store.
type Store interface {
	store.Reviews
	Workspace(ctx context.Context, id string) (store.Workspace, error)
	Revision(ctx context.Context, workspace string, number int) (store.Revision, error)
	Edits(ctx context.Context, workspace string, after int64, limit int) ([]store.EditRecord, error)
	// Meta and PutMeta keep the approvals-required setting (require.go).
	Meta(ctx context.Context, workspace, key string) (json.RawMessage, error)
	PutMeta(ctx context.Context, workspace, key string, value json.RawMessage) error
}

// Options configure a Service.
type Options struct {
	// Errors counts the error findings of a workspace's listing as its pages show them (with
	// the workspace's lint profile). Required.
	Errors func(ctx context.Context, workspace string, l *listing.Listing) (int, error)
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Author is who comments or signs off: a display name and the ID that tells apart two people
// who chose the same name (as edits record them).
type Author struct {
	Name string
	ID   string
}

// Service answers a workspace's review. Its methods are safe for concurrent use.
type Service struct {
	st   Store
	opts Options
	// places remembers, per workspace, where each thread's tool was at a given Seq, so that
	// Threads replays only the edits since (see locate.go).
	places *lru.Cache[string, *places]
	// changed remembers the "what changed since" lines of a sign-off against a head hash.
	changed *lru.Cache[changedKey, []string]
	// signed remembers the listing each sign-off names, by sign-off ID (see signedListing).
	signed *lru.Cache[string, signed]
}

// New returns the review service over st.
func New(st Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{st: st, opts: opts,
		places:  lru.New[string, *places](lru.NewBudget(32<<20), 256),
		changed: lru.New[changedKey, []string](lru.NewBudget(4<<20), 4096),
		signed:  lru.New[string, signed](lru.NewBudget(64<<20), 1024)}
}

// Target is where a new thread goes, on the head revision: the tool at Index (its name
// checked against Tool, so that a page showing an older listing cannot anchor on the wrong
// tool), and optionally a field inside it or a finding on it.
type Target struct {
	Index int
	Tool  string
	// Field is a JSON pointer inside the tool ("" for the whole tool); see store.Anchor.
	Field string
	// Finding is a rule ID when the thread is about a finding at Field (which then need not
	// exist: a finding may be about a member that is missing).
	Finding string
	// Text is the finding's message, required with Finding (the review does not lint; the page
	// that shows the finding has its message). Ignored otherwise: the anchor keeps the field's
	// text at the head.
	Text string
}

// Thread is one comment thread as it stands at the head.
type Thread struct {
	ID      string          `json:"id"`
	Anchor  store.Anchor    `json:"anchor"` // as it was made
	First   store.Comment   `json:"first"`
	Replies []store.Comment `json:"replies"`
	// Resolved, ResolvedBy and ResolvedAt are the thread's state.
	Resolved   bool      `json:"resolved"`
	ResolvedBy string    `json:"resolvedBy,omitempty"`
	ResolvedAt time.Time `json:"resolvedAt,omitzero"`
	// Tool and Index are where its tool is at the head (Index -1, Tool its old name, when the
	// tool was removed: Gone).
	Tool  string `json:"tool"`
	Index int    `json:"index"`
	Gone  bool   `json:"gone,omitempty"`
	// Label names the anchor for people: "search_issues › parameter query".
	Label string `json:"label"`
	// Outdated tells that the text the thread was made on has changed since (or is gone);
	// Anchor.Text is the text as it was, Now the text at the head.
	Outdated bool   `json:"outdated,omitempty"`
	Now      string `json:"now,omitempty"`
}

// Approval is one person's latest sign-off, as it stands at the head.
type Approval struct {
	store.Signoff
	// Current tells that the head's listing is the one signed off (same content hash).
	Current bool `json:"current"`
	// Changed summarises what changed in the listing since the revision signed off ("2 tools
	// changed: search_issues description, …"), when not Current.
	Changed []string `json:"changed,omitempty"`
}

// Status is the release gate's answer for a workspace's head.
type Status struct {
	Workspace string `json:"workspace"`
	Revision  int    `json:"revision"` // the head
	Hash      string `json:"hash"`     // the head listing's content hash
	Require   int    `json:"require"`
	// Passed: at least Require people approved the head's content, none of them (nor anyone
	// else) requests changes on it, no thread is open and the listing has no error finding.
	Passed bool `json:"passed"`
	// Reasons say why it did not pass, one sentence each (empty when it passed).
	Reasons []string `json:"reasons"`
	// Approvals counts the distinct people whose latest sign-off approves the head's content.
	Approvals int `json:"approvals"`
	// Signoffs are everyone's latest sign-off, newest first.
	Signoffs    []Approval `json:"signoffs"`
	OpenThreads int        `json:"openThreads"`
	Errors      int        `json:"errors"`
	// Approved is the newest revision whose content someone approved (-1 if none), and
	// ApprovedHash that content's hash: the pin `workbench fetch --compare` can take, which
	// checks that the listing it reads has that hash. The revision's listing is the one
	// approved (a sign-off seals its revision against coalescing).
	Approved     int    `json:"approved"`
	ApprovedHash string `json:"approvedHash,omitempty"`
}

// Errors of the service are *store.Error values, so that the front ends map their kinds to
// statuses in the one place they already do: Invalid for a request that is wrong in itself (an
// empty or oversized comment, a control character, a missing field, a negative index, require
// above 100; below 1 means the workspace's setting), Conflict for one made from a listing that has changed since (a tool index
// past the end or naming another tool, a sign-off on a hash that is no longer the head's),
// NotFound for a missing workspace or thread, and what the store returns otherwise.

// Comment starts a thread at t on the head revision, with the anchor's text taken from the
// head listing.
func (s *Service) Comment(ctx context.Context, ws string, t Target, body string, who Author) (store.Comment, error) {
	const op = "comment"
	body, err := checkBody(op, body)
	if err != nil {
		return store.Comment{}, err
	}
	head, err := s.st.Revision(ctx, ws, -1)
	if err != nil {
		return store.Comment{}, err
	}
	a, err := anchorAt(op, head.Listing, t)
	if err != nil {
		return store.Comment{}, err
	}
	name, id := author(who)
	return s.st.AddComment(ctx, store.NewComment{Workspace: ws, Anchor: a, Author: name, AuthorID: id, Body: body,
		Revision: head.Number, Seq: head.LastSeq, Now: s.opts.Now()})
}

// Reply adds a comment to thread id.
func (s *Service) Reply(ctx context.Context, ws, id, body string, who Author) (store.Comment, error) {
	const op = "reply"
	body, err := checkBody(op, body)
	if err != nil {
		return store.Comment{}, err
	}
	if strings.TrimSpace(id) == "" {
		return store.Comment{}, store.Errorf(store.Invalid, op, "no thread named; reply to a thread by its ID")
	}
	w, err := s.st.Workspace(ctx, ws)
	if err != nil {
		return store.Comment{}, err
	}
	name, aid := author(who)
	return s.st.AddComment(ctx, store.NewComment{Workspace: ws, Thread: id, Author: name, AuthorID: aid, Body: body,
		Revision: w.Head, Seq: w.Seq, Now: s.opts.Now()})
}

// Resolve resolves thread id, or opens it again.
func (s *Service) Resolve(ctx context.Context, ws, id string, resolved bool, who Author) error {
	if strings.TrimSpace(id) == "" {
		return store.Errorf(store.Invalid, "resolve thread", "no thread named; give the thread's ID")
	}
	name, _ := author(who)
	_, err := s.st.ResolveThread(ctx, store.Resolve{Workspace: ws, Thread: id, Resolved: resolved, By: name, Now: s.opts.Now()})
	return err
}

// SignOff records who's verdict on the head revision, naming its content hash.
func (s *Service) SignOff(ctx context.Context, ws string, v store.Verdict, message string, who Author) (store.Signoff, error) {
	return s.SignOffAt(ctx, ws, v, message, who, "")
}

// SignOffAt is SignOff on the listing the person read: when want (a Hash) is not empty and the
// head's hash is no longer want, it refuses with a Conflict, so that nobody approves an edit
// that landed while they were reading.
func (s *Service) SignOffAt(ctx context.Context, ws string, v store.Verdict, message string, who Author, want string) (store.Signoff, error) {
	const op = "sign off"
	if v != store.Approved && v != store.ChangesRequested {
		return store.Signoff{}, store.Errorf(store.Invalid, op, "the verdict %q is neither %q nor %q", v, store.Approved, store.ChangesRequested)
	}
	message = strings.TrimSpace(newlines(message))
	if err := store.CheckText(op, "message", message, store.MaxMessage, false, true); err != nil {
		return store.Signoff{}, err
	}
	head, err := s.st.Revision(ctx, ws, -1)
	if err != nil {
		return store.Signoff{}, err
	}
	h := Hash(head.Listing)
	if want != "" && want != h {
		return store.Signoff{}, store.Errorf(store.Conflict, op,
			"the listing changed since you read it (the head is revision %d now); reload and review it again", head.Number)
	}
	name, id := author(who)
	// Seq: an edit extending the head between this read and the store's seal is refused there.
	return s.st.AddSignoff(ctx, store.NewSignoff{Workspace: ws, Author: name, AuthorID: id, Verdict: v, Message: message,
		Revision: head.Number, Hash: h, Seq: head.LastSeq, Now: s.opts.Now()})
}

// Hash is a listing's content hash as sign-offs name it: "sha256:" and the hex digest of the
// listing as exported (GET …/listing.json, export.JSON with default options), so that it is the
// hash of the bytes that ship.
func Hash(l *listing.Listing) string {
	return hashOf(export.JSON(l, export.JSONOptions{}))
}

// hashOf is Hash of a listing exported as data.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// author is who as stored: a trimmed name, "Anonymous" when there is none.
func author(who Author) (name, id string) {
	name = strings.TrimSpace(who.Name)
	if name == "" {
		name = "Anonymous"
	}
	return name, strings.TrimSpace(who.ID)
}

// checkBody trims a comment and checks it: not empty, within MaxCommentBody, no control
// characters but newlines and tabs (a CR from a browser's textarea becomes a newline).
func checkBody(op, body string) (string, error) {
	body = strings.TrimSpace(newlines(body))
	if body == "" {
		return "", store.Errorf(store.Invalid, op, "the comment is empty; write what you want to say")
	}
	if err := store.CheckText(op, "comment", body, store.MaxCommentBody, true, true); err != nil {
		return "", err
	}
	return body, nil
}

// newlines turns CRLF and lone CR into LF.
func newlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
