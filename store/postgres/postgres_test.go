package postgres

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/tool-workbench/workbench/listing"

	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/internal/sqlstore"
	"github.com/tool-workbench/workbench/store/storetest"
)

// dsnEnv names the database the tests use. .ci/services starts a throwaway PostgreSQL 15 and
// sets it; without it the tests skip.
const dsnEnv = "WORKBENCH_TEST_POSTGRES"

// testDSN returns the test database's DSN, or skips the test saying why.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against (.ci/run starts one; or set it to postgres://user@host:port/db)", dsnEnv)
	}
	return dsn
}

func open(t testing.TB) store.Store {
	t.Helper()
	dsn := testDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	testDSN(t)
	storetest.Run(t, open)
}

func BenchmarkEdits(b *testing.B) { storetest.BenchmarkEdits(b, open) }

func TestToolPruning(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	storetest.ToolPruning(t, s, s.DBHandle(), true)
}

func TestToolPruningConcurrent(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	storetest.ToolPruningConcurrent(t, s, s.DBHandle())
}

// TestReplicasDeliverEachOthersEdits opens two stores on one database, as two workbench
// processes would, and checks that an edit through either reaches subscribers of both.
func TestReplicasDeliverEachOthersEdits(t *testing.T) {
	a, b := open(t), open(t)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := a.CreateWorkspace(ctx, store.NewWorkspace{Title: "replicas", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	subA, err := a.Subscribe(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	subB, err := b.Subscribe(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(s store.Store, author, text string) store.EditResult {
		t.Helper()
		res, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: author,
			Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(text)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	expect := func(name string, sub <-chan store.Event, seq int64, author string) {
		t.Helper()
		select {
		case ev := <-sub:
			if ev.Kind != store.EventEdit || ev.Seq != seq || ev.Author != author || ev.Workspace != w.ID {
				t.Errorf("%s got %+v; want edit %d by %s", name, ev, seq, author)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no event for edit %d", name, seq)
		}
	}
	r1 := edit(a, "ada", "from replica A")
	expect("replica B", subB, r1.Seq, "ada")
	expect("replica A", subA, r1.Seq, "ada")
	r2 := edit(b, "bob", "from replica B")
	expect("replica A", subA, r2.Seq, "bob")
	expect("replica B", subB, r2.Seq, "bob")
	// Presence crosses replicas too, and an oversized one is refused before it is sent.
	here := store.Event{Workspace: w.ID, Kind: store.EventPresence, Author: "bob", Field: "/tools/1", Detail: "joined"}
	if err := b.Announce(ctx, here); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-subA:
		if ev != here {
			t.Errorf("replica A got %+v, want %+v", ev, here)
		}
	case <-ctx.Done():
		t.Fatal("replica A: no presence event")
	}
	<-subB
	big := here
	big.Field, big.Detail = strings.Repeat("\x01", store.MaxField), strings.Repeat("\x01", store.MaxDetail)
	if err := b.Announce(ctx, big); store.KindOf(err) != store.Invalid {
		t.Errorf("announcing %d escaped bytes: %v, want an Invalid error", 12*store.MaxDetail, err)
	}
	// And the edit itself is there to fetch on the other side.
	missed, err := a.Edits(ctx, w.ID, r1.Seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(missed) != 1 || missed[0].Ops[0].Value.Str != "from replica B" {
		t.Errorf("replica A fetched %+v", missed)
	}
	// Each store's head cache must notice the other's edit.
	r3 := edit(a, "ada", "from replica A again")
	if r3.Seq != 3 || r3.Listing.Tools[0].Get("description").Str != "from replica A again" {
		t.Errorf("third edit: %+v", r3)
	}
	head, err := b.Revision(ctx, w.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if head.LastSeq != 3 {
		t.Errorf("replica B sees head ending at edit %d, want 3", head.LastSeq)
	}
}

// TestConcurrentReplicas has two stores (two processes' worth of connections) edit one
// workspace at once: the row lock serialises them and nothing is lost.
func TestConcurrentReplicas(t *testing.T) {
	a, b := open(t), open(t)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	w, err := a.CreateWorkspace(ctx, store.NewWorkspace{Title: "race", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	const per = 100
	errs := make(chan error, 2)
	for i, s := range []store.Store{a, b} {
		go func() {
			for n := range per {
				_, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: []string{"a", "b"}[i],
					Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewInt(n)}}})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.Workspace(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Seq != 2*per {
		t.Errorf("seq = %d after %d edits", got.Seq, 2*per)
	}
	history, err := a.Edits(ctx, w.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 2*per {
		t.Errorf("history holds %d edits, want %d", len(history), 2*per)
	}
}

// TestBadDSN checks that a database that cannot be reached or a malformed DSN is an error that
// says so without repeating the password.
func TestBadDSN(t *testing.T) {
	cases := []string{
		"postgres://u:hunter2secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", // nothing listens on port 1
		"postgres://u:hunter2secret@127.0.0.1:1/none?connect_timeout=soon",
		"postgres://u:hunter2secret@%zz/x",
	}
	for _, dsn := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := Open(ctx, dsn)
		cancel()
		if err == nil {
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		if strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
}

func BenchmarkFanout(b *testing.B) { storetest.BenchmarkFanout(b, open) }

func BenchmarkIdleSubscribers(b *testing.B) { storetest.BenchmarkIdleSubscribers(b, open) }

// TestListenerReconnects kills the server process of a store's listening connection: the store
// reconnects, tells its subscribers to resync, and hears later edits again.
func TestListenerReconnects(t *testing.T) {
	a, b := open(t), open(t)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := b.CreateWorkspace(ctx, store.NewWorkspace{Title: "reconnect", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := a.Subscribe(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	pa := a.(*Store)
	pa.mu.Lock()
	pid := pa.listenPID
	pa.mu.Unlock()
	var killed bool
	if err := pa.pool.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int64(pid)).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate the listener's backend %d: %v, %v", pid, killed, err)
	}
	select {
	case ev := <-sub:
		if ev.Kind != store.EventResync || ev.Workspace != w.ID {
			t.Fatalf("after the listener died: %+v, want a resync", ev)
		}
	case <-ctx.Done():
		t.Fatal("no resync after the listener died")
	}
	if _, err := b.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bob",
		Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString("after")}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-sub:
		if ev.Kind != store.EventEdit || ev.Seq != 1 {
			t.Errorf("after reconnecting: %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no event after reconnecting")
	}
	if err := pa.Health(); err != nil {
		t.Errorf("Health after reconnecting: %v", err)
	}
}

// TestReviewsAcrossReplicas: a review written on one replica is read, and heard of, on another.
func TestReviewsAcrossReplicas(t *testing.T) {
	w := open(t)
	defer w.Close()
	var r store.Store
	defer func() {
		if r != nil {
			r.Close()
		}
	}()
	storetest.ReviewsAcross(t, w, func() store.Store { r = open(t); return r }, true)
}

// TestChallengesAcrossReplicas: a leaderboard on one replica hears of scores stored on another.
func TestChallengesAcrossReplicas(t *testing.T) {
	w, r := open(t), open(t)
	defer w.Close()
	defer r.Close()
	storetest.ChallengesAcross(t, w, r)
}

// TestRoundTrip reads revisions back through a second store on the database, which has no cache.
func TestRoundTrip(t *testing.T) {
	w, r := open(t), open(t)
	defer w.Close()
	defer r.Close()
	storetest.RoundTrip(t, w, r)
}

// TestUpgradeFromVersion1 writes a database as the first schema had it, in a database of its
// own, opens it, and checks that the upgrade loses nothing.
func TestUpgradeFromVersion1(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "workbench_upgrade_" + store.NewID()[:12]
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Skipf("cannot create a database to upgrade (%v); the test needs the CREATEDB privilege", err)
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), `DROP DATABASE `+name+` WITH (FORCE)`) })
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	udsn := stdlib.RegisterConnConfig(cfg)
	db, err := sql.Open("pgx", udsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := sqlstore.ReadMigrations(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlstore.Migrate(ctx, db, ms[:1], migrationLock, sqlstore.RebindFor(true)); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	storetest.UpgradeFromVersion1(t, db, true, func() store.Store {
		s, err := Open(ctx, u.String())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestToolLocksArePerTool: a transaction holding the lock of one tool's stripe (a writer about
// to delete it) holds up an edit that stores that very tool, and not one in another stripe.
// Before, one lock covered all tools, so that every keystroke of every workspace waited on any
// pruning writer.
func TestToolLocksArePerTool(t *testing.T) {
	s := open(t)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "a", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "b", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	// The tools the edits will store, and their lock keys: the stripe of a tool is its hash's
	// first 8 bytes modulo 1024; B's tool is picked in another stripe.
	stripe := func(desc string) (listing.Op, int64) {
		op := listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(desc)}
		edited, err := storetest.Sample(t).Apply(op)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(listing.Marshal(edited.Tools[0], ""))
		return op, int64(binary.BigEndian.Uint64(h[:8]) % 1024)
	}
	op, key := stripe("Locked " + store.NewID())
	opB, keyB := stripe("Free " + store.NewID())
	for keyB == key {
		opB, keyB = stripe("Free " + store.NewID())
	}

	db, err := sql.Open("pgx", testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback() //nolint:errcheck // committed below
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_xact_lock(1953460076, $1::integer)`, key); err != nil {
		t.Fatal(err)
	}
	// Another tool: not held up.
	if _, err := s.AppendEdit(ctx, store.Edit{Workspace: b.ID, Author: "bo", Ops: []listing.Op{opB}}); err != nil {
		t.Fatalf("an edit storing another tool: %v", err)
	}
	// The held tool: waits for the lock, then goes through.
	done := make(chan error, 1)
	go func() {
		_, err := s.AppendEdit(ctx, store.Edit{Workspace: a.ID, Author: "ana", Ops: []listing.Op{op}})
		done <- err
	}()
	for {
		var waiting int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the edit storing the held tool did not wait for its lock (err %v)", err)
		case <-ctx.Done():
			t.Fatal("the edit storing the held tool never waited for its lock")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the edit after the lock was released: %v", err)
	}
}
