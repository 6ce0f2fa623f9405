// Package postgres is the store.Store for teams: PostgreSQL through github.com/jackc/pgx/v5 (a
// pgxpool shared by database/sql for the statements both stores share, and a dedicated
// connection that LISTENs). Several workbench processes may serve one database: edits to a
// workspace are serialised by a row lock on the workspace, and every accepted edit is announced
// with NOTIFY inside its transaction, so each process's subscribers hear of it once it commits.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// maxPayload is PostgreSQL's limit on a notification's payload, less a margin.
const maxPayload = 7900

// Channel is the NOTIFY channel that carries store events between processes.
const Channel = "workbench_events"

// migrationLock keys the advisory lock that keeps two processes from migrating at once.
const migrationLock = `SELECT pg_advisory_xact_lock(727786411)`

// Store is the PostgreSQL store.
type Store struct {
	*sqlstore.DB
	pool   *pgxpool.Pool
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	listenErr error  // the last failure of the listening connection, for Health
	listenPID uint32 // the listening connection's server process, for tests
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at dsn (postgres://…), migrates its schema and starts listening
// for other processes' events. It returns once the listener is in place, so that a subscriber
// hears every edit committed after Open returns.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL store: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL store: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database) // no password
	fail := func(err error) (*Store, error) {
		db.Close()
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL store at %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		return fail(err)
	}
	ms, err := sqlstore.ReadMigrations(migrations, "migrations")
	if err != nil {
		return fail(err)
	}
	if err := sqlstore.Migrate(ctx, db, ms, migrationLock, sqlstore.RebindFor(true)); err != nil {
		return fail(err)
	}
	s := &Store{pool: pool, done: make(chan struct{})}
	s.DB = sqlstore.New(db, db, sqlstore.Dialect{Postgres: true, Classify: classify, Notify: notify,
		Announce: func(ctx context.Context, ev store.Event) error {
			payload, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			if len(payload) > maxPayload {
				return store.Errorf(store.Invalid, "announce", "the event is %d bytes as JSON; PostgreSQL notifications carry at most %d", len(payload), maxPayload)
			}
			_, err = db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, Channel, string(payload))
			return err
		}}, s.close)
	lctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	ready := make(chan error, 1)
	go s.listen(lctx, ready)
	select {
	case err := <-ready:
		if err != nil {
			cancel()
			<-s.done
			return fail(fmt.Errorf("listen for events: %w", err))
		}
	case <-ctx.Done():
		cancel()
		<-s.done
		return fail(ctx.Err())
	}
	return s, nil
}

func (s *Store) close() error {
	s.cancel()
	<-s.done
	err := s.DB.DBHandle().Close()
	s.pool.Close()
	return err
}

// notify announces ev to every process on the database when tx commits.
func notify(ctx context.Context, tx *sql.Tx, ev store.Event) error {
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, Channel, string(payload))
	return err
}

// listen holds one connection that LISTENs on Channel and publishes what arrives to this
// process's subscribers. When the connection fails it reconnects, backing off up to 5 s, and
// tells every subscriber to resync, since events may have passed unheard meanwhile. The first
// outcome (listening, or the first failure) goes to ready.
func (s *Store) listen(ctx context.Context, ready chan<- error) {
	defer close(s.done)
	backoff := 50 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, func() {
			if first {
				ready <- nil
			} else {
				s.Broker.PublishAll(store.EventResync)
			}
			first, backoff = false, 50*time.Millisecond
		})
		if ctx.Err() != nil {
			return
		}
		if first {
			ready <- err
			return
		}
		s.mu.Lock()
		s.listenErr = err
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, listening func()) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack() // this connection is the listener's alone from now on
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	s.mu.Lock()
	s.listenErr, s.listenPID = nil, conn.PgConn().PID()
	s.mu.Unlock()
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var ev store.Event
		if json.Unmarshal([]byte(n.Payload), &ev) != nil || ev.Workspace == "" {
			continue // not one of ours: someone else NOTIFYing on the channel
		}
		s.Broker.Publish(ev)
	}
}

// Health reports the last failure of the listening connection, nil while it listens.
func (s *Store) Health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listenErr
}

// classify maps PostgreSQL's error codes to store kinds.
func classify(err error) (store.Kind, string, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return 0, "", false
	}
	switch pe.Code {
	case "23505": // unique_violation
		return store.Conflict, "a record with this key exists already", true
	case "23503": // foreign_key_violation
		return store.NotFound, "what it refers to does not exist", true
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return store.Conflict, "the change collided with another; try again", true
	}
	return 0, "", false
}
