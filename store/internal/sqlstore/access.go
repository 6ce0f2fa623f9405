package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/tool-workbench/workbench/store"
)

const linkCols = `id, workspace_id, capability, author, created_at, revoked_at`

func scanLink(row interface{ Scan(...any) error }) (store.ShareLink, error) {
	var l store.ShareLink
	var created int64
	var revoked sql.NullInt64
	var capability string
	err := row.Scan(&l.ID, &l.Workspace, &capability, &l.Author, &created, &revoked)
	l.Capability, l.Created = store.Capability(capability), store.FromMicros(created)
	if revoked.Valid {
		l.Revoked = store.FromMicros(revoked.Int64)
	}
	return l, err
}

// CreateShareLink implements store.Access.
func (s *DB) CreateShareLink(ctx context.Context, nl store.NewShareLink) (store.ShareLink, error) {
	const op = "create share link"
	if err := firstErr(checkID(op, "workspace ID", nl.Workspace), store.CheckText(op, "author", nl.Author, store.MaxAuthor, false, false)); err != nil {
		return store.ShareLink{}, err
	}
	if nl.Capability != store.CanView && nl.Capability != store.CanEdit {
		return store.ShareLink{}, store.Errorf(store.Invalid, op, "capability %q is unknown; use %q or %q", nl.Capability, store.CanView, store.CanEdit)
	}
	l := store.ShareLink{ID: store.NewID(), Token: store.NewID(), Workspace: nl.Workspace, Capability: nl.Capability, Author: nl.Author, Created: now(nl.Now)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO share_links (id, token_hash, workspace_id, capability, author, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			l.ID, store.TokenHash(l.Token), l.Workspace, string(l.Capability), l.Author, store.Micros(l.Created))
		if err != nil && store.KindOf(s.wrap(op, err)) == store.NotFound {
			return nil, notFoundWorkspace(op, l.Workspace)
		}
		return nil, err
	})
	if err != nil {
		return store.ShareLink{}, err
	}
	return l, nil
}

// ShareLink implements store.Access.
func (s *DB) ShareLink(ctx context.Context, token string) (store.ShareLink, error) {
	const op = "resolve share link"
	if err := checkID(op, "share token", token); err != nil {
		return store.ShareLink{}, err
	}
	l, err := scanLink(s.read.QueryRowContext(ctx, s.q(`SELECT `+linkCols+` FROM share_links WHERE token_hash = ?`), store.TokenHash(token)))
	if errors.Is(err, sql.ErrNoRows) {
		return store.ShareLink{}, store.Errorf(store.NotFound, op, "no such share link; ask for a new one")
	}
	if err != nil {
		return store.ShareLink{}, s.wrap(op, err)
	}
	if !l.Revoked.IsZero() {
		return store.ShareLink{}, store.Errorf(store.Forbidden, op, "this share link was revoked; ask for a new one")
	}
	return l, nil
}

// ShareLinks implements store.Access.
func (s *DB) ShareLinks(ctx context.Context, ws string) ([]store.ShareLink, error) {
	const op = "list share links"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+linkCols+` FROM share_links WHERE workspace_id = ? ORDER BY created_at, id`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.ShareLink{}
	for rows.Next() {
		l, err := scanLink(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, l)
	}
	return out, s.wrap(op, rows.Err())
}

// RevokeShareLink implements store.Access. Revoking a revoked link keeps its first revocation.
func (s *DB) RevokeShareLink(ctx context.Context, ws, id string, at time.Time) error {
	const op = "revoke share link"
	if err := firstErr(checkID(op, "workspace ID", ws), checkID(op, "share link ID", id)); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE share_links SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND workspace_id = ?`),
			store.Micros(now(at)), id, ws)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, store.Errorf(store.NotFound, op, "workspace %s has no share link %s", ws, id)
		}
		return nil, nil
	})
}

// CreateSession implements store.Access.
func (s *DB) CreateSession(ctx context.Context, ns store.NewSession) (store.Session, error) {
	const op = "create session"
	if err := store.CheckText(op, "display name", ns.Name, store.MaxAuthor, true, false); err != nil {
		return store.Session{}, err
	}
	t := now(ns.Now)
	if !ns.Expires.After(t) {
		return store.Session{}, store.Errorf(store.Invalid, op, "the session would expire at %s, not after it starts at %s", ns.Expires.Format(time.RFC3339), t.Format(time.RFC3339))
	}
	ss := store.Session{ID: store.NewID(), Token: store.NewID(), Name: ns.Name, Created: t, Expires: ns.Expires.UTC().Truncate(time.Microsecond)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO sessions (token_hash, id, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`),
			store.TokenHash(ss.Token), ss.ID, ss.Name, store.Micros(ss.Created), store.Micros(ss.Expires))
		return nil, err
	})
	if err != nil {
		return store.Session{}, err
	}
	return ss, nil
}

// Session implements store.Access.
func (s *DB) Session(ctx context.Context, token string, at time.Time) (store.Session, error) {
	const op = "resolve session"
	if err := checkID(op, "session token", token); err != nil {
		return store.Session{}, err
	}
	var ss store.Session
	var created, expires int64
	err := s.read.QueryRowContext(ctx, s.q(`SELECT id, name, created_at, expires_at FROM sessions WHERE token_hash = ?`), store.TokenHash(token)).
		Scan(&ss.ID, &ss.Name, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, store.Errorf(store.NotFound, op, "no such session; sign in again")
	}
	if err != nil {
		return store.Session{}, s.wrap(op, err)
	}
	ss.Created, ss.Expires = store.FromMicros(created), store.FromMicros(expires)
	if !ss.Expires.After(now(at)) {
		return store.Session{}, store.Errorf(store.NotFound, op, "the session expired at %s; sign in again", ss.Expires.Format(time.RFC3339))
	}
	return ss, nil
}

// DeleteSession implements store.Access.
func (s *DB) DeleteSession(ctx context.Context, token string) error {
	const op = "delete session"
	if err := checkID(op, "session token", token); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE token_hash = ?`), store.TokenHash(token))
		return nil, err
	})
}

// PurgeSessions implements store.Access.
func (s *DB) PurgeSessions(ctx context.Context, at time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, "purge sessions", func(tx *sql.Tx) ([]store.Event, error) {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE expires_at <= ?`), store.Micros(now(at)))
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return nil, err
	})
	return int(n), err
}
