// Package sqlite is the embedded store.Store: one SQLite file through modernc.org/sqlite (pure
// Go, no C toolchain), in WAL mode with foreign keys on, a busy timeout for other processes on
// the same file, and its schema migrated at open from the embedded migrations.
//
// Writes go through one connection (SQLite admits one writer at a time anyway, and a single
// writer connection never meets SQLITE_BUSY from its own process); reads use a small pool of
// read-only connections that WAL lets run beside the writer. Commits are synchronous=NORMAL,
// SQLite's advice for WAL mode: an acknowledged edit survives a killed process (the crash test
// kills one mid-burst), and the database stays consistent through a power cut, which may take
// back the last moments of typing. FULL would make every keystroke wait for an fsync; teams that
// need every keystroke to outlive a power cut run PostgreSQL.
//
// The writer never checkpoints (wal_autocheckpoint=0): copying the WAL back into the database
// would land on whichever edit happened to cross the threshold. A background goroutine with a
// connection of its own runs passive checkpoints instead, soon after commits.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// BusyTimeoutMS is how long a write waits for another process holding the file's write lock.
const BusyTimeoutMS = 5000

// CheckpointEvery is how often the checkpointer looks for commits to copy into the database.
const CheckpointEvery = 500 * time.Millisecond

// Store is the SQLite store.
type Store struct {
	*sqlstore.DB
	write, read *sql.DB
	ckpt        *sql.DB
	stop        chan struct{}
	stopOnce    sync.Once
	done        sync.WaitGroup
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the database file at path and migrates its schema.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open SQLite store: no file path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open SQLite store %s: %w", path, err)
	}
	// A file: URI, so that a path with ? or # in it names the file it says.
	base := (&url.URL{Scheme: "file", Path: abs}).String()
	common := "_pragma=busy_timeout(" + fmt.Sprint(BusyTimeoutMS) + ")&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)"
	write, err := sql.Open("sqlite", base+"?"+common+"&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(0)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open SQLite store %s: %w", abs, err)
	}
	write.SetMaxOpenConns(1)
	// Migrate before the readers open: they are query_only and must find the schema in place.
	ms, err := sqlstore.ReadMigrations(migrations, "migrations")
	if err == nil {
		err = sqlstore.Migrate(ctx, write, ms, "", sqlstore.RebindFor(false))
	}
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open SQLite store %s: %w", abs, err)
	}
	read, err := sql.Open("sqlite", base+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open SQLite store %s: %w", abs, err)
	}
	read.SetMaxOpenConns(4)
	ckpt, err := sql.Open("sqlite", base+"?"+common+"&_pragma=synchronous(FULL)")
	if err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("open SQLite store %s: %w", abs, err)
	}
	// One connection kept open, so that PRAGMA data_version tells commits by the others apart.
	ckpt.SetMaxOpenConns(1)
	ckpt.SetConnMaxIdleTime(0)
	s := &Store{write: write, read: read, ckpt: ckpt, stop: make(chan struct{})}
	s.DB = sqlstore.New(write, read, sqlstore.Dialect{Classify: classify}, func() error {
		s.stopOnce.Do(func() { close(s.stop) })
		s.done.Wait()
		return errors.Join(ckpt.Close(), read.Close(), write.Close())
	})
	s.done.Add(1)
	go s.checkpointer()
	return s, nil
}

// checkpointer runs a passive checkpoint every CheckpointEvery when a commit happened since the
// last look (any connection's, other processes' included), until Close. A passive checkpoint
// never waits for readers or the writer; what it cannot copy now, a later one will.
func (s *Store) checkpointer() {
	defer s.done.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	t := time.NewTicker(CheckpointEvery)
	defer t.Stop()
	last := int64(-1)
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		var v int64
		if err := s.ckpt.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			continue // closing, or the file is busy: the next tick tries again
		}
		if v == last {
			continue
		}
		// Until a checkpoint copies the whole WAL (a reader may hold back part of it, or it may
		// fail), the next tick tries again even without new commits.
		var busy, frames, copied int
		if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err == nil && busy == 0 && copied == frames {
			last = v
		}
	}
}

// IntegrityCheck runs PRAGMA integrity_check and returns its report: "ok", or the problems.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	rows, err := s.write.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", fmt.Errorf("integrity check: %w", err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// classify maps SQLite's result codes to store kinds.
func classify(err error) (store.Kind, string, bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0, "", false
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return store.Conflict, "a record with this key exists already", true
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return store.NotFound, "what it refers to does not exist", true
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_BUSY_SNAPSHOT, sqlite3.SQLITE_LOCKED:
		return store.Conflict, fmt.Sprintf("another process held the database for over %d ms; try again", BusyTimeoutMS), true
	}
	return 0, "", false
}
