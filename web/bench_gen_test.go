package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// genListing writes the benchmark generator's listing of tools tools and tasks tasks
// (../shared/bench/gen.py) to a temporary folder and reads it, or skips without python3 or the
// generator.
func genListing(b testing.TB, tools, tasks int) (src, taskSrc []byte) {
	b.Helper()
	gen := testutil.Shared(b, "bench", "gen.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("skipped: the 2,000-tool listing is made by python3, which is not on PATH")
	}
	dir := b.TempDir()
	if out, err := exec.Command(py, gen, fmt.Sprint(tools), fmt.Sprint(tasks), dir).CombinedOutput(); err != nil {
		b.Fatalf("gen.py: %v: %s", err, out)
	}
	if src, err = os.ReadFile(filepath.Join(dir, "listing.json")); err != nil {
		b.Fatal(err)
	}
	if taskSrc, err = os.ReadFile(filepath.Join(dir, "tasks.json")); err != nil {
		b.Fatal(err)
	}
	return src, taskSrc
}

// BenchmarkEditRecomputeRenderGen2000 is BenchmarkEditRecomputeRender on the generator's
// 2,000 tools with 200 tasks.
func BenchmarkEditRecomputeRenderGen2000(b *testing.B) {
	src, taskSrc := genListing(b, 2000, 200)
	s := newServer(b)
	l, err := listing.Parse(src, listing.Options{Name: "gen2000"})
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := selection.ParseTasks(taskSrc, false)
	if err != nil {
		b.Fatal(err)
	}
	ws, err := s.store.Create(b.Context(), "gen2000", l, tasks, Author{Name: "bench"}, "")
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	page := getPage(b, s, "/w/"+ws.ID)
	b.Logf("page: %d bytes, %d tags, %v", len(page), strings.Count(page, "<")-strings.Count(page, "</"), time.Since(t0))
	benchEdits(b, s, ws.ID, l, "", nil)
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
