package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/tool-workbench/workbench/store"
)

func checkMetaKey(op, ws, key string) error {
	return firstErr(checkID(op, "workspace ID", ws), store.CheckText(op, "metadata key", key, store.MaxMetaKey, true, false))
}

// Meta implements store.Workspaces.
func (s *DB) Meta(ctx context.Context, ws, key string) (json.RawMessage, error) {
	const op = "get workspace metadata"
	if err := checkMetaKey(op, ws, key); err != nil {
		return nil, err
	}
	var b []byte
	err := s.read.QueryRowContext(ctx, s.q(`SELECT value FROM workspace_meta WHERE workspace_id = ? AND key = ?`), ws, key).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		if _, werr := s.Workspace(ctx, ws); werr != nil {
			return nil, werr
		}
		return nil, store.Errorf(store.NotFound, op, "workspace %s has no %q", ws, key)
	}
	if err != nil {
		return nil, s.wrap(op, err)
	}
	return b, nil
}

// PutMeta implements store.Workspaces. An empty value deletes the document. A change sends an
// EventMeta naming the key: a replica that keeps a document (a workspace's profile) hears of it.
func (s *DB) PutMeta(ctx context.Context, ws, key string, value json.RawMessage) error {
	const op = "put workspace metadata"
	if err := firstErr(checkMetaKey(op, ws, key), store.CheckJSON(op, "metadata", value, store.MaxMeta, false)); err != nil {
		return err
	}
	changed := []store.Event{{Workspace: ws, Kind: store.EventMeta, Field: key}}
	return s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		if len(value) == 0 {
			res, err := tx.ExecContext(ctx, s.q(`DELETE FROM workspace_meta WHERE workspace_id = ? AND key = ?`), ws, key)
			if err != nil {
				return nil, err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil, nil // nothing was there: nothing changed
			}
			return changed, nil
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO workspace_meta (workspace_id, key, value, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (workspace_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
			ws, key, []byte(value), store.Micros(store.Now()))
		if err != nil && store.KindOf(s.wrap(op, err)) == store.NotFound {
			return nil, notFoundWorkspace(op, ws)
		}
		if err != nil {
			return nil, err
		}
		return changed, nil
	})
}
