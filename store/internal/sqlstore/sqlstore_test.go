package sqlstore

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/tool-workbench/workbench/listing"
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

func TestToolLocks(t *testing.T) {
	h := func(b ...byte) listing.Hash {
		var x listing.Hash
		copy(x[:], b)
		return x
	}
	keys, excl := toolLocks([]listing.Hash{h(9), h(1), h(5)}, []listing.Hash{h(5, 0), h(3), h(1, 0, 0, 0, 0, 0, 0, 0, 7)})
	// h(5) and h(5, 0) share a key (their first 8 bytes), and so do h(1) and h(1,…,7): such a key
	// is taken exclusively; keys come in ascending order.
	want := []struct {
		key  int64
		excl bool
	}{{toolLockKey(h(1)), true}, {toolLockKey(h(3)), true}, {toolLockKey(h(5)), true}, {toolLockKey(h(9)), false}}
	if len(keys) != len(want) {
		t.Fatalf("keys = %v, want %d of them", keys, len(want))
	}
	for i, w := range want {
		if keys[i] != w.key || excl[i] != w.excl {
			t.Errorf("lock %d = %d (exclusive %v), want %d (%v)", i, keys[i], excl[i], w.key, w.excl)
		}
	}
}
