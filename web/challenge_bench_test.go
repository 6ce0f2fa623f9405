package web

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/workspace"
)

// benchHidden are hidden tasks for the library example, in our own words.
const benchHidden = `[
 {"task": "Which titles did the library lend that should have come back last week?", "expect": "reports_overdue", "tags": ["live"]},
 {"task": "Put my name down for the next free copy of Middlemarch", "expect": "holds_place", "tags": ["live"]},
 {"task": "Give me a fresh due date for the novel I borrowed", "expect": "loans_renew", "tags": ["live"]},
 {"task": "Look up the reader whose card number is 4471", "expect": "members_find", "tags": ["live"]},
 {"task": "Is there anything on the shelves by Ursula Le Guin?", "expect": "catalog_search", "tags": ["final"]},
 {"task": "The reader handed back two atlases at the counter", "expect": "loans_return", "tags": ["final"]}
]`

// boardRow finds a participant's row on a leaderboard patch: the name, then the tokens cell.
var boardRow = regexp.MustCompile(`data-testid="board-name">([^<]*)</span>[\s\S]*?<span class="(?:bad)?">(\d+)</span><span class="muted">/`)

// BenchmarkWorkshop60 is the scale test: 60 participants on one process with SQLite,
// each with their copy's page open, type at once (an edit every half second each, spread over
// the round), every edit re-scored on the live split; three leaderboard pages are open. Each
// b.N is one round of 60 edits. Reported: the p50 and p99 time from an edit's post to the first
// patch of each leaderboard page that shows it (an edit coalesced into a later one counts when
// the later one shows), and the heap each participant adds (their copy, page, stream and
// scores; measured after the rounds, less the server with no participant).
func BenchmarkWorkshop60(b *testing.B) {
	const participants, boards = 60, 3
	const round = 500 * time.Millisecond
	w := newWorkshopBench(b, b.N+1)
	runtime.GC()
	before := memInUse()
	w.join(b, participants)
	for i := 0; i < boards; i++ {
		w.watch(b, i)
	}
	b.ResetTimer()
	// Round 1 (not counted) scores everyone once: the first render of each row is start-up.
	for k := 1; k <= w.rounds; k++ {
		if k == 2 {
			w.mu.Lock()
			w.lat = w.lat[:0]
			w.mu.Unlock()
		}
		w.round(b, k, round)
	}
	b.StopTimer()
	runtime.GC()
	after := memInUse()
	w.mu.Lock()
	defer w.mu.Unlock()
	lat := w.lat
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		b.Fatal("no latency measured")
	}
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat))/float64(b.N), "deliveries/op")
	b.ReportMetric(float64(int64(after)-int64(before))/participants/1024, "heap-KiB/participant")
}

// workshopBench is BenchmarkWorkshop60's room: the server, the challenge, the participants,
// and what each leaderboard page has shown of their edits.
type workshopBench struct {
	s      *Server
	url    string
	cid    string
	ch     *challenge.Challenge
	rounds int
	tokens []int // the tokens of a copy after its k-th edit
	people []benchPerson

	mu     sync.Mutex
	shown  []map[string]int       // per board: the newest edit shown of each participant
	posted map[string][]time.Time // per participant: when each edit was posted
	lat    []time.Duration
}

type benchPerson struct{ name, ws string }

func newWorkshopBench(b *testing.B, rounds int) *workshopBench {
	ctx := context.Background()
	s := serverOn(b, newTestStore(b))
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	teacher := openExample(b, s, "library-2-draft")
	created, err := s.challenges.Create(ctx, teacher, challenge.Draft{Title: "Bench", Hidden: []byte(benchHidden)}, workspace.Author{Name: "T", ID: "t"})
	if err != nil {
		b.Fatal(err)
	}
	ch, err := s.challenges.Get(ctx, created.ID)
	if err != nil {
		b.Fatal(err)
	}
	w := &workshopBench{s: s, url: ts.URL, cid: created.ID, ch: ch, rounds: rounds, tokens: make([]int, rounds+1), posted: map[string][]time.Time{}}
	for k := 0; k <= rounds; k++ {
		l, err := ch.Start.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(w.text(k))})
		if err != nil {
			b.Fatal(err)
		}
		r, err := challenge.Score(ctx, l, ch.File, challenge.Live)
		if err != nil {
			b.Fatal(err)
		}
		w.tokens[k] = r.Tokens
		if k > 0 && w.tokens[k] <= w.tokens[k-1] {
			b.Fatalf("tokens do not grow with each edit: %v", w.tokens[:k+1])
		}
	}
	return w
}

// text is a copy's first description after its k-th edit: k words appended, so that its
// tokens grow with k and a leaderboard that shows them says which edits it has seen.
func (w *workshopBench) text(k int) string {
	var sb strings.Builder
	sb.WriteString(w.ch.Start.Tools[0].Get("description").Str)
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&sb, " shelf%d", i)
	}
	return sb.String()
}

// join adds n participants, each with their copy's page open.
func (w *workshopBench) join(b *testing.B, n int) {
	addr := strings.TrimPrefix(w.url, "http://")
	for i := 0; i < n; i++ {
		j, err := w.s.challenges.Join(context.Background(), w.ch, fmt.Sprintf("p%02d", i))
		if err != nil {
			b.Fatal(err)
		}
		p := benchPerson{j.Participant.Name, j.Participant.Workspace}
		w.people = append(w.people, p)
		w.posted[p.name] = make([]time.Time, w.rounds+1)
		page := dialStream(b, addr, p.ws, fmt.Sprintf("%032x", i+1), 0, -1)
		go func() { _, _ = io.Copy(io.Discard, page.conn) }()
		b.Cleanup(func() { page.conn.Close() })
		waitPages(b, w.s, p.ws, 1)
	}
}

// watch opens leaderboard page i and records, for each edit it shows, the time since its post.
func (w *workshopBench) watch(b *testing.B, i int) {
	w.shown = append(w.shown, map[string]int{})
	body := dialBoard(b, w.url, w.cid)
	editOf := func(tok int) int { return sort.SearchInts(w.tokens, tok+1) - 1 }
	go readBoard(body, func(html string) {
		now := time.Now()
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, m := range boardRow.FindAllStringSubmatch(html, -1) {
			name, k := m[1], editOf(atoiOr(m[2], 0))
			for e := w.shown[i][name] + 1; e <= k && e < len(w.posted[name]); e++ {
				if !w.posted[name][e].IsZero() {
					w.lat = append(w.lat, now.Sub(w.posted[name][e]))
				}
			}
			w.shown[i][name] = max(w.shown[i][name], k)
		}
	})
}

// round has every participant make their k-th edit at a random moment within d, then waits
// until every leaderboard shows them all.
func (w *workshopBench) round(b *testing.B, k int, d time.Duration) {
	var wg sync.WaitGroup
	for _, p := range w.people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(rand.N(d))
			w.mu.Lock()
			w.posted[p.name][k] = time.Now()
			w.mu.Unlock()
			post(b, w.s, "/w/"+p.ws+"/edit?t=0&f=description", map[string]any{"pid": strings.Repeat("a", 32), "tool": 0, "val": w.text(k)})
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for !w.showAll(k) {
		if time.Now().After(deadline) {
			b.Fatalf("round %d: the leaderboards did not show every edit within 30 s", k)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (w *workshopBench) showAll(k int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, shown := range w.shown {
		for _, p := range w.people {
			if shown[p.name] < k {
				return false
			}
		}
	}
	return true
}

// dialBoard opens a leaderboard's stream as its page does, through an HTTP client (which
// undoes the chunked encoding, so that the events read whole).
func dialBoard(tb testing.TB, base, cid string) io.ReadCloser {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/board/"+cid+"/stream", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Datastar-Request", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("board stream: %s", resp.Status)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp.Body
}

// readBoard hands each SSE event's elements to seen until the stream ends.
func readBoard(body io.Reader, seen func(html string)) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var html strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "data: elements "); ok {
			html.WriteString(rest)
			continue
		}
		if line == "" && html.Len() > 0 {
			seen(html.String())
			html.Reset()
		}
	}
}
