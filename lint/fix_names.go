package lint

import (
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

func init() {
	repairers["name-style"] = repairNameStyle
	repairers["name-spec"] = repairNameSpec
}

// maxPortableName is the longest name both the specification (128) and OpenAI's function
// calling (64) accept.
const maxPortableName = 64

// dominantStyle is the naming style most names of the listing have; a tie goes to the first of
// snake_case, kebab-case, camelCase, dotted.
func dominantStyle(names []string) (style string, count int) {
	n := map[string]int{}
	for _, name := range names {
		n[reference.Style(name)]++
	}
	for _, s := range []string{"snake_case", "kebab-case", "camelCase", "dotted"} {
		if n[s] > count {
			style, count = s, n[s]
		}
	}
	return style, count
}

// nameParts splits a name into lower-case words: at every character outside A-Z a-z 0-9, where
// a lower-case letter or digit meets a capital, and before the capital that starts a word after
// an acronym (HTTPServer: http, server). Digits stay with the word before them.
func nameParts(name string) []string {
	var out []string
	word := func(s string) {
		if s != "" {
			out = append(out, strings.ToLower(s))
		}
	}
	start := -1
	for i := 0; i <= len(name); i++ {
		c := byte(0)
		if i < len(name) {
			c = name[i]
		}
		alnum := isUpperByte(c) || isLowerByte(c) || c >= '0' && c <= '9'
		if !alnum {
			if start >= 0 {
				word(name[start:i])
			}
			start = -1
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := name[i-1]
		next := byte(0)
		if i+1 < len(name) {
			next = name[i+1]
		}
		if isUpperByte(c) && (!isUpperByte(prev) || isLowerByte(next)) {
			word(name[start:i])
			start = i
		}
	}
	return out
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

// inStyle joins words in a naming style.
func inStyle(parts []string, style string) string {
	switch style {
	case "kebab-case":
		return strings.Join(parts, "-")
	case "dotted":
		return strings.Join(parts, ".")
	case "camelCase":
		var b strings.Builder
		for i, p := range parts {
			if i > 0 && p != "" && isLowerByte(p[0]) {
				p = strings.ToUpper(p[:1]) + p[1:]
			}
			b.WriteString(p)
		}
		return b.String()
	}
	return strings.Join(parts, "_")
}

// repairNameStyle renames each tool whose name has another style than most of the listing's to
// that style, unless the new name is taken or says nothing new.
func repairNameStyle(c *fixCtx, f Finding) []Repair {
	l := c.l
	names := l.Names()
	style, count := dominantStyle(names)
	if style == "" {
		return nil
	}
	taken := nameSet(names)
	var out []Repair
	var idx *textIndex
	for i, n := range names {
		s := reference.Style(n)
		if s == "" || s == style {
			continue
		}
		to := inStyle(nameParts(n), style)
		if to == "" || to == n || taken[to] || len(to) > 128 {
			continue
		}
		taken[to] = true
		if idx == nil {
			idx = c.textIndex()
		}
		why := fmt.Sprintf("%s, as %d of %d names", style, count, len(names))
		out = append(out, renameRepair(l, f, idx, i, to, why))
	}
	return out
}

// repairNameSpec renames each tool whose name the specification refuses to one of words of
// A-Z a-z 0-9 joined in the listing's style (underscores when that style is dotted, which
// OpenAI refuses), cut to 64 characters at a word's end.
func repairNameSpec(c *fixCtx, f Finding) []Repair {
	l := c.l
	names := l.Names()
	style, _ := dominantStyle(names)
	if style == "dotted" || style == "" {
		style = "snake_case"
	}
	taken := nameSet(names)
	var out []Repair
	var idx *textIndex
	for i, n := range names {
		if specName(n) {
			continue
		}
		parts := nameParts(n)
		to := inStyle(parts, style)
		for len(to) > maxPortableName && len(parts) > 1 {
			parts = parts[:len(parts)-1]
			to = inStyle(parts, style)
		}
		if to == "" || len(to) > maxPortableName || taken[to] {
			continue
		}
		taken[to] = true
		if idx == nil {
			idx = c.textIndex()
		}
		out = append(out, renameRepair(l, f, idx, i, to, "a name the specification and OpenAI accept"))
	}
	return out
}

// specName reports whether the specification accepts n: 1 to 128 of A-Z a-z 0-9 _ - . (the
// reference tolerates one trailing line break, and so does this).
func specName(n string) bool {
	n = strings.TrimSuffix(n, "\n")
	if len(n) < 1 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(isUpperByte(c) || isLowerByte(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func nameSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// renameRepair renames tool i of l to `to` and rewrites every mention of its old name in the
// listing's descriptions and titles (idx, made from l, finds them).
func renameRepair(l *listing.Listing, f Finding, idx *textIndex, i int, to, why string) Repair {
	from := l.Tools[i].Get("name").String()
	ops := []listing.Op{setString("/tools/"+itoa(i)+"/name", to)}
	mentions := 0
	for _, k := range idx.candidates(from) {
		t := idx.texts[k]
		if s, n := replaceName(t.s, from, to); n > 0 {
			mentions += n
			ops = append(ops, setString("/tools/"+itoa(t.tool)+t.ptr, s))
		}
	}
	title := fmt.Sprintf("Rename %s to %s (%s)", clip(from), clip(to), why)
	if mentions > 0 {
		title += fmt.Sprintf(" and rewrite %s", plural(mentions, "mention"))
	}
	at := f
	at.ToolIndex = i
	r := newRepair(l, at, to, title, ops...)
	r.Renames = []Rename{{From: from, To: to}}
	return r
}

// textIndex finds the descriptions and titles that may mention a name without reading them all
// for each rename: a listing may rename thousands of tools.
type textIndex struct {
	texts []toolText
	// byRun lists, for each maximal run of name characters in the texts (and the run without
	// the full stop that ends it), the texts that hold it.
	byRun map[string][]int
}

type toolText struct {
	tool int
	ptr  string
	s    string
}

func newTextIndex(l *listing.Listing) *textIndex {
	x := &textIndex{byRun: map[string][]int{}}
	for j, t := range l.Tools {
		for _, d := range descriptions(t) {
			x.add(j, d.ptr, d.s)
		}
	}
	return x
}

func (x *textIndex) add(tool int, ptr, s string) {
	k := len(x.texts)
	x.texts = append(x.texts, toolText{tool, ptr, s})
	seen := map[string]bool{}
	eachRun(s, func(run string) {
		for _, r := range []string{run, strings.TrimSuffix(run, ".")} {
			if !seen[r] {
				seen[r] = true
				x.byRun[r] = append(x.byRun[r], k)
			}
		}
	})
}

// candidates returns the texts that may mention name: a mention is bounded by characters that
// are not name characters, so each run of name characters in name is a run of the text, or, at
// its end, one with a full stop after it. A name without one has no candidates.
func (x *textIndex) candidates(name string) []int {
	first := ""
	eachRun(name, func(run string) {
		if first == "" {
			first = run
		}
	})
	return x.byRun[first]
}

// eachRun calls f with each maximal run of name characters (A-Z a-z 0-9 _ - .) in s.
func eachRun(s string, f func(string)) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && nameByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(s[start:i])
			start = -1
		}
	}
}

// replaceName replaces each mention of the name from in s by to: an occurrence not inside a
// longer name (no name character before it, none after it but a sentence's full stop).
func replaceName(s, from, to string) (string, int) {
	if from == "" || !strings.Contains(s, from) {
		return s, 0
	}
	var b strings.Builder
	n, last := 0, 0
	for i := 0; ; {
		j := strings.Index(s[i:], from)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(from)
		if (at == 0 || !nameByte(s[at-1])) && (end == len(s) || !nameByte(s[end]) || s[end] == '.' && (end+1 == len(s) || !nameByte(s[end+1]))) {
			b.WriteString(s[last:at])
			b.WriteString(to)
			last = end
			n++
			i = end
			continue
		}
		i = at + 1
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func nameByte(c byte) bool {
	return isUpperByte(c) || isLowerByte(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}
