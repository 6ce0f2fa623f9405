package lru

import (
	"fmt"
	"sync"
	"testing"
)

func TestCacheBounds(t *testing.T) {
	tests := []struct {
		name       string
		budget     int64
		maxEntries int
		adds       int
		size       int64
		wantLen    int
	}{
		{"entries bind", 1 << 20, 10, 100, 0, 10},
		{"bytes bind", 10 * (100 + EntryOverhead), 0, 100, 100, 10},
		{"both, bytes first", 5 * (100 + EntryOverhead), 10, 100, 100, 5},
		{"entry larger than the budget is not kept", 1000, 0, 3, 2000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[int, string](NewBudget(tt.budget), tt.maxEntries)
			for i := range tt.adds {
				c.Add(i, fmt.Sprint(i), tt.size)
				if c.Bytes() > tt.budget {
					t.Fatalf("after %d adds the cache holds %d bytes, over its budget of %d", i+1, c.Bytes(), tt.budget)
				}
			}
			if c.Len() != tt.wantLen {
				t.Errorf("len %d, want %d", c.Len(), tt.wantLen)
			}
			// The most recent entries are the ones kept.
			for i := tt.adds - tt.wantLen; i < tt.adds; i++ {
				if _, ok := c.Get(i); !ok {
					t.Errorf("entry %d, among the most recent, was dropped", i)
				}
			}
		})
	}
}

// TestLeastRecentlyUsed: a Get protects an entry from the next eviction.
func TestLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](nil, 3)
	c.Add("a", 1, 0)
	c.Add("b", 2, 0)
	c.Add("c", 3, 0)
	c.Get("a")
	c.Add("d", 4, 0) // drops b, the least recently used
	for k, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := c.Get(k); ok != want {
			t.Errorf("%s kept = %v, want %v", k, ok, want)
		}
	}
	c.Add("a", 10, 50) // replacing counts the new size only
	if v, _ := c.Get("a"); v != 10 || c.Bytes() != 3*EntryOverhead+50 {
		t.Errorf("after replacing a: value %d, bytes %d", v, c.Bytes())
	}
	c.Clear()
	if c.Len() != 0 || c.Bytes() != 0 || c.Budget().Used() != 0 {
		t.Errorf("after Clear: len %d, bytes %d, budget %d", c.Len(), c.Bytes(), c.Budget().Used())
	}
}

// TestSharedBudget: caches that share a budget are bounded together, and the least recently
// used entry of either goes first.
func TestSharedBudget(t *testing.T) {
	b := NewBudget(4 * (10 + EntryOverhead))
	x := New[int, int](b, 0)
	y := New[string, int](b, 0)
	x.Add(1, 1, 10)
	y.Add("1", 1, 10)
	x.Add(2, 2, 10)
	y.Add("2", 2, 10)
	x.Get(1)
	y.Add("3", 3, 10) // drops y's "1", the oldest of both
	if _, ok := y.Get("1"); ok {
		t.Error(`y's "1" was kept`)
	}
	if x.Len() != 2 || y.Len() != 2 || b.Used() != 4*(10+EntryOverhead) {
		t.Errorf("x %d entries, y %d, budget %d bytes", x.Len(), y.Len(), b.Used())
	}
}

func TestConcurrent(t *testing.T) {
	b := NewBudget(100 * (8 + EntryOverhead))
	var wg sync.WaitGroup
	for w := range 4 {
		c := New[int, int](b, 50)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10000 {
				c.Add(i, w, 8)
				c.Get(i / 2)
			}
		}()
	}
	wg.Wait()
	if b.Used() > b.Max() {
		t.Errorf("budget holds %d bytes, over %d", b.Used(), b.Max())
	}
}
