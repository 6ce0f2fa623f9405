package cost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
)

func distinctListing(t testing.TB, n int, salt string) *listing.Listing {
	t.Helper()
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "tool_%d", "description": "Finds record %d by its id. %s", "inputSchema": {"type": "object"}}`, i, i, salt)
	}
	b.WriteString("]")
	l, err := listing.Parse([]byte(b.String()), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCounterCacheBytesBounded: a counter that measures many distinct listings keeps its
// caches (tool costs, hashes, frame texts) within its byte budget.
func TestCounterCacheBytesBounded(t *testing.T) {
	const budget = 256 << 10
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, render := range []string{"compact", "harmony"} {
		c, err := NewCounter(tok, render, Options{Cache: lru.NewBudget(budget)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			c.Listing(distinctListing(t, 200, fmt.Sprintf("salt %d", i)))
			if got := c.CacheBytes(); got > budget {
				t.Fatalf("%s: after %d listings the caches hold %d bytes, over %d", render, i+1, got, budget)
			}
		}
		if got := c.CacheBytes(); got < budget/2 {
			t.Errorf("%s: the caches hold %d bytes: the listings did not fill the budget", render, got)
		}
	}
}

// TestListingCancelled: a cancelled context stops a count between tools.
func TestListingCancelled(t *testing.T) {
	c := counter(t, "o200k_base", "compact", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ListingContext(ctx, distinctListing(t, 20000, "")); !errors.Is(err, context.Canceled) {
		t.Errorf("ListingContext: %v, want context.Canceled", err)
	}
}
