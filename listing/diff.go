package listing

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// ChangeKind names one kind of difference between two listings.
type ChangeKind string

// The kinds of Change. Tool-level kinds come first, then the member that changed.
const (
	ToolAdded   ChangeKind = "added"   // a tool only the new listing has
	ToolRemoved ChangeKind = "removed" // a tool only the old listing has
	ToolRenamed ChangeKind = "renamed" // the same tool under another name
	ToolMoved   ChangeKind = "moved"   // a tool whose place among the others changed

	DescriptionChanged  ChangeKind = "description"
	TitleChanged        ChangeKind = "title"
	InputSchemaChanged  ChangeKind = "inputSchema"
	OutputSchemaChanged ChangeKind = "outputSchema"
	AnnotationChanged   ChangeKind = "annotation"
	FieldChanged        ChangeKind = "field" // any other member (_meta, icons, execution, …)
	// FormatChanged is a tool with the same content written differently: keys in another order,
	// a number spelled differently, a repeated key. Its hash changes, so a pin breaks.
	FormatChanged ChangeKind = "format"
)

// Change is one difference between an old and a new listing.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Tool is the tool's name in the new listing (in the old one for a removed tool).
	Tool string `json:"tool"`
	// OldName is the tool's name in the old listing when it was renamed.
	OldName string `json:"oldName,omitempty"`
	// OldIndex and NewIndex are the tool's places in each listing, -1 where it is absent.
	OldIndex int `json:"oldIndex"`
	NewIndex int `json:"newIndex"`
	// Path is a JSON pointer inside the tool to the value that changed (/description,
	// /inputSchema/properties/path/type, /annotations/readOnlyHint); empty for tool-level kinds.
	Path string `json:"path,omitempty"`
	// Old and New are the values at Path; nil where the member is absent.
	Old *Value `json:"old,omitempty"`
	New *Value `json:"new,omitempty"`
}

// ToolHash is the content hash of one tool as written.
type ToolHash struct {
	Name string `json:"name"`
	Hash string `json:"hash"` // "sha256:" and the hex digest of the compact JSON as written
}

// Diff is what changed between two listings.
type Diff struct {
	Changes []Change   `json:"changes"`
	Old     []ToolHash `json:"old"`
	New     []ToolHash `json:"new"`
}

// Changed reports whether the listings differ at all.
func (d *Diff) Changed() bool { return len(d.Changes) > 0 }

// Count returns how many changes of each kind the diff holds.
func (d *Diff) Count() map[ChangeKind]int {
	out := map[ChangeKind]int{}
	for _, c := range d.Changes {
		out[c.Kind]++
	}
	return out
}

// ToolHashes returns the name and content hash of every tool of l, in order.
func ToolHashes(l *Listing) []ToolHash {
	out := make([]ToolHash, len(l.Tools))
	for i, t := range l.Tools {
		h := HashOf(t)
		out[i] = ToolHash{Name: t.Get("name").String(), Hash: "sha256:" + hex.EncodeToString(h[:])}
	}
	return out
}

// maxPathsPerMember bounds how many differing paths one member of one tool reports, so that a
// rewritten schema of thousands of keys gives a readable report.
const maxPathsPerMember = 50

// How similar (0..1) two tools must be, apart from their names, to count as one tool renamed
// rather than one removed and one added: less at the same place (between the same paired
// neighbours) than elsewhere, since servers that sort their tools by name move a renamed tool.
const (
	renameInPlace   = 0.5
	renameElsewhere = 0.75
)

// Compare reports what changed from old to new: tools added, removed, renamed (same content
// under a new name, or mostly the same content at the same place), moved, and for every tool
// present in both, each changed description, title, schema path, annotation and other member.
// Neither listing is modified.
func Compare(old, new *Listing) *Diff {
	d := &Diff{Changes: []Change{}, Old: ToolHashes(old), New: ToolHashes(new)}
	newOf, oldOf, renamed := pair(old, new)

	for i, t := range old.Tools {
		if newOf[i] < 0 {
			d.Changes = append(d.Changes, Change{Kind: ToolRemoved, Tool: t.Get("name").String(), OldIndex: i, NewIndex: -1})
		}
	}
	moved := movedTools(oldOf)
	for j, t := range new.Tools {
		name := t.Get("name").String()
		i := oldOf[j]
		if i < 0 {
			d.Changes = append(d.Changes, Change{Kind: ToolAdded, Tool: name, OldIndex: -1, NewIndex: j})
			continue
		}
		if renamed[j] {
			d.Changes = append(d.Changes, Change{Kind: ToolRenamed, Tool: name, OldName: old.Tools[i].Get("name").String(), OldIndex: i, NewIndex: j})
		}
		if moved[j] {
			d.Changes = append(d.Changes, Change{Kind: ToolMoved, Tool: name, OldIndex: i, NewIndex: j})
		}
		d.Changes = append(d.Changes, compareTool(old.Tools[i], t, name, i, j)...)
	}
	return d
}

// Pair pairs the tools of old with those of new as Compare does (the same name, then the same
// content under another name, then mostly the same content): for each tool of old, the index in
// new of the tool it became, or -1 when it was removed. Neither listing is modified.
func Pair(old, new *Listing) []int {
	newOf, _, _ := pair(old, new)
	return newOf
}

// pair returns, for each old tool, its new index (newOf), for each new tool, its old index
// (oldOf), -1 where unpaired, and which new tools were paired under another name (renamed).
func pair(old, new *Listing) (newOf, oldOf []int, renamed []bool) {
	oldOf = make([]int, len(new.Tools)) // new index -> old index, or -1
	newOf = make([]int, len(old.Tools)) // old index -> new index, or -1
	for i := range oldOf {
		oldOf[i] = -1
	}
	for i := range newOf {
		newOf[i] = -1
	}
	renamed = make([]bool, len(new.Tools))

	// 1. The same name. A repeated name pairs its k-th occurrences in order.
	byName := map[string][]int{}
	for j, t := range new.Tools {
		n := t.Get("name").String()
		byName[n] = append(byName[n], j)
	}
	for i, t := range old.Tools {
		n := t.Get("name").String()
		if q := byName[n]; len(q) > 0 {
			newOf[i], oldOf[q[0]] = q[0], i
			byName[n] = q[1:]
		}
	}

	// 2. The same content under another name.
	bodies := map[string][]int{}
	for j, t := range new.Tools {
		if oldOf[j] < 0 {
			k := bodyKey(t)
			bodies[k] = append(bodies[k], j)
		}
	}
	for i, t := range old.Tools {
		if newOf[i] >= 0 {
			continue
		}
		k := bodyKey(t)
		if q := bodies[k]; len(q) > 0 {
			newOf[i], oldOf[q[0]], renamed[q[0]] = q[0], i, true
			bodies[k] = q[1:]
		}
	}

	// 3. Mostly the same content: at the same place, or very nearly the same elsewhere.
	matchInPlace(old, new, newOf, oldOf, renamed)
	return newOf, oldOf, renamed
}

// bodyKey is a key equal for two tools whose members other than "name" are the same content.
func bodyKey(t *Value) string {
	var b strings.Builder
	fs := sortedFields(t)
	for _, m := range fs {
		if m.Key == "name" {
			continue
		}
		b.WriteString(strconv.Quote(m.Key))
		b.WriteByte(':')
		writeCanonical(&b, m.Value)
		b.WriteByte(',')
	}
	return b.String()
}

// writeCanonical writes v with object keys sorted and repeats dropped, so that content equal
// under any key order gives the same text.
func writeCanonical(b *strings.Builder, v *Value) {
	switch {
	case v == nil:
		b.WriteString("null")
	case v.Kind == Object:
		b.WriteByte('{')
		for i, m := range sortedFields(v) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(m.Key))
			b.WriteByte(':')
			writeCanonical(b, m.Value)
		}
		b.WriteByte('}')
	case v.Kind == Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, it)
		}
		b.WriteByte(']')
	case v.Kind == Number:
		b.WriteString(canonicalNumber(v.Str))
	default:
		b.Write(Marshal(v, ""))
	}
}

func canonicalNumber(lit string) string {
	if f, err := strconv.ParseFloat(lit, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return lit
}

func sortedFields(v *Value) []Member {
	fs := append([]Member(nil), v.Fields()...)
	sort.SliceStable(fs, func(a, b int) bool { return fs[a].Key < fs[b].Key })
	return fs
}

// sameContent reports whether a and b decode to the same data: member order, repeated keys
// (last wins) and number spelling aside.
func sameContent(a, b *Value) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case String:
		return a.Str == b.Str
	case Number:
		return a.Str == b.Str || canonicalNumber(a.Str) == canonicalNumber(b.Str)
	case Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !sameContent(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	default:
		fa, fb := a.Fields(), b.Fields()
		if len(fa) != len(fb) {
			return false
		}
		for _, m := range fa {
			if !sameContent(m.Value, b.Get(m.Key)) {
				return false
			}
		}
		return true
	}
}

// matchInPlace pairs the tools left unpaired on both sides that are similar enough apart from
// their names (renameInPlace between the same paired neighbours, renameElsewhere otherwise),
// best pairs first.
func matchInPlace(old, new *Listing, newOf, oldOf []int, renamed []bool) {
	gapOld := gaps(newOf)
	gapNew := gaps(oldOf)
	type cand struct {
		i, j  int
		score float64
	}
	var cands []cand
	for i := range old.Tools {
		if newOf[i] >= 0 {
			continue
		}
		for j := range new.Tools {
			if oldOf[j] >= 0 {
				continue
			}
			min := renameElsewhere
			if gapOld[i] == gapNew[j] {
				min = renameInPlace
			}
			if s := similarity(old.Tools[i], new.Tools[j]); s >= min {
				cands = append(cands, cand{i, j, s})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].score != cands[b].score {
			return cands[a].score > cands[b].score
		}
		if cands[a].i != cands[b].i {
			return cands[a].i < cands[b].i
		}
		return cands[a].j < cands[b].j
	})
	for _, c := range cands {
		if newOf[c.i] >= 0 || oldOf[c.j] >= 0 {
			continue
		}
		newOf[c.i], oldOf[c.j], renamed[c.j] = c.j, c.i, true
	}
}

// gaps returns, for each tool, how many paired tools precede it in its own listing.
func gaps(pairedWith []int) []int {
	out := make([]int, len(pairedWith))
	n := 0
	for k, p := range pairedWith {
		out[k] = n
		if p >= 0 {
			n++
		}
	}
	return out
}

// similarity scores two tools 0..1 on their members other than "name": a weighted mean over
// the union of keys of 1 for the same content, the word overlap of two strings, the share of
// equal keys of two objects, and 0 otherwise. The description and input schema weigh double:
// they are what makes a tool that tool. Two tools with nothing but a name are similar; two whose
// descriptions share less than half their words are not, whatever else they share (many tools
// of a server have the same schema).
func similarity(a, b *Value) float64 {
	if da, db := a.Get("description"), b.Get("description"); da.IsString() && db.IsString() && wordOverlap(da.Str, db.Str) < 0.5 {
		return 0
	}
	keys := map[string]bool{}
	for _, t := range []*Value{a, b} {
		for _, m := range t.Fields() {
			if m.Key != "name" {
				keys[m.Key] = true
			}
		}
	}
	if len(keys) == 0 {
		return 1
	}
	var sum, total float64
	for k := range keys {
		w := 1.0
		if k == "description" || k == "inputSchema" {
			w = 2
		}
		total += w
		x, y := a.Get(k), b.Get(k)
		switch {
		case sameContent(x, y):
			sum += w
		case x == nil || y == nil:
		case x.Kind == String && y.Kind == String:
			sum += w * wordOverlap(x.Str, y.Str)
		case x.Kind == Object && y.Kind == Object:
			sum += w * memberOverlap(x, y)
		}
	}
	return sum / total
}

// wordOverlap is the Jaccard index of the sets of lower-cased words of a and b.
func wordOverlap(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = true
	}
	return out
}

// memberOverlap is the share of keys of the union of a's and b's whose content is the same.
func memberOverlap(a, b *Value) float64 {
	keys := map[string]bool{}
	for _, m := range a.Fields() {
		keys[m.Key] = true
	}
	for _, m := range b.Fields() {
		keys[m.Key] = true
	}
	if len(keys) == 0 {
		return 1
	}
	same := 0
	for k := range keys {
		if sameContent(a.Get(k), b.Get(k)) {
			same++
		}
	}
	return float64(same) / float64(len(keys))
}

// movedTools marks the new tools, paired with an old one, that are not in the longest run of
// pairs keeping their old relative order: the fewest tools whose moving explains the new order.
func movedTools(oldOf []int) []bool {
	var idx []int // new indices of paired tools, in new order
	for j, i := range oldOf {
		if i >= 0 {
			idx = append(idx, j)
		}
	}
	moved := make([]bool, len(oldOf))
	if len(idx) < 2 {
		return moved
	}
	// Longest increasing subsequence of old indices (patience sorting), O(n log n).
	tails := []int{}              // positions in idx
	prev := make([]int, len(idx)) // predecessor position in idx, or -1
	for p, j := range idx {
		v := oldOf[j]
		k := sort.Search(len(tails), func(t int) bool { return oldOf[idx[tails[t]]] >= v })
		if k > 0 {
			prev[p] = tails[k-1]
		} else {
			prev[p] = -1
		}
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	keep := make([]bool, len(idx))
	for p := tails[len(tails)-1]; p >= 0; p = prev[p] {
		keep[p] = true
	}
	for p, j := range idx {
		moved[j] = !keep[p]
	}
	return moved
}

// compareTool lists the member changes between two versions of one tool.
func compareTool(a, b *Value, name string, i, j int) []Change {
	var out []Change
	add := func(kind ChangeKind, path string, x, y *Value) {
		out = append(out, Change{Kind: kind, Tool: name, OldIndex: i, NewIndex: j, Path: path, Old: x, New: y})
	}
	seen := map[string]bool{"name": true}
	var keys []string
	for _, t := range []*Value{a, b} {
		for _, m := range t.Fields() {
			if !seen[m.Key] {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
		}
	}
	for _, k := range keys {
		x, y := a.Get(k), b.Get(k)
		if sameContent(x, y) {
			continue
		}
		path := JoinPointer(k)
		kind := FieldChanged
		switch k {
		case "description":
			kind = DescriptionChanged
		case "title":
			kind = TitleChanged
		case "inputSchema":
			kind = InputSchemaChanged
		case "outputSchema":
			kind = OutputSchemaChanged
		case "annotations":
			kind = AnnotationChanged
			// An absent annotations object reads as every hint absent, so that adding
			// {"readOnlyHint": true} reports that hint rather than the whole object.
			if x == nil && y.IsObject() {
				x = NewObject()
			}
			if y == nil && x.IsObject() {
				y = NewObject()
			}
		}
		n := 0
		walkDiff(x, y, path, func(p string, ox, ny *Value) {
			if n < maxPathsPerMember {
				add(kind, p, ox, ny)
			}
			n++
		})
		if n > maxPathsPerMember {
			// Say how much was left out rather than dropping it silently.
			add(kind, path, x, y)
		}
	}
	// Compare as written apart from the name, which a rename already reported.
	if len(out) == 0 && !Equal(a, withMember(b, "name", a.Get("name"))) {
		add(FormatChanged, "", nil, nil)
	}
	return out
}

// walkDiff calls report for every path where x and y differ in content: into objects by key,
// into arrays of the same length by index, and at the first differing value otherwise.
func walkDiff(x, y *Value, path string, report func(path string, x, y *Value)) {
	if sameContent(x, y) {
		return
	}
	if x != nil && y != nil && x.Kind == y.Kind {
		switch x.Kind {
		case Object:
			seen := map[string]bool{}
			for _, t := range []*Value{x, y} {
				for _, m := range t.Fields() {
					if seen[m.Key] {
						continue
					}
					seen[m.Key] = true
					walkDiff(x.Get(m.Key), y.Get(m.Key), path+JoinPointer(m.Key), report)
				}
			}
			return
		case Array:
			if len(x.Items) == len(y.Items) {
				for k := range x.Items {
					walkDiff(x.Items[k], y.Items[k], path+"/"+strconv.Itoa(k), report)
				}
				return
			}
		}
	}
	report(path, x, y)
}

// String describes the change in one line. Names and text are quoted with Go escapes, so
// control characters in hostile text show as escapes rather than acting on a terminal.
func (c Change) String() string {
	switch c.Kind {
	case ToolAdded:
		return fmt.Sprintf("added %q (at %d)", c.Tool, c.NewIndex)
	case ToolRemoved:
		return fmt.Sprintf("removed %q (was at %d)", c.Tool, c.OldIndex)
	case ToolRenamed:
		return fmt.Sprintf("renamed %q to %q", c.OldName, c.Tool)
	case ToolMoved:
		return fmt.Sprintf("moved %q from %d to %d", c.Tool, c.OldIndex, c.NewIndex)
	case FormatChanged:
		return fmt.Sprintf("%q: same content written differently (key order, number spelling or repeated keys)", c.Tool)
	}
	return fmt.Sprintf("%q %s: %s -> %s", c.Tool, c.Path, short(c.Old), short(c.New))
}

// short renders a value for a one-line report: absent, a quoted string, or compact JSON, cut at
// 200 characters, with every unprintable character (controls, bidi overrides) escaped.
func short(v *Value) string {
	if v == nil {
		return "(absent)"
	}
	s := string(Marshal(v, ""))
	if v.Kind == String {
		s = v.Str
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	if v.Kind == String {
		return strconv.Quote(s)
	}
	var b strings.Builder
	for _, r := range s {
		if strconv.IsPrint(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}
