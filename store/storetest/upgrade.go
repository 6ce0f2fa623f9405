package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// UpgradeFromVersion1 checks that a database written by the first schema upgrades with
// nothing lost. db holds schema version 1 only (the caller ran migration 1); reopen opens it
// with every migration. Workspace one has an edit and a task file (which schema 1 kept beside
// the history, and which becomes every revision's); workspace two has no task file.
func UpgradeFromVersion1(t *testing.T, db *sql.DB, postgres bool, reopen func() store.Store) {
	t.Helper()
	ctx := context.Background()
	q := func(s string) string {
		if !postgres {
			return s
		}
		var b strings.Builder
		n := 0
		for _, c := range s {
			if c == '?' {
				n++
				b.WriteString("$" + strconv.Itoa(n))
				continue
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	tool := []byte(`{"name":"t","description":"d"}`)
	h := sha256.Sum256(tool)
	envelope := []byte(`{"tools":[]}`)
	list := binary.AppendUvarint(append([]byte(nil), h[:]...), uint64(len(`{"tools":[`)))
	ws1, ws2 := store.NewID(), store.NewID()
	at := t0.UnixMicro()
	tasks := `{"tasks": [{"task": "find the tool", "expect": "t"}]}`
	stmts := []struct {
		q    string
		args []any
	}{
		{`INSERT INTO tools (hash, json) VALUES (?, ?)`, []any{h[:], tool}},
		{`INSERT INTO workspaces (id, title, created_at, updated_at, head, seq) VALUES (?, 'one', ?, ?, 1, 1)`, []any{ws1, at, at}},
		{`INSERT INTO workspaces (id, title, created_at, updated_at, head, seq) VALUES (?, 'two', ?, ?, 0, 0)`, []any{ws2, at, at}},
		{`INSERT INTO revisions (workspace_id, number, parent, kind, author, message, field, created_at, updated_at, edit_count, first_seq, last_seq, envelope, tools)
			VALUES (?, 0, NULL, 'import', 'ada', '', '', ?, ?, 0, 0, 0, ?, ?)`, []any{ws1, at, at, envelope, list}},
		{`INSERT INTO revisions (workspace_id, number, parent, kind, author, message, field, created_at, updated_at, edit_count, first_seq, last_seq, envelope, tools)
			VALUES (?, 1, 0, 'edit', 'ada', '', '/tools/0/description', ?, ?, 1, 1, 1, ?, ?)`, []any{ws1, at, at, envelope, list}},
		{`INSERT INTO revisions (workspace_id, number, parent, kind, author, message, field, created_at, updated_at, edit_count, first_seq, last_seq, envelope, tools)
			VALUES (?, 0, NULL, 'import', 'ada', '', '', ?, ?, 0, 0, 0, ?, ?)`, []any{ws2, at, at, envelope, list}},
		{`INSERT INTO workspace_tools (workspace_id, hash, first_number) VALUES (?, ?, 0)`, []any{ws1, h[:]}},
		{`INSERT INTO workspace_tools (workspace_id, hash, first_number) VALUES (?, ?, 0)`, []any{ws2, h[:]}},
		{`INSERT INTO edits (workspace_id, seq, revision, author, at, ops) VALUES (?, 1, 1, 'ada', ?, ?)`,
			[]any{ws1, at, []byte(`[{"op":"set","path":"/tools/0/description","value":"d"}]`)}},
		{`INSERT INTO task_files (workspace_id, body, author, updated_at) VALUES (?, ?, 'ada', ?)`, []any{ws1, []byte(tasks), at}},
		{`INSERT INTO runs (id, workspace_id, revision, label, status, author, created_at, updated_at) VALUES (?, ?, 1, 'run', 'done', 'ada', ?, ?)`,
			[]any{store.NewID(), ws1, at, at}},
	}
	for _, st := range stmts {
		if _, err := db.ExecContext(ctx, q(st.q), st.args...); err != nil {
			t.Fatalf("write a schema 1 database: %v\n%s", err, st.q)
		}
	}
	s := reopen()
	defer s.Close()
	for n := range 2 {
		r, err := s.Revision(ctx, ws1, n)
		if err != nil {
			t.Fatalf("revision %d after the upgrade: %v", n, err)
		}
		if !r.HasTasks || string(r.Tasks) != tasks || r.TasksSeq != 1 {
			t.Errorf("revision %d's task file after the upgrade: %+v %s", n, r, r.Tasks)
		}
		if len(r.Listing.Tools) != 1 || r.Listing.Tools[0].Get("name").Str != "t" {
			t.Errorf("revision %d's listing after the upgrade: %s", n, r.Listing.Marshal(""))
		}
	}
	if tf, err := s.Tasks(ctx, ws1); err != nil || string(tf.Body) != tasks {
		t.Errorf("task file after the upgrade: %+v, %v", tf, err)
	}
	if _, err := s.Tasks(ctx, ws2); store.KindOf(err) != store.NotFound {
		t.Errorf("workspace two has a task file after the upgrade (%v)", err)
	}
	if runs, err := s.Runs(ctx, ws1); err != nil || len(runs) != 1 {
		t.Errorf("runs after the upgrade: %v, %v", runs, err)
	}
	// The upgraded workspace takes task edits, undo and history as a new one does.
	res, err := s.PutTasks(ctx, store.TaskEdit{Workspace: ws1, Author: "bob", AuthorID: "b1", Body: json.RawMessage(`[]`), Undo: &store.Undoable{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 2 || res.Revision.Number != 2 || res.Revision.Kind != store.KindTasks {
		t.Errorf("first task edit after the upgrade: seq %d, %+v", res.Seq, res.Revision)
	}
	if _, err := s.Step(ctx, store.Step{Workspace: ws1, Author: "bob", AuthorID: "b1"}); err != nil {
		t.Fatal(err)
	}
	if tf, err := s.Tasks(ctx, ws1); err != nil || string(tf.Body) != tasks {
		t.Errorf("task file after undoing the first edit after the upgrade: %+v, %v", tf, err)
	}
	if err := s.DeleteWorkspace(ctx, ws1); err != nil {
		t.Errorf("delete an upgraded workspace: %v", err)
	}
	checkHistory(t, s, ws2)
	// The tables added since (reviews, challenges) take records for an upgraded workspace.
	if _, err := s.AddComment(ctx, store.NewComment{Workspace: ws2, Anchor: store.Anchor{Tool: "t"}, Author: "ada", Body: "upgraded"}); err != nil {
		t.Errorf("a comment on an upgraded workspace: %v", err)
	}
	c := newChallenge(t, s, ws2, t0)
	p := join(t, s, c.ID, "Ada", t0)
	if _, err := s.PutScore(ctx, store.ScoreUpdate{Challenge: c.ID, Participant: p.ID, Seq: 1, Score: json.RawMessage(`{}`)}); err != nil {
		t.Errorf("a score in a challenge of an upgraded workspace: %v", err)
	}
	if err := s.DeleteWorkspace(ctx, ws2); err != nil {
		t.Errorf("delete an upgraded workspace with a challenge: %v", err)
	}
	if _, err := s.ParticipantOf(ctx, p.Workspace); store.KindOf(err) != store.NotFound {
		t.Errorf("the participant outlived the upgraded workspace's challenge: %v", err)
	}
}
