package api

import (
	"context"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// fakeStore keeps workspaces in memory with the semantics of store.Store that the API relies
// on: revision 0 is the baseline, Commit appends a replace revision, Revisions lists newest
// first without listings, unknown ids are NotFound errors.
type fakeStore struct {
	mu   sync.Mutex
	ws   map[string]*fakeWorkspace
	fail error // returned by Commit when set
}

type fakeWorkspace struct {
	w    store.Workspace
	revs []store.Revision
}

func newFakeStore() *fakeStore { return &fakeStore{ws: map[string]*fakeWorkspace{}} }

var _ Workspaces = (*fakeStore)(nil)
var _ Workspaces = store.Store(nil) // the real store satisfies the interface

func (s *fakeStore) CreateWorkspace(_ context.Context, nw store.NewWorkspace) (store.Workspace, error) {
	if nw.Listing == nil {
		return store.Workspace{}, store.Errorf(store.Invalid, "create workspace", "no listing")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := store.Workspace{ID: store.NewID(), Title: nw.Title, Created: nw.Now.UTC(), Updated: nw.Now.UTC()}
	s.ws[w.ID] = &fakeWorkspace{w: w, revs: []store.Revision{{Workspace: w.ID, Number: 0, Parent: -1, Kind: store.KindImport,
		Author: nw.Author, Message: nw.Message, Created: w.Created, Updated: w.Created, RestoredFrom: -1, Listing: nw.Listing}}}
	return w, nil
}

func (s *fakeStore) SetTitle(_ context.Context, id, title string, now time.Time) (store.Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fw, err := s.get(id)
	if err != nil {
		return store.Workspace{}, err
	}
	fw.w.Title, fw.w.Updated = title, now.UTC()
	return fw.w, nil
}

func (s *fakeStore) get(id string) (*fakeWorkspace, error) {
	fw := s.ws[id]
	if fw == nil {
		return nil, store.Errorf(store.NotFound, "read workspace", "no workspace %s", id)
	}
	return fw, nil
}

func (s *fakeStore) Revision(_ context.Context, id string, n int) (store.Revision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fw, err := s.get(id)
	if err != nil {
		return store.Revision{}, err
	}
	if n == -1 {
		n = len(fw.revs) - 1
	}
	if n < 0 || n >= len(fw.revs) {
		return store.Revision{}, store.Errorf(store.NotFound, "read revision", "no revision %d", n)
	}
	return fw.revs[n], nil
}

func (s *fakeStore) Commit(_ context.Context, c store.Commit) (store.EditResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return store.EditResult{}, s.fail
	}
	fw, err := s.get(c.Workspace)
	if err != nil {
		return store.EditResult{}, err
	}
	fw.w.Seq++
	fw.w.Head = len(fw.revs)
	fw.w.Updated = c.Now.UTC()
	rev := store.Revision{Workspace: c.Workspace, Number: fw.w.Head, Parent: fw.w.Head - 1, Kind: store.KindReplace,
		Author: c.Author, Message: c.Message, Created: c.Now.UTC(), Updated: c.Now.UTC(), Edits: 1,
		FirstSeq: fw.w.Seq, LastSeq: fw.w.Seq, RestoredFrom: -1, Listing: c.Listing}
	fw.revs = append(fw.revs, rev)
	head := rev
	head.Listing = nil
	return store.EditResult{Seq: fw.w.Seq, Revision: head, Listing: c.Listing}, nil
}

func (s *fakeStore) Revisions(_ context.Context, id string, p store.RevisionPage) ([]store.Revision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fw, err := s.get(id)
	if err != nil {
		return nil, err
	}
	before, limit := len(fw.revs), p.Limit
	if p.Before > 0 {
		before = min(before, p.Before)
	}
	if limit == 0 {
		limit = store.DefaultRevisionLimit
	}
	out := make([]store.Revision, 0, min(before, limit))
	for i := before - 1; i >= 0 && len(out) < limit; i-- {
		r := fw.revs[i]
		r.Listing, r.Ops = nil, nil
		out = append(out, r)
	}
	return out, nil
}
