package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration is one schema step, a file named NNNN_what.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
	// NoForeignKeys is set by a first line "-- workbench: foreign keys off": SQLite rebuilds a
	// table that others reference with foreign keys off (they would cascade its rows away),
	// and checks them all before the step commits.
	NoForeignKeys bool
}

// noForeignKeys is the first line that sets Migration.NoForeignKeys.
const noForeignKeys = "-- workbench: foreign keys off"

// ReadMigrations reads the NNNN_what.sql files of dir in fsys, in order of NNNN.
func ReadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %q is not named NNNN_what.sql", name)
		}
		b, err := fs.ReadFile(fsys, dir+"/"+name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(string(b), "\ufeff"), "\n")
		out = append(out, Migration{Version: v, Name: name, SQL: string(b), NoForeignKeys: strings.TrimRight(first, "\r \t") == noForeignKeys})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := range out {
		if out[i].Version != i+1 {
			return nil, fmt.Errorf("migrations must be numbered 1, 2, 3, …; %s is number %d", out[i].Name, i+1)
		}
	}
	return out, nil
}

// Migrate brings the schema up to date, each step in its own transaction. lock, when set, is
// run first in each transaction to keep two processes starting at once from migrating together
// (PostgreSQL's advisory lock; SQLite's write transaction excludes them already). A database
// whose schema is newer than this program knows is refused rather than touched.
func Migrate(ctx context.Context, db *sql.DB, ms []Migration, lock string, rebind func(string) string) error {
	if err := createVersionTable(ctx, db, lock); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, m := range ms {
		if err := migrateOne(ctx, db, m, lock, rebind); err != nil {
			return err
		}
	}
	var newest int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if newest > len(ms) {
		return fmt.Errorf("the database's schema is version %d, newer than this workbench knows (%d): run a newer workbench on it", newest, len(ms))
	}
	return nil
}

func migrateOne(ctx context.Context, db *sql.DB, m Migration, lock string, rebind func(string) string) error {
	// One connection: a pragma holds for its connection only.
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migration %s: connect: %w", m.Name, err)
	}
	defer conn.Close()
	if m.NoForeignKeys {
		// SQLite ignores this pragma inside a transaction, so it comes first.
		if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return fmt.Errorf("migration %s: foreign keys off: %w", m.Name, err)
		}
		// A table rebuilt with foreign keys on would take every row that references it along.
		var on int
		if err := conn.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 0 {
			return fmt.Errorf("migration %s: foreign keys could not be turned off (%v); nothing was changed", m.Name, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`) //nolint:errcheck // a failure shows at the next write
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", m.Name, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	if lock != "" {
		if _, err := tx.ExecContext(ctx, lock); err != nil {
			return fmt.Errorf("migration %s: lock: %w", m.Name, err)
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.Version).Scan(&n); err != nil {
		return fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if m.NoForeignKeys {
		if err := foreignKeyCheck(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
		m.Version, m.Name, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("migration %s: record: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.Name, err)
	}
	return nil
}

// createVersionTable creates the table of applied migrations, under the lock: two PostgreSQL
// servers creating one table at once can otherwise collide in the catalog.
func createVersionTable(ctx context.Context, db *sql.DB, lock string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	if lock != "" {
		if _, err := tx.ExecContext(ctx, lock); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return err
	}
	return tx.Commit()
}

// foreignKeyCheck fails when a row references one that is not there (SQLite's
// PRAGMA foreign_key_check), naming the first such row.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("check foreign keys: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("check foreign keys: %w", err)
		}
		return fmt.Errorf("a row of %s (rowid %d) references a missing row of %s; the database needs repair before this upgrade", table, rowid.Int64, parent)
	}
	return rows.Err()
}
