// Package sqlstore is the store.Store that store/sqlite and store/postgres share: the same
// tables and the same statements over database/sql, with the differences between the two
// databases (placeholders, row locks, error codes, notifications) in a Dialect.
//
// The methods live in one file per role of store.Store: workspaces.go (with meta.go),
// edits.go, revisions.go and undo.go (History), tasks.go, runs.go, access.go, review.go,
// challenge.go and events.go.
// record.go is the one path every edit takes into history; snapshot.go stores listings
// content-addressed; this file holds the DB and its transactions.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// Dialect is what differs between the databases.
type Dialect struct {
	// Postgres selects $N placeholders and row locks (FOR UPDATE); otherwise the statements are
	// SQLite's, whose write transactions (BEGIN IMMEDIATE) already exclude every other writer.
	Postgres bool
	// Classify maps a driver error to a store kind and a message, or reports false.
	Classify func(err error) (store.Kind, string, bool)
	// Notify, when set, sends ev to every process on the database inside tx (PostgreSQL's
	// NOTIFY, delivered on commit). When nil, events are published to this process's Broker
	// after commit.
	Notify func(ctx context.Context, tx *sql.Tx, ev store.Event) error
	// Announce, when set, sends ev to every process on the database at once; when nil, ev is
	// published to this process's Broker.
	Announce func(ctx context.Context, ev store.Event) error
}

// DB implements store.Store over database/sql.
type DB struct {
	write  *sql.DB // transactions that write
	read   *sql.DB // queries (may be the same as write)
	d      Dialect
	Broker *Broker
	cache  listingCache
	closer func() error
}

// New returns a store over the given handles; closer releases them.
func New(write, read *sql.DB, d Dialect, closer func() error) *DB {
	return &DB{write: write, read: read, d: d, Broker: NewBroker(), closer: closer}
}

// Close releases the database.
func (s *DB) Close() error { return s.closer() }

// q rewrites ? placeholders for PostgreSQL. The statements are this package's own constants,
// never user text, and hold no ? inside string literals.
func (s *DB) q(query string) string { return rebind(s.d.Postgres, query) }

// RebindFor returns the placeholder rewriting of a dialect.
func RebindFor(postgres bool) func(string) string {
	return func(q string) string { return rebind(postgres, q) }
}

func rebind(postgres bool, query string) string {
	if !postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// lockWorkspace takes a workspace's write lock for the rest of tx, as every edit does first
// (PostgreSQL's row lock; SQLite's write transaction holds it already); NotFound if none.
func (s *DB) lockWorkspace(ctx context.Context, tx *sql.Tx, op, ws string) error {
	var one int
	err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM workspaces WHERE id = ?`+s.forUpdate()), ws).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFoundWorkspace(op, ws)
	}
	return err
}

// forUpdate is the row-lock suffix of a SELECT in a write transaction.
func (s *DB) forUpdate() string {
	if s.d.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// wrap turns a driver error into a *store.Error of the right kind.
func (s *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *store.Error
	if errors.As(err, &se) {
		if se.Op == "" {
			se.Op = op
		}
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &store.Error{Kind: store.Internal, Op: op, Err: err}
	}
	if s.d.Classify != nil {
		if k, msg, ok := s.d.Classify(err); ok {
			return &store.Error{Kind: k, Op: op, Msg: msg, Err: err}
		}
	}
	return &store.Error{Kind: store.Internal, Op: op, Err: err}
}

// inTx runs fn in a write transaction and commits it with the events fn returned (commitTx).
func (s *DB) inTx(ctx context.Context, op string, fn func(tx *sql.Tx) ([]store.Event, error)) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(op, fmt.Errorf("begin: %w", err))
	}
	// Every way out before the commit rolls back; after the commit it does nothing.
	defer func() { _ = tx.Rollback() }()
	evs, err := fn(tx)
	if err == nil {
		err = s.commitTx(ctx, tx, evs)
	}
	return s.wrap(op, err)
}

// commitTx commits tx with its events: sent inside it when the dialect notifies in
// transactions (delivered on commit), and otherwise published to this process's Broker once it
// committed, so that no subscriber hears of a change that did not happen.
func (s *DB) commitTx(ctx context.Context, tx *sql.Tx, evs []store.Event) error {
	if s.d.Notify != nil {
		for _, ev := range evs {
			if err := s.d.Notify(ctx, tx, ev); err != nil {
				return fmt.Errorf("notify: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if s.d.Notify == nil {
		for _, ev := range evs {
			s.Broker.Publish(ev)
		}
	}
	return nil
}

func now(t time.Time) time.Time {
	if t.IsZero() {
		return store.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

func checkID(op, what, id string) error {
	if _, err := store.ParseID(what, id); err != nil {
		err.(*store.Error).Op = op
		return err
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// DBHandle returns the handle writes go through.
func (s *DB) DBHandle() *sql.DB { return s.write }
