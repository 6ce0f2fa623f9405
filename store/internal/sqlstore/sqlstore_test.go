package sqlstore

import (
	"context"
	"fmt"
	"math"
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
	stripe := func(n uint64) listing.Hash { // a hash whose first 8 bytes are n
		var x listing.Hash
		for i := 7; i >= 0; i-- {
			x[i], n = byte(n), n>>8
		}
		return x
	}
	tests := []struct {
		name              string
		shared, exclusive []listing.Hash
		keys              []int64
		excl              []bool
	}{
		{"a keystroke: the coarse lock shared, then its stripes in order",
			[]listing.Hash{stripe(9)}, []listing.Hash{stripe(3)},
			[]int64{coarseToolLock, 3, 9}, []bool{false, true, false}},
		{"tools of one stripe: exclusive if any of them is",
			[]listing.Hash{stripe(5), stripe(5 + toolStripes)}, []listing.Hash{stripe(5 + 2*toolStripes)},
			[]int64{coarseToolLock, 5}, []bool{false, true}},
		{"only shared", []listing.Hash{stripe(7), stripe(2)}, nil,
			[]int64{coarseToolLock, 2, 7}, []bool{false, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, excl := toolLocks(tc.shared, tc.exclusive)
			if fmt.Sprint(keys, excl) != fmt.Sprint(tc.keys, tc.excl) {
				t.Errorf("toolLocks = %v %v, want %v %v", keys, excl, tc.keys, tc.excl)
			}
		})
	}
	// Too many stripes: the coarse lock alone, exclusive.
	var many []listing.Hash
	for i := range maxStripeLocks + 1 {
		many = append(many, stripe(uint64(i)))
	}
	if keys, excl := toolLocks(many, nil); fmt.Sprint(keys, excl) != fmt.Sprint([]int64{coarseToolLock}, []bool{true}) {
		t.Errorf("an import of many tools takes %v %v, want the coarse lock alone, exclusive", keys, excl)
	}
}

// TestMigrationMarker: the first line that turns foreign keys off is recognised however the
// file's lines end (a CRLF checkout must not run a table rebuild with foreign keys on), and only
// as the first line.
func TestMigrationMarker(t *testing.T) {
	cases := []struct {
		name, sql string
		want      bool
	}{
		{"LF", "-- workbench: foreign keys off\nDROP TABLE x;\n", true},
		{"CRLF", "-- workbench: foreign keys off\r\nDROP TABLE x;\r\n", true},
		{"trailing space", "-- workbench: foreign keys off  \nDROP TABLE x;", true},
		{"byte-order mark", "\ufeff-- workbench: foreign keys off\nDROP TABLE x;", true},
		{"not first", "-- a comment\n-- workbench: foreign keys off\n", false},
		{"none", "CREATE TABLE x (a INTEGER);", false},
	}
	for _, tc := range cases {
		ms, err := ReadMigrations(fstest.MapFS{"m/0001_a.sql": {Data: []byte(tc.sql)}}, "m")
		if err != nil {
			t.Fatal(err)
		}
		if ms[0].NoForeignKeys != tc.want {
			t.Errorf("%s: NoForeignKeys = %v, want %v", tc.name, ms[0].NoForeignKeys, tc.want)
		}
	}
}

// TestPageBounds: what a page of revisions reads. A conformance test cannot reach the clamp
// without writing more than MaxRevisionLimit revisions; the bounds are checked here.
func TestPageBounds(t *testing.T) {
	tests := []struct {
		name          string
		page          store.RevisionPage
		before, limit int
		err           bool
	}{
		{"the zero page", store.RevisionPage{}, math.MaxInt32, store.DefaultRevisionLimit, false},
		{"a page before 10", store.RevisionPage{Before: 10, Limit: 5}, 10, 5, false},
		{"a negative Before: from the head", store.RevisionPage{Before: -3}, math.MaxInt32, store.DefaultRevisionLimit, false},
		{"a Before past the column", store.RevisionPage{Before: math.MaxInt32 + 1}, math.MaxInt32, store.DefaultRevisionLimit, false},
		{"a Limit above the maximum, clamped", store.RevisionPage{Limit: store.MaxRevisionLimit + 1}, math.MaxInt32, store.MaxRevisionLimit, false},
		{"a negative Limit", store.RevisionPage{Limit: -1}, 0, 0, true},
	}
	for _, tt := range tests {
		before, limit, err := pageBounds(tt.page)
		if (err != nil) != tt.err || before != tt.before || limit != tt.limit {
			t.Errorf("%s: before %d, limit %d, err %v; want %d, %d, error %v", tt.name, before, limit, err, tt.before, tt.limit, tt.err)
		}
	}
}
