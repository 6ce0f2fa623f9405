package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/internal/sqlstore"
)

// ToolPruning checks, on a store kept by store/internal/sqlstore whose database db is, that a
// tool version no revision lists any more is deleted: the versions a run of coalesced
// keystrokes passed through, and on deleting a workspace the tools no other workspace lists,
// while tools a fork shares stay. Texts carry the workspace's ID, so that other tests' tools
// on the same database never match.
func ToolPruning(t *testing.T, s store.Store, db *sql.DB, postgres bool) {
	p := &pruning{t: t, s: s, db: db, q: sqlstore.RebindFor(postgres)}
	w := newWorkspace(t, s, t0)
	base, err := s.Revision(context.Background(), w.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	final := p.checkCoalescedVersionsGo(w.ID, base.Listing)
	p.checkRestoreKeepsBaseline(w.ID, base.Listing, final)
	p.checkDeleteKeepsForkTools(w.ID, final)
}

// pruning is the store ToolPruning checks, with what it asks of the database.
type pruning struct {
	t  *testing.T
	s  store.Store
	db *sql.DB
	q  func(string) string
}

// typedKeystrokes is how many keystrokes checkCoalescedVersionsGo types.
const typedKeystrokes = 30

// typed is the text of keystroke i in workspace ws.
func typed(ws string, i int) string { return fmt.Sprintf("%s typed %d", ws, i) }

// stored tells whether the store holds tool, as it holds it.
func (p *pruning) stored(tool *listing.Value) bool {
	p.t.Helper()
	h := sha256.Sum256(listing.Marshal(tool, ""))
	var n int
	if err := p.db.QueryRowContext(context.Background(), p.q(`SELECT count(*) FROM tools WHERE hash = ?`), h[:]).Scan(&n); err != nil {
		p.t.Fatal(err)
	}
	return n == 1
}

// withDesc is tool 0 of l with its description set to text, as the store would hold it.
func (p *pruning) withDesc(l *listing.Listing, text string) *listing.Value {
	p.t.Helper()
	e, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(text)})
	if err != nil {
		p.t.Fatal(err)
	}
	return e.Tools[0]
}

// edit sets tool 0's description in workspace ws.
func (p *pruning) edit(ws, author, text string, at time.Time) store.EditResult {
	p.t.Helper()
	r, err := p.s.AppendEdit(context.Background(), store.Edit{Workspace: ws, Author: author, Ops: set("/tools/0/description", text), Now: at})
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

// orphans counts the stored tools no revision lists.
func (p *pruning) orphans() int {
	p.t.Helper()
	var n int
	if err := p.db.QueryRowContext(context.Background(), `SELECT count(*) FROM tools t WHERE NOT EXISTS (SELECT 1 FROM workspace_tools r WHERE r.hash = t.hash)`).Scan(&n); err != nil {
		p.t.Fatal(err)
	}
	return n
}

// checkCoalescedVersionsGo types keystrokes that coalesce into one revision: only the last
// version of the tool stays stored, beside the baseline's. It returns that last version.
func (p *pruning) checkCoalescedVersionsGo(ws string, base *listing.Listing) *listing.Value {
	t := p.t
	var last store.EditResult
	for i := range typedKeystrokes {
		last = p.edit(ws, "ada", typed(ws, i), t0.Add(time.Duration(i)*time.Millisecond))
		if i > 0 && !last.Coalesced {
			t.Fatalf("keystroke %d started revision %d; the test needs coalesced edits", i, last.Revision.Number)
		}
	}
	for i := range typedKeystrokes - 1 {
		if p.stored(p.withDesc(base, typed(ws, i))) {
			t.Errorf("after %d coalesced keystrokes, the version of keystroke %d is still stored; no revision lists it", typedKeystrokes, i)
		}
	}
	final := last.Listing.Tools[0]
	if !p.stored(final) || !p.stored(base.Tools[0]) {
		t.Errorf("a listed tool was deleted: head's %v, baseline's %v", p.stored(final), p.stored(base.Tools[0]))
	}
	if n := p.orphans(); n != 0 {
		t.Errorf("%d stored tools are listed by no revision", n)
	}
	return final
}

// checkRestoreKeepsBaseline goes back to the baseline, then types over it again, starting
// with a keystroke that changes nothing (so the revision the others coalesce into lists the
// baseline's tool): the baseline's tool stays, as revision 0 lists it.
func (p *pruning) checkRestoreKeepsBaseline(ws string, base *listing.Listing, final *listing.Value) {
	t := p.t
	if _, err := p.s.Restore(context.Background(), store.Restore{Workspace: ws, Number: 0, Author: "ada", Now: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	p.edit(ws, "ada", base.Tools[0].Get("description").Str, t0.Add(time.Second))
	for i := range 3 {
		if r := p.edit(ws, "ada", typed(ws, 100+i), t0.Add(time.Second+time.Duration(i+1)*time.Millisecond)); !r.Coalesced {
			t.Fatalf("keystroke %d after the restore started revision %d; the test needs coalesced edits", i, r.Revision.Number)
		}
	}
	if !p.stored(base.Tools[0]) || !p.stored(final) {
		t.Errorf("typing over a restored baseline deleted tools older revisions list: baseline's %v, revision 1's %v", p.stored(base.Tools[0]), p.stored(final))
	}
	if p.stored(p.withDesc(base, typed(ws, 100))) {
		t.Errorf("a coalesced-over version after the restore is still stored")
	}
}

// checkDeleteKeepsForkTools forks the workspace, and has fork and source each write a tool of
// its own: deleting the source deletes its own tool but not those the fork lists, and
// deleting the fork then deletes the rest.
func (p *pruning) checkDeleteKeepsForkTools(ws string, shared *listing.Value) {
	t, ctx := p.t, context.Background()
	f, err := p.s.ForkWorkspace(ctx, store.Fork{From: ws, Author: "bob", Now: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	forkOwn := p.edit(f.ID, "bob", f.ID+" fork's own", t0.Add(time.Minute)).Listing.Tools[0]
	srcOwn := p.edit(ws, "bob", ws+" source's own", t0.Add(time.Minute)).Listing.Tools[0]
	if err := p.s.DeleteWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if p.stored(srcOwn) {
		t.Errorf("deleting the workspace left its own tool stored")
	}
	if !p.stored(shared) || !p.stored(forkOwn) {
		t.Errorf("deleting the source deleted tools its fork lists: shared %v, fork's own %v", p.stored(shared), p.stored(forkOwn))
	}
	if _, err := p.s.Revision(ctx, f.ID, 1); err != nil {
		t.Errorf("the fork's revision 1 (the source's keystrokes) is unreadable after deleting the source: %v", err)
	}
	if n := p.orphans(); n != 0 {
		t.Errorf("%d stored tools are listed by no revision after deleting a workspace", n)
	}
	if err := p.s.DeleteWorkspace(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	if p.stored(shared) || p.stored(forkOwn) {
		t.Errorf("deleting the fork too left tools no workspace lists: shared %v, fork's own %v", p.stored(shared), p.stored(forkOwn))
	}
}

// ToolPruningConcurrent has several workspaces type the same few texts at once, so that each
// keeps deleting tool versions another is writing again: every edit must succeed (a tool
// deleted under another's reference would fail it, by the tools foreign key) and no stored
// tool may end up listed by no revision.
func ToolPruningConcurrent(t *testing.T, s store.Store, db *sql.DB) {
	ctx := context.Background()
	const writers, keystrokes, texts = 4, 60, 3
	ws := make([]store.Workspace, writers)
	for i := range ws {
		ws[i] = newWorkspace(t, s, t0)
	}
	tag := ws[0].ID // texts no other test writes
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keystrokes {
				if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Ops: set("/tools/0/description", fmt.Sprintf("%s %d", tag, i%texts)),
					Now: t0.Add(time.Duration(i) * time.Millisecond)}); err != nil {
					errs <- fmt.Errorf("workspace %s, keystroke %d: %w", w.ID, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM tools t WHERE NOT EXISTS (SELECT 1 FROM workspace_tools r WHERE r.hash = t.hash)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d stored tools are listed by no revision", n)
	}
	for _, w := range ws {
		if err := s.DeleteWorkspace(ctx, w.ID); err != nil {
			t.Error(err)
		}
	}
}
