// Package review is a workspace's review before release: comment threads anchored to a tool, a
// field of it or a finding, which follow their tool through renames and moves and say when the
// text they were made on has changed; sign-offs that name a revision's content hash and go
// stale when the listing changes; and the release gate that answers whether the head is
// approved by enough people with no open threads and no error findings.
//
// It knows nothing of HTTP or HTML; the browser, the JSON API and the CLI all ask it.
package review

import (
	"context"
	"errors"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Store is what the review needs of a store.Store.
type Store interface {
	store.Reviews
	Workspace(ctx context.Context, id string) (store.Workspace, error)
	Revision(ctx context.Context, workspace string, number int) (store.Revision, error)
	Revisions(ctx context.Context, workspace string, page store.RevisionPage) ([]store.Revision, error)
	Edits(ctx context.Context, workspace string, after int64, limit int) ([]store.EditRecord, error)
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
}

// New returns the review service over st.
func New(st Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{st: st, opts: opts}
}

// Target is where a new thread goes, on the head revision: the tool at Index (its name
// checked against Tool, so that a page showing an older listing cannot anchor on the wrong
// tool), and optionally a field inside it or a finding on it.
type Target struct {
	Index int
	Tool  string
	// Field is a JSON pointer inside the tool ("" for the whole tool); see store.Anchor.
	Field string
	// Finding is a rule ID when the thread is about a finding at Field.
	Finding string
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
	// Approved is the newest revision whose content someone approved (-1 if none): the pin
	// `workbench fetch --compare` can take.
	Approved int `json:"approved"`
}

// errTodo marks the parts the contract leaves to the implementation.
var errTodo = errors.New("review: not implemented yet")

// Comment starts a thread at t on the head revision, with the anchor's text taken from the
// head listing.
func (s *Service) Comment(ctx context.Context, ws string, t Target, body string, who Author) (store.Comment, error) {
	return store.Comment{}, errTodo
}

// Reply adds a comment to thread id.
func (s *Service) Reply(ctx context.Context, ws, id, body string, who Author) (store.Comment, error) {
	return store.Comment{}, errTodo
}

// Resolve resolves thread id, or opens it again.
func (s *Service) Resolve(ctx context.Context, ws, id string, resolved bool, who Author) error {
	return errTodo
}

// SignOff records who's verdict on the head revision, naming its content hash.
func (s *Service) SignOff(ctx context.Context, ws string, v store.Verdict, message string, who Author) (store.Signoff, error) {
	return store.Signoff{}, errTodo
}

// Threads returns the workspace's threads as they stand at the head, in the listing's tool
// order (threads of removed tools last), oldest first within a tool.
func (s *Service) Threads(ctx context.Context, ws string) ([]Thread, error) {
	return nil, errTodo
}

// Status answers the release gate for the head with require approvals (at least 1).
func (s *Service) Status(ctx context.Context, ws string, require int) (Status, error) {
	return Status{}, errTodo
}

// Hash is a listing's content hash as sign-offs name it: "sha256:" and the hex digest of the
// listing as exported.
func Hash(l *listing.Listing) string {
	return ""
}
