package storetest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// BenchmarkEdits measures AppendEdit latency, one edit after another, and reports the median
// and 99th percentile in milliseconds. "new-revision" edits alternate fields so each starts a
// revision (INSERT); "coalesced" edits type into one field (UPDATE of the head).
//
// It runs on the suite's three-tool sample and, when the shared listings are there, on the
// GitHub MCP server's listing (about 200 kB), where an edit writes the one tool it changed (tools
// are stored once by hash) and its undo step.
func BenchmarkEdits(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	listings := []struct {
		name string
		l    *listing.Listing
	}{{"sample", Sample(b)}}
	big, _ := testutil.SharedPath(b, "listings", "real", "github-mcp-server.json")
	if src, err := os.ReadFile(big); err != nil {
		b.Logf("skipping the github-mcp-server listing: %v", err)
	} else {
		l, err := listing.Parse(src, listing.Options{Name: big})
		if err != nil {
			b.Fatal(err)
		}
		listings = append(listings, struct {
			name string
			l    *listing.Listing
		}{"github-mcp-server", l})
	}
	for _, lc := range listings {
		for _, mode := range []string{"new-revision", "coalesced"} {
			b.Run(lc.name+"/"+mode, func(b *testing.B) {
				benchmarkEdits(b, s, lc.l, mode)
			})
		}
	}
}

func benchmarkEdits(b *testing.B, s store.Store, l *listing.Listing, mode string) {
	ctx := context.Background()
	w, err := s.CreateWorkspace(ctx, store.NewWorkspace{Title: "bench", Listing: l, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		path := "/tools/0/description"
		if mode == "new-revision" {
			path = fmt.Sprintf("/tools/%d/description", i%3)
		}
		start := time.Now()
		// As the browser sends a keystroke: by a person, as a step of their undo.
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bench", AuthorID: "bench", Now: time.Now(),
			Ops: set(path, fmt.Sprintf("Edit number %d of the benchmark", i)), Undo: &store.Undoable{Path: path, Key: path}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	ReportLatency(b, lat)
	b.ReportMetric(float64(len(l.Marshal(""))), "listing-bytes")
}

// ReportLatency reports the p50 and p99 of lat, in milliseconds.
func ReportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}

// FanoutSubscribers is how many subscribers BenchmarkFanout has on one workspace.
const FanoutSubscribers = 200

// BenchmarkFanout has FanoutSubscribers subscribers on one workspace and measures, for each
// edit, the time from calling AppendEdit to each subscriber receiving its event (commit
// included, and on PostgreSQL the NOTIFY round trip): p50 and p99 over all deliveries, and the
// p99 of the slowest delivery of each edit ("all-p99-ms").
func BenchmarkFanout(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorkspace(b, s, time.Now())
	var (
		mu      sync.Mutex
		start   time.Time
		pending sync.WaitGroup
		each    []time.Duration
	)
	for range FanoutSubscribers {
		ch, err := s.Subscribe(ctx, w.ID)
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for ev := range ch {
				if ev.Kind != store.EventEdit {
					continue
				}
				mu.Lock()
				each = append(each, time.Since(start))
				mu.Unlock()
				pending.Done()
			}
		}()
	}
	var all []time.Duration
	for i := 0; b.Loop(); i++ {
		pending.Add(FanoutSubscribers)
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		if _, err := s.AppendEdit(ctx, store.Edit{Workspace: w.ID, Author: "bench", Now: time.Now(),
			Ops: set("/tools/0/description", fmt.Sprintf("Edit %d", i))}); err != nil {
			b.Fatal(err)
		}
		pending.Wait()
		all = append(all, time.Since(start))
	}
	b.StopTimer()
	ReportLatency(b, each)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(all[int(0.99*float64(len(all)-1))])/1e6, "all-p99-ms")
}

// BenchmarkIdleSubscribers measures the heap an idle subscription holds (its channel, its
// registration and its context), in bytes per subscriber.
func BenchmarkIdleSubscribers(b *testing.B, open Opener) {
	s := open(b)
	defer s.Close()
	w := newWorkspace(b, s, time.Now())
	const n = 10000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cancels := make([]context.CancelFunc, n)
		for i := range cancels {
			ctx, cancel := context.WithCancel(context.Background())
			if _, err := s.Subscribe(ctx, w.ID); err != nil {
				b.Fatal(err)
			}
			cancels[i] = cancel
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/subscriber")
		for _, c := range cancels {
			c()
		}
	}
}
