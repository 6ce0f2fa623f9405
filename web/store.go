package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// ErrNotFound is a workspace id that no store knows.
var ErrNotFound = errors.New("no such workspace")

// Workspace is one listing being worked on: its current revision, the baseline it was imported
// as, and its task file.
type Workspace struct {
	ID       string
	Name     string
	Listing  *listing.Listing
	Baseline *listing.Listing
	Tasks    []selection.Task
	// Version counts applied changes (edits, undos, redos); patches carry it.
	Version int
	CanUndo bool
	CanRedo bool
	Created time.Time
}

// Edit is one change: listing operations, a new task file, or both. Key names the field it
// touches ("tools/3/description"); consecutive edits with the same non-empty key coalesce into
// one step of undo history, so undo takes back a burst of typing, not one keystroke.
type Edit struct {
	Ops      []listing.Op
	Tasks    []selection.Task
	SetTasks bool
	Key      string
}

// WorkspaceStore keeps workspaces and their history. The handlers only speak to this
// interface, so the storage issue's SQLite and PostgreSQL stores plug in without touching them.
// Implementations serialise changes to one workspace.
type WorkspaceStore interface {
	Create(ctx context.Context, name string, l *listing.Listing, tasks []selection.Task) (Workspace, error)
	Get(ctx context.Context, id string) (Workspace, error)
	// ApplyEdit applies e to the workspace's current revision and records it in history.
	ApplyEdit(ctx context.Context, id string, e Edit) (Workspace, error)
	Undo(ctx context.Context, id string) (Workspace, error)
	Redo(ctx context.Context, id string) (Workspace, error)
}

// NewID returns an unguessable workspace id: the link is the capability to edit.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // never happens on supported systems
	}
	return hex.EncodeToString(b[:])
}

// MemoryStore keeps workspaces in memory until the process ends.
type MemoryStore struct {
	mu  sync.Mutex
	ws  map[string]*memWorkspace
	max int // history steps kept per workspace
}

type snapshot struct {
	listing *listing.Listing
	tasks   []selection.Task
	key     string
}

type memWorkspace struct {
	Workspace
	undo []snapshot // states before each step
	redo []snapshot
	last string // key of the last edit, for coalescing
}

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{ws: map[string]*memWorkspace{}, max: 500} }

func (m *memWorkspace) view() Workspace {
	w := m.Workspace
	w.CanUndo, w.CanRedo = len(m.undo) > 0, len(m.redo) > 0
	return w
}

// Create stores a new workspace.
func (s *MemoryStore) Create(_ context.Context, name string, l *listing.Listing, tasks []selection.Task) (Workspace, error) {
	if l == nil {
		return Workspace{}, errors.New("create workspace: no listing")
	}
	w := &memWorkspace{Workspace: Workspace{ID: NewID(), Name: name, Listing: l, Baseline: l, Tasks: tasks, Created: time.Now()}}
	s.mu.Lock()
	s.ws[w.ID] = w
	s.mu.Unlock()
	return w.view(), nil
}

// Get returns a workspace.
func (s *MemoryStore) Get(_ context.Context, id string) (Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.ws[id]
	if !ok {
		return Workspace{}, ErrNotFound
	}
	return w.view(), nil
}

// ApplyEdit applies e and records the previous state for undo.
func (s *MemoryStore) ApplyEdit(_ context.Context, id string, e Edit) (Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.ws[id]
	if !ok {
		return Workspace{}, ErrNotFound
	}
	next, err := w.Listing.ApplyAll(e.Ops)
	if err != nil {
		return Workspace{}, fmt.Errorf("apply edit: %w", err)
	}
	before := snapshot{listing: w.Listing, tasks: w.Tasks, key: e.Key}
	if e.Key == "" || e.Key != w.last || len(w.undo) == 0 {
		w.undo = append(w.undo, before)
		if len(w.undo) > s.max {
			w.undo = w.undo[len(w.undo)-s.max:]
		}
	}
	w.last = e.Key
	w.redo = nil
	w.Listing = next
	if e.SetTasks {
		w.Tasks = e.Tasks
	}
	w.Version++
	return w.view(), nil
}

// Undo restores the state before the last step.
func (s *MemoryStore) Undo(_ context.Context, id string) (Workspace, error) {
	return s.step(id, true)
}

// Redo re-applies the last undone step.
func (s *MemoryStore) Redo(_ context.Context, id string) (Workspace, error) {
	return s.step(id, false)
}

func (s *MemoryStore) step(id string, undo bool) (Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.ws[id]
	if !ok {
		return Workspace{}, ErrNotFound
	}
	from, to := &w.undo, &w.redo
	if !undo {
		from, to = &w.redo, &w.undo
	}
	if len(*from) == 0 {
		return w.view(), nil
	}
	snap := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, snapshot{listing: w.Listing, tasks: w.Tasks, key: snap.key})
	w.Listing, w.Tasks = snap.listing, snap.tasks
	w.last = "" // the next edit starts a new step
	w.Version++
	return w.view(), nil
}
