package export

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Edit is one run of a word diff: kept ('='), removed ('-') or added ('+') text.
type Edit struct {
	Op   byte
	Text string
}

// MarshalJSON writes the run as {"op": "=", "text": …}: the op as the character it is, not its
// byte value.
func (e Edit) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Op   string `json:"op"`
		Text string `json:"text"`
	}{string(rune(e.Op)), e.Text})
}

// maxDiffCells bounds the longest-common-subsequence table that Align builds (one cell per
// pair of items, plus a row and a column, once the common prefix and suffix are set aside).
// Real descriptions and task files are far below it; beyond it the differing middle is
// reported as one removal and one addition rather than using memory quadratic in a hostile
// input (16 MiB of table at most).
const maxDiffCells = 1 << 22

// Step is one step of an alignment of two sequences x and y: an item kept ('='), removed from
// x ('-') or added from y ('+'). I indexes x and J indexes y; the side a step does not touch
// is -1.
type Step struct {
	Op   byte
	I, J int
}

// Align returns the steps that turn x into y along a longest common subsequence: word diffs
// align words, the History panel aligns whole tasks. Equal items at both ends are set aside
// first, so that an edit in a long sequence costs little; if the table for the rest would
// exceed maxDiffCells, the rest is all removals followed by all additions. Where two
// alignments are equally long, a removal comes before an addition.
func Align[T comparable](x, y []T) []Step {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	out := make([]Step, 0, len(x)+len(y)-pre-suf)
	for k := range pre {
		out = append(out, Step{'=', k, k})
	}
	xs, ys := x[pre:len(x)-suf], y[pre:len(y)-suf]
	n, m := len(xs), len(ys)
	if (n+1)*(m+1) > maxDiffCells {
		for i := range n {
			out = append(out, Step{'-', pre + i, -1})
		}
		for j := range m {
			out = append(out, Step{'+', -1, pre + j})
		}
	} else {
		// t[i*(m+1)+j] is the LCS length of xs[i:] and ys[j:].
		t := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if xs[i] == ys[j] {
					t[i*(m+1)+j] = t[(i+1)*(m+1)+j+1] + 1
				} else {
					t[i*(m+1)+j] = max(t[(i+1)*(m+1)+j], t[i*(m+1)+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case xs[i] == ys[j]:
				out = append(out, Step{'=', pre + i, pre + j})
				i, j = i+1, j+1
			case t[(i+1)*(m+1)+j] >= t[i*(m+1)+j+1]:
				out = append(out, Step{'-', pre + i, -1})
				i++
			default:
				out = append(out, Step{'+', -1, pre + j})
				j++
			}
		}
		for ; i < n; i++ {
			out = append(out, Step{'-', pre + i, -1})
		}
		for ; j < m; j++ {
			out = append(out, Step{'+', -1, pre + j})
		}
	}
	for k := range suf {
		out = append(out, Step{'=', len(x) - suf + k, len(y) - suf + k})
	}
	return out
}

// WordDiff returns the edits that turn a into b, word by word (runs of spaces are words too),
// so that joining the '=' and '-' runs gives a and joining the '=' and '+' runs gives b.
func WordDiff(a, b string) []Edit {
	x, y := words(a), words(b)
	var out []Edit
	for _, st := range Align(x, y) {
		var text string
		if st.Op == '+' {
			text = y[st.J]
		} else {
			text = x[st.I]
		}
		if n := len(out); n > 0 && out[n-1].Op == st.Op {
			out[n-1].Text += text
			continue
		}
		out = append(out, Edit{st.Op, text})
	}
	return coalesce(out)
}

// coalesce joins changes separated only by kept spaces into one removal and one addition, so
// that a rewritten phrase reads as [-old phrase-]{+new phrase+} rather than word by word.
func coalesce(edits []Edit) []Edit {
	var out []Edit
	for i := 0; i < len(edits); {
		if edits[i].Op == '=' {
			out = append(out, edits[i])
			i++
			continue
		}
		var del, ins strings.Builder
		j := i
		for j < len(edits) {
			e := edits[j]
			if e.Op == '=' {
				if strings.TrimSpace(e.Text) != "" || j+1 == len(edits) {
					break
				}
				del.WriteString(e.Text)
				ins.WriteString(e.Text)
			} else if e.Op == '-' {
				del.WriteString(e.Text)
			} else {
				ins.WriteString(e.Text)
			}
			j++
		}
		// Spaces taken in at the end of a group go back to the text kept after it.
		d, a := del.String(), ins.String()
		tail := commonSpaceSuffix(d, a)
		d, a = d[:len(d)-len(tail)], a[:len(a)-len(tail)]
		if d == a {
			out = append(out, Edit{'=', d})
		} else {
			if d != "" {
				out = append(out, Edit{'-', d})
			}
			if a != "" {
				out = append(out, Edit{'+', a})
			}
		}
		if tail != "" {
			if j < len(edits) && edits[j].Op == '=' {
				edits[j].Text = tail + edits[j].Text
			} else {
				out = append(out, Edit{'=', tail})
			}
		}
		i = j
	}
	// Merge neighbours of one kind left by the steps above.
	merged := out[:0]
	for _, e := range out {
		if n := len(merged); n > 0 && merged[n-1].Op == e.Op {
			merged[n-1].Text += e.Text
			continue
		}
		merged = append(merged, e)
	}
	return merged
}

// commonSpaceSuffix returns the longest run of whitespace that ends both a and b.
func commonSpaceSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) {
		ca, cb := a[len(a)-1-n], b[len(b)-1-n]
		if ca != cb || (ca != ' ' && ca != '\t' && ca != '\n' && ca != '\r') {
			break
		}
		n++
	}
	return a[len(a)-n:]
}

// words splits s into alternating runs of space and non-space.
func words(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if i > start && sp != inSpace {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// renderDiff writes edits as git's --word-diff=plain does: [-removed-]{+added+}.
func renderDiff(edits []Edit) string {
	var b strings.Builder
	for _, e := range edits {
		switch e.Op {
		case '-':
			b.WriteString("[-" + e.Text + "-]")
		case '+':
			b.WriteString("{+" + e.Text + "+}")
		default:
			b.WriteString(e.Text)
		}
	}
	return b.String()
}
