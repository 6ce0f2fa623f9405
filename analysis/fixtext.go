package analysis

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// FixedSource returns the text of fixed, made from orig by repairs, and the changes from orig's
// source: only the repaired values are rewritten (listing.Replacements), so that key order,
// unknown fields, number spelling and the layout of every untouched line stay as they were.
// When the repairs cannot be placed in the source (tools added or removed), the document is
// written whole with two-space indentation, after whatever came before it (an SSE prefix).
func FixedSource(orig, fixed *listing.Listing) ([]byte, []listing.Replacement) {
	if fixed == orig {
		return orig.Source, nil
	}
	reps, err := listing.Replacements(orig, fixed)
	if err != nil {
		at, text := orig.Doc.Pos, string(fixed.Marshal("  "))
		if bytes.HasSuffix(orig.Source, []byte("\n")) {
			text += "\n"
		}
		reps = []listing.Replacement{{Offset: at, Length: len(orig.Source) - at, Text: text}}
	}
	return listing.ApplyReplacements(orig.Source, reps), reps
}

// FixedTasks returns the task file src with the expects that changed from before to after
// (renamed tools) rewritten in place, and the changes (none when no expect changed). before
// are the tasks read from src, one for each element of its array, as selection.ParseTasks
// reads them.
func FixedTasks(src []byte, before, after []selection.Task) ([]byte, []listing.Replacement, error) {
	if len(before) != len(after) {
		return nil, nil, fmt.Errorf("the fix returned %d tasks for %d", len(after), len(before))
	}
	var doc *listing.Value
	var reps []listing.Replacement
	for i := range before {
		sameExpect := before[i].Expected() == after[i].Expected() && slices.Equal(before[i].AnyOf, after[i].AnyOf)
		sameReject := slices.Equal(before[i].Reject, after[i].Reject)
		if sameExpect && sameReject {
			continue
		}
		if doc == nil {
			var err error
			if doc, err = listing.ParseJSON(src); err != nil {
				return nil, nil, fmt.Errorf("rereading the task file: %w", err)
			}
			if doc.Kind != listing.Array || len(doc.Items) != len(before) {
				return nil, nil, fmt.Errorf("the task file holds %d tasks, not the %d read", len(doc.Items), len(before))
			}
		}
		old := doc.Items[i].Get("expect")
		if old == nil {
			return nil, nil, fmt.Errorf("task %d has no expect to rename", i+1)
		}
		if !sameExpect {
			reps = append(reps, namesReplacements(src, old, after[i].Expected(), after[i].AnyOf)...)
		}
		if !sameReject {
			old := doc.Items[i].Get("reject")
			if old == nil {
				return nil, nil, fmt.Errorf("task %d has no reject to rename", i+1)
			}
			reps = append(reps, namesReplacements(src, old, "", after[i].Reject)...)
		}
	}
	if reps == nil {
		return src, nil, nil
	}
	return listing.ApplyReplacements(src, reps), reps, nil
}

// diffContext is the lines of context around each change, as diff -u gives.
const diffContext = 3

// UnifiedDiff returns a unified diff of src and src with reps made, labelled name on both sides
// so that `patch -p0` applies it to the file; "" when reps change nothing. The diff is go-difflib's,
// run on the lines around each change only (the lines between changes are the same by
// construction, and matching the whole of a large listing costs tens of milliseconds).
func UnifiedDiff(src []byte, reps []listing.Replacement, name string) (string, error) {
	reps = append([]listing.Replacement(nil), reps...)
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].Offset < reps[j].Offset })
	fixed := listing.ApplyReplacements(src, reps)
	if bytes.Equal(src, fixed) {
		return "", nil
	}
	a, b := lines(src), lines(fixed)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	for _, w := range diffWindows(src, fixed, reps, len(a.starts), len(b.starts)) {
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: a.text(w.a0, w.a1), B: b.text(w.b0, w.b1), Context: diffContext,
		})
		if err != nil {
			return "", fmt.Errorf("diffing %s: %w", name, err)
		}
		out.WriteString(shiftHunks(d, w.a0, w.b0))
	}
	return out.String(), nil
}

// window is a range of lines [a0, a1) of the source and [b0, b1) of the fixed text that hold
// changes and their context.
type window struct{ a0, a1, b0, b1 int }

// diffWindows returns the windows of the changes reps made, merged where their contexts meet
// (as a unified diff joins hunks).
func diffWindows(src, fixed []byte, reps []listing.Replacement, na, nb int) []window {
	var ws []window
	shift := 0
	for _, r := range reps {
		a0 := bytes.Count(src[:r.Offset], []byte("\n"))
		a1 := a0 + bytes.Count(src[r.Offset:r.Offset+r.Length], []byte("\n")) + 1
		bOff := r.Offset + shift
		b0 := bytes.Count(fixed[:bOff], []byte("\n"))
		b1 := b0 + strings.Count(r.Text, "\n") + 1
		shift += len(r.Text) - r.Length
		w := window{max(a0-diffContext, 0), min(a1+diffContext, na), max(b0-diffContext, 0), min(b1+diffContext, nb)}
		if n := len(ws); n > 0 && w.a0 <= ws[n-1].a1 {
			ws[n-1].a1, ws[n-1].b1 = max(ws[n-1].a1, w.a1), max(ws[n-1].b1, w.b1)
			continue
		}
		ws = append(ws, w)
	}
	return ws
}

// lineIndex is a text and where each of its lines starts.
type lineIndex struct {
	s      string
	starts []int
}

func lines(text []byte) lineIndex {
	li := lineIndex{s: string(text), starts: []int{0}}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// text returns lines [from, to), each ending in a newline (the last line of a file without one
// gets one, as go-difflib's SplitLines gives it).
func (li lineIndex) text(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		end := len(li.s)
		if i+1 < len(li.starts) {
			end = li.starts[i+1]
		}
		ln := li.s[li.starts[i]:end]
		if !strings.HasSuffix(ln, "\n") {
			ln += "\n"
		}
		out = append(out, ln)
	}
	return out
}

// shiftHunks moves the line numbers of the hunk headers of d (a diff of a window) by the
// window's first lines.
func shiftHunks(d string, a0, b0 int) string {
	var out strings.Builder
	for _, ln := range strings.SplitAfter(d, "\n") {
		if !strings.HasPrefix(ln, "@@ -") {
			out.WriteString(ln)
			continue
		}
		f := strings.Fields(ln) // @@ -s,l +s,l @@
		out.WriteString("@@ " + shiftRange(f[1], a0) + " " + shiftRange(f[2], b0) + " @@\n")
	}
	return out.String()
}

// shiftRange moves a unified diff range ("-12,7", "+3") by n lines.
func shiftRange(r string, n int) string {
	start, length, found := strings.Cut(r[1:], ",")
	s, _ := strconv.Atoi(start)
	out := r[:1] + strconv.Itoa(s+n)
	if found {
		out += "," + length
	}
	return out
}

// namesReplacements rewrite an expect or reject old (a string or a list of strings) to name
// one, or names when it is a list: item by item when the list keeps its length, so its layout
// stays as written.
func namesReplacements(src []byte, old *listing.Value, one string, names []string) []listing.Replacement {
	if old.Kind != listing.Array || len(old.Items) != len(names) {
		v := listing.NewString(one)
		if names != nil {
			items := make([]*listing.Value, len(names))
			for i, n := range names {
				items[i] = listing.NewString(n)
			}
			v = listing.NewArray(items...)
		}
		return []listing.Replacement{listing.ValueReplacement(src, old, v)}
	}
	var reps []listing.Replacement
	for j, it := range old.Items {
		if !it.IsString() || it.Str != names[j] {
			reps = append(reps, listing.ValueReplacement(src, it, listing.NewString(names[j])))
		}
	}
	return reps
}
