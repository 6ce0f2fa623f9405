package cost

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A rendering that is one text (its frame built by separated) is counted as that text, exactly,
// without tokenizing it whole on every edit. A Cutter names places no pre-token crosses, judged
// from the text on both sides within the tool's text alone (for every byte-level BPE here: a
// space between two ASCII letters, "a| b", where a letter run ends and the next pre-token
// starts; for tiktoken also every exactBoundary, such as a letter before a quote). So a tool's
// text cut at its first and last such place (head, interior, tail) counts as the sum of the
// three, and the whole text as the sum of the tools' interiors and of the junctions between
// them: the prefix and the first tool's head; each tool's tail, the separator and the next
// tool's head; the last tool's tail and the suffix. A tool with no such place joins its
// junctions into one. After an edit only the edited tool and the junctions at its ends are
// tokenized again; junctions are cached by their text.

// Cutter is a Tokenizer that says where a text may be cut without changing its count. A
// Tokenizer that is not a Cutter has a one-text rendering counted whole on every report, with
// the boundary tokens charged to the frame.
type Cutter interface {
	Tokenizer
	// Cut reports whether the count of any text holding s is the sum of the counts of the text
	// cut before s[i] (0 < i < len(s)): no pre-token, added token or normalisation spans that
	// place, whatever comes before s and after it.
	Cut(s string, i int) bool
}

// Cut: the o200k_base and cl100k_base pre-tokenizers end a piece at every exactBoundary,
// special-token text being plain text (tested on the corpus by TestTotalIsTheWholeCount).
func (t *tiktoken) Cut(s string, i int) bool { return utf8.RuneStart(s[i]) && exactBoundary(s, i) }

// SpaceCut reports whether s[i] is a space between two ASCII letters: a place where the
// pre-tokenizers of the byte-level BPE tokenizers (GPT-2, Qwen3, Llama 3, Mistral Nemo) end a
// letter run and start the next piece, and so a Cutter's answer for those whose added tokens
// hold no space.
func SpaceCut(s string, i int) bool {
	return i > 0 && i+1 < len(s) && s[i] == ' ' && isASCIILetter(s[i-1]) && isASCIILetter(s[i+1])
}

// edges are a tool's text at its ends: the text before its first cut place and after its last,
// with their counts alone. A tool with no cut place has its whole text as head.
type edges struct {
	head, tail   string
	headN, tailN int
	cut          bool
}

// edgesOf finds the ends of a tool's text, whose count alone is n. Without a Cutter the tool
// has no cut place, so that the whole text is one junction.
func (c *Counter) edgesOf(text string, n int) *edges {
	first, last := -1, -1
	if c.cutter != nil {
		for i := 1; i < len(text); i++ {
			if c.cutter.Cut(text, i) {
				first = i
				break
			}
		}
		for i := len(text) - 1; i > first && first > 0; i-- {
			if c.cutter.Cut(text, i) {
				last = i
				break
			}
		}
		if first > 0 && last < 0 {
			last = first
		}
	}
	if first < 0 {
		return &edges{head: strings.Clone(text), headN: n}
	}
	// Clones: a slice of text would keep all of it alive in the cache.
	e := &edges{head: strings.Clone(text[:first]), tail: strings.Clone(text[last:]), cut: true}
	e.headN, e.tailN = c.countText(e.head), c.countText(e.tail)
	return e
}

// boundaries counts the junctions of the one text joined by j and returns, by tool and for the
// frame, the tokens that form across the boundaries: each junction's count less the counts of
// its texts alone. Each junction is charged to the tool that starts in it, else (the suffix's
// junction) to the tool whose tail starts it; a junction in which several tools start (tools
// without cut places), and every junction without exact cuts, to the frame.
func (c *Counter) boundaries(ctx context.Context, j *joint, tools []ToolCost) (byTool []int, frame int, err error) {
	byTool = make([]int, len(tools))
	// One buffer for every junction: most are a few bytes ("\"}},{\"name").
	b := make([]byte, 0, 256)
	alone, owner, starts := 0, -1, 0
	add := func(s string, n int) {
		b = append(b, s...)
		alone += n
	}
	flush := func() {
		d := c.junction(string(b)) - alone
		switch {
		// A junction over several tools without cut places (no description, one word, CJK
		// text) is no one tool's: charged to one of them, it could make that tool negative.
		case c.cutter == nil || len(tools) == 0 || starts > 1:
			frame += d
		case owner >= 0:
			byTool[owner] += d
		default:
			byTool[len(tools)-1] += d
		}
		b = b[:0]
		alone, owner, starts = 0, -1, 0
	}
	add(j.pre, c.textTokens(j.pre))
	sepN := c.textTokens(j.sep)
	for i, t := range tools {
		if err := ctx.Err(); err != nil {
			return nil, 0, fmt.Errorf("cost: %w", err)
		}
		if t.edge == nil {
			return nil, 0, fmt.Errorf("cost: tool %d was not measured as part of one text", i)
		}
		if i > 0 {
			add(j.sep, sepN)
		}
		if owner < 0 {
			owner = i
		}
		starts++
		add(t.edge.head, t.edge.headN)
		if t.edge.cut {
			flush()
			add(t.edge.tail, t.edge.tailN)
		}
	}
	add(j.post, c.textTokens(j.post))
	flush()
	return byTool, frame, nil
}

// junction counts a junction's text, cached when it is short (junctions between tools with cut
// places are tens of bytes; one over tools without any may be the whole listing).
func (c *Counter) junction(s string) int {
	if len(s) > longText {
		return c.countText(s)
	}
	return c.textTokens(s)
}

// textTokens counts a frame text or a junction, caching it by its text.
func (c *Counter) textTokens(s string) int {
	if s == "" {
		return 0
	}
	k, ok := c.texts.Get(s)
	if !ok {
		k = c.countText(s)
		c.texts.Add(s, k, int64(len(s)))
	}
	return k
}

// charge adds d boundary tokens to the tool's figure and its syntax part. Parts are shared with
// the cache, so they are copied first.
func (t *ToolCost) charge(d int) {
	if d == 0 {
		return
	}
	t.Tokens += d
	t.Boundary += d
	t.Parts = slices.Clone(t.Parts)
	for i := range t.Parts {
		if t.Parts[i].Name == PartSyntax {
			t.Parts[i].Tokens += d
			return
		}
	}
	t.Parts = append(t.Parts, Part{Name: PartSyntax, Measure: Measure{Tokens: d}})
}
