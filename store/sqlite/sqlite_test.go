package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/internal/sqlstore"
	"github.com/tool-workbench/workbench/store/storetest"
)

func open(t testing.TB) store.Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "workbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) { storetest.Run(t, open) }

func BenchmarkEdits(b *testing.B) { storetest.BenchmarkEdits(b, open) }

func TestToolPruning(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	storetest.ToolPruning(t, s, s.DBHandle(), false)
}

func TestToolPruningConcurrent(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	storetest.ToolPruningConcurrent(t, s, s.DBHandle())
}

func TestPragmas(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	ctx := context.Background()
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "wal"}, {"foreign_keys", "1"}, {"busy_timeout", strconv.Itoa(BusyTimeoutMS)}, {"synchronous", "1"},
	} {
		var got string
		if err := s.write.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
	if _, err := s.read.ExecContext(ctx, `DELETE FROM workspaces`); err == nil {
		t.Error("the read pool accepted a write")
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dir with ? and #", "w.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "kept", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at the path given: %v", err)
	}
	s, err = Open(ctx, path) // migrations run again and find nothing to do
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Workspace(ctx, w.ID); err != nil || got.Title != "kept" {
		t.Errorf("after reopening: %+v, %v", got, err)
	}
}

// TestReviewsSurviveRestart: a review written before the database is closed reads back the
// same after it is opened again.
func TestReviewsSurviveRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	w, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var r store.Store
	defer func() {
		if r != nil {
			r.Close()
		}
	}()
	storetest.ReviewsAcross(t, w, func() store.Store {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if r, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		return r
	}, false)
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "newer than this workbench knows") {
		t.Errorf("opening a newer schema: %v", err)
	}
}

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("opening a text file: %v; want an error naming the file", err)
	}
}

// The crash test: a child process (this test binary, re-run) makes edits as fast as it can and
// prints each acknowledgement; the parent kills it with SIGKILL mid-burst, reopens the file and
// finds the database intact and every acknowledged edit in it.

const crashEnv = "WORKBENCH_SQLITE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashEnv); spec != "" {
		os.Exit(crashChild(spec))
	}
	os.Exit(m.Run())
}

// crashChild edits workspace ws in the database at path until killed. spec is "path|ws".
func crashChild(spec string) int {
	path, ws, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	for n := 0; ; n++ {
		// Alternate between typing in one field (coalescing UPDATEs) and new revisions (INSERTs).
		path := "/tools/0/description"
		if n%4 == 3 {
			path = fmt.Sprintf("/tools/1/x-%d", n)
		}
		res, err := s.AppendEdit(ctx, store.Edit{Workspace: ws, Author: "child", Now: time.Now(),
			Ops: []listing.Op{{Kind: listing.OpSet, Path: path, Value: listing.NewString(fmt.Sprintf("edit %d", n))}}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(out, "ack %d %d\n", res.Seq, n)
		out.Flush() // the acknowledgement leaves the process before the next edit starts
	}
}

func TestCrashKeepsAcknowledgedEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "crash", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	acked := map[int64]string{} // seq -> the value the child was told was stored, over all rounds
	// Several rounds, killed after different numbers of edits, each continuing the last's history.
	for round, killAfter := range []int{150, 233, 317} {
		n := killCrashChild(t, round, path+"|"+w.ID, killAfter, acked)
		history := checkAfterCrash(t, round, path, w.ID, acked)
		t.Logf("round %d: killed after %d acknowledged edits; %d in history; integrity ok", round, n, len(history))
	}
}

// killCrashChild starts a crash child on spec, records each edit it acknowledges in acked, and
// kills it with SIGKILL after killAfter of them. It returns how many it acknowledged.
func killCrashChild(t *testing.T, round int, spec string, killAfter int, acked map[int64]string) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+spec)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	n := 0
	for sc.Scan() {
		var seq int64
		var edit int
		if _, err := fmt.Sscanf(sc.Text(), "ack %d %d", &seq, &edit); err != nil {
			t.Fatalf("child wrote %q: %v", sc.Text(), err)
		}
		if _, dup := acked[seq]; dup {
			t.Fatalf("round %d: seq %d acknowledged again", round, seq)
		}
		acked[seq] = fmt.Sprintf("edit %d", edit)
		if n++; n == killAfter {
			// The child is already in its next edit: it flushes each acknowledgement first.
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("round %d: child did not die of SIGKILL: %v; stderr: %s", round, err, stderr.String())
	}
	if n < killAfter {
		t.Fatalf("round %d: child acknowledged only %d edits; stderr: %s", round, n, stderr.String())
	}
	return n
}

// checkAfterCrash reopens the database a child was killed on and checks it: intact, every
// acknowledged edit in it, at most one more per round, and the head listing the baseline with
// every stored edit applied. The unacknowledged survivors join acked. It returns the history.
func checkAfterCrash(t *testing.T, round int, path, ws string, acked map[int64]string) []store.EditRecord {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	report, err := s.IntegrityCheck(ctx)
	if err != nil || report != "ok" {
		t.Fatalf("round %d: integrity check after SIGKILL: %q, %v", round, report, err)
	}
	history, err := s.Edits(ctx, ws, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, e := range history {
		got[e.Seq] = e.Ops[0].Value.Str
	}
	for seq, want := range acked {
		if got[seq] != want {
			t.Errorf("round %d: acknowledged %q (seq %d) is %q after the crash", round, want, seq, got[seq])
		}
	}
	// An edit in flight when the child died may have committed unacknowledged; at most one
	// per round.
	if len(history) > len(acked)+round+1 {
		t.Errorf("round %d: %d edits in history, %d acknowledged", round, len(history), len(acked))
	}
	for _, e := range history { // count the unacknowledged survivors as known from now on
		if _, ok := acked[e.Seq]; !ok {
			acked[e.Seq] = e.Ops[0].Value.Str
		}
	}
	head, err := s.Revision(ctx, ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := storetest.Sample(t).ApplyAll(opsOf(history))
	if err != nil {
		t.Fatal(err)
	}
	if string(replayed.Marshal("")) != string(head.Listing.Marshal("")) {
		t.Errorf("round %d: the head listing is not the baseline with every stored edit applied", round)
	}
	return history
}

func opsOf(es []store.EditRecord) []listing.Op {
	var ops []listing.Op
	for _, e := range es {
		ops = append(ops, e.Ops...)
	}
	return ops
}

func BenchmarkFanout(b *testing.B) { storetest.BenchmarkFanout(b, open) }

func BenchmarkIdleSubscribers(b *testing.B) { storetest.BenchmarkIdleSubscribers(b, open) }

// TestRoundTrip reads revisions back through a second store on the file, which has no cache.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	w, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	storetest.RoundTrip(t, w, r)
}

// TestKeystrokeWritesOneTool checks that an edit to one tool stores that tool and a tool list,
// not the whole listing again.
func TestKeystrokeWritesOneTool(t *testing.T) {
	s := open(t).(*Store)
	defer s.Close()
	ctx := context.Background()
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "t", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		if err := s.write.QueryRowContext(ctx, `SELECT count(*) FROM tools`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	for i, text := range []string{"a", "ab", "abc"} {
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "ada", Now: time.Now(),
			Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(text)}}}); err != nil {
			t.Fatal(err)
		}
		// The first keystroke starts revision 1 and adds its version of the tool; the next
		// ones coalesce into it, each replacing the version before (which goes).
		if got := count(); got != before+1 {
			t.Errorf("after keystroke %d the store holds %d tools, want %d", i+1, got, before+1)
		}
	}
}

// TestCheckpointerCopiesTheWAL checks that commits reach the database file without the writer
// checkpointing: the background checkpointer does it.
func TestCheckpointerCopiesTheWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ac int
	if err := s.write.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&ac); err != nil || ac != 0 {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want 0", ac, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	start := fi.Size()
	desc := strings.Repeat("a long description ", 5000) // ~95 kB: many pages
	l, err := listing.Parse([]byte(`[{"name": "big", "description": "`+desc+`"}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "big", Listing: l}); err != nil {
		t.Fatal(err)
	}
	// Bounded so that a broken checkpointer fails the test instead of hanging it.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > start+int64(len(desc)) {
			return
		}
	}
	t.Errorf("the database file stayed at %d bytes: nothing checkpointed the WAL", start)
}

// TestUpgradeFromVersion1 writes a database as the first schema had it, opens it, and checks
// that the upgrade (which rebuilds the revisions table with foreign keys off) loses nothing and
// leaves foreign keys on and satisfied.
func TestUpgradeFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := sqlstore.ReadMigrations(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlstore.Migrate(ctx, db, ms[:1], "", sqlstore.RebindFor(false)); err != nil {
		t.Fatal(err)
	}
	var s *Store
	storetest.UpgradeFromVersion1(t, db, false, func() store.Store {
		db.Close()
		if s, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		return s
	})
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if msg, err := s2.IntegrityCheck(ctx); err != nil || msg != "ok" {
		t.Errorf("integrity check after the upgrade: %q, %v", msg, err)
	}
	var on int
	if err := s2.DBHandle().QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
		t.Errorf("foreign keys after the upgrade: %d, %v", on, err)
	}
	rows, err := s2.DBHandle().QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Error("foreign_key_check reports rows after the upgrade")
	}
}

// TestCommentLimit: past store.MaxComments comments (resolved threads count too) a comment is
// refused, saying what works: export the review, and fork the workspace to review it further.
func TestCommentLimit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "t", Author: "ada", Listing: storetest.Sample(t)})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.AddComment(ctx, store.NewComment{Workspace: w.ID, Anchor: store.Anchor{Tool: "search"}, Author: "ada", Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveThread(ctx, store.Resolve{Workspace: w.ID, Thread: first.ID, Resolved: true, By: "ada"}); err != nil {
		t.Fatal(err)
	}
	// The rest written at once (resolved threads), as AddComment would have one by one.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO review_comments (id, workspace_id, anchor, author, body, revision, seq, created_at, resolved, resolved_by, resolved_at)
		SELECT printf('%032x', i), ?, '{}', 'ada', 'x', 0, 0, i, 1, 'ada', i FROM n`, store.MaxComments-1, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AddComment(ctx, store.NewComment{Workspace: w.ID, Thread: first.ID, Author: "ada", Body: "one more"})
	want := fmt.Sprintf("holds %d comments, the limit (resolved threads and their replies count too); export the review to keep it, and fork the workspace", store.MaxComments)
	if store.KindOf(err) != store.Invalid || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("comment past the limit: %v, want Invalid saying %q", err, want)
	}
}
