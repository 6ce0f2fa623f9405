package challenge

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// BenchmarkScore scores a listing on the live split after a one-field edit, as the watcher
// does at every keystroke: the built-in workshop's rewrite, and the GitHub MCP server's listing
// with a hidden task per tool.
func BenchmarkScore(b *testing.B) {
	w := examples.TheWorkshop()
	f, err := Parse(w.Challenge)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("workshop", func(b *testing.B) { benchScore(b, parseListing(b, w.Answer), f) })
	src, ok := testutil.SharedPath(b, "listings", "real", "github-mcp-server.json")
	if !ok {
		b.Skip("../shared/listings/real/github-mcp-server.json is not here")
	}
	gl := parseListing(b, readFile(b, src))
	b.Run(fmt.Sprintf("github-%d-tools", len(gl.Tools)), func(b *testing.B) { benchScore(b, gl, fileFor(b, gl)) })
}

// fileFor is a challenge over l: each tool's hidden task is its own description's first
// words, alternately live and final.
func fileFor(b *testing.B, l *listing.Listing) *File {
	names := l.Names()
	var live, final []map[string]any
	for i, t := range l.Tools {
		words := strings.Fields(t.Get("description").Str)
		task := map[string]any{"task": fmt.Sprintf("%d %s", i, strings.Join(words[:min(8, len(words))], " ")), "expect": names[i]}
		if i%2 == 0 {
			live = append(live, task)
		} else {
			final = append(final, task)
		}
	}
	src, _ := json.Marshal(map[string]any{"tools": names, "budget": map[string]int{"tokens": MaxBudget}, "live": live, "final": final})
	f, err := Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func benchScore(b *testing.B, l *listing.Listing, f *File) {
	ctx := context.Background()
	desc := l.Tools[0].Get("description").Str
	edited := make([]*listing.Listing, 2)
	for i := range edited {
		var err error
		if edited[i], err = l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(desc + strings.Repeat(" more", i+1))}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Score(ctx, edited[i%2], f, Live); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRescore is one participant's edit to their stored score, on SQLite: the edit, then
// Rescore reading the copy, scoring it and storing the score.
func BenchmarkRescore(b *testing.B) {
	r, c := workshopRig(b)
	ctx := context.Background()
	p := r.join(b, c, "Ana").Participant
	r.s.Close() // no watcher: the benchmark scores by itself
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.describe(b, p.Workspace, 0, fmt.Sprintf("Get one docking station by its id%s.", strings.Repeat(" and more", i%7)))
		if err := r.s.Rescore(ctx, p.Workspace); err != nil {
			b.Fatal(err)
		}
	}
}

// workshopRig is a rig whose teacher made a challenge of the built-in workshop.
func workshopRig(b testing.TB) (*rig, *Challenge) {
	w := examples.TheWorkshop()
	r := newRig(b)
	ctx := context.Background()
	ws, err := r.ws.Create(ctx, "Bike share", parseListing(b, w.Start), mustTasks(b, w.Practice), teacher, "example")
	if err != nil {
		b.Fatal(err)
	}
	r.teacher = ws.ID
	return r, r.create(b, Draft{Hidden: w.Hidden, Budget: Budget{Tokens: w.Budget}})
}

// scoreLog records when each participant's score was stored, and at which Seq.
type scoreLog struct {
	store.Store
	mu     sync.Mutex
	stored map[string][]stamp // by participant
}

type stamp struct {
	seq int64
	at  time.Time
}

func (s *scoreLog) PutScore(ctx context.Context, u store.ScoreUpdate) (store.Participant, error) {
	p, err := s.Store.PutScore(ctx, u)
	if err == nil {
		s.mu.Lock()
		s.stored[u.Participant] = append(s.stored[u.Participant], stamp{u.Seq, time.Now()})
		s.mu.Unlock()
	}
	return p, err
}

// BenchmarkSixtyTyping is the workshop at scale: 60 participants type into their copies at
// once (an edit every 150 ms each, as fast as the page's debounce sends them, or every 500 ms),
// watched by the service,
// with three leaderboards drawing the board at every score event. It reports the latency from
// an edit's acceptance to its score stored (p50, p99; a later edit's score counts for an
// earlier one, as the board then shows it) and the heap per participant.
func BenchmarkSixtyTyping(b *testing.B) {
	const participants, edits = 60, 20
	for _, every := range []time.Duration{150 * time.Millisecond, 500 * time.Millisecond} {
		b.Run(fmt.Sprintf("edit-every-%s", every), func(b *testing.B) {
			for b.Loop() {
				lat, heap := sixtyTyping(b, participants, edits, every)
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(heap)/participants/1024, "KiB/participant")
			}
		})
	}
}

func sixtyTyping(b *testing.B, participants, edits int, every time.Duration) ([]time.Duration, uint64) {
	r, c := workshopRig(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &scoreLog{Store: r.st, stored: map[string][]stamp{}}
	r.s.Close()
	s := New(log, r.ws, Options{})
	defer s.Close()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ps := make([]store.Participant, participants)
	for i := range ps {
		j, err := s.Join(ctx, c, fmt.Sprintf("P%d", i))
		if err != nil {
			b.Fatal(err)
		}
		ps[i] = j.Participant
	}
	boards(ctx, b, s, r.st, c.ID, 3)
	type edit struct {
		seq int64
		at  time.Time
	}
	made := make([][]edit, participants)
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * every / time.Duration(participants)) // not all in step
			for k := range edits {
				e := workspace.Edit{Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description",
					Value: listing.NewString("Get one docking station by its id" + strings.Repeat(" and more", k+1))}}}
				ch, err := r.ws.Apply(ctx, p.Workspace, e, workspace.Author{Name: p.Name})
				if err != nil {
					b.Error(err)
					return
				}
				made[i] = append(made[i], edit{int64(ch.After.Version), time.Now()})
				time.Sleep(every)
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second) // the last scorings
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	log.mu.Lock()
	defer log.mu.Unlock()
	var lat []time.Duration
	for i, p := range ps {
		for _, e := range made[i] {
			k := slices.IndexFunc(log.stored[p.ID], func(s stamp) bool { return s.seq >= e.seq })
			if k < 0 {
				b.Fatalf("%s's edit %d was never scored", p.Name, e.seq)
			}
			lat = append(lat, max(0, log.stored[p.ID][k].at.Sub(e.at)))
		}
	}
	return lat, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// boards starts n leaderboards that draw the board after the events of the challenge, as the
// projector's page does: the events that came while it drew are drawn once.
func boards(ctx context.Context, b *testing.B, s *Service, st store.Store, id string, n int) {
	for range n {
		events, err := st.Subscribe(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range events {
				// Events that came while the board was drawn are drawn at once.
				for drained := false; !drained; {
					select {
					case <-events:
					default:
						drained = true
					}
				}
				if _, err := s.Board(ctx, id); err != nil && ctx.Err() == nil {
					b.Error(err)
				}
			}
		}()
	}
}
