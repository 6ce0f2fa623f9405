package lint

import (
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

func init() {
	repairers["hidden-unicode"] = repairHidden
	repairers["description-whitespace"] = repairWhitespace
	repairers["description-docstring-indent"] = repairDedent
	repairers["instructions-to-model"] = repairSentences("aimed at the model", instructs)
	repairers["promotional-wording"] = repairSentences("promoting the tool", promotes)
	repairers["tool-shadowing"] = repairShadowing
}

// textAt returns the description or title f points at (rel: its pointer within the tool), or
// ok false when f is about anything else: only texts meant for reading are repaired as text.
func (c *fixCtx) textAt(f Finding) (text, rel string, ok bool) {
	t, toks := findingTool(c.l, f)
	if t == nil {
		return "", "", false
	}
	rel = listing.JoinPointer(toks...)
	if !c.isText(f.ToolIndex, rel) {
		return "", "", false
	}
	return listing.Resolve(t, rel).String(), rel, true
}

// repairHidden removes the characters hiddenKind flags from a description or title. Elsewhere
// (names, keys, enum values, defaults) the characters are part of what the tool accepts.
func repairHidden(c *fixCtx, f Finding) []Repair {
	s, rel, ok := c.textAt(f)
	if !ok {
		return nil
	}
	clean, n := stripHidden(s)
	if n == 0 {
		return nil
	}
	return []Repair{newRepair(c.l, f, "", "Remove "+plural(n, "invisible character")+" from "+textName(rel), setString(f.Pointer, clean))}
}

// stripHidden returns s without the characters hiddenKind flags, and how many it removed.
func stripHidden(s string) (string, int) {
	n := 0
	out := strings.Map(func(r rune) rune {
		if hiddenKind(r) != "" {
			n++
			return -1
		}
		return r
	}, s)
	return out, n
}

// repairWhitespace trims a description or title as the rule trims it.
func repairWhitespace(c *fixCtx, f Finding) []Repair {
	s, rel, ok := c.textAt(f)
	if !ok {
		return nil
	}
	trimmed := strings.TrimSpace(s) // as the rule tests it
	if trimmed == s {
		return nil
	}
	return []Repair{newRepair(c.l, f, "", "Trim the whitespace around "+textName(rel), setString(f.Pointer, trimmed))}
}

// repairDedent removes the indentation every continuation line of a docstring-style
// description shares: what docstringIndent measures.
func repairDedent(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil {
		return nil
	}
	rel := listing.JoinPointer(toks...)
	s := listing.Resolve(t, rel).String()
	d := dedent(s)
	if d == s || docstringIndent(d) != "" {
		return nil
	}
	return []Repair{newRepair(l, f, "", "Remove the docstring indentation from "+textName(rel), setString(f.Pointer, d))}
}

// dedent removes from every line after the first the leading whitespace all the non-blank ones
// share (counted in characters, as docstringIndent counts it), and empties the blank lines.
// The first line, the words and the line breaks stay.
func dedent(s string) string {
	first := strings.IndexByte(s, '\n')
	if first < 0 {
		return s
	}
	common := -1
	for rest := s[first+1:]; ; {
		ln, next, more := strings.Cut(rest, "\n")
		if strings.TrimSpace(ln) != "" {
			if ind := len(ln) - len(strings.TrimLeft(ln, " \t")); common < 0 || ind < common {
				common = ind
			}
		}
		if !more {
			break
		}
		rest = next
	}
	if common <= 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:first+1])
	for rest := s[first+1:]; ; {
		ln, next, more := strings.Cut(rest, "\n")
		if strings.TrimSpace(ln) != "" {
			b.WriteString(ln[common:])
		}
		if !more {
			break
		}
		b.WriteByte('\n')
		rest = next
	}
	return b.String()
}

// repairSentences removes the sentences of a description or title in which offends finds
// something, when what is left is not empty and offends finds nothing in it.
func repairSentences(what string, offends func(string) bool) repairer {
	return func(c *fixCtx, f Finding) []Repair {
		s, rel, ok := c.textAt(f)
		if !ok {
			return nil
		}
		kept, n := dropSentences(s, offends)
		if n == 0 || strings.TrimSpace(kept) == "" || offends(kept) {
			return nil
		}
		return []Repair{newRepair(c.l, f, "", "Remove "+plural(n, "sentence")+" "+what+" from "+textName(rel), setString(f.Pointer, kept))}
	}
}

// sentenceSpans splits s into sentences: each span runs to a sentence end (., !, ? or ;
// followed by a space, a line break or the end, or a line break) and then over the whitespace
// that follows it, so that the spans cover s exactly, in order.
func sentenceSpans(s string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		end := c == '\n' || (c == '.' || c == '!' || c == '?' || c == ';') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n')
		if !end {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			j++
		}
		out = append(out, [2]int{start, j})
		start, i = j, j-1
	}
	if start < len(s) {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// dropSentences returns s without the sentences offends flags (each with the whitespace after
// it; the last kept sentence loses the whitespace a removed one after it had), and how many it
// removed.
func dropSentences(s string, offends func(string) bool) (string, int) {
	var b strings.Builder
	n := 0
	spans := sentenceSpans(s)
	for _, sp := range spans {
		if offends(s[sp[0]:sp[1]]) {
			n++
			continue
		}
		b.WriteString(s[sp[0]:sp[1]])
	}
	if n == 0 {
		return s, 0
	}
	out := b.String()
	if last := spans[len(spans)-1]; offends(s[last[0]:last[1]]) {
		// The text ended in a removed sentence: end where the last kept one's words end, as
		// the original ended where its words ended.
		out = strings.TrimRight(out, " \t\r\n") + s[len(strings.TrimRight(s, " \t\r\n")):]
	}
	return out, n
}

// instructs and promotes are the tests of instructions-to-model and promotional-wording.
func instructs(s string) bool { return len(s) >= 4 && instruction(s, lowHints.scanLower(s)) != "" }
func promotes(s string) bool  { return promotion(strings.ToLower(s)) != "" }

// repairShadowing removes the sentences of a description that set rules for another tool of the
// listing, as checkShadowing finds them.
func repairShadowing(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, _ := findingTool(l, f)
	if t == nil {
		return nil
	}
	own := t.Get("name").String()
	names := c.nameSet()
	offends := func(s string) bool {
		for _, m := range findMentions(s) {
			if m.rule && m.word != own && names[m.word] {
				return true
			}
		}
		return false
	}
	return repairSentences("setting rules for another tool", offends)(c, f)
}
