// Package store keeps workspaces so that they outlast the process: a listing's baseline and every
// revision since, the edits that made each one, task files, model runs, review comments and sign-offs, workshop challenges, share links and sessions.
//
// This package holds the record types, the Store interface and the roles it is made of
// (Workspaces, History, Tasks, Runs, Access, Events, Reviews, Challenges), the coalescing rule and the error
// kinds. The implementations are store/sqlite (the embedded default) and store/postgres (for teams
// running several replicas); store/storetest is the conformance suite both pass. Only cmd/workbench
// picks one.
//
// History model: a workspace's state is its listing and its task file. Revision 0 is its
// baseline, the listing as first imported or fetched (with the task file it was given, if any).
// Every accepted edit — to the listing (AppendEdit, Commit, Restore) or to the task file
// (PutTasks), and every undo or redo (Step) — gets the next number in the workspace's edit
// sequence (Seq) and lands in a revision: either a new one whose parent is the previous head,
// or, when the coalescing rule holds, the head itself, extended (never a head that is named,
// signed off or run: its listing is what they name). Every revision keeps the full
// listing and task file it ends with, so any revision can be viewed, compared and restored
// without replaying edits, and the ops of its listing edits, so that applying them to the
// parent's listing gives its own.
//
// Undo is per person (Edit.AuthorID) and kept in the store, so that it outlives a restart and
// works the same on every replica: an edit marked Undoable pushes a step (the value its path had
// before and has after), and Step takes the last one back as a new edit.
//
// Positions: pages address tools, parameters and tasks by index. A workspace keeps the edit at
// which each last moved (ToolsShape, ParamsShapes per tool, TasksShape); an edit made from an
// older shape is refused under the workspace's write lock (Edit.ToolsBase and ParamsBase,
// TaskEdit.ShapeBase), on every replica. An edit that rewrites a value from what it holds (a
// parameter renamed inside its schema) makes its ops from the head under that lock (Edit.Make).
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/tool-workbench/workbench/listing"
)

// Store keeps workspaces. Implementations are safe for concurrent use, serialise edits to one
// workspace (also across processes sharing one database), and return errors whose kind KindOf
// reports. Listings they return are shared and must not be modified (listing.Apply returns a
// copy).
//
// Store is the sum of its roles; a caller that needs only some of them takes those (a page of
// history needs History, a sign-in Access), so that what it can do to the workspaces is read
// from its signature.
type Store interface {
	Workspaces
	History
	Tasks
	Runs
	Access
	Events
	Reviews
	Challenges

	// Close releases the database.
	Close() error
}

// Workspaces creates, lists, renames, forks and deletes workspaces, and keeps the small JSON
// documents stored beside each one.
type Workspaces interface {
	// CreateWorkspace stores a new workspace whose baseline (revision 0) is w.Listing.
	CreateWorkspace(ctx context.Context, w NewWorkspace) (Workspace, error)
	// Workspace returns a workspace's record.
	Workspace(ctx context.Context, id string) (Workspace, error)
	// Workspaces lists workspaces, most recently updated first, at most limit of them.
	Workspaces(ctx context.Context, limit int) ([]Workspace, error)
	// SetTitle renames a workspace.
	SetTitle(ctx context.Context, id, title string, now time.Time) (Workspace, error)
	// DeleteWorkspace removes a workspace and everything it holds.
	DeleteWorkspace(ctx context.Context, id string) error
	// ForkWorkspace copies a workspace's whole history and task file into a new workspace.
	ForkWorkspace(ctx context.Context, f Fork) (Workspace, error)

	// Meta returns a small JSON document kept beside a workspace under key (the last fetch's
	// source and report, say); NotFound if none.
	Meta(ctx context.Context, workspace, key string) (json.RawMessage, error)
	// PutMeta stores one; a nil value deletes it. Forks copy them. A change sends an EventMeta.
	PutMeta(ctx context.Context, workspace, key string, value json.RawMessage) error
}

// History records the edits of a workspace's listing and reads its revisions back: every
// accepted edit, commit, restore, undo and redo gets the next sequence number and lands in a
// revision.
type History interface {
	// AppendEdit applies e to the head listing and records it, extending the head revision when
	// Coalesces(head, e) holds and starting a new revision otherwise.
	AppendEdit(ctx context.Context, e Edit) (EditResult, error)
	// Commit records a whole new listing (an upload over the current one) as a new revision.
	Commit(ctx context.Context, c Commit) (EditResult, error)
	// Restore records the listing of an earlier revision as a new revision.
	Restore(ctx context.Context, r Restore) (EditResult, error)
	// Revisions lists one page of a workspace's revisions, newest first, without listings or
	// ops: those numbered below page.Before (from the head when Before <= 0), at most
	// page.Limit of them (the zero page: the newest DefaultRevisionLimit). Numbers run from 0
	// to the head without gaps, so a page whose last revision N is above 0 has older ones:
	// RevisionPage{Before: N} lists them. A Limit below 0 is Invalid; one above
	// MaxRevisionLimit is clamped to it.
	Revisions(ctx context.Context, workspace string, page RevisionPage) ([]Revision, error)
	// Revision returns one revision with its listing and ops. Number -1 means the head.
	Revision(ctx context.Context, workspace string, number int) (Revision, error)
	// NameRevision names a revision ("release candidate 2"); an empty name clears it. A named
	// revision is never extended by coalescing. Names are unique within a workspace.
	NameRevision(ctx context.Context, workspace string, number int, name string) (Revision, error)
	// Edits returns the accepted edits with Seq > after, in order, at most limit of them: what a
	// live subscriber that saw Seq `after` has missed.
	Edits(ctx context.Context, workspace string, after int64, limit int) ([]EditRecord, error)

	// UndoState tells whether a person (an Edit.AuthorID) has a step to undo and to redo.
	UndoState(ctx context.Context, workspace, authorID string) (UndoState, error)
	// Step undoes (or, with Redo, redoes) the person's last step as a new edit that writes back
	// the value the step's path had. A step whose path someone else changed since is dropped
	// and refused with a Conflict: the later writer wins. Nothing to undo is a NotFound.
	Step(ctx context.Context, st Step) (EditResult, error)
}

// Tasks reads and edits a workspace's task file; a task edit is an edit of the workspace's
// history like a listing edit.
type Tasks interface {
	// Tasks returns the head's task file; NotFound if the workspace has none.
	Tasks(ctx context.Context, workspace string) (TaskFile, error)
	// PutTasks replaces a workspace's task file. It is an edit like AppendEdit: it gets a
	// sequence number and lands in a KindTasks revision, extending the head when
	// CoalescesTasks(head, t) holds.
	PutTasks(ctx context.Context, t TaskEdit) (EditResult, error)
}

// Runs stores model runs and their recordings, with a compare-and-swap so that replicas
// running, cancelling and resuming one run never overwrite each other.
type Runs interface {
	// PutRun stores a run, creating it when r.ID is empty (the new ID is returned) and replacing
	// it otherwise.
	PutRun(ctx context.Context, r Run) (Run, error)
	// UpdateRun replaces a stored run like PutRun, but only while its Updated is still prev: a
	// compare-and-swap, so that two processes (the one running a run and another cancelling or
	// resuming it) never overwrite each other's save. Otherwise it is a Conflict, and the
	// caller reads the run again. It returns r as stored (Updated set), without reading it back.
	UpdateRun(ctx context.Context, r Run, prev time.Time) (Run, error)
	// TouchRun moves a run's Updated from prev to at without rewriting it (the heartbeat of a
	// run in progress); a Conflict when Updated is no longer prev. It sends no event.
	TouchRun(ctx context.Context, workspace, id string, prev, at time.Time) error
	// Run returns a run with its body.
	Run(ctx context.Context, workspace, id string) (Run, error)
	// Runs lists a workspace's runs, newest first, without bodies.
	Runs(ctx context.Context, workspace string) ([]Run, error)
	// DeleteRun removes a run.
	DeleteRun(ctx context.Context, workspace, id string) error
}

// Access keeps what lets a person in: share links (a capability on one workspace) and
// sessions (a signed-in person). The store keeps only the hashes of their tokens.
type Access interface {
	// CreateShareLink makes a link to a workspace with a capability. The token is only ever
	// returned here: the store keeps its hash.
	CreateShareLink(ctx context.Context, l NewShareLink) (ShareLink, error)
	// ShareLink resolves a token. A revoked link is a Forbidden error, an unknown one NotFound.
	ShareLink(ctx context.Context, token string) (ShareLink, error)
	// ShareLinks lists a workspace's links (revoked ones included), without tokens.
	ShareLinks(ctx context.Context, workspace string) ([]ShareLink, error)
	// RevokeShareLink revokes a link by its ID.
	RevokeShareLink(ctx context.Context, workspace, id string, now time.Time) error

	// CreateSession starts a session (token auth, trusted header) and returns it with its
	// token; the store keeps the token's hash.
	CreateSession(ctx context.Context, s NewSession) (Session, error)
	// Session resolves a session token; NotFound if unknown or expired at now.
	Session(ctx context.Context, token string, now time.Time) (Session, error)
	// DeleteSession ends a session (logout). Ending an unknown session is not an error.
	DeleteSession(ctx context.Context, token string) error
	// PurgeSessions deletes sessions expired at now and returns how many.
	PurgeSessions(ctx context.Context, now time.Time) (int, error)
}

// Events tells live pages what changed: the store's own changes, and presence announced by
// the pages themselves.
type Events interface {
	// Subscribe delivers events about a workspace, from this process and (on PostgreSQL) from
	// every other process on the same database, until ctx ends; then the channel is closed. A
	// subscriber that falls behind loses the oldest events, never the newest: Event.Seq tells it
	// what it missed and Edits fetches that. An EventResync means events may have been lost and
	// the subscriber should reload.
	Subscribe(ctx context.Context, workspace string) (<-chan Event, error)
	// Announce delivers an EventPresence to the workspace's subscribers in every process
	// without storing anything: who is on the workspace and where, for live presence.
	Announce(ctx context.Context, ev Event) error
}

// Workspace is the record of one workspace.
type Workspace struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Head is the number of the newest revision (0: only the baseline).
	Head int `json:"head"`
	// Seq counts the edits accepted so far (each AppendEdit, Commit and Restore is one).
	Seq int64 `json:"seq"`
	// ForkedFrom is the ID of the workspace this one was forked from, if any.
	ForkedFrom string `json:"forkedFrom,omitempty"`
	// TasksShape is the Seq of the last edit that changed the task file's shape: one that did
	// not set a single field of one task (a task added or removed, a file imported, restored or
	// undone), 0 if none. A task is addressed by its index, so an edit made from a task file
	// older than its shape may name the wrong task.
	TasksShape int64 `json:"-"`
	// ToolsShape is the Seq of the last edit that added, removed or moved a tool (ReshapesTools),
	// or committed or restored a whole listing (0 if none); ParamsShapes holds, per tool index,
	// the Seq of the last edit since then that added, removed or moved one of its parameters
	// (ReshapedParams; absent: none). Pages address tools and parameters by position, so an
	// edit made from a listing older than its shape may name the wrong one.
	ToolsShape   int64         `json:"-"`
	ParamsShapes map[int]int64 `json:"-"`
}

// NewWorkspace is what CreateWorkspace needs.
type NewWorkspace struct {
	Title   string
	Author  string
	Message string // of the baseline revision, e.g. "imported from https://…"
	Listing *listing.Listing
	// Tasks is an optional task file (JSON) stored with the workspace.
	Tasks json.RawMessage
	Now   time.Time
}

// Fork is what ForkWorkspace needs.
type Fork struct {
	From   string
	Title  string // empty: the source's title
	Author string
	Now    time.Time
}

// RevisionKind says how a revision came about.
type RevisionKind string

// The kinds of revision.
const (
	KindImport  RevisionKind = "import"  // the baseline
	KindEdit    RevisionKind = "edit"    // one or more coalesced edits
	KindRestore RevisionKind = "restore" // an earlier revision's listing, restored
	KindReplace RevisionKind = "replace" // a whole new listing uploaded over the current one
	KindTasks   RevisionKind = "tasks"   // one or more coalesced edits of the task file
)

// RevisionPage asks Store.Revisions for one page of revisions.
type RevisionPage struct {
	// Before lists revisions numbered below it; 0 or below lists from the head.
	Before int
	// Limit is the most revisions listed: 0 means DefaultRevisionLimit, and above
	// MaxRevisionLimit means MaxRevisionLimit.
	Limit int
}

// The page sizes of Store.Revisions.
const (
	DefaultRevisionLimit = 200
	MaxRevisionLimit     = 1000
)

// Revision is one state of a workspace's listing.
type Revision struct {
	Workspace string       `json:"workspace"`
	Number    int          `json:"number"`
	Parent    int          `json:"parent"` // -1 for the baseline
	Kind      RevisionKind `json:"kind"`
	Author    string       `json:"author"`
	AuthorID  string       `json:"authorId,omitempty"`
	Message   string       `json:"message,omitempty"`
	Name      string       `json:"name,omitempty"`
	Created   time.Time    `json:"created"`
	Updated   time.Time    `json:"updated"` // time of its last edit
	// Field is the JSON pointer all its edits set, the key coalescing extends it by ("" when it
	// cannot be extended).
	Field string `json:"field,omitempty"`
	// Edits counts the accepted edits in it; FirstSeq..LastSeq are their sequence numbers
	// (0..0 for the baseline).
	Edits    int   `json:"edits"`
	FirstSeq int64 `json:"firstSeq"`
	LastSeq  int64 `json:"lastSeq"`
	// RestoredFrom is the revision a KindRestore revision restored (else -1).
	RestoredFrom int `json:"restoredFrom"`
	// HasTasks tells whether the workspace had a task file at this revision; TasksSeq names
	// that task file: the edit that stored it (0 for one given at creation). Two revisions with
	// the same TasksSeq have the same task file.
	HasTasks bool  `json:"hasTasks"`
	TasksSeq int64 `json:"tasksSeq"`

	// Ops are the ops of its listing edits in order; applied to the parent's listing they give
	// Listing. Only Store.Revision fills Ops, Listing and Tasks (the task file's JSON, nil when
	// HasTasks is false).
	Ops     []listing.Op     `json:"ops,omitempty"`
	Listing *listing.Listing `json:"-"`
	Tasks   json.RawMessage  `json:"-"`
}

// Edit is one accepted change: ops applied together, by one person.
type Edit struct {
	Workspace string
	// Author is the person's display name; AuthorID, when set, tells apart two people who
	// chose the same name (a session or account ID). Coalescing needs both to match.
	Author   string
	AuthorID string
	Ops      []listing.Op
	// Message describes the revision when the edit starts one; a coalesced edit keeps the
	// head's message.
	Message string
	Now     time.Time
	// Undo, when set (and AuthorID is), records the edit as a step of its author's undo.
	Undo *Undoable
	// Make, when set instead of Ops, makes the edit's ops from the head listing under the
	// workspace's write lock: an edit that rewrites a value from what it holds (a parameter
	// renamed inside its schema) is then never made from a stale read, on any replica. Its
	// error is returned, wrapped as Invalid; no ops means nothing to do (a zero EditResult).
	// An Undo without a Path then takes the scope of the ops made (UndoScope).
	Make func(head *listing.Listing) ([]listing.Op, error)
	// ToolsBase, when set, is the Workspace.ToolsShape the edit's tool positions come from, and
	// ParamsBase the ParamsShapes[ParamsTool] its parameter positions come from: when either
	// moved since, the edit is refused with ErrToolsReshaped, checked under the workspace's
	// write lock.
	ToolsBase  *int64
	ParamsBase *int64
	ParamsTool int
	// Alone starts a revision of its own that no later edit extends (a quick fix: its message
	// names the rule it applied, and typing in the field it set is a step of its own).
	Alone bool
}

// ErrToolsReshaped is the cause of an edit refused because the listing's shape changed after
// the one its positions come from (Edit.ToolsBase, Edit.ParamsBase).
var ErrToolsReshaped = errors.New("the listing's shape changed: a tool or parameter was added, removed or moved")

// Undoable marks an edit as a step of its author's undo.
type Undoable struct {
	// Path is the JSON pointer whose value undo writes back (a description, a schema, or
	// "/tools" for a structural edit); a task edit takes back the whole task file and ignores it.
	Path string
	// Key groups a burst: an edit with the same non-empty Key and Path as its author's last
	// step extends that step, so one undo takes back a burst of typing.
	Key string
}

// UndoState is whether a person has a step to undo and to redo.
type UndoState struct {
	CanUndo bool `json:"canUndo"`
	CanRedo bool `json:"canRedo"`
}

// Step is an undo or a redo of a person's last step.
type Step struct {
	Workspace string
	Author    string
	AuthorID  string // required: undo is per person
	Redo      bool
	Now       time.Time
}

// TaskEdit replaces a workspace's task file.
type TaskEdit struct {
	Workspace string
	Author    string
	AuthorID  string
	// Body is the new task file (JSON).
	Body json.RawMessage
	// Field is the JSON pointer in the task file that the edit sets when it sets one field
	// ("/tasks/3/task": typing), and "" otherwise; like a listing edit's field it decides
	// coalescing and tells another person typing there that it changed.
	Field   string
	Message string
	Now     time.Time
	Undo    *Undoable
	// Base, when set, is the task file the edit was made from (TaskFile.Seq, or -1 for none):
	// the edit is refused with a Conflict when the task file has changed since, so that two
	// people's edits of different tasks never drop one another (the caller reads it again and
	// remakes its edit).
	Base *int64
	// ShapeBase, when set, is the Workspace.TasksShape the edit's task indexes come from: when
	// the file's shape changed since, the edit is refused with ErrTasksReshaped (its index may
	// name another task now), checked under the workspace's write lock.
	ShapeBase *int64
}

// ErrTasksReshaped is the cause of a task edit refused because the task file's shape changed
// after the one its indexes come from (TaskEdit.ShapeBase).
var ErrTasksReshaped = errors.New("the task file's shape changed: a task was added or removed")

// Commit is a whole listing recorded as a new revision (KindReplace).
type Commit struct {
	Workspace string
	Author    string
	AuthorID  string
	Message   string
	Listing   *listing.Listing
	Now       time.Time
}

// Restore records revision Number's listing as a new revision.
type Restore struct {
	Workspace string
	Number    int
	Author    string
	AuthorID  string
	Message   string
	Now       time.Time
	// Undo, when set (and AuthorID is), records the restore as a step of its author's undo:
	// undoing it brings back the listing and the task file the workspace had before it, as long
	// as nobody changed either since.
	Undo bool
}

// EditResult is the state after an accepted edit.
type EditResult struct {
	Seq       int64            // the edit's sequence number
	Revision  Revision         // the head revision (without ops or listing)
	Coalesced bool             // the edit extended the head rather than starting a revision
	Listing   *listing.Listing // the head listing
	// Undo is the author's undo state after the edit, when the edit was Undoable or a Step.
	Undo UndoState
	// TasksShape, ToolsShape and ParamsShapes are the workspace's after the edit.
	TasksShape   int64
	ToolsShape   int64
	ParamsShapes map[int]int64
}

// EditRecord is one accepted edit, as kept in history.
type EditRecord struct {
	Workspace string       `json:"workspace"`
	Seq       int64        `json:"seq"`
	Revision  int          `json:"revision"`
	Author    string       `json:"author"`
	AuthorID  string       `json:"authorId,omitempty"`
	At        time.Time    `json:"at"`
	Ops       []listing.Op `json:"ops"`
	// Tasks tells that the edit replaced the task file (a task edit, a restore, an undo).
	Tasks bool `json:"tasks,omitempty"`
}

// TaskFile is a workspace's task file, kept as the JSON it was given.
type TaskFile struct {
	Workspace string          `json:"workspace"`
	Body      json.RawMessage `json:"body"`
	// Seq names this version of the task file: the edit that stored it (0: given at
	// creation). It changes exactly when the task file does.
	Seq int64 `json:"seq"`
}

// Run is one model run (or a recording of one): metadata the store can list, and an opaque body.
type Run struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Revision  int       `json:"revision"` // the revision whose listing it ran against
	Label     string    `json:"label"`
	Status    string    `json:"status"` // free form: "running", "done", "cancelled", …
	Author    string    `json:"author"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Meta is small JSON for lists (model, accuracy, …); Body is the run itself. Runs leaves
	// Body nil.
	Meta json.RawMessage `json:"meta,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
	// AsOf, when set on a new run, is the workspace's Seq its listing and tasks were read at:
	// PutRun refuses the run with a Conflict if any edit landed since (the revision it would
	// name holds something else now), and names the head revision itself.
	AsOf *int64 `json:"-"`
}

// Capability is what a share link allows.
type Capability string

// The capabilities.
const (
	CanView Capability = "view"
	CanEdit Capability = "edit"
)

// NewShareLink is what CreateShareLink needs.
type NewShareLink struct {
	Workspace  string
	Capability Capability
	Author     string
	Now        time.Time
}

// ShareLink is a capability to view or edit one workspace.
type ShareLink struct {
	// ID names the link in lists and for revoking; it is not a capability.
	ID         string     `json:"id"`
	Token      string     `json:"token,omitempty"` // only from CreateShareLink
	Workspace  string     `json:"workspace"`
	Capability Capability `json:"capability"`
	Author     string     `json:"author"`
	Created    time.Time  `json:"created"`
	Revoked    time.Time  `json:"revoked,omitzero"` // zero while valid
}

// NewSession is what CreateSession needs.
type NewSession struct {
	Name    string // the person's display name
	Now     time.Time
	Expires time.Time
}

// Session is a signed-in person.
type Session struct {
	ID      string    `json:"id"`              // names the session in logs; not a capability
	Token   string    `json:"token,omitempty"` // only from CreateSession
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// EventKind names what happened to a workspace.
type EventKind string

// The kinds of Event.
const (
	EventEdit     EventKind = "edit"     // a listing edit was accepted (AppendEdit, Commit, Restore, Step)
	EventRevision EventKind = "revision" // a revision was named or renamed
	EventTasks    EventKind = "tasks"    // a task-file edit was accepted (PutTasks, Step); Seq is set
	EventRuns     EventKind = "runs"     // a run was stored or deleted
	EventTitle    EventKind = "title"    // the workspace was renamed
	EventMeta     EventKind = "meta"     // a document beside the workspace was stored or deleted (PutMeta); Field is its key
	EventDeleted  EventKind = "deleted"  // the workspace was deleted
	EventResync   EventKind = "resync"   // events may have been lost: reload
	EventPresence EventKind = "presence" // someone arrived, moved or left (Announce); not stored
	EventReview   EventKind = "review"   // a comment, a resolution or a sign-off was stored
)

// Event tells subscribers that a workspace changed. It carries no content (PostgreSQL
// notifications are small): subscribers fetch what they show.
type Event struct {
	Workspace string    `json:"ws"`
	Kind      EventKind `json:"kind"`
	Seq       int64     `json:"seq,omitempty"` // EventEdit: the edit's sequence number
	Revision  int       `json:"rev"`           // EventEdit: the head; EventRevision: the one named
	Author    string    `json:"author,omitempty"`
	AuthorID  string    `json:"authorId,omitempty"`
	Coalesced bool      `json:"coalesced,omitempty"`
	// Field is the JSON pointer an EventEdit set, if it set one field (for "someone else just
	// changed the field you are typing in"); for EventPresence, where the person is.
	Field string `json:"field,omitempty"`
	// Detail is what an EventPresence says beyond that (for example "joined", "left", or a
	// session ID that tells two tabs of one person apart); at most MaxDetail bytes.
	Detail string `json:"detail,omitempty"`
}

// MaxDetail bounds Event.Detail, and MaxField an announced Event.Field, so that every event
// fits a PostgreSQL notification (8000 bytes).
const (
	MaxDetail = 1024
	MaxField  = 1024
)
