package web

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// runAcross starts a run on a server on store runOn and checks that a page on a second server,
// on store watchOn, shows it: the bar while it runs (as "running", not "interrupted"), then the
// list and the bar at its end. Only the store's events carry it from one server to the other.
func runAcross(t *testing.T, runOn, watchOn store.Store) {
	t.Setenv(keyEnv, testKey)
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	f := &fake.Server{Key: testKey, Delay: 50 * time.Millisecond}
	as, err := New(Config{Store: runOn, Engine: eng, DatastarJS: []byte("// test client"), Log: slog.New(slog.NewTextHandler(&syncBuf{}, nil)),
		Runs: RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f},
			ProgressEvery: 10 * time.Millisecond, SaveEvery: 20 * time.Millisecond, Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.WaitRuns)
	bs, err := New(Config{Store: watchOn, Engine: eng, DatastarJS: []byte("// test client"),
		Log: slog.New(slog.NewTextHandler(&syncBuf{}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	a, b := &runEnv{s: as, db: runOn, fake: f}, &runEnv{s: bs, db: watchOn}
	ws := openExample(t, a.s, "library-2-draft")
	st := b.openStream(t, ws)
	id := a.start(t, ws, runForm("samples", "3"))
	st.waitFor(t, `data-testid="run-progress" data-status="running"`)
	a.s.WaitRuns()
	body := st.waitFor(t, `data-testid="run-progress" data-status="done"[\s\S]*data-run="`+id+`" data-status="done"`)
	if !strings.Contains(body, `value="27"`) || !strings.Contains(body, `max="27"`) {
		t.Errorf("the other server's page does not show 27 of 27 calls at the end:\n%s", body)
	}
	if strings.Contains(body, `data-status="interrupted"`) {
		t.Errorf("a run in progress on the other server showed as interrupted:\n%s", body)
	}
}

// TestRunProgressCrossesServers: two servers on one SQLite store (its events are in-process
// only, so both share the store value) stand for two replicas.
func TestRunProgressCrossesServers(t *testing.T) {
	st := newTestStore(t)
	runAcross(t, st, st)
}

// TestRunProgressCrossesReplicasPostgres: two servers on two PostgreSQL store instances, where
// the events cross by LISTEN/NOTIFY as between real replicas.
func TestRunProgressCrossesReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	runAcross(t, sts[0], sts[1])
}
