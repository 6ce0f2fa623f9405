package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// TestFixGolden runs fix on small listings and the seeds' fixtures and compares what it prints
// (the diff on stdout, the summary on stderr, the exit code) with testdata/golden/fix-NAME.txt.
func TestFixGolden(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	td := filepath.Join("testdata", "fix")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"messy", []string{filepath.Join(td, "messy.json")}, 1},
		{"messy-diff", []string{filepath.Join(td, "messy.json"), "--diff"}, 1},
		{"crlf", []string{filepath.Join(td, "crlf.json")}, 1},
		{"clean", []string{filepath.Join(td, "clean.json")}, 0},
		{"one-rule", []string{filepath.Join(td, "messy.json"), "--rule", "hidden-unicode"}, 1},
		{"styles", []string{filepath.Join(td, "styles.json"), "--tasks", filepath.Join(td, "styles-tasks.json")}, -1},
		{"styles-suggested", []string{filepath.Join(td, "styles.json"), "--tasks", filepath.Join(td, "styles-tasks.json"), "--suggested"}, -1},
		{"draft", []string{filepath.Join(fx, "draft-tools.json"), "--tasks", filepath.Join(fx, "tasks-clear.json")}, -1},
		{"draft-suggested", []string{filepath.Join(fx, "draft-tools.json"), "--tasks", filepath.Join(fx, "tasks-clear.json"), "--suggested"}, -1},
		{"confusing-suggested", []string{filepath.Join(fx, "confusing-tools.json"), "--tasks", filepath.Join(fx, "tasks-confusing.json"), "--suggested"}, -1},
		{"draft-claude-connectors", []string{filepath.Join(fx, "draft-tools.json"), "--profile", "claude-connectors", "--suggested"}, 1},
		{"unknown-profile", []string{filepath.Join(td, "messy.json"), "--profile", "no-such-profile"}, 2},
		{"malformed", []string{filepath.Join(td, "malformed.json")}, 2},
		{"missing", []string{filepath.Join(td, "no-such-file.json")}, 2},
		{"unknown-rule", []string{filepath.Join(td, "messy.json"), "--rule", "no-such-rule"}, 2},
		{"write-stdin", []string{"-", "--write"}, 2},
		{"two-modes", []string{filepath.Join(td, "messy.json"), "--diff", "--out", "x.json"}, 2},
		{"no-source", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", append([]string{"fix"}, tt.args...)...)
			if tt.code >= 0 && code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			got := fmt.Sprintf("%s--- stderr\n%s[exit %d]\n", out, errOut, code)
			// The fixtures' path differs by checkout; the golden file names it as $SHARED.
			got = strings.ReplaceAll(got, filepath.Dir(filepath.Dir(fx)), "$SHARED")
			testutil.Golden(t, filepath.Join("testdata", "golden", "fix-"+tt.name+".txt"), []byte(got))
		})
	}
}

// TestFixDiffTouchesOnlyFixedLines: every line the diff removes holds a value a repair
// changed, and applying the repairs keeps the rest of the file byte for byte (CR LF included).
func TestFixDiffTouchesOnlyFixedLines(t *testing.T) {
	for _, src := range []string{filepath.Join("testdata", "fix", "messy.json"), filepath.Join("testdata", "fix", "crlf.json")} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			orig, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(t.TempDir(), "out.json")
			if _, errOut, code := runCLI(t, "", "fix", src, "--out", dst); code != 0 {
				t.Fatalf("--out: exit %d: %s", code, errOut)
			}
			fixed, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			ol, fl := strings.SplitAfter(string(orig), "\n"), strings.SplitAfter(string(fixed), "\n")
			if len(ol) != len(fl) {
				t.Fatalf("the fix changed the number of lines from %d to %d", len(ol), len(fl))
			}
			changed := 0
			for i := range ol {
				if ol[i] == fl[i] {
					continue
				}
				changed++
				if !strings.Contains(ol[i], `"description"`) {
					t.Errorf("line %d changed but holds no repaired value:\n- %q\n+ %q", i+1, ol[i], fl[i])
				}
				if strings.HasSuffix(ol[i], "\r\n") != strings.HasSuffix(fl[i], "\r\n") {
					t.Errorf("line %d lost or gained its CR: %q", i+1, fl[i])
				}
			}
			if changed == 0 {
				t.Error("no line changed; the listing has repairs to make")
			}
		})
	}
}

// TestFixWrite: --write rewrites the listing and the task file in place with what --out and
// the diff show, and a second fix finds nothing left to do (fixes are idempotent).
func TestFixWrite(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "fix", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, b)
		return p
	}
	lp, tp := copyFile("styles.json"), copyFile("styles-tasks.json")
	if err := os.Chmod(lp, 0o600); err != nil {
		t.Fatal(err)
	}
	outp := filepath.Join(dir, "out.json")
	if _, errOut, code := runCLI(t, "", "fix", lp, "--tasks", tp, "--suggested", "--out", outp); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "fix", lp, "--tasks", tp, "--suggested", "--write"); code != 0 {
		t.Fatalf("--write: exit %d: %s", code, errOut)
	}
	written, _ := os.ReadFile(lp)
	viaOut, _ := os.ReadFile(outp)
	if !bytes.Equal(written, viaOut) {
		t.Errorf("--write wrote\n%s\n--out wrote\n%s", written, viaOut)
	}
	if _, err := listing.Parse(written, listing.Options{}); err != nil {
		t.Errorf("the rewritten listing does not parse: %v", err)
	}
	if st, err := os.Stat(lp); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("--write changed the file's permissions: %v %v", st.Mode(), err)
	}
	tasks, _ := os.ReadFile(tp)
	if !strings.Contains(string(tasks), `"expect": "get_user"`) || strings.Contains(string(tasks), "getUser") {
		t.Errorf("--write left the task file's expect of the renamed tool:\n%s", tasks)
	}
	out, errOut, code := runCLI(t, "", "fix", lp, "--tasks", tp, "--suggested")
	if code != 0 || out != "" {
		t.Errorf("fixing the fixed listing: exit %d, diff:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestFixStdin reads the listing from standard input and labels the diff stdin.
func TestFixStdin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "fix", "messy.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, string(b), "fix", "-")
	if code != 1 || !strings.HasPrefix(out, "--- stdin\n+++ stdin\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// BenchmarkFixGitHub is `workbench fix` on the GitHub server's listing (117 tools) as a process
// runs it, engine and caches new each time: read, parse, check, repair, re-check, diff (safe
// repairs, and with --suggested).
//
//	go test ./cmd/workbench -run '^$' -bench FixGitHub -benchtime 20x
func BenchmarkFixGitHub(b *testing.B) {
	path := testutil.Shared(b, "listings", "real", "github-mcp-server.json")
	for _, c := range []struct{ name, flag string }{{"safe", "--diff"}, {"suggested", "--suggested"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				err := run(b.Context(), []string{"fix", path, c.flag}, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
				if code := exitCode(err, io.Discard); code != 1 {
					b.Fatalf("exit %d, want 1 (repairs to show): %v", code, err)
				}
			}
		})
	}
}

// TestCheckSARIFFixes: check's SARIF carries each repair as its result's fix, valid SARIF
// 2.1.0, and applying the fixes of one rule's results to the file gives what fix --rule writes.
func TestCheckSARIFFixes(t *testing.T) {
	github := testutil.Shared(t, "listings", "real", "github-mcp-server.json")
	for _, src := range []string{filepath.Join("testdata", "fix", "messy.json"), filepath.Join("testdata", "fix", "crlf.json"), github} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			orig, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := runCLI(t, "", "check", src, "--format", "sarif")
			rep, err := sarif.FromBytes([]byte(out))
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if err := rep.Validate(); err != nil {
				t.Fatalf("SARIF does not validate: %v", err)
			}
			var reps []listing.Replacement
			for _, res := range rep.Runs[0].Results {
				if *res.RuleID != "description-whitespace" {
					continue
				}
				if len(res.Fixes) != 1 {
					t.Fatalf("a description-whitespace result has %d fixes, want 1", len(res.Fixes))
				}
				for _, c := range res.Fixes[0].ArtifactChanges {
					if *c.ArtifactLocation.URI != src {
						t.Errorf("the fix changes %q, not the file checked", *c.ArtifactLocation.URI)
					}
					for _, r := range c.Replacements {
						d := r.DeletedRegion
						start, end := offsetOf(orig, *d.StartLine, *d.StartColumn), offsetOf(orig, *d.EndLine, *d.EndColumn)
						reps = append(reps, listing.Replacement{Offset: start, Length: end - start, Text: *r.InsertedContent.Text})
					}
				}
			}
			if len(reps) == 0 {
				t.Fatal("no description-whitespace fixes")
			}
			dst := filepath.Join(t.TempDir(), "out.json")
			if _, errOut, code := runCLI(t, "", "fix", src, "--rule", "description-whitespace", "--out", dst); code != 0 {
				t.Fatalf("fix: exit %d: %s", code, errOut)
			}
			want, _ := os.ReadFile(dst)
			if got := listing.ApplyReplacements(orig, reps); !bytes.Equal(got, want) {
				t.Errorf("the SARIF fixes give\n%s\nfix --rule gives\n%s", got, want)
			}
		})
	}
}

// offsetOf returns the byte offset of a 1-based line and character column of src.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		off += bytes.IndexByte(src[off:], '\n') + 1
	}
	for c := 1; c < col; c++ {
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	return off
}
