// Package workspace is the service over a store.Store that the browser and the JSON API share:
// it reads a workspace once (head listing, baseline, task file, shapes, undo state), applies an
// edit and answers the workspace before and after it, and undoes, redoes and restores. It
// caches what never changes (baselines) and what a sequence number pins (head listings, parsed
// task files), so that a page shown twice costs one query.
//
// It knows nothing of HTTP or HTML: refusals are error types (StaleTools, StaleTasks, Refused,
// UndoRefused, ErrNotFound) that each front end shows its own way.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/tooledit"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// ErrNotFound is a workspace id that the store does not know.
var ErrNotFound = errors.New("no such workspace")

// Workspace is one workspace as a person sees it: its head listing, the baseline it was
// imported as, and its task file.
type Workspace struct {
	ID       string
	Name     string
	Listing  *listing.Listing
	Baseline *listing.Listing
	Tasks    []selection.Task
	// Version is the store's edit sequence number (store.Workspace.Seq), which every edit of
	// the listing or the task file moves; patches and the page's ver signal carry it.
	Version int
	Head    int
	// TasksSeq names the task file Tasks came from (store.TaskFile.Seq; -1: none);
	// TasksShape is the version its shape last changed at (store.Workspace.TasksShape).
	TasksSeq   int64
	TasksShape int
	// ToolsShape is the version at which a tool was last added, removed or moved, and
	// ParamsShapes[i] the version at which a parameter of tool i was since (store.Workspace);
	// pages render them into every action that names a tool or parameter by position.
	ToolsShape   int
	ParamsShapes map[int]int64
	// CanUndo and CanRedo are for the person who asked (undo is per person).
	CanUndo bool
	CanRedo bool
	Created time.Time
	Forked  string
}

// Author is who makes a change: a display name and an ID that tells apart two people who chose
// the same name.
type Author struct {
	Name string
	ID   string
}

// Service is the workspace service over a store.Store. Its methods are safe for concurrent use.
type Service struct {
	*Listings
	st store.Store

	mu    sync.Mutex
	heads map[string]headEntry
	bases map[string]*listing.Listing
	tasks map[string]tasksEntry // parsed task files, by workspace id
}

// tasksEntry is a parsed task file and the stored version it came from: every page render and
// edit reads the task file, and parsing a large one costs more than the rest.
type tasksEntry struct {
	seq   int64
	tasks []selection.Task
}

type headEntry struct {
	seq int64
	l   *listing.Listing
}

// New returns the service over st.
func New(st store.Store) *Service {
	return &Service{Listings: NewListings(st), st: st, heads: map[string]headEntry{},
		bases: map[string]*listing.Listing{}, tasks: map[string]tasksEntry{}}
}

// maxCached bounds the listings cached per kind (heads, baselines, task files): a cache miss
// costs one query, an unbounded cache a server's memory.
const maxCached = 512

func (s *Service) cacheHead(id string, seq int64, l *listing.Listing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.heads[id]; !ok && len(s.heads) >= maxCached {
		for k := range s.heads { // any one: map order is random
			delete(s.heads, k)
			break
		}
	}
	s.heads[id] = headEntry{seq: seq, l: l}
}

// storeErr turns the store's "not found" into ErrNotFound, keeping the cause. The store's
// errors name their operation already, and the pages show an invalid one's text as it is, so
// it adds no other words.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	if store.KindOf(err) == store.NotFound {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// StoreErr is storeErr for the front ends' own store calls (history, sharing): a workspace the
// store does not know is ErrNotFound.
func StoreErr(err error) error { return storeErr(err) }

// Create stores a new workspace whose baseline is l, with a title made from name.
func (s *Service) Create(ctx context.Context, name string, l *listing.Listing, tasks []selection.Task, who Author, message string) (Workspace, error) {
	if l == nil {
		return Workspace{}, errors.New("create workspace: no listing")
	}
	who = AuthorName(who)
	var tj []byte
	if tasks != nil {
		var err error
		if tj, err = tasksJSON(tasks); err != nil {
			return Workspace{}, err
		}
	}
	rec, err := s.st.CreateWorkspace(ctx, store.NewWorkspace{Title: Title(name), Author: who.Name, Message: message, Listing: l, Tasks: tj})
	if err != nil {
		return Workspace{}, fmt.Errorf("create workspace: %w", err)
	}
	s.cacheHead(rec.ID, rec.Seq, l)
	return s.Get(ctx, rec.ID, who)
}

// Get returns a workspace as who sees it, undo state included.
func (s *Service) Get(ctx context.Context, id string, who Author) (Workspace, error) {
	return s.read(ctx, id, who, true)
}

// Read returns a workspace without anyone's undo state: what every page of it shows alike.
func (s *Service) Read(ctx context.Context, id string) (Workspace, error) {
	return s.read(ctx, id, Author{}, false)
}

// read is Get; undo false leaves out who's undo state (an edit learns it from the store's
// answer).
func (s *Service) read(ctx context.Context, id string, who Author, undo bool) (Workspace, error) {
	rec, err := s.st.Workspace(ctx, id)
	if err != nil {
		return Workspace{}, storeErr(err)
	}
	head, version, number, rec, err := s.head(ctx, rec)
	if err != nil {
		return Workspace{}, err
	}
	ws := Workspace{ID: rec.ID, Name: rec.Title, Version: int(version), Head: number, Created: rec.Created, Forked: rec.ForkedFrom,
		TasksShape: int(rec.TasksShape), ToolsShape: int(rec.ToolsShape), ParamsShapes: rec.ParamsShapes, Listing: head}
	if ws.Baseline, err = s.baseline(ctx, id); err != nil {
		return Workspace{}, err
	}
	ws.TasksSeq = -1
	tf, err := s.st.Tasks(ctx, id)
	switch {
	case err == nil:
		ws.TasksSeq = tf.Seq
		if len(tf.Body) > 0 {
			// Task files were checked when they were stored; one that no longer parses (an
			// older format) shows as no tasks rather than breaking the page.
			ws.Tasks = s.parsedTasks(id, tf)
		}
	case store.KindOf(err) != store.NotFound:
		return Workspace{}, storeErr(err)
	}
	if undo && who.ID != "" {
		u, err := s.st.UndoState(ctx, id, who.ID)
		if err != nil {
			return Workspace{}, storeErr(err)
		}
		ws.CanUndo, ws.CanRedo = u.CanUndo, u.CanRedo
	}
	return ws, nil
}

// head returns the head listing of rec's workspace, the version and revision number it is at,
// and the workspace record as it matches that listing (read again when the head had moved on).
func (s *Service) head(ctx context.Context, rec store.Workspace) (*listing.Listing, int64, int, store.Workspace, error) {
	s.mu.Lock()
	h, ok := s.heads[rec.ID]
	s.mu.Unlock()
	if ok && h.seq == rec.Seq {
		return h.l, rec.Seq, rec.Head, rec, nil
	}
	var head *listing.Listing
	var version int64
	var number int
	for attempt := 0; ; attempt++ {
		rev, err := s.st.Revision(ctx, rec.ID, -1)
		if err != nil {
			return nil, 0, 0, rec, storeErr(err)
		}
		// The head may have moved on since the workspace was read; its own last seq is
		// what it pins.
		pinned := rev.LastSeq
		if rev.Number == 0 {
			pinned = 0
		}
		head, version, number = rev.Listing, max(pinned, rec.Seq), rev.Number
		if pinned <= rec.Seq || attempt == 3 {
			break
		}
		// Read the workspace again, so that its shapes are the listing's: older shapes are
		// only refused (never wrong), but a page's state cache would keep them, and every
		// retry of the refused change would be refused again.
		if rec, err = s.st.Workspace(ctx, rec.ID); err != nil {
			return nil, 0, 0, rec, storeErr(err)
		}
		if rec.Seq == pinned {
			break
		}
	}
	s.cacheHead(rec.ID, version, head)
	return head, version, number, rec, nil
}

// baseline returns revision 0's listing, which never changes.
func (s *Service) baseline(ctx context.Context, id string) (*listing.Listing, error) {
	s.mu.Lock()
	base := s.bases[id]
	s.mu.Unlock()
	if base != nil {
		return base, nil
	}
	rev, err := s.st.Revision(ctx, id, 0)
	if err != nil {
		return nil, storeErr(err)
	}
	s.mu.Lock()
	if len(s.bases) >= maxCached {
		clear(s.bases)
	}
	s.bases[id] = rev.Listing
	s.mu.Unlock()
	return rev.Listing, nil
}

// parsedTasks returns the parsed tasks of a stored task file, parsing it only when it changed.
// A file that no longer parses (an older format) reads as no tasks.
func (s *Service) parsedTasks(id string, tf store.TaskFile) []selection.Task {
	s.mu.Lock()
	e, ok := s.tasks[id]
	s.mu.Unlock()
	if ok && e.seq == tf.Seq {
		return e.tasks
	}
	ts, err := selection.ParseTasks(tf.Body, false)
	if err != nil {
		ts = nil
	}
	s.mu.Lock()
	if len(s.tasks) >= maxCached {
		clear(s.tasks)
	}
	s.tasks[id] = tasksEntry{seq: tf.Seq, tasks: ts}
	s.mu.Unlock()
	return ts
}

// Change is what an edit, an undo, a redo or a restore did: the workspace before it (as read
// for it; zero for an undo, a redo or a restore), the workspace after it, and the store's
// result (zero when nothing changed).
type Change struct {
	Before, After Workspace
	Result        store.EditResult
	// Ops are the listing operations made, as the store accepted them: the field they set
	// tells other pages what changed and where the person is typing.
	Ops []listing.Op
	// Selected is the tool to show after a tool edit (an added or moved tool's place).
	Selected int
}

// Apply reads the workspace once, records e by who against it and returns the workspace before
// and after, with the store's result for its last edit (zero when e changes nothing). Each edit
// is a step of who's undo, kept by the store.
func (s *Service) Apply(ctx context.Context, id string, e Edit, who Author) (Change, error) {
	who = AuthorName(who)
	before, err := s.read(ctx, id, who, false)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Before: before, After: before, Ops: e.Ops, Selected: -1}
	if e.Tool != nil {
		if ch, err = s.applyTool(ctx, before, e, who); err != nil || ch.Result.Seq == 0 {
			// Nothing was written: the workspace is as read.
			return ch, err
		}
	} else if e.Make != nil {
		if e, err = s.applyMade(ctx, e, who, &ch); err != nil || ch.Result.Seq == 0 {
			return ch, err
		}
	} else if len(e.Ops) > 0 {
		se := store.Edit{Workspace: id, Author: who.Name, AuthorID: who.ID, Ops: e.Ops, Message: messageOr(e.Message, Summary(before.Listing, e.Ops)),
			Undo: &store.Undoable{Key: e.Key, Path: store.UndoScope(e.Ops)}}
		if err := s.appendEdit(ctx, se, &ch); err != nil {
			return ch, err
		}
	}
	if e.SetTasks || e.Task != nil {
		return s.applyTasks(ctx, ch, e, who)
	}
	if ch.Result.Seq == 0 {
		// Nothing changed; the undo state is read as it stands.
		ch.After, err = s.Get(ctx, id, who)
		return ch, err
	}
	return ch, nil
}

// applyTool makes e.Tool's ops from the listing as read, to refuse a stale position or a
// mistake before anything is written, then records them; under the store's lock they are made
// again from the head when it is no longer the listing read.
func (s *Service) applyTool(ctx context.Context, before Workspace, e Edit, who Author) (Change, error) {
	te := *e.Tool
	ch := Change{Before: before, After: before, Selected: te.Tool}
	if Stale(before, e.ToolsBase, e.ParamsBase, te.Tool) {
		return ch, &StaleTools{}
	}
	if te.NamesTool() && te.Kind != tooledit.ToolOp && (te.Tool < 0 || te.Tool >= len(before.Listing.Tools)) {
		return ch, &Refused{Err: tooledit.ToolGone(te.Tool, len(before.Listing.Tools)), Gone: true}
	}
	ops, sel, err := te.Make(before.Listing)
	if err != nil {
		return ch, &Refused{Err: err}
	}
	ch.Selected = sel
	if len(ops) == 0 {
		return ch, nil
	}
	key := e.Key
	if key == "" {
		key = te.Key()
	}
	se := store.Edit{Workspace: before.ID, Author: who.Name, AuthorID: who.ID, Message: messageOr(e.Message, Summary(before.Listing, ops)), Undo: &store.Undoable{Key: key},
		ToolsBase: e.ToolsBase, ParamsBase: e.ParamsBase, ParamsTool: te.Tool}
	read := before.Listing
	se.Make = func(head *listing.Listing) ([]listing.Op, error) {
		if head != read {
			ops, _, err = te.Make(head)
		}
		ch.Ops = ops // what was made: the field it sets, for notices and focus
		return ops, err
	}
	return ch, s.appendEdit(ctx, se, &ch)
}

// appendEdit records se and sets ch's result, and its workspace after: a listing edit changes
// the head, its shapes and the undo state only, so the rest is as read a moment ago and needs
// no second round of reads.
func (s *Service) appendEdit(ctx context.Context, se store.Edit, ch *Change) error {
	res, err := s.st.AppendEdit(ctx, se)
	ch.Result = res
	if errors.Is(err, store.ErrToolsReshaped) {
		return &StaleTools{}
	}
	if err != nil {
		return storeErr(err)
	}
	if res.Seq == 0 {
		return nil
	}
	s.cacheHead(se.Workspace, res.Seq, res.Listing)
	after := &ch.After
	after.Listing, after.Version, after.Head = res.Listing, int(res.Seq), res.Revision.Number
	after.ToolsShape, after.ParamsShapes = int(res.ToolsShape), res.ParamsShapes
	after.CanUndo, after.CanRedo = res.Undo.CanUndo, res.Undo.CanRedo
	return nil
}

// Stale reports whether an edit's positions, rendered at the shapes toolsBase and (of tool t's
// parameters) paramsBase, are older than ws's: a tool or parameter was added, removed or moved
// since, so a position may name another one now. nil is unchecked (a client that is not a
// page). The store checks again as it accepts an edit, since a reshape may land in between.
func Stale(ws Workspace, toolsBase, paramsBase *int64, t int) bool {
	return toolsBase != nil && *toolsBase < int64(ws.ToolsShape) || paramsBase != nil && *paramsBase < ws.ParamsShapes[t]
}

// AuthorName keeps a display name within the store's limits ("Anonymous" when there is none).
func AuthorName(a Author) Author {
	a.Name = strings.TrimSpace(strings.Map(displayRune, strings.ToValidUTF8(a.Name, "?")))
	if a.Name == "" {
		a.Name = "Anonymous"
	}
	if utf8.RuneCountInString(a.Name) > store.MaxAuthor {
		a.Name = string([]rune(a.Name)[:store.MaxAuthor])
	}
	return a
}
