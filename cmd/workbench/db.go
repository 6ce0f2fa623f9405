package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/postgres"
	"github.com/tool-workbench/workbench/store/sqlite"
)

func init() {
	register(command{
		name:    "db",
		summary: "check the workspace database: migrate its schema, check its integrity",
		usage:   "check [--db sqlite:PATH|postgres://…]",
		run:     runDB,
	})
}

// runDB is "workbench db check": what an operator runs after a crash or before an upgrade. Opening
// the store migrates its schema; SQLite then runs PRAGMA integrity_check, PostgreSQL reports
// whether its event listener is connected.
func runDB(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["db"], e.stderr)
	db := dbFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "check" {
		return usageError{"usage: workbench db check [--db sqlite:PATH|postgres://…]"}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	s, err := openStore(ctx, *db, e.getenv, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintln(e.stdout, "schema: up to date")
	healthy := true
	switch c := s.(type) {
	case interface {
		IntegrityCheck(context.Context) (string, error)
	}:
		report, err := c.IntegrityCheck(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "integrity: %s\n", report)
		healthy = report == "ok"
	case interface{ Health() error }:
		if err := c.Health(); err != nil {
			fmt.Fprintf(e.stdout, "listener: %v\n", err)
			healthy = false
		} else {
			fmt.Fprintln(e.stdout, "listener: connected")
		}
	}
	const most = 1000
	ws, err := s.Workspaces(ctx, most)
	if err != nil {
		return err
	}
	more := ""
	if len(ws) == most {
		more = " or more"
	}
	fmt.Fprintf(e.stdout, "workspaces: %d%s\n", len(ws), more)
	if !healthy {
		return exitError{1}
	}
	return nil
}

// defaultDB is where workspaces are kept when neither --db nor WORKBENCH_DB says otherwise.
const defaultDB = "sqlite:./workbench.db"

// dbUsage documents --db for every command that opens the store.
const dbUsage = "where workspaces are kept: sqlite:PATH or postgres://USER@HOST:PORT/DB " +
	"(default $WORKBENCH_DB, else " + defaultDB + "; prefer $WORKBENCH_DB for a DSN with a password, " +
	"so that it stays out of the process list)"

// dbFlag registers --db on fs; pass its value to openStore.
func dbFlag(fs *flag.FlagSet) *string { return fs.String("db", "", dbUsage) }

// dbTarget is a parsed --db value.
type dbTarget struct {
	kind string // "sqlite" or "postgres"
	path string // sqlite: the file
	dsn  string // postgres: the connection URL, as given
}

// String names the target for logs and messages, without a password.
func (t dbTarget) String() string {
	if t.kind == "sqlite" {
		return "sqlite:" + t.path
	}
	return "postgres://" + redactedHost(t.dsn)
}

// parseDB reads a --db value. The empty string means the default.
func parseDB(s string) (dbTarget, error) {
	if s == "" {
		s = defaultDB
	}
	scheme, rest, ok := strings.Cut(s, ":")
	switch {
	case ok && scheme == "sqlite":
		// sqlite:///abs/path is accepted as the URL spelling of sqlite:/abs/path.
		rest = strings.TrimPrefix(rest, "//")
		if rest == "" {
			return dbTarget{}, fmt.Errorf("--db %q names no file; use sqlite:PATH, e.g. %s", s, defaultDB)
		}
		if strings.ContainsRune(rest, 0) {
			return dbTarget{}, fmt.Errorf("--db: the SQLite path holds a NUL byte; give a file path")
		}
		return dbTarget{kind: "sqlite", path: rest}, nil
	case ok && (scheme == "postgres" || scheme == "postgresql"):
		u, err := url.Parse(s)
		if err != nil || !strings.HasPrefix(rest, "//") {
			return dbTarget{}, fmt.Errorf("--db: %s is not a valid postgres:// URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE, "+
				"with any / ? # @ : or %% in the password percent-encoded (%%2F %%3F %%23 %%40 %%3A %%25)", redactedHost(s))
		}
		if u.Host == "" {
			return dbTarget{}, fmt.Errorf("--db: the postgres:// URL names no host; write postgres://USER@HOST:PORT/DATABASE")
		}
		return dbTarget{kind: "postgres", dsn: s}, nil
	}
	// Not echoed whole: a mistyped DSN may hold a password.
	what := "the value"
	if ok && len(scheme) <= 20 && !strings.ContainsAny(scheme, "/@ ") {
		what = fmt.Sprintf("the scheme %q", scheme)
	}
	return dbTarget{}, fmt.Errorf("--db: %s is not a database this workbench knows; use sqlite:PATH (for example %s) or postgres://USER@HOST:PORT/DB", what, defaultDB)
}

// redactedHost returns what follows the scheme of a postgres:// URL up to the path, with any
// user information dropped: enough to say which server was meant. The user information ends
// at the last @, looked for before the path is cut off: a password holding an unencoded / ? or
// # (which makes the URL invalid, so this is what the message shows) must not show in part.
func redactedHost(dsn string) string {
	_, rest, _ := strings.Cut(dsn, "://")
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// openStore opens the store a --db value names (falling back to WORKBENCH_DB, then the
// default). It is the one place that picks a store implementation.
func openStore(ctx context.Context, flagValue string, getenv func(string) string, log *slog.Logger) (store.Store, error) {
	spec := flagValue
	if spec == "" {
		spec = getenv("WORKBENCH_DB")
	}
	t, err := parseDB(spec)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	var s store.Store
	switch t.kind {
	case "sqlite":
		s, err = sqlite.Open(ctx, t.path)
	default:
		s, err = postgres.Open(ctx, t.dsn)
	}
	if err != nil {
		return nil, err
	}
	log.Info("store opened", "db", t.String())
	return s, nil
}
