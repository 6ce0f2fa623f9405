package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// A restore replaces the whole listing and the task file, so its undo step is the whole
// revision: a step with no path in the listing, whose values name the revision before the
// restore and the restore's own ({"rev": N}). Both are frozen: the one before is the restore's
// parent, which no edit extends any more, and no edit extends a restore (it never coalesces).
// Undo writes back the revision before, provided the workspace still is what the restore made
// it (listing and task file alike); redo the other way round.

// wholeRevision tells whether r is a restore's step.
func (r stepRow) wholeRevision() bool { return !r.tasks && r.path == "" }

// pushRevisionStep pushes the step of a restore that turned revision from into revision to.
func (s *DB) pushRevisionStep(ctx context.Context, tx *sql.Tx, c change, from, to int) error {
	top, ok, err := s.topStep(ctx, tx, c.ws, c.authorID, "undo")
	if err != nil {
		return err
	}
	pos := int64(1)
	if ok {
		pos = top.pos + 1
	}
	return s.insertStep(ctx, tx, c.ws, c.authorID, stepRow{stack: "undo", pos: pos,
		before: fmt.Appendf(nil, `{"rev":%d}`, from), after: fmt.Appendf(nil, `{"rev":%d}`, to)})
}

// stepRevision takes back (or, redo, makes again) the restore whose step is r: the head, if it
// holds what the step left, becomes a copy of the revision the step writes back.
func (s *DB) stepRevision(ctx context.Context, tx *sql.Tx, ws string, cur state, r stepRow, redo bool) (outcome, error) {
	want, put := r.after, r.before
	if redo {
		want, put = r.before, r.after
	}
	wantN, err := stepRevisionNumber(r, want)
	if err != nil {
		return outcome{}, err
	}
	putN, err := stepRevisionNumber(r, put)
	if err != nil {
		return outcome{}, err
	}
	head, err := s.storedRevision(ctx, tx, ws, cur.head.Number)
	if err != nil {
		return outcome{}, err
	}
	was, err := s.storedRevision(ctx, tx, ws, wantN)
	if err != nil {
		return outcome{}, err
	}
	same, err := s.sameStored(ctx, tx, ws, head, was)
	if err != nil {
		return outcome{}, err
	}
	if !same {
		return outcome{}, &errStepConflict{r}
	}
	back, err := s.storedRevision(ctx, tx, ws, putN)
	if err != nil {
		return outcome{}, err
	}
	l, refs, err := s.loadSnapshot(ctx, tx, ws, putN, back.envelope, back.list)
	if err != nil {
		return outcome{}, err
	}
	return outcome{l: l, refs: refs, ops: wholeListing(l), tasks: &taskChange{reuse: &back.tasks}}, nil
}

// stepRevisionNumber reads the revision a restore's step value names.
func stepRevisionNumber(r stepRow, raw []byte) (int, error) {
	var sv stepValue
	if err := json.Unmarshal(raw, &sv); err != nil || sv.Rev == nil {
		return 0, fmt.Errorf("%w: undo step %d names no revision (%s)", errCorrupt, r.pos, raw)
	}
	return *sv.Rev, nil
}

// storedForm is a revision as stored: its listing's envelope and tool list, and its task file.
type storedForm struct {
	envelope, list []byte
	tasks          taskRef
}

func (s *DB) storedRevision(ctx context.Context, tx *sql.Tx, ws string, n int) (storedForm, error) {
	var f storedForm
	var tasks sql.NullInt64
	err := tx.QueryRowContext(ctx, s.q(`SELECT envelope, tools, tasks FROM revisions WHERE workspace_id = ? AND number = ?`), ws, n).Scan(&f.envelope, &f.list, &tasks)
	if errors.Is(err, sql.ErrNoRows) {
		return f, fmt.Errorf("%w: an undo step names revision %d, which is not stored", errCorrupt, n)
	}
	if err != nil {
		return f, fmt.Errorf("read revision %d: %w", n, err)
	}
	f.tasks = taskRef{ok: tasks.Valid, id: tasks.Int64}
	return f, nil
}

// sameStored tells whether two revisions hold the same listing and task file. A listing is
// stored as the bytes Marshal writes, split at its tools, each named by the hash of its bytes:
// two listings are the same when both parts are.
func (s *DB) sameStored(ctx context.Context, tx *sql.Tx, ws string, a, b storedForm) (bool, error) {
	if !bytes.Equal(a.envelope, b.envelope) || !bytes.Equal(a.list, b.list) || a.tasks.ok != b.tasks.ok {
		return false, nil
	}
	if a.tasks == b.tasks {
		return true, nil
	}
	ta, err := s.taskBody(ctx, tx, ws, a.tasks)
	if err != nil {
		return false, err
	}
	tb, err := s.taskBody(ctx, tx, ws, b.tasks)
	if err != nil {
		return false, err
	}
	return sameJSON(ta, tb), nil
}

// dropBeyondRestore forgets the steps of r's stack beyond r, a restore's step refused: the
// undo steps made before the restore (or the redo steps made after it) would write back values
// the restore replaced, so every one whose field the restore changed would be refused in turn,
// as someone else's change, when the change was the person's own restore. Undo (or redo) then
// has nothing left, and says so.
func (s *DB) dropBeyondRestore(ctx context.Context, tx *sql.Tx, ws, author string, r stepRow) error {
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM undo_steps WHERE workspace_id = ? AND author_id = ? AND stack = ? AND pos < ?`),
		ws, author, r.stack, r.pos); err != nil {
		return fmt.Errorf("forget the steps beyond a restore: %w", err)
	}
	return nil
}
