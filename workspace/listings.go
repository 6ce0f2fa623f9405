package workspace

import (
	"context"
	"fmt"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// Records is the part of a store.Store that whole-listing work needs; store.Store has these
// methods, and a test may stand in with fewer.
type Records interface {
	CreateWorkspace(ctx context.Context, w store.NewWorkspace) (store.Workspace, error)
	// Revision returns a revision with its listing; number -1 is the head.
	Revision(ctx context.Context, workspace string, number int) (store.Revision, error)
	// Commit records a whole listing as a new revision.
	Commit(ctx context.Context, c store.Commit) (store.EditResult, error)
	// Revisions lists a page of the revisions, newest first, without listings or ops (see
	// store.Store.Revisions).
	Revisions(ctx context.Context, workspace string, page store.RevisionPage) ([]store.Revision, error)
	// SetTitle renames a workspace.
	SetTitle(ctx context.Context, id, title string, now time.Time) (store.Workspace, error)
}

// Listings is the service's whole-listing operations, the JSON API's: create a workspace as
// given, read its head, replace its listing, page through its revisions. They take and give
// the store's records unchanged, so that the API answers what the store keeps.
type Listings struct{ st Records }

// NewListings returns the whole-listing operations over st.
func NewListings(st Records) *Listings { return &Listings{st: st} }

// CreateRecord stores a new workspace as nw describes it.
func (l *Listings) CreateRecord(ctx context.Context, nw store.NewWorkspace) (store.Workspace, error) {
	w, err := l.st.CreateWorkspace(ctx, nw)
	if err != nil {
		return store.Workspace{}, fmt.Errorf("create workspace: %w", err)
	}
	return w, nil
}

// HeadRevision returns the head revision with its listing.
func (l *Listings) HeadRevision(ctx context.Context, id string) (store.Revision, error) {
	rev, err := l.st.Revision(ctx, id, -1)
	if err != nil {
		return store.Revision{}, fmt.Errorf("read head: %w", err)
	}
	if rev.Listing == nil {
		return store.Revision{}, fmt.Errorf("read head: the store returned revision %d without its listing", rev.Number)
	}
	return rev, nil
}

// Rename gives a workspace a new title, kept as the pages keep one (Title).
func (l *Listings) Rename(ctx context.Context, id, title string, now time.Time) (store.Workspace, error) {
	w, err := l.st.SetTitle(ctx, id, Title(title), now)
	if err != nil {
		return store.Workspace{}, fmt.Errorf("rename workspace: %w", err)
	}
	return w, nil
}

// Replace records c's whole listing as the workspace's next revision.
func (l *Listings) Replace(ctx context.Context, c store.Commit) (store.EditResult, error) {
	res, err := l.st.Commit(ctx, c)
	if err != nil {
		return res, fmt.Errorf("replace listing: %w", err)
	}
	return res, nil
}

// Revisions lists a page of the workspace's revisions, newest first.
func (l *Listings) Revisions(ctx context.Context, id string, page store.RevisionPage) ([]store.Revision, error) {
	revs, err := l.st.Revisions(ctx, id, page)
	if err != nil {
		return nil, fmt.Errorf("list revisions: %w", err)
	}
	return revs, nil
}
