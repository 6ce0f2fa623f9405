package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/hostile"
)

// TestHostileCorpus runs every hostile listing through the commands that read a listing. Each
// ends with a code (0, 1, or 2 with a message saying what was wrong) and output bounded by its
// input, and never panics: the near-duplicate rule once took `check` to 22.7 GB on 19,999
// near-identical tools. How long each takes and how much memory it needs is measured by
// `go run ./internal/hostile/measure`, not asserted here.
func TestHostileCorpus(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostile.Corpus() {
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Large {
				t.Skip("skipped in -short: a large case")
			}
			src := filepath.Join(dir, c.Name+".json")
			if err := os.WriteFile(src, c.Listing, 0o644); err != nil {
				t.Fatal(err)
			}
			cmds := [][]string{
				{"check", src},
				{"check", src, "--rules", "reference"},
				{"check", src, "--format", "sarif", "--merge", src},
				{"cost", src},
				{"fix", src, "--suggested"},
				{"export", src, "--format", "go"},
				{"export", src, "--format", "review", "--baseline", src},
			}
			if c.Large {
				cmds = cmds[:5] // the rest reads the same listing the same way
			}
			for _, args := range cmds {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not a timing
				var out, errb bytes.Buffer
				err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
				cancel()
				code := exitCode(err, &errb)
				what := strings.Join(args[:1], " ") + " " + strings.Join(args[2:], " ")
				switch {
				case code < 0 || code > 2:
					t.Errorf("%s: exit %d: %.300s", what, code, errb.String())
				case code == 2 && strings.TrimSpace(errb.String()) == "" && !strings.Contains(out.String(), "ERROR"):
					t.Errorf("%s: exit 2 without a message", what)
				case strings.Contains(errb.String(), "context deadline exceeded"):
					t.Errorf("%s: ran into the test's hang guard", what)
				}
				factor := 8 // the reference's report names a tool in up to seven lines
				if args[0] == "export" {
					factor = 12 // Go code writes a name as a string, an identifier and in comments
				}
				if limit := c.OutputBound(factor); out.Len() > limit {
					t.Errorf("%s: %d bytes of output for a %d-byte listing (bound %d)", what, out.Len(), len(c.Listing), limit)
				}
				if errb.Len() > 64<<10 {
					t.Errorf("%s: %d bytes on stderr", what, errb.Len())
				}
			}
		})
	}
}
