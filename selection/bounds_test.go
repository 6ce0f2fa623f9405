package selection

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/internal/testlistings"
)

// TestRankCancelled: the ranker stops between tasks when its context is done, on the largest
// listing the limits allow, with and without the cache.
func TestRankCancelled(t *testing.T) {
	l := testlistings.Distinct(t, 20000, "")
	tasks := make([]Task, 500)
	for i := range tasks {
		tasks[i] = Task{Task: fmt.Sprintf("find record %d of collection %d", i, i%97)}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := RankContext(ctx, l, tasks, true); !errors.Is(err, context.Canceled) {
		t.Errorf("RankContext: %v, want context.Canceled", err)
	}
	if _, err := NewCache(0).Rank(ctx, l, tasks, true); !errors.Is(err, context.Canceled) {
		t.Errorf("Cache.Rank: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("cancelled rankings took %v", took)
	}
}

// TestCacheBytesBounded: a cache that ranks many distinct listings keeps its word sets within
// its byte budget and its rankings within maxMemoBytes.
func TestCacheBytesBounded(t *testing.T) {
	const budget = 256 << 10
	b := lru.NewBudget(budget)
	c := NewCacheBudget(0, b)
	tasks := []Task{{Task: "find record 7"}, {Task: "find collection 3"}}
	for i := range 20 {
		if _, err := c.Rank(context.Background(), testlistings.Distinct(t, 300, fmt.Sprintf("salt%d", i)), tasks, true); err != nil {
			t.Fatal(err)
		}
		if b.Used() > budget || c.Bytes() > budget+maxMemoBytes {
			t.Fatalf("after %d listings: budget %d bytes, cache %d", i+1, b.Used(), c.Bytes())
		}
	}
	if b.Used() < budget/2 {
		t.Errorf("the budget holds %d bytes: the listings did not fill it", b.Used())
	}
}
