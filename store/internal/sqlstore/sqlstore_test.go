package sqlstore

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/tool-workbench/workbench/store"
)

func TestRebind(t *testing.T) {
	cases := []struct {
		in, pg string
	}{
		{`SELECT 1`, `SELECT 1`},
		{`UPDATE t SET a = ?, b = ? WHERE id = ?`, `UPDATE t SET a = $1, b = $2 WHERE id = $3`},
	}
	for _, tc := range cases {
		if got := rebind(true, tc.in); got != tc.pg {
			t.Errorf("rebind(postgres, %q) = %q, want %q", tc.in, got, tc.pg)
		}
		if got := rebind(false, tc.in); got != tc.in {
			t.Errorf("rebind(sqlite, %q) = %q", tc.in, got)
		}
	}
}

func TestBrokerDeliversPerWorkspace(t *testing.T) {
	b := NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	a1, a2 := b.Subscribe(ctx, "a"), b.Subscribe(ctx, "a")
	other := b.Subscribe(ctx, "b")
	b.Publish(store.Event{Workspace: "a", Kind: store.EventEdit, Seq: 1})
	for i, ch := range []<-chan store.Event{a1, a2} {
		if ev := <-ch; ev.Seq != 1 {
			t.Errorf("subscriber %d got %+v", i, ev)
		}
	}
	select {
	case ev := <-other:
		t.Errorf("a subscriber of b got %+v", ev)
	default:
	}
	b.PublishAll(store.EventResync)
	for i, ch := range []<-chan store.Event{a1, a2, other} {
		if ev := <-ch; ev.Kind != store.EventResync {
			t.Errorf("subscriber %d got %+v, want a resync", i, ev)
		}
	}
	cancel()
	for i, ch := range []<-chan store.Event{a1, a2, other} {
		if _, ok := <-ch; ok {
			t.Errorf("subscriber %d's channel still open after cancel", i)
		}
	}
	if n := b.Subscribers("a"); n != 0 {
		t.Errorf("%d subscribers left after cancel", n)
	}
	b.Publish(store.Event{Workspace: "a", Seq: 2}) // nobody listens: no panic, no block
}

func TestBrokerDropsOldestWhenFull(t *testing.T) {
	b := NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx, "a")
	total := subBuffer + 10
	for i := 1; i <= total; i++ {
		b.Publish(store.Event{Workspace: "a", Seq: int64(i)}) // never blocks, though nobody reads
	}
	first := <-ch
	if first.Seq != int64(total-subBuffer+1) {
		t.Errorf("oldest kept event is %d, want %d", first.Seq, total-subBuffer+1)
	}
	var last store.Event
	for range subBuffer - 1 {
		last = <-ch
	}
	if last.Seq != int64(total) {
		t.Errorf("newest event is %d, want %d (the newest is never dropped)", last.Seq, total)
	}
}

func TestReadMigrations(t *testing.T) {
	cases := []struct {
		name  string
		files fstest.MapFS
		ok    bool
	}{
		{"in order", fstest.MapFS{"m/0001_a.sql": {}, "m/0002_b.sql": {}, "m/README": {}}, true},
		{"a gap", fstest.MapFS{"m/0001_a.sql": {}, "m/0003_c.sql": {}}, false},
		{"unnumbered", fstest.MapFS{"m/init.sql": {}}, false},
		{"zero", fstest.MapFS{"m/0000_a.sql": {}}, false},
	}
	for _, tc := range cases {
		ms, err := ReadMigrations(tc.files, "m")
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, %v", tc.name, ms, err)
		}
	}
}
