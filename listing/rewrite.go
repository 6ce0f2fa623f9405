package listing

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Replacement is one change to a source text: the bytes [Offset, Offset+Length) give way to Text.
type Replacement struct {
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	Text   string `json:"text"`
}

// Replacements returns the changes that turn orig's source into a text of fixed, which was made
// from orig by edits (tools matched by index, none added or removed). Only what the edits touched
// changes: every untouched value keeps its bytes (whitespace, key order, escapes, number
// spelling), and a new or changed value is written in the layout around it (its indentation, its
// "key": spacing, compact when the line is), so that a line diff of the two texts shows the
// edited lines only. The changes are as small as the edits allow: a changed string replaces the
// string, an added member is inserted after the last one.
func Replacements(orig, fixed *Listing) ([]Replacement, error) {
	return NewRewriter(orig.Source).Replacements(orig, fixed)
}

// Rewriter makes Replacements against one source. Making it reads the whole source (its
// indentation, its escaping), so a caller with many separate edits of one listing (a SARIF log's
// fixes, one per repair) makes one and keeps it: reading the source once per edit would be
// quadratic in the listing.
type Rewriter struct{ w *rewriter }

// NewRewriter returns a Rewriter for src.
func NewRewriter(src []byte) *Rewriter { return &Rewriter{w: newRewriter(src)} }

// Replacements is the package's Replacements, against the Rewriter's source (orig's).
func (r *Rewriter) Replacements(orig, fixed *Listing) ([]Replacement, error) {
	r.w.reps = nil
	if len(orig.Tools) != len(fixed.Tools) {
		return nil, fmt.Errorf("the edits changed the number of tools (%d to %d); write the listing whole", len(orig.Tools), len(fixed.Tools))
	}
	for i, o := range orig.Tools {
		if err := r.tool(o, fixed.Tools[i], i); err != nil {
			return nil, err
		}
	}
	return r.w.reps, nil
}

// ToolReplacements returns the changes that turn tool i (o, a value of the Rewriter's source)
// into f: Replacements for an edit known to stay inside one tool, without comparing the others.
func (r *Rewriter) ToolReplacements(o, f *Value, i int) ([]Replacement, error) {
	r.w.reps = nil
	if err := r.tool(o, f, i); err != nil {
		return nil, err
	}
	return r.w.reps, nil
}

// tool adds the replacements that turn tool i, o, into f.
func (r *Rewriter) tool(o, f *Value, i int) error {
	if f == o {
		return nil
	}
	if o.Pos < 0 || o.Pos >= len(r.w.src) {
		return fmt.Errorf("tool %d has no place in the source; write the listing whole", i+1)
	}
	r.w.diff(o, f)
	return nil
}

// ValueReplacement returns the change that writes v over the value at old's place in src
// (a string or number of a task file, say), in old's layout.
func ValueReplacement(src []byte, old, v *Value) Replacement {
	w := newRewriter(src)
	return Replacement{Offset: old.Pos, Length: w.end(old) - old.Pos, Text: w.fresh(v, lineIndent(src, old.Pos), false)}
}

// ApplyReplacements returns src with reps made; they must not overlap.
func ApplyReplacements(src []byte, reps []Replacement) []byte {
	reps = append([]Replacement(nil), reps...)
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].Offset < reps[j].Offset })
	var b bytes.Buffer
	b.Grow(len(src))
	at := 0
	for _, r := range reps {
		b.Write(src[at:r.Offset])
		b.WriteString(r.Text)
		at = r.Offset + r.Length
	}
	b.Write(src[at:])
	return b.Bytes()
}

// rewriter collects the replacements of one source.
type rewriter struct {
	src  []byte
	unit string // one level of indentation in the source ("" when it is compact)
	// ascii: the source escapes every non-ASCII character (as Python's json.dumps does by
	// default), so new text does too.
	ascii bool
	reps  []Replacement
}

func newRewriter(src []byte) *rewriter {
	ascii := bytes.Contains(src, []byte(`\u`))
	for _, c := range src {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	return &rewriter{src: src, unit: indentUnit(src), ascii: ascii}
}

// diff adds the replacements that turn o (a value of the source) into f.
func (w *rewriter) diff(o, f *Value) {
	switch {
	case f == o:
		return
	case o.Kind == Object && f.Kind == Object && len(o.Members) > 0 && sameKeysPrefix(o.Members, f.Members):
		for i, m := range o.Members {
			w.diff(m.Value, f.Members[i].Value)
		}
		if len(f.Members) > len(o.Members) {
			last := o.Members[len(o.Members)-1].Value
			var b strings.Builder
			lay := w.layout(o)
			for _, m := range f.Members[len(o.Members):] {
				b.WriteString(lay.sep)
				w.member(&b, lay, m)
			}
			at := w.end(last)
			w.reps = append(w.reps, Replacement{Offset: at, Text: b.String()})
		}
	case o.Kind == Array && f.Kind == Array && len(o.Items) == len(f.Items) && len(o.Items) > 0:
		for i, it := range o.Items {
			w.diff(it, f.Items[i])
		}
	default:
		w.reps = append(w.reps, Replacement{Offset: o.Pos, Length: w.end(o) - o.Pos, Text: w.render(o, f)})
	}
}

func sameKeysPrefix(o, f []Member) bool {
	if len(f) < len(o) {
		return false
	}
	for i := range o {
		if o[i].Key != f[i].Key {
			return false
		}
	}
	return true
}

// layout is how an object or array of the source sets out its members.
type layout struct {
	lead, sep, trail string // after the opening bracket, between members, before the closing one
	colon            string // between a key and its value
	indent           string // a member's indentation
	compact          bool   // members share a line: new values are written on one line too
}

// layout reads the layout of o, a non-empty object or array of the source.
func (w *rewriter) layout(o *Value) layout {
	starts, values := w.children(o)
	var l layout
	l.lead = string(w.src[o.Pos+1 : starts[0]])
	lastEnd := w.end(values[len(values)-1])
	l.trail = string(w.src[lastEnd : w.end(o)-1])
	if len(starts) > 1 {
		l.sep = string(w.src[w.end(values[0]):starts[1]])
	} else {
		l.sep = "," + l.lead
	}
	if o.Kind == Object {
		m := o.Members[0]
		l.colon = string(w.src[w.stringEnd(m.KeyPos):m.Value.Pos])
	}
	if i := strings.LastIndexByte(l.sep, '\n'); i >= 0 {
		// The whitespace that starts the member's line (a comma may stand first).
		rest := l.sep[i+1:]
		l.indent = rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
	} else {
		l.compact = true
	}
	if len(starts) == 1 && l.sep == "," && strings.HasSuffix(l.colon, " ") {
		l.sep = ", " // one member shows no separator; a space after the colon suggests Python's
	}
	return l
}

// children returns where each member of o starts (its key, or the item) and its value.
func (w *rewriter) children(o *Value) (starts []int, values []*Value) {
	if o.Kind == Object {
		for _, m := range o.Members {
			starts, values = append(starts, m.KeyPos), append(values, m.Value)
		}
		return starts, values
	}
	for _, it := range o.Items {
		starts, values = append(starts, it.Pos), append(values, it)
	}
	return starts, values
}

// member writes a new member of an object laid out as lay.
func (w *rewriter) member(b *strings.Builder, lay layout, m Member) {
	var kb bytes.Buffer
	writeString(&kb, m.Key, false)
	b.Write(kb.Bytes())
	b.WriteString(lay.colon)
	if lay.compact {
		b.WriteString(w.ascii7(compactLike(m.Value, lay)))
		return
	}
	b.WriteString(w.fresh(m.Value, lay.indent, false))
}

// compactLike writes v on one line with the separators of lay, a one-line object or array
// of the source (", " and ": " as Python writes JSON, or none).
func compactLike(v *Value, lay layout) string {
	comma, colon := strings.TrimRight(lay.sep, "\n\r"), lay.colon
	if colon == "" {
		colon = ":"
	}
	var b bytes.Buffer
	var write func(v *Value)
	write = func(v *Value) {
		switch {
		case v.Kind == Object && len(v.Members) > 0:
			b.WriteByte('{')
			for i, m := range v.Members {
				if i > 0 {
					b.WriteString(comma)
				}
				writeString(&b, m.Key, false)
				b.WriteString(colon)
				write(m.Value)
			}
			b.WriteByte('}')
		case v.Kind == Array && len(v.Items) > 0:
			b.WriteByte('[')
			for i, it := range v.Items {
				if i > 0 {
					b.WriteString(comma)
				}
				write(it)
			}
			b.WriteByte(']')
		default:
			writeValue(&b, v, "", 0)
		}
	}
	write(v)
	return b.String()
}

// render writes f, a change of the source value o, keeping the bytes of every member of o that f
// keeps and o's layout.
func (w *rewriter) render(o, f *Value) string {
	if o.Kind != f.Kind || (o.Kind != Object && o.Kind != Array) || (len(o.Members) == 0 && len(o.Items) == 0) {
		return w.fresh(f, lineIndent(w.src, o.Pos), false)
	}
	if len(f.Members) == 0 && len(f.Items) == 0 {
		return map[Kind]string{Object: "{}", Array: "[]"}[f.Kind]
	}
	lay := w.layout(o)
	var b strings.Builder
	b.WriteByte(w.src[o.Pos])
	if o.Kind == Object {
		used := make([]bool, len(o.Members))
		for j, m := range f.Members {
			b.WriteString(map[bool]string{true: lay.lead, false: lay.sep}[j == 0])
			i := matchMember(o.Members, used, m)
			if i < 0 {
				w.member(&b, lay, m)
				continue
			}
			used[i] = true
			om := o.Members[i]
			b.Write(w.src[om.KeyPos:om.Value.Pos])
			b.WriteString(w.sub(om.Value, m.Value))
		}
	} else {
		for j, it := range f.Items {
			b.WriteString(map[bool]string{true: lay.lead, false: lay.sep}[j == 0])
			switch {
			case j < len(o.Items):
				b.WriteString(w.sub(o.Items[j], it))
			case lay.compact:
				b.WriteString(w.ascii7(compactLike(it, lay)))
			default:
				b.WriteString(w.fresh(it, lay.indent, false))
			}
		}
	}
	b.WriteString(lay.trail)
	b.WriteByte(w.src[w.end(o)-1])
	return b.String()
}

// matchMember finds the unused member of os that m stands for: the one holding the same value,
// else the first with its key; -1 when m is new.
func matchMember(os []Member, used []bool, m Member) int {
	first := -1
	for i, om := range os {
		if used[i] || om.Key != m.Key {
			continue
		}
		if om.Value == m.Value {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// sub returns the text of f, a change of the source value o, with o's replacements made.
func (w *rewriter) sub(o, f *Value) string {
	end := w.end(o)
	if o == f {
		return string(w.src[o.Pos:end])
	}
	inner := &rewriter{src: w.src, unit: w.unit, ascii: w.ascii}
	inner.diff(o, f)
	for i := range inner.reps {
		inner.reps[i].Offset -= o.Pos
	}
	return string(ApplyReplacements(w.src[o.Pos:end], inner.reps))
}

// fresh writes v, which has no source text, for a place whose line is indented by indent; on
// one line when compact or when the whole source is.
func (w *rewriter) fresh(v *Value, indent string, compact bool) string {
	var s string
	if compact || w.unit == "" {
		s = string(Marshal(v, ""))
	} else {
		s = string(Marshal(v, w.unit))
		if indent != "" {
			s = strings.ReplaceAll(s, "\n", "\n"+indent)
		}
	}
	return w.ascii7(s)
}

// ascii7 escapes the non-ASCII characters of s when the source escapes them.
func (w *rewriter) ascii7(s string) string {
	if w.ascii {
		return escapeNonASCII(s)
	}
	return s
}

// escapeNonASCII writes every non-ASCII character of the JSON text s as \u escapes (outside
// strings JSON has none).
func escapeNonASCII(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r >= 0x10000:
			r -= 0x10000
			writeU(&b, 0xD800+(r>>10))
			writeU(&b, 0xDC00+(r&0x3FF))
		default:
			writeU(&b, r)
		}
	}
	return b.String()
}

// end returns the offset just past the source value v.
func (w *rewriter) end(v *Value) int {
	switch v.Kind {
	case String:
		return w.stringEnd(v.Pos)
	case Null, Bool:
		if w.src[v.Pos] == 'f' {
			return v.Pos + 5
		}
		return v.Pos + 4
	case Number:
		return v.Pos + len(v.Str)
	}
	at := v.Pos + 1
	if n := len(v.Members); n > 0 {
		at = w.end(v.Members[n-1].Value)
	} else if n := len(v.Items); n > 0 {
		at = w.end(v.Items[n-1])
	}
	for at < len(w.src) && isJSONSpace(w.src[at]) {
		at++
	}
	return at + 1
}

// stringEnd returns the offset just past the string whose opening quote is at pos.
func (w *rewriter) stringEnd(pos int) int {
	for i := pos + 1; i < len(w.src); i++ {
		switch w.src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(w.src)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineIndent returns the whitespace that starts the line holding pos.
func lineIndent(src []byte, pos int) string {
	start := bytes.LastIndexByte(src[:pos], '\n') + 1
	end := start
	for end < pos && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// indentUnit returns one level of the source's indentation: the shortest run of spaces or tabs
// that starts a line, "" when the source is on one line, two spaces when no line is indented.
func indentUnit(src []byte) string {
	if bytes.IndexByte(src, '\n') < 0 {
		return ""
	}
	unit := ""
	for _, ln := range bytes.Split(src, []byte("\n")) {
		n := 0
		for n < len(ln) && (ln[n] == ' ' || ln[n] == '\t') {
			n++
		}
		if n > 0 && n < len(ln) && (unit == "" || n < len(unit)) {
			unit = string(ln[:n])
		}
	}
	if unit == "" {
		return "  "
	}
	return unit
}
