package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// nearDupListing writes a listing of n tools to dir and returns its path. With identical, every
// description is the same (every pair at 100%); otherwise each differs in one word (86%).
func nearDupListing(t *testing.T, dir string, n int, identical bool) string {
	t.Helper()
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	tools := make([]tool, n)
	for i := range tools {
		d := fmt.Sprintf("Look up one customer order by its identifier and return status items total variant%d", i)
		if identical {
			d = "Look up one customer order by its identifier and return status items total"
		}
		tools[i] = tool{fmt.Sprintf("orders_lookup_%05d", i), d, map[string]any{"type": "object"}}
	}
	b, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("neardup-%d-%v.json", n, identical))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckNearDuplicatesLikeTheReference: `--rules reference` prints the reference's
// near-duplicate line byte for byte while it lists at most reference.MaxPairs pairs (more than a
// finding shows: the grouped line starts at reference.ShownPairs), and refuses past that with
// one ERROR line, exit 2, that gives the number of pairs the reference would print (confirmed by
// running the reference when python3 is here).
func TestCheckNearDuplicatesLikeTheReference(t *testing.T) {
	py, _ := exec.LookPath("python3")
	script, ok := testutil.SharedPath(t, "reference", "tool_design_check.py")
	if !ok {
		py = ""
	}
	runReference := func(path string) (string, int) {
		var out bytes.Buffer
		cmd := exec.Command(py, script, path)
		cmd.Stdout = &out
		_ = cmd.Run()
		return out.String(), cmd.ProcessState.ExitCode()
	}
	hostile := filepath.Join("..", "..", "analysis", "testdata", "hostile")
	dir := t.TempDir()
	tests := []struct {
		name      string
		path      string
		wantPairs int // the pairs the reference lists
		refused   bool
	}{
		{"70 near-identical tools: 2415 pairs", filepath.Join(hostile, "neardup-70.json"), 2415, false},
		{"5 families of 30: 2175 pairs", filepath.Join(hostile, "neardup-groups.json"), 2175, false},
		{"1,000 identical descriptions: 499,500 pairs, refused", nearDupListing(t, dir, 1000, true), 499500, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, code := runCLI(t, "", "check", tt.path, "--rules", "reference")
			pairs := strings.Count(nearDupLine(out), "%); ") + 1
			if tt.refused {
				want := fmt.Sprintf("ERROR the reference checker would list %d near-duplicate pairs", tt.wantPairs)
				if code != 2 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 || !strings.Contains(out, "--rules all") {
					t.Errorf("exit %d, output %.400q; want one line starting %q", code, out, want)
				}
			} else if code != 0 || pairs != tt.wantPairs {
				t.Errorf("exit %d, %d pairs listed, want %d", code, pairs, tt.wantPairs)
			}
			if py == "" {
				t.Log("python3 or the reference checker is not here: not compared with the reference")
				return
			}
			ref, refCode := runReference(tt.path)
			if n := strings.Count(nearDupLine(ref), "%); ") + 1; n != tt.wantPairs {
				t.Errorf("the reference lists %d pairs, the test expects %d", n, tt.wantPairs)
			}
			if !tt.refused && (out != ref || code != refCode) {
				t.Errorf("--rules reference differs from the reference checker (exit %d, reference %d)", code, refCode)
			}
		})
	}
}

// nearDupLine returns the near-duplicate line of a report.
func nearDupLine(report string) string {
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "WARN near-duplicate:") {
			return l
		}
	}
	return ""
}

// TestCheckNearDuplicatesBounded: the default rule set, on thousands of near-identical tools,
// prints the reference's other lines and reports the near-duplicates as groups, in output that
// grows with the tools (a few lines each), not with the pairs; --rules reference refuses with
// the count.
func TestCheckNearDuplicatesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping 3,000 and 19,999 tools")
	}
	dir := t.TempDir()
	for _, n := range []int{3000, 19999} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			path := nearDupListing(t, dir, n, false)
			src, _ := os.ReadFile(path)
			out, _, code := runCLI(t, "", "check", path, "--tokenizer", "approx")
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %.300s", code, out)
			}
			line := nearDupLine(out)
			if !strings.Contains(line, "too many to list one by one, in 1 group: orders_lookup_00000") || len(line) > 4<<10 {
				t.Errorf("near-duplicate line (%d bytes): %.600s", len(line), line)
			}
			if len(out) > n<<10+1<<20 {
				t.Errorf("output %d bytes for %d tools (%d-byte listing)", len(out), n, len(src))
			}
			t.Logf("%d tools: %d bytes of output for a %d-byte listing; near-duplicate line: %s", n, len(out), len(src), line)
			out, _, code = runCLI(t, "", "check", path, "--rules", "reference")
			want := "ERROR the reference checker would list at least "
			if n == 3000 {
				want = "ERROR the reference checker would list 4498500 near-duplicate pairs"
			}
			if code != 2 || !strings.HasPrefix(out, want) || len(out) > 1<<10 {
				t.Errorf("--rules reference: exit %d, %.400q", code, out)
			}
			t.Logf("--rules reference: %s", out)
		})
	}
}
