package web

// What a quick fix changes, as data: the ops that turn a listing into its repaired form (made
// again from the head under the store's lock), and the preview's word and JSON diffs.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// The preview is bounded like every region: a "Fix all safe" over 2,000 tools lists the first
// tools' diffs and counts the rest.
const (
	maxFixTools     = 40  // tools whose diffs a preview shows
	maxFixJSONLines = 120 // lines of one tool's JSON diff
	fixContext      = 2   // kept lines shown around a change
	maxFixRows      = 200 // repairs a preview lists
)

// errReshaped is a repair that added or removed tools: the fix ops set members of the tools in
// place, and a page's positions must keep naming the same tools.
var errReshaped = errors.New("the repair adds or removes tools, which a quick fix never does")

// fixOps returns the ops that turn head into fixed, member by member of each changed tool (so
// that undo takes back what the fix changed and nothing else); a tool with a repeated key is
// set whole, as its members cannot be named apart.
func fixOps(head, fixed *listing.Listing) ([]listing.Op, error) {
	if len(head.Tools) != len(fixed.Tools) {
		return nil, errReshaped
	}
	var ops []listing.Op
	for i, a := range head.Tools {
		b := fixed.Tools[i]
		if listing.Equal(a, b) {
			continue
		}
		ti := strconv.Itoa(i)
		at := listing.JoinPointer("tools", ti)
		am, bm, ok := members(a, b)
		if !ok {
			ops = append(ops, listing.Op{Kind: listing.OpSet, Path: at, Value: b})
			continue
		}
		for _, m := range a.Fields() {
			if _, kept := bm[m.Key]; !kept {
				ops = append(ops, listing.Op{Kind: listing.OpRemove, Path: listing.JoinPointer("tools", ti, m.Key)})
			}
		}
		for _, m := range b.Fields() {
			if old, had := am[m.Key]; !had || !listing.Equal(old, m.Value) {
				ops = append(ops, listing.Op{Kind: listing.OpSet, Path: listing.JoinPointer("tools", ti, m.Key), Value: m.Value})
			}
		}
	}
	return ops, nil
}

// members maps the members of two tool objects by key; ok is false when either is not an
// object or repeats a key.
func members(a, b *listing.Value) (am, bm map[string]*listing.Value, ok bool) {
	index := func(v *listing.Value) map[string]*listing.Value {
		if v == nil || v.Kind != listing.Object {
			return nil
		}
		fs := v.Fields()
		m := make(map[string]*listing.Value, len(fs))
		for _, f := range fs {
			if _, dup := m[f.Key]; dup {
				return nil
			}
			m[f.Key] = f.Value
		}
		return m
	}
	am, bm = index(a), index(b)
	return am, bm, am != nil && bm != nil
}

// fixDiffs are the preview's diffs of the tools fixed changes: a word diff of each changed
// text member and a JSON diff of the tool, and how many changed tools it leaves out.
func fixDiffs(head, fixed *listing.Listing) (out []views.FixToolDiff, more int) {
	for i, a := range head.Tools {
		if i >= len(fixed.Tools) || listing.Equal(a, fixed.Tools[i]) {
			continue
		}
		if len(out) >= maxFixTools {
			more++
			continue
		}
		b := fixed.Tools[i]
		d := views.FixToolDiff{Name: b.Get("name").String()}
		if old := a.Get("name").String(); old != d.Name {
			d.Name = old + " → " + d.Name
		}
		for _, k := range []string{"name", "title", "description"} {
			x, y := a.Get(k), b.Get(k)
			if listing.Equal(x, y) || x != nil && !x.IsString() || y != nil && !y.IsString() {
				continue
			}
			td := views.FixTextDiff{Field: k}
			for _, e := range export.WordDiff(x.String(), y.String()) {
				text := visible(e.Text)
				if e.Op != '=' && strings.TrimSpace(e.Text) == "" {
					// Whitespace removed or added shows as what it is, not as nothing.
					text = strings.NewReplacer(" ", "·", "\n", "↵", "\t", "→").Replace(text)
				}
				td.Runs = append(td.Runs, views.DiffRun{Op: string(e.Op), Text: text})
			}
			d.Text = append(d.Text, td)
		}
		d.JSON = jsonDiff(string(listing.Marshal(a, "  ")), string(listing.Marshal(b, "  ")))
		out = append(out, d)
	}
	return out, more
}

// visible shows the characters a word diff removes that a reader could not see otherwise
// (invisible and bidirectional-control characters, as their code points; a trailing space as
// a middle dot), so that the diff of a hidden-character fix is not blank.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\u00a0' || r == '\u3000':
			b.WriteString("⍽")
		case r == '\t' || r == '\n' || r == ' ':
			b.WriteRune(r)
		case invisible(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invisible reports whether r prints as nothing: a control, format or bidirectional-control
// character.
func invisible(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xad || r == 0x34f || r == 0x61c ||
		r >= 0x200b && r <= 0x200f || r >= 0x2028 && r <= 0x202e || r >= 0x2060 && r <= 0x206f || r == 0xfeff ||
		r >= 0xfff9 && r <= 0xfffb || r >= 0xe0000 && r <= 0xe007f
}

// jsonDiff is a line diff of two pretty-printed JSON texts: the changed lines with fixContext
// kept lines around each change, the rest as "…" lines, at most maxFixJSONLines lines.
func jsonDiff(a, b string) []views.JSONLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	steps := export.Align(x, y)
	near := make([]bool, len(steps))
	for i, st := range steps {
		if st.Op == '=' {
			continue
		}
		for k := max(0, i-fixContext); k <= min(len(steps)-1, i+fixContext); k++ {
			near[k] = true
		}
	}
	var out []views.JSONLine
	gap := false
	for i, st := range steps {
		if !near[i] {
			gap = true
			continue
		}
		if gap && len(out) > 0 {
			out = append(out, views.JSONLine{Op: "…"})
		}
		gap = false
		if len(out) >= maxFixJSONLines {
			out = append(out, views.JSONLine{Op: "…", Text: " (the rest of the diff is left out)"})
			break
		}
		switch st.Op {
		case '+':
			out = append(out, views.JSONLine{Op: "+", Text: visible(y[st.J])})
		case '-':
			out = append(out, views.JSONLine{Op: "-", Text: visible(x[st.I])})
		default:
			out = append(out, views.JSONLine{Op: "=", Text: visible(x[st.I])})
		}
	}
	return out
}

// renamedExpects lists the tasks whose expected (or rejected) tools a fix renames.
func renamedExpects(before, after []selection.Task) []views.TaskChange {
	var out []views.TaskChange
	for i := range min(len(before), len(after)) {
		if o, n := expectOf(before[i]), expectOf(after[i]); o != n {
			out = append(out, views.TaskChange{Kind: "changed", Index: i + 1, OldExpect: o, NewExpect: n})
		}
	}
	return out
}
