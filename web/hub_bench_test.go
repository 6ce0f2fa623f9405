package web

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store/postgres"
)

// rawStream is one live page's stream on a plain TCP connection: the least a client can hold,
// so that what a benchmark measures is the server's side.
type rawStream struct {
	conn net.Conn
}

// dialStream opens a stream as a page at version ver would (-1: a page older than the
// workspace, which gets every region first).
func dialStream(tb testing.TB, addr, id, pid string, tool, ver int) *rawStream {
	tb.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":%d,"ver":%d}`, pid, tool, ver))
	fmt.Fprintf(conn, "GET /w/%s/stream?datastar=%s HTTP/1.1\r\nHost: %s\r\nDatastar-Request: true\r\n\r\n", id, q, addr)
	return &rawStream{conn: conn}
}

// watch reads the stream until it closes, calling seen with the arrival time of each marker
// the caller asks for through want.
func (r *rawStream) watch(want <-chan string, seen func(time.Time)) {
	buf := make([]byte, 32<<10)
	var tail []byte
	marker := ""
	for {
		n, err := r.conn.Read(buf)
		if marker == "" {
			// Markers are sent before the edit is posted, so one is here by the time its
			// data is.
			select {
			case m, ok := <-want:
				if !ok {
					return
				}
				marker = m
			default:
			}
		}
		if n > 0 && marker != "" {
			chunk := append(tail, buf[:n]...)
			if bytes.Contains(chunk, []byte(marker)) {
				seen(time.Now())
				marker = ""
				tail = tail[:0]
			} else if len(chunk) > len(marker) {
				tail = append(tail[:0], chunk[len(chunk)-len(marker):]...)
			} else {
				tail = append(tail[:0], chunk...)
			}
		}
		if err != nil {
			return
		}
	}
}

func waitPages(tb testing.TB, s *Server, id string, n int) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for s.Hub().Pages(id) < n {
		if time.Now().After(deadline) {
			tb.Fatalf("only %d of %d streams joined", s.Hub().Pages(id), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkLiveFanout200 opens 200 live pages on one workspace, all showing the tool being
// edited, and measures how long after an edit is posted each page's stream carries it: the
// edit's commit, the store's event, the hub and 200 SSE writes. Reported: p50 and p99 of every
// delivery (ms).
func BenchmarkLiveFanout200(b *testing.B) {
	s := serverOn(b, newTestStore(b))
	benchFanout(b, s, s)
}

// BenchmarkLiveFanout200Replicas is the same across two replicas on PostgreSQL: the edit is
// posted to one server, the 200 pages are on the other (LISTEN/NOTIFY between them).
func BenchmarkLiveFanout200Replicas(b *testing.B) {
	dsn := os.Getenv("WORKBENCH_TEST_POSTGRES")
	if dsn == "" {
		b.Skip("skipped: set WORKBENCH_TEST_POSTGRES to a PostgreSQL DSN to run the replica benchmark")
	}
	var srv [2]*Server
	for i := range srv {
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		srv[i] = serverOn(b, st)
	}
	benchFanout(b, srv[0], srv[1])
}

// benchFanout posts edits to one server and times their arrival on 200 pages of another (or
// the same).
func benchFanout(b *testing.B, editSrv, s *Server) {
	const subscribers = 200
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	id := openExample(b, editSrv, "library-2-draft")
	addr := strings.TrimPrefix(ts.URL, "http://")
	var mu sync.Mutex
	var lat []time.Duration
	var start time.Time
	wants := make([]chan string, subscribers)
	var got sync.WaitGroup
	var readers sync.WaitGroup
	for i := 0; i < subscribers; i++ {
		rs := dialStream(b, addr, id, fmt.Sprintf("%032x", i+1), 0, 0)
		wants[i] = make(chan string, 1)
		readers.Add(1)
		go func(w chan string) {
			defer readers.Done()
			rs.watch(w, func(at time.Time) {
				mu.Lock()
				lat = append(lat, at.Sub(start))
				mu.Unlock()
				got.Done()
			})
		}(wants[i])
		b.Cleanup(func() { rs.conn.Close() })
	}
	waitPages(b, s, id, subscribers)
	editor := strings.Repeat("e", 32)
	// One edit before timing: the first render of each region and the connections' buffers
	// are start-up costs, not delivery.
	got.Add(subscribers)
	for _, w := range wants {
		w <- "warm-up edit."
	}
	post(b, editSrv, "/w/"+id+"/edit?t=0&f=description", map[string]any{"pid": editor, "tool": 0, "val": "Show one book. warm-up edit."})
	got.Wait()
	mu.Lock()
	lat = lat[:0]
	mu.Unlock()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		marker := fmt.Sprintf("fan-out edit %d.", n)
		got.Add(subscribers)
		for _, w := range wants {
			w <- marker
		}
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		post(b, editSrv, "/w/"+id+"/edit?t=0&f=description", map[string]any{"pid": editor, "tool": 0, "val": "Show one book. " + marker})
		got.Wait()
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat))/float64(b.N), "deliveries/op")
	for _, w := range wants {
		close(w)
	}
}

// BenchmarkIdleSubscriberMemory opens idle live pages on one workspace and reports the heap and
// goroutine stacks they hold, per page (bytes). The clients are bare TCP connections in the
// same process (a few hundred bytes each), so the figure is the server's cost plus theirs.
func BenchmarkIdleSubscriberMemory(b *testing.B) {
	const pages = 200
	st := newTestStore(b)
	s := serverOn(b, st)
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	id := openExample(b, s, "library-2-draft")
	getPage(b, s, "/w/"+id) // the shown state exists before the measurement
	addr := strings.TrimPrefix(ts.URL, "http://")
	var per float64
	for n := 0; n < b.N; n++ {
		// One stream first: the room, its subscription and the rendered state are shared costs.
		first := dialStream(b, addr, id, fmt.Sprintf("%032x", 1<<20+n), 0, 0)
		waitPages(b, s, id, 1)
		time.Sleep(50 * time.Millisecond)
		before := memInUse()
		conns := make([]*rawStream, pages)
		for i := range conns {
			conns[i] = dialStream(b, addr, id, fmt.Sprintf("%032x", n*pages+i+1), 0, 0)
		}
		waitPages(b, s, id, pages+1)
		time.Sleep(200 * time.Millisecond) // let the presence announcements settle
		after := memInUse()
		per = float64(after-before) / pages
		for _, c := range conns {
			c.conn.Close()
		}
		first.conn.Close()
		deadline := time.Now().Add(30 * time.Second)
		for s.Hub().Pages(id) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	b.ReportMetric(per, "bytes/subscriber")
	b.ReportMetric(per/1024, "KiB/subscriber")
}

func memInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
