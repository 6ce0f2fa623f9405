package selection

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// SVG bounds: past MaxSVGTools tools the heat map shows the tools of the strongest pairs only,
// and it draws at most maxSVGPairs pairs, so that its size stays bounded whatever the listing.
const (
	MaxSVGTools = 300
	maxSVGPairs = 4000
	svgCell     = 8   // px per tool
	svgLabel    = 200 // px for the names
	svgNameMax  = 40  // runes of a name in a label
	svgTitleMax = 600 // runes of a cell's explanation
)

// WriteSVG writes the map as a heat map: the tools in m.Order on both axes, a cell for each
// pair (both halves) whose darkness is its strength, with a <title> that explains it (the
// parts, the shared words, the tasks lost and close, the advice), inside a link to #tool-J.
// Names appear only as escaped text; ids and attributes are built from indices and numbers.
func (m *OverlapMap) WriteSVG(w io.Writer) error {
	shown, note := m.svgTools()
	at := make(map[int]int, len(shown)) // tool -> place on the axes
	for k, i := range shown {
		at[i] = k
	}
	side := svgLabel + svgCell*len(shown)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="7">`+"\n",
		side+8, side+24, side+8, side+24)
	bw.WriteString(`<title>`)
	esc(bw, fmt.Sprintf("Overlap map of %d tools: a darker cell is a pair that competes more; hover for why. %s", len(m.Names), note))
	bw.WriteString("</title>\n<text x=\"4\" y=\"12\" font-size=\"9\">")
	esc(bw, note)
	bw.WriteString("</text>\n")
	for k, i := range shown {
		name := clip(m.Names[i], svgNameMax)
		y := svgLabel + svgCell*k + svgCell - 1
		fmt.Fprintf(bw, `<text id="tool-%d" x="%d" y="%d" text-anchor="end">`, i, svgLabel-4, y+16)
		esc(bw, name)
		bw.WriteString("</text>")
		fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="start" transform="rotate(-90 %d %d)">`, y, svgLabel+12, y, svgLabel+12)
		esc(bw, name)
		bw.WriteString("</text>\n")
	}
	drawn := 0
	for _, p := range m.Pairs {
		a, okA := at[p.I]
		b, okB := at[p.J]
		if !okA || !okB || p.Strength <= 0 {
			continue
		}
		if drawn == maxSVGPairs {
			break
		}
		drawn++
		title := clip(m.cellTitle(p), svgTitleMax)
		for _, c := range [2][3]int{{a, b, p.J}, {b, a, p.I}} {
			fmt.Fprintf(bw, `<a href="#tool-%d"><rect x="%d" y="%d" width="%d" height="%d" fill="#b2182b" fill-opacity="%.2f"><title>`,
				c[2], svgLabel+svgCell*c[1], svgLabel+16+svgCell*c[0], svgCell, svgCell, 0.1+0.9*p.Strength)
			esc(bw, title)
			bw.WriteString("</title></rect></a>\n")
		}
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// svgTools are the tools the heat map shows, in m.Order, and a note on what it shows: every
// tool, or past MaxSVGTools those of the strongest pairs.
func (m *OverlapMap) svgTools() ([]int, string) {
	if len(m.Names) <= MaxSVGTools {
		return m.Order, fmt.Sprintf("%d tools, %d competing pairs.", len(m.Names), len(m.Pairs))
	}
	keep := map[int]bool{}
	for _, p := range m.Pairs {
		if len(keep)+2 > MaxSVGTools {
			break
		}
		keep[p.I], keep[p.J] = true, true
	}
	shown := make([]int, 0, len(keep))
	for _, i := range m.Order {
		if keep[i] {
			shown = append(shown, i)
		}
	}
	return shown, fmt.Sprintf("%d of %d tools: only the clusters of the strongest pairs are shown (more than %d tools do not stay readable); the text and JSON formats list every pair.",
		len(shown), len(m.Names), MaxSVGTools)
}

// cellTitle explains a pair in one paragraph.
func (m *OverlapMap) cellTitle(p Pair) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s / %s: strength %.2f (descriptions %.2f, shared words %.2f, tasks %.2f)", m.Names[p.I], m.Names[p.J], p.Strength, p.Desc, p.Shared, p.Tasks)
	if ws := m.SharedWords(p.I, p.J, 5); len(ws) > 0 {
		b.WriteString("; shared: ")
		for k, w := range ws {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.Word)
		}
	}
	if p.Model != nil {
		fmt.Fprintf(&b, "; model run: %.2f (%d of %d calls chose the other)", *p.Model, p.ModelConfused, p.ModelCalls)
	}
	if len(p.Lost) > 0 {
		fmt.Fprintf(&b, "; tasks lost: %s", taskList(p.Lost))
	}
	if len(p.Close) > 0 {
		fmt.Fprintf(&b, "; tasks close: %s", taskList(p.Close))
	}
	return b.String() + "; " + m.Advice(p)
}

// taskList writes up to 10 task numbers.
func taskList(ns []int) string {
	parts := make([]string, 0, min(len(ns), 10)+1)
	for _, n := range ns[:min(len(ns), 10)] {
		parts = append(parts, fmt.Sprint(n))
	}
	if len(ns) > 10 {
		parts = append(parts, fmt.Sprintf("and %d more", len(ns)-10))
	}
	return strings.Join(parts, ", ")
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// esc writes s as XML character data: markup, quotes, line breaks and tabs escaped, and
// characters XML cannot carry replaced.
func esc(w io.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s)) // writes to a bufio.Writer, whose error Flush returns
}

// SVGTools are the tools the heat map shows, in m.Order, and a note on what it shows (the
// browser's map follows WriteSVG).
func (m *OverlapMap) SVGTools() ([]int, string) { return m.svgTools() }

// CellTitle explains a pair in one paragraph, as a heat map cell's title does.
func (m *OverlapMap) CellTitle(p Pair) string { return m.cellTitle(p) }
