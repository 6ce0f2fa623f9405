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
	ctx := context.Background()
	s := serverOn(b, newTestStore(b))
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	addr := strings.TrimPrefix(ts.URL, "http://")
	teacher := openExample(b, s, "library-2-draft")
	created, err := s.challenges.Create(ctx, teacher, challenge.Draft{Title: "Bench", Hidden: []byte(benchHidden)}, workspace.Author{Name: "T", ID: "t"})
	if err != nil {
		b.Fatal(err)
	}
	ch, err := s.challenges.Get(ctx, created.ID)
	if err != nil {
		b.Fatal(err)
	}
	// Each participant's k-th edit appends k words to the first tool's description: the
	// tokens grow with k, so a leaderboard that shows a participant's tokens says which of
	// their edits it has seen.
	text := func(k int) string {
		var sb strings.Builder
		sb.WriteString(ch.Start.Tools[0].Get("description").Str)
		for i := 1; i <= k; i++ {
			fmt.Fprintf(&sb, " shelf%d", i)
		}
		return sb.String()
	}
	rounds := b.N + 1
	tokens := make([]int, rounds+1)
	for k := 0; k <= rounds; k++ {
		l, err := ch.Start.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString(text(k))})
		if err != nil {
			b.Fatal(err)
		}
		r, err := challenge.Score(ctx, l, ch.File, challenge.Live)
		if err != nil {
			b.Fatal(err)
		}
		tokens[k] = r.Tokens
		if k > 0 && tokens[k] <= tokens[k-1] {
			b.Fatalf("tokens do not grow with each edit: %v", tokens[:k+1])
		}
	}
	runtime.GC()
	before := memInUse()

	type who struct {
		name, ws string
	}
	people := make([]who, participants)
	for i := range people {
		j, err := s.challenges.Join(ctx, ch, fmt.Sprintf("p%02d", i))
		if err != nil {
			b.Fatal(err)
		}
		people[i] = who{j.Participant.Name, j.Participant.Workspace}
		page := dialStream(b, addr, j.Participant.Workspace, fmt.Sprintf("%032x", i+1), 0, -1)
		go func() { _, _ = io.Copy(io.Discard, page.conn) }()
		b.Cleanup(func() { page.conn.Close() })
	}
	for _, p := range people {
		waitPages(b, s, p.ws, 1)
	}

	// shown[b][name] is the highest edit number board b has shown for a participant; posted
	// the time each edit was posted.
	var mu sync.Mutex
	shown := make([]map[string]int, boards)
	posted := map[string][]time.Time{}
	var lat []time.Duration
	editOf := func(tok int) int { return sort.SearchInts(tokens, tok+1) - 1 }
	for i := 0; i < boards; i++ {
		shown[i] = map[string]int{}
		conn := dialBoard(b, ts.URL, created.ID)
		go readBoard(conn, func(html string) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			for _, m := range boardRow.FindAllStringSubmatch(html, -1) {
				name, tok := m[1], atoiOr(m[2], 0)
				k := editOf(tok)
				for e := shown[i][name] + 1; e <= k && e < len(posted[name]); e++ {
					if !posted[name][e].IsZero() {
						lat = append(lat, now.Sub(posted[name][e]))
					}
				}
				if k > shown[i][name] {
					shown[i][name] = k
				}
			}
		})
	}
	for _, p := range people {
		posted[p.name] = make([]time.Time, rounds+1)
	}
	done := func(k int) bool {
		mu.Lock()
		defer mu.Unlock()
		for i := range shown {
			for _, p := range people {
				if shown[i][p.name] < k {
					return false
				}
			}
		}
		return true
	}
	edit := func(p who, k int) {
		mu.Lock()
		posted[p.name][k] = time.Now()
		mu.Unlock()
		post(b, s, "/w/"+p.ws+"/edit?t=0&f=description", map[string]any{"pid": strings.Repeat("a", 32), "tool": 0, "val": text(k)})
	}
	// Round 0 (untimed) scores everyone once: the first render of each row is start-up.
	b.ResetTimer()
	for k := 1; k <= rounds; k++ {
		if k == 2 {
			mu.Lock()
			lat = lat[:0]
			mu.Unlock()
		}
		var wg sync.WaitGroup
		for _, p := range people {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(rand.N(round))
				edit(p, k)
			}()
		}
		wg.Wait()
		deadline := time.Now().Add(30 * time.Second)
		for !done(k) {
			if time.Now().After(deadline) {
				b.Fatalf("round %d: the leaderboards did not show every edit within 30 s", k)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	b.StopTimer()
	runtime.GC()
	after := memInUse()
	mu.Lock()
	defer mu.Unlock()
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
