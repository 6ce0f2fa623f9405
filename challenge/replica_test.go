package challenge

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/postgres"
	"github.com/tool-workbench/workbench/workspace"
)

// TestEndFreezesOnEveryReplica: two replicas on one PostgreSQL database both follow a
// challenge when its end comes; both freeze it (the second freeze changes nothing), neither
// keeps watching, and a copy is locked on both.
func TestEndFreezesOnEveryReplica(t *testing.T) {
	dsn := os.Getenv("WORKBENCH_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("skipped: set WORKBENCH_TEST_POSTGRES to a PostgreSQL DSN (.ci/services starts one) to run the replica tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rigs [2]*rig
	for i := range rigs {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		ws, c := workspace.New(st), &clock{t: t0}
		r := &rig{s: New(st, ws, Options{Now: c.now}), st: st, ws: ws, clock: c}
		t.Cleanup(func() {
			r.s.Close()
			st.Close()
		})
		rigs[i] = r
	}
	a, b := rigs[0], rigs[1]
	practice := []selection.Task{{Task: "what's the weather in Paris", Expect: ptr("weather_get")}}
	w, err := a.ws.Create(ctx, "Small", parseListing(t, readFile(t, "testdata/small.json")), practice, teacher, "imported")
	if err != nil {
		t.Fatal(err)
	}
	a.teacher = w.ID
	end := t0.Add(100 * time.Millisecond)
	c := a.create(t, Draft{Hidden: []byte(hidden), Window: Window{End: end}})
	ana := a.join(t, c, "Ana").Participant.Workspace
	if why := b.s.Locked(ctx, ana); why != "" { // b follows the challenge too
		t.Fatalf("b: %s", why)
	}
	a.clock.set(end)
	b.clock.set(end)
	for _, r := range rigs {
		for i := 0; r.watching() != 0; i++ {
			if i == 3000 {
				t.Fatal("a replica still watches the ended challenge")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got, err := r.s.Get(ctx, c.ID); err != nil || got.State != store.ChallengeFrozen {
			t.Fatalf("after the end: %v, %v", got, err)
		}
		if why := r.s.Locked(ctx, ana); why == "" {
			t.Error("a copy of the ended challenge is editable")
		}
	}
}
