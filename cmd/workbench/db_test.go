package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/storetest"
)

func TestParseDB(t *testing.T) {
	cases := []struct {
		in         string
		kind, path string
		errHas     string
	}{
		{in: "", kind: "sqlite", path: "./workbench.db"},
		{in: "sqlite:/var/lib/wb.db", kind: "sqlite", path: "/var/lib/wb.db"},
		{in: "sqlite:///var/lib/wb.db", kind: "sqlite", path: "/var/lib/wb.db"},
		{in: "sqlite:rel/dir?x#y.db", kind: "sqlite", path: "rel/dir?x#y.db"},
		{in: "postgres://u:p@db.internal:5432/wb?sslmode=require", kind: "postgres"},
		{in: "postgresql://db.internal/wb", kind: "postgres"},
		{in: "sqlite:", errHas: "names no file"},
		{in: "sqlite://", errHas: "names no file"},
		{in: "postgres:///wb", errHas: "names no host"},
		{in: "postgres:wb", errHas: "not a valid postgres:// URL"},
		{in: "postgres://u:p@%zz/wb", errHas: "not a valid postgres:// URL"},
		{in: "mysql://root:pw@h/db", errHas: `the scheme "mysql"`},
		{in: "./workbench.db", errHas: "use sqlite:PATH"},
		{in: "sqlite:a\x00b", errHas: "NUL"},
	}
	for _, tc := range cases {
		got, err := parseDB(tc.in)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("parseDB(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.errHas)
			}
			continue
		}
		if err != nil || got.kind != tc.kind || got.kind == "sqlite" && got.path != tc.path || got.kind == "postgres" && got.dsn != tc.in {
			t.Errorf("parseDB(%q) = %+v, %v; want %s %s", tc.in, got, err, tc.kind, tc.path)
		}
	}
}

func TestDBTargetHidesPassword(t *testing.T) {
	tg, err := parseDB("postgres://admin:s3cr3t-pw@db.internal:5432/wb")
	if err != nil {
		t.Fatal(err)
	}
	if s := tg.String(); s != "postgres://db.internal:5432" {
		t.Errorf("String() = %q", s)
	}
	_, err = parseDB("postgress://admin:s3cr3t-pw@db.internal/wb")
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("mistyped scheme: %v", err)
	}
	// A password with a character a URL must encode (/ ? #) makes the URL invalid; the message
	// names the host, never a piece of the password.
	for _, dsn := range []string{"postgres://admin:s3cr/3t@db.internal:5432/wb", "postgres://admin:s3cr?3t@db.internal:5432/wb",
		"postgres://admin:s3cr#3t@db.internal:5432/wb", "postgres://admin:s3cr@3t@db.internal:5432/wb"} {
		tg, err := parseDB(dsn)
		msg := tg.String()
		if err != nil {
			msg = err.Error()
		}
		if strings.Contains(msg, "s3cr") || strings.Contains(msg, "admin") || !strings.Contains(msg, "db.internal:5432") {
			t.Errorf("%s: %s", dsn, msg)
		}
	}
}

func TestOpenStoreSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	var logs bytes.Buffer
	getenv := func(k string) string {
		if k == "WORKBENCH_DB" {
			return "sqlite:" + path
		}
		return ""
	}
	ctx := context.Background()
	s, err := openStore(ctx, "", getenv, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "via WORKBENCH_DB", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// --db wins over the environment.
	s, err = openStore(ctx, "sqlite:"+path, func(string) string { return "sqlite:/nonexistent/dir/x.db" }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Workspace(ctx, w.ID); err != nil {
		t.Errorf("the flag did not open the same file: %v", err)
	}
	if !strings.Contains(logs.String(), "sqlite:"+path) {
		t.Errorf("log does not name the database: %s", logs.String())
	}
	if _, err := openStore(ctx, "nope", getenv, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		t.Error("a bad --db opened a store")
	} else if _, ok := err.(usageError); !ok {
		t.Errorf("a bad --db is %T, want a usage error", err)
	}
}

func FuzzParseDB(f *testing.F) {
	for _, s := range []string{"", "sqlite:x.db", "sqlite:///a", "postgres://u:pw@h:1/d?sslmode=disable", "postgresql://h/d", "postgres:", "mysql://a:b@c", "sqlite:\x00", "postgres://admin:s3cr3tpassword/x@h:1/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseDB(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			// A password in the input never comes back in the message.
			if u, perr := url.Parse(s); perr == nil && u.User != nil {
				if pw, ok := u.User.Password(); ok && len(pw) >= 8 && strings.Contains(err.Error(), pw) {
					t.Fatalf("error %q repeats the password", err)
				}
			}
			// Nor any piece of one that made the URL invalid (an unencoded / ? or #), in what
			// the message says of the input (the rest is its own words).
			said, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "--db: "), " is not a valid")
			if _, rest, ok := strings.Cut(s, "://"); ok {
				if i := strings.LastIndex(rest, "@"); i >= 0 {
					_, pw, _ := strings.Cut(rest[:i], ":")
					for _, piece := range strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune("/?#", r) }) {
						if len(piece) >= 8 && strings.Contains(said, piece) {
							t.Fatalf("error %q repeats a piece of the password, %q", err, piece)
						}
					}
				}
			}
			return
		}
		switch tg.kind {
		case "sqlite":
			if tg.path == "" {
				t.Fatalf("parseDB(%q) gave an empty path", s)
			}
		case "postgres":
			if tg.dsn != s {
				t.Fatalf("parseDB(%q) changed the DSN to %q", s, tg.dsn)
			}
			if u, err := url.Parse(tg.dsn); err == nil && u.User != nil {
				if pw, ok := u.User.Password(); ok && len(pw) >= 8 && strings.Contains(tg.String(), pw) {
					t.Fatalf("String() %q shows the password", tg.String())
				}
			}
		default:
			t.Fatalf("parseDB(%q) gave kind %q", s, tg.kind)
		}
	})
}

func TestDBCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	getenv := func(string) string { return "" }
	cases := []struct {
		args    []string
		code    int
		outHas  string
		isUsage bool
	}{
		{args: []string{"db", "check", "--db", "sqlite:" + path}, outHas: "integrity: ok\nworkspaces: 0\n"},
		{args: []string{"db", "--db", "sqlite:" + path, "check"}, outHas: "schema: up to date\n"},
		{args: []string{"db"}, isUsage: true},
		{args: []string{"db", "check", "extra"}, isUsage: true},
		{args: []string{"db", "vacuum"}, isUsage: true},
		{args: []string{"db", "check", "--db", "oracle://x"}, isUsage: true},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, getenv, strings.NewReader(""), &out, &errOut)
		if tc.isUsage {
			if _, ok := err.(usageError); !ok {
				t.Errorf("%q: %v (%T), want a usage error", tc.args, err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v; stderr: %s", tc.args, err, errOut.String())
		}
		if !strings.Contains(out.String(), tc.outHas) {
			t.Errorf("%q printed %q; want it to contain %q", tc.args, out.String(), tc.outHas)
		}
	}
}

func TestDBCheckPostgres(t *testing.T) {
	dsn := os.Getenv("WORKBENCH_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("WORKBENCH_TEST_POSTGRES is not set: no PostgreSQL to check (.ci/run starts one)")
	}
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "WORKBENCH_DB" {
			return dsn
		}
		return ""
	}
	if err := run(context.Background(), []string{"db", "check"}, getenv, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("%v; stderr: %s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "listener: connected\n") {
		t.Errorf("printed %q", out.String())
	}
}
