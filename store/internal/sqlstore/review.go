package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tool-workbench/workbench/store"
)

const commentCols = `id, workspace_id, COALESCE(thread_id, ''), anchor, author, author_id, body, revision, seq, created_at, resolved, resolved_by, resolved_at`

func scanComment(row interface{ Scan(...any) error }) (store.Comment, error) {
	var c store.Comment
	var anchor []byte
	var created, resolvedAt int64
	var resolved int
	err := row.Scan(&c.ID, &c.Workspace, &c.Thread, &anchor, &c.Author, &c.AuthorID, &c.Body, &c.Revision, &c.Seq,
		&created, &resolved, &c.ResolvedBy, &resolvedAt)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(anchor, &c.Anchor); err != nil {
		return c, fmt.Errorf("comment %s: anchor: %w", c.ID, err)
	}
	c.Created, c.Resolved = store.FromMicros(created), resolved != 0
	if resolvedAt != 0 {
		c.ResolvedAt = store.FromMicros(resolvedAt)
	}
	return c, nil
}

func checkAnchor(op string, a store.Anchor) error {
	if a.Index < 0 {
		return store.Errorf(store.Invalid, op, "the anchor's tool index %d is negative", a.Index)
	}
	// The tool's name and the field are the listing's (a hostile parameter "path\u202e" is
	// what a reviewer most needs to comment on): valid UTF-8 and length only. Pages clean them
	// where they show them; the text kept for display is clean.
	return firstErr(
		store.CheckListingText(op, "anchor's tool name", a.Tool, store.MaxTitle),
		store.CheckListingText(op, "anchor's field", a.Field, store.MaxAnchorField),
		store.CheckText(op, "anchor's finding", a.Finding, store.MaxAnchorRule, false, false),
		store.CheckText(op, "anchor's text", a.Text, store.MaxAnchorText, false, true))
}

// AddComment implements store.Reviews.
func (s *DB) AddComment(ctx context.Context, c store.NewComment) (store.Comment, error) {
	const op = "add comment"
	errs := []error{checkID(op, "workspace ID", c.Workspace),
		store.CheckText(op, "author", c.Author, store.MaxAuthor, true, false),
		store.CheckText(op, "author ID", c.AuthorID, store.MaxAuthor, false, false),
		store.CheckText(op, "comment", c.Body, store.MaxCommentBody, true, true)}
	if c.Thread != "" {
		errs = append(errs, checkID(op, "thread ID", c.Thread))
	} else {
		errs = append(errs, checkAnchor(op, c.Anchor))
	}
	if err := firstErr(errs...); err != nil {
		return store.Comment{}, err
	}
	out := store.Comment{ID: store.NewID(), Workspace: c.Workspace, Thread: c.Thread, Anchor: c.Anchor, Author: c.Author,
		AuthorID: c.AuthorID, Body: c.Body, Revision: c.Revision, Seq: c.Seq, Created: now(c.Now)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		if err := s.lockWorkspace(ctx, tx, op, c.Workspace); err != nil {
			return nil, err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM review_comments WHERE workspace_id = ?`), c.Workspace).Scan(&n); err != nil {
			return nil, err
		}
		if n >= store.MaxComments {
			return nil, store.Errorf(store.Invalid, op, "workspace %s holds %d comments, the limit (resolved threads and their replies count too); export the review to keep it, and fork the workspace to review it further there: a fork starts without comments", c.Workspace, n)
		}
		var thread any
		if c.Thread != "" {
			var parent string
			var anchor []byte
			err := tx.QueryRowContext(ctx, s.q(`SELECT COALESCE(thread_id, ''), anchor FROM review_comments WHERE workspace_id = ? AND id = ?`), c.Workspace, c.Thread).Scan(&parent, &anchor)
			if errors.Is(err, sql.ErrNoRows) {
				return nil, store.Errorf(store.NotFound, op, "workspace %s has no thread %s", c.Workspace, c.Thread)
			}
			if err != nil {
				return nil, err
			}
			if parent != "" {
				return nil, store.Errorf(store.Invalid, op, "comment %s is a reply; reply to its thread %s", c.Thread, parent)
			}
			if err := json.Unmarshal(anchor, &out.Anchor); err != nil {
				return nil, fmt.Errorf("thread %s: anchor: %w", c.Thread, err)
			}
			thread = c.Thread
		}
		anchor, err := json.Marshal(out.Anchor)
		if err != nil {
			return nil, err
		}
		if c.Thread != "" {
			anchor = []byte("{}") // a reply's anchor is its thread's
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO review_comments (id, workspace_id, thread_id, anchor, author, author_id, body, revision, seq, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), out.ID, c.Workspace, thread, string(anchor), c.Author, c.AuthorID, c.Body, c.Revision, c.Seq, store.Micros(out.Created))
		if err != nil {
			return nil, err
		}
		return []store.Event{{Workspace: c.Workspace, Kind: store.EventReview, Revision: c.Revision}}, nil
	})
	if err != nil {
		return store.Comment{}, err
	}
	return out, nil
}

// Comments implements store.Reviews. A reply carries its thread's anchor.
func (s *DB) Comments(ctx context.Context, ws string) ([]store.Comment, error) {
	const op = "list comments"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	if _, err := s.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+commentCols+` FROM review_comments WHERE workspace_id = ? ORDER BY created_at, id`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Comment{}
	anchors := map[string]store.Anchor{}
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		if c.Thread == "" {
			anchors[c.ID] = c.Anchor
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	for i, c := range out {
		if c.Thread != "" {
			out[i].Anchor = anchors[c.Thread]
		}
	}
	return out, nil
}

// ResolveThread implements store.Reviews.
func (s *DB) ResolveThread(ctx context.Context, r store.Resolve) (store.Comment, error) {
	const op = "resolve thread"
	if err := firstErr(checkID(op, "workspace ID", r.Workspace), checkID(op, "thread ID", r.Thread),
		store.CheckText(op, "name", r.By, store.MaxAuthor, true, false)); err != nil {
		return store.Comment{}, err
	}
	var out store.Comment
	at := now(r.Now)
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		c, err := scanComment(tx.QueryRowContext(ctx, s.q(`SELECT `+commentCols+` FROM review_comments WHERE workspace_id = ? AND id = ?`+s.forUpdate()), r.Workspace, r.Thread))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no thread %s", r.Workspace, r.Thread)
		}
		if err != nil {
			return nil, err
		}
		if c.Thread != "" {
			return nil, store.Errorf(store.Invalid, op, "comment %s is a reply; resolve its thread %s", r.Thread, c.Thread)
		}
		resolved, by, when := 0, "", int64(0)
		c.Resolved, c.ResolvedBy, c.ResolvedAt = r.Resolved, "", time.Time{}
		if r.Resolved {
			resolved, by, when = 1, r.By, store.Micros(at)
			c.ResolvedBy, c.ResolvedAt = r.By, at
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE review_comments SET resolved = ?, resolved_by = ?, resolved_at = ? WHERE id = ?`), resolved, by, when, r.Thread); err != nil {
			return nil, err
		}
		out = c
		return []store.Event{{Workspace: r.Workspace, Kind: store.EventReview, Revision: c.Revision}}, nil
	})
	if err != nil {
		return store.Comment{}, err
	}
	return out, nil
}

// AddSignoff implements store.Reviews.
func (s *DB) AddSignoff(ctx context.Context, n store.NewSignoff) (store.Signoff, error) {
	const op = "add sign-off"
	errs := []error{checkID(op, "workspace ID", n.Workspace),
		store.CheckText(op, "author", n.Author, store.MaxAuthor, true, false),
		store.CheckText(op, "author ID", n.AuthorID, store.MaxAuthor, false, false),
		store.CheckText(op, "message", n.Message, store.MaxMessage, false, true),
		store.CheckText(op, "content hash", n.Hash, store.MaxHash, true, false)}
	if n.Verdict != store.Approved && n.Verdict != store.ChangesRequested {
		errs = append(errs, store.Errorf(store.Invalid, op, "the verdict %q is neither %q nor %q", n.Verdict, store.Approved, store.ChangesRequested))
	}
	if n.Revision < 0 {
		errs = append(errs, store.Errorf(store.Invalid, op, "the revision %d is negative", n.Revision))
	}
	if err := firstErr(errs...); err != nil {
		return store.Signoff{}, err
	}
	out := store.Signoff{ID: store.NewID(), Workspace: n.Workspace, Author: n.Author, AuthorID: n.AuthorID, Verdict: n.Verdict,
		Message: n.Message, Revision: n.Revision, Hash: n.Hash, Created: now(n.Now)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		if err := s.lockWorkspace(ctx, tx, op, n.Workspace); err != nil {
			return nil, err
		}
		var count, head int
		var seq int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT (SELECT COUNT(*) FROM review_signoffs WHERE workspace_id = ?), head, seq FROM workspaces WHERE id = ?`), n.Workspace, n.Workspace).Scan(&count, &head, &seq); err != nil {
			return nil, err
		}
		if count >= store.MaxSignoffs {
			return nil, store.Errorf(store.Invalid, op, "workspace %s holds %d sign-offs, the limit; fork the workspace to start a new review", n.Workspace, count)
		}
		if n.Revision > head {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no revision %d (its head is %d)", n.Workspace, n.Revision, head)
		}
		if n.Revision == head && n.Seq > 0 && seq != n.Seq {
			return nil, store.Errorf(store.Conflict, op, "revision %d changed (edit %d) since it was read (at edit %d); read it again and sign off on that", head, seq, n.Seq)
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO review_signoffs (id, workspace_id, author, author_id, verdict, message, revision, hash, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), out.ID, n.Workspace, n.Author, n.AuthorID, string(n.Verdict), n.Message, n.Revision, n.Hash, store.Micros(out.Created))
		if err != nil {
			return nil, err
		}
		if n.Revision == head {
			// Sealed as a run seals the revision it names (under the workspace's write lock, which
			// every edit takes): no keystroke extends the head into a listing nobody signed.
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE revisions SET field = '' WHERE workspace_id = ? AND number = ?`), n.Workspace, head); err != nil {
				return nil, fmt.Errorf("seal revision %d: %w", head, err)
			}
		}
		return []store.Event{{Workspace: n.Workspace, Kind: store.EventReview, Revision: n.Revision}}, nil
	})
	if err != nil {
		return store.Signoff{}, err
	}
	return out, nil
}

// Signoffs implements store.Reviews.
func (s *DB) Signoffs(ctx context.Context, ws string) ([]store.Signoff, error) {
	const op = "list sign-offs"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	if _, err := s.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT id, workspace_id, author, author_id, verdict, message, revision, hash, created_at
		FROM review_signoffs WHERE workspace_id = ? ORDER BY created_at, id`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Signoff{}
	for rows.Next() {
		var so store.Signoff
		var verdict string
		var created int64
		if err := rows.Scan(&so.ID, &so.Workspace, &so.Author, &so.AuthorID, &verdict, &so.Message, &so.Revision, &so.Hash, &created); err != nil {
			return nil, s.wrap(op, err)
		}
		so.Verdict, so.Created = store.Verdict(verdict), store.FromMicros(created)
		out = append(out, so)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(op, err)
	}
	return out, nil
}
