package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// githubListing reads the real GitHub MCP server listing from the shared folder beside the
// module, or skips.
func githubListing(b testing.TB) []byte {
	b.Helper()
	return testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
}

// benchTasks makes n tasks from the tools' own names and descriptions: a few words of a
// description, expecting its tool, so that the ranker has real work for every task.
func benchTasks(l *listing.Listing, n int) []selection.Task {
	out := make([]selection.Task, 0, n)
	for i := 0; len(out) < n; i++ {
		t := l.Tools[i%len(l.Tools)]
		name := t.Get("name").Str
		words := strings.Fields(t.Get("description").String())
		start := (i / len(l.Tools)) * 3
		if start >= len(words) {
			start = 0
		}
		end := min(start+8, len(words))
		task := strings.Join(words[start:end], " ") + " " + strings.ReplaceAll(name, "_", " ")
		out = append(out, selection.Task{Task: task, Expect: &name})
	}
	return out
}

// BenchmarkEditRecomputeRender measures one keystroke's work on the server: a description edit
// through the real router, the recompute of findings, cost and ranking (117 tools, 200 tasks),
// and the rendered patches written as SSE. It reports p50 and p99 per edit.
func BenchmarkEditRecomputeRender(b *testing.B) {
	src := githubListing(b)
	s := newServer(b)
	l, err := listing.Parse(src, listing.Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	tasks := benchTasks(l, 200)
	ws, err := s.store.Create(b.Context(), "github", l, tasks, Author{Name: "bench"}, "")
	if err != nil {
		b.Fatal(err)
	}
	getPage(b, s, "/w/"+ws.ID) // what a browser does first; fills the shown state
	benchEdits(b, s, ws.ID, l, "", nil)
}

// benchEdits types into tool 40's description of workspace id b.N times through the router,
// each edit's signals with extra ones (a JSON fragment, may be empty), checking each answer
// with check when it is set, and reports p50 and p99 per edit, the SSE bytes per edit and the
// process's CPU time per edit (what an edit costs whatever else the machine runs).
func benchEdits(b *testing.B, s *Server, id string, l *listing.Listing, extra string, check func(body string) error) {
	b.Helper()
	tool := 40
	base := l.Tools[tool].Get("description").Str
	body := func(i int) string {
		return fmt.Sprintf(`{"pid":"%s","tool":%d,"val":%q%s}`, strings.Repeat("c", 32), tool, base+strings.Repeat(" more", i%7), extra)
	}
	path := fmt.Sprintf("/w/%s/edit?t=%d&f=description", id, tool)
	lat := make([]time.Duration, 0, b.N)
	var bytes int
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body(i)))
		req.Header.Set("Datastar-Request", "true")
		rec := httptest.NewRecorder()
		t0 := time.Now()
		s.Handler().ServeHTTP(rec, req)
		lat = append(lat, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
		if check != nil {
			if err := check(rec.Body.String()); err != nil {
				b.Fatal(err)
			}
		}
		bytes += rec.Body.Len()
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/edit")
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(bytes)/float64(b.N), "sse-bytes/edit")
}
