// Subscribe and Announce: the store.Events role. Changes send their events from the
// transaction that makes them (see inTx); presence is announced without storing anything.

package sqlstore

import (
	"context"

	"github.com/tool-workbench/workbench/store"
)

// Subscribe implements store.Events.
func (s *DB) Subscribe(ctx context.Context, workspace string) (<-chan store.Event, error) {
	if _, err := store.ParseID("workspace ID", workspace); err != nil {
		return nil, err
	}
	return s.Broker.Subscribe(ctx, workspace), nil
}

// Announce implements store.Events.
func (s *DB) Announce(ctx context.Context, ev store.Event) error {
	const op = "announce"
	if err := firstErr(checkID(op, "workspace ID", ev.Workspace),
		store.CheckText(op, "author", ev.Author, store.MaxAuthor, false, false),
		store.CheckText(op, "author ID", ev.AuthorID, store.MaxAuthor, false, false)); err != nil {
		return err
	}
	if ev.Kind != store.EventPresence {
		return store.Errorf(store.Invalid, op, "only presence events are announced; %q events come from the changes themselves", ev.Kind)
	}
	if len(ev.Field) > store.MaxField || len(ev.Detail) > store.MaxDetail {
		return store.Errorf(store.Invalid, op, "the field (%d bytes) or detail (%d bytes) is over the limit of %d", len(ev.Field), len(ev.Detail), store.MaxDetail)
	}
	if s.d.Announce == nil {
		s.Broker.Publish(ev)
		return nil
	}
	return s.wrap(op, s.d.Announce(ctx, ev))
}
