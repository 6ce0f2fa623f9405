package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/selection/fake"
)

// BenchmarkRun500 runs 500 calls at concurrency 16 against the fake server answering in 200 ms;
// the ideal is 500 × 0.2 s / 16 = 6.25 s, and the ratio metric is the elapsed time over it.
// Run it once: go test ./selection/runner -run '^$' -bench Run500 -benchtime 1x
func BenchmarkRun500(b *testing.B) {
	l := mustListing(b, ticketTools)
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 100 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"task": "Show me ticket %d", "expect": "tickets_get"}`, i)
	}
	sb.WriteString("]")
	tasks := mustTasks(b, sb.String())
	const ideal = 500 * 200 * time.Millisecond / 16
	for b.Loop() {
		srv := &fake.Server{Delay: 200 * time.Millisecond}
		c := fakeClient(b, srv, ClientOptions{Concurrency: 16})
		start := time.Now()
		run, err := Execute(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 5}})
		elapsed := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if s := ScoreRun(run); s.Scored != 500 || srv.Requests() != 500 {
			b.Fatalf("scored %d calls with %d requests, want 500 and 500", s.Scored, srv.Requests())
		}
		b.ReportMetric(elapsed.Seconds(), "s/run")
		b.ReportMetric(float64(elapsed)/float64(ideal), "ratio-to-ideal")
	}
}
