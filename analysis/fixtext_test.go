package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// splitLines splits a text into lines with their newlines, the last given one if it has none
// (difflib.SplitLines would also add a blank line after a final newline, which no file has).
func splitLines(b []byte) []string {
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	} else {
		ls[len(ls)-1] += "\n"
	}
	return ls
}

// wholeDiff is go-difflib's diff of the whole texts, which UnifiedDiff must reproduce.
func wholeDiff(t *testing.T, a, b []byte, name string) string {
	t.Helper()
	if string(a) == string(b) {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: splitLines(a), B: splitLines(b),
		FromFile: name, ToFile: name, Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestUnifiedDiffByWindows: the diff made window by window is the diff of the whole texts,
// for changes at the edges, changes whose contexts meet or just miss, and lines added.
func TestUnifiedDiffByWindows(t *testing.T) {
	var src strings.Builder
	src.WriteString("[\n")
	for i := range 30 {
		fmt.Fprintf(&src, "  {\"name\": \"t%d\", \"description\": \"d%d \"}", i, i)
		if i < 29 {
			src.WriteString(",")
		}
		src.WriteString("\n")
	}
	src.WriteString("]")
	set := func(i int, v *listing.Value) listing.Op {
		return listing.Op{Kind: listing.OpSet, Path: fmt.Sprintf("/tools/%d/description", i), Value: v}
	}
	str := func(i int) *listing.Value { return listing.NewString(fmt.Sprintf("d%d", i)) }
	tests := []struct {
		name string
		ops  []listing.Op
	}{
		{"first and last line", []listing.Op{set(0, str(0)), set(29, str(29))}},
		{"contexts meet (6 lines apart)", []listing.Op{set(3, str(3)), set(10, str(10))}},
		{"contexts miss (7 lines apart)", []listing.Op{set(3, str(3)), set(11, str(11))}},
		{"every line", func() (ops []listing.Op) {
			for i := range 30 {
				ops = append(ops, set(i, str(i)))
			}
			return ops
		}()},
		{"a member added on its own lines", []listing.Op{set(5, listing.NewObject(listing.Member{Key: "a", Value: listing.NewInt(1)}, listing.Member{Key: "b", Value: listing.NewInt(2)})), set(20, str(20))}},
		{"a tool removed (written whole)", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/4"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listing.Parse([]byte(src.String()), listing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := l.ApplyAll(tt.ops)
			if err != nil {
				t.Fatal(err)
			}
			text, reps := FixedSource(l, fixed)
			got, err := UnifiedDiff(l.Source, reps, "x.json")
			if err != nil {
				t.Fatal(err)
			}
			if want := wholeDiff(t, l.Source, text, "x.json"); got != want {
				t.Errorf("by windows:\n%s\nwhole:\n%s", got, want)
			}
		})
	}
}

// TestFixedTextsOnRealListings: on the seeds and the real listings, the fixed text reads as the
// fixed listing, and its windowed diff is go-difflib's diff of the whole texts.
func TestFixedTextsOnRealListings(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	realDir := testutil.Shared(t, "listings", "real")
	paths, _ := filepath.Glob(filepath.Join(realDir, "*.json"))
	paths = append(paths, filepath.Join(fx, "draft-tools.json"), filepath.Join(fx, "confusing-tools.json"))
	eng, err := New(Options{Extended: lint.New(lint.Config{}), PlainVerdicts: true, NoCost: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			l, err := listing.Parse(src, listing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := eng.Fix(context.Background(), l, []selection.Task(nil), FixOptions{Suggested: true})
			if err != nil {
				t.Fatal(err)
			}
			text, reps := FixedSource(l, res.Listing)
			back, err := listing.Parse(text, listing.Options{})
			if err != nil {
				t.Fatalf("the fixed text does not parse: %v", err)
			}
			if a, b := string(back.Marshal("")), string(res.Listing.Marshal("")); a != b {
				t.Errorf("the fixed text is not the fixed listing")
			}
			got, err := UnifiedDiff(src, reps, "l.json")
			if err != nil {
				t.Fatal(err)
			}
			// Where lines repeat, the windows may align a change otherwise than matching the
			// whole file would; the diff must still patch the source into the fixed text.
			patched, err := patch(splitLines(src), got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(patched, "") != strings.Join(splitLines(text), "") {
				t.Errorf("the diff does not patch the source into the fixed text:\n%s", testutil.FirstDifference([]byte(strings.Join(patched, "")), text))
			}
			t.Logf("%d repairs, %d changes, %d diff lines", len(res.Applied), len(reps), strings.Count(got, "\n"))
		})
	}
}

// patch applies a unified diff to lines, checking every context and removed line, as patch
// does.
func patch(lines []string, diff string) ([]string, error) {
	var out []string
	at := 0 // next line of lines to copy
	dl := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(dl) && dl[i] != ""; i++ {
		ln := dl[i]
		if strings.HasPrefix(ln, "@@ ") {
			start, _, _ := strings.Cut(strings.Fields(ln)[1][1:], ",")
			a, err := strconv.Atoi(start)
			if err != nil {
				return nil, fmt.Errorf("hunk header %q: %w", ln, err)
			}
			for ; at < a-1; at++ {
				out = append(out, lines[at])
			}
			continue
		}
		switch ln[0] {
		case ' ', '-':
			if at >= len(lines) || lines[at] != ln[1:] {
				return nil, fmt.Errorf("line %d is not %q", at+1, ln[1:])
			}
			if ln[0] == ' ' {
				out = append(out, lines[at])
			}
			at++
		case '+':
			out = append(out, ln[1:])
		default:
			return nil, fmt.Errorf("diff line %q", ln)
		}
	}
	return append(out, lines[at:]...), nil
}
