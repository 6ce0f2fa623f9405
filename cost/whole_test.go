package cost

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// wholeText is a one-text rendering of l as a host tokenizes it, built naively from the frame's
// joint and the tools' texts, and the tokens the frame adds outside it (its fixed tokens and
// texts other than the prefix, separators and suffix). ok is false if the rendering is not one
// text.
func wholeText(c *Counter, l *listing.Listing) (text string, outside int, ok bool) {
	f := c.r.frame(&c.o, l)
	if f.joint == nil {
		return "", 0, false
	}
	var b strings.Builder
	b.WriteString(f.joint.pre)
	for i, t := range l.Tools {
		if i > 0 {
			b.WriteString(f.joint.sep)
		}
		r := c.r.tool(&c.o, t)
		b.WriteString(strings.Join(r.texts, ""))
		outside += r.fixed
	}
	b.WriteString(f.joint.post)
	outside += f.fixed
	for _, s := range f.texts {
		outside += c.countText(s)
	}
	outside -= c.countText(f.joint.pre) + max(len(l.Tools)-1, 0)*c.countText(f.joint.sep) + c.countText(f.joint.post)
	return b.String(), outside, true
}

// checkAddsUp checks that the tools and the overhead add up to the total, each tool's parts to
// the tool, and the tools' boundary tokens with the frame's to Boundary.
func checkAddsUp(t *testing.T, what string, rep Report) {
	t.Helper()
	sum, boundary := rep.Overhead, 0
	for _, tool := range rep.Tools {
		sum.Tokens += tool.Tokens
		sum.Bytes += tool.Bytes
		boundary += tool.Boundary
		var parts Measure
		for _, p := range tool.Parts {
			parts.Tokens += p.Tokens
			parts.Bytes += p.Bytes
		}
		if parts != tool.Measure {
			t.Errorf("%s: %s's parts add up to %+v, the tool is %+v", what, tool.Name, parts, tool.Measure)
		}
	}
	if sum != rep.Total {
		t.Errorf("%s: tools and overhead add up to %+v, the total is %+v", what, sum, rep.Total)
	}
	if !rep.OneText && (boundary != 0 || rep.Boundary != 0) {
		t.Errorf("%s: not one text, yet %d boundary tokens (%d in tools)", what, rep.Boundary, boundary)
	}
}

// checkWhole checks that a one-text rendering's total is its whole text counted at once (in
// Pieces only above longText, as tok.Count does), and that a rendering that is not one text
// says so.
func checkWhole(t *testing.T, what string, c *Counter, l *listing.Listing, rep Report) {
	t.Helper()
	text, outside, ok := wholeText(c, l)
	if ok != rep.OneText {
		t.Fatalf("%s: one text %v, the report says %v", what, ok, rep.OneText)
	}
	if !ok {
		return
	}
	if naive := c.countText(text) + outside; rep.Total.Tokens != naive {
		t.Errorf("%s: total %d, the whole text counts %d (%+d)", what, rep.Total.Tokens, naive, rep.Total.Tokens-naive)
	}
	j := c.r.frame(&c.o, l).joint
	if joined := len(j.pre) + max(len(l.Tools)-1, 0)*len(j.sep) + len(j.post); rep.Total.Bytes-rep.Overhead.Bytes+joined != len(text) {
		t.Errorf("%s: total %d bytes, the whole text has %d", what, rep.Total.Bytes, len(text))
	}
}

// TestTotalIsTheWholeCount: for every listing of the corpus, both encodings and every
// rendering, a one-text rendering's total is its text counted whole, and on these real texts
// also counted at once without any cut (as js-tiktoken does); the figures add up to it.
func TestTotalIsTheWholeCount(t *testing.T) {
	listings := corpus(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, enc := range Encodings {
		for _, render := range RenderingNames() {
			c := counter(t, enc, render, Options{})
			for _, n := range names {
				what := enc + "/" + render + "/" + n
				rep := c.Listing(listings[n])
				checkAddsUp(t, what, rep)
				checkWhole(t, what, c, listings[n], rep)
				if text, outside, ok := wholeText(c, listings[n]); ok {
					if uncut := c.tok.(*tiktoken).count(text) + outside; uncut != rep.Total.Tokens {
						t.Errorf("%s: total %d, the whole text counted uncut %d", what, rep.Total.Tokens, uncut)
					}
					t.Logf("%-11s %-9s %-42s total %7d, boundary %+5d", enc, render, n, rep.Total.Tokens, rep.Boundary)
				}
			}
		}
	}
}

// TestGitHubCompactTotal: the figure, the GitHub listing's compact rendering counted
// whole with o200k_base (the per-tool sum it replaced said 35,506).
func TestGitHubCompactTotal(t *testing.T) {
	rep := counter(t, "o200k_base", "compact", Options{}).Listing(githubListing(t))
	if rep.Total.Tokens != 35274 || rep.Boundary != 35274-35506 {
		t.Errorf("total %d, boundary %d; want 35274 and %d", rep.Total.Tokens, rep.Boundary, 35274-35506)
	}
}

// TestTotalEdgeCases: listings whose tools have no place to cut, one tool, none, tools that are
// all punctuation or numbers, and text over longText, in every rendering with both encodings.
func TestTotalEdgeCases(t *testing.T) {
	long := strings.Repeat("Returns the rows that match, newest first. ", 1200)
	cases := map[string]string{
		"no tools":       `[]`,
		"no tools, wire": `{"tools":[],"nextCursor":"x y"}`,
		"one tool":       `[{"name":"get issue","description":"Gets an issue."}]`,
		"no cut place":   `[{"name":"a"},{"name":"b"},{"name":"c"}]`,
		"cjk":            `[{"name":"读取","description":"读取文件。"},{"name":"写入","description":"写入文件，覆盖。"}]`,
		"mixed":          `[{"name":"a"},{"name":"find","description":"Finds a row by id."},{"name":"b"},{"name":"c"},{"name":"list","description":"Lists rows."},{"name":"d"}]`,
		"numbers":        `[{"name":"1","description":"123456"},{"name":"7","description":"891011"}]`,
		"whitespace":     `[{"name":"a b","description":"  \n\n  x  \n"},{"name":"c\n","description":"\n\n\n"}]`,
		"special text":   `[{"name":"<|endoftext|>","description":"<|start|>x<|end|> <tool_call>"},{"name":"z","description":"a <think> b"}]`,
		"long":           `[{"name":"search","description":"` + long + `"},{"name":"s2","description":"` + long + `x"}]`,
		"apostrophes":    `[{"name":"it's","description":"don't"},{"name":"'s","description":"x'"}]`,
	}
	for _, enc := range Encodings {
		for _, render := range RenderingNames() {
			for name, src := range cases {
				what := enc + "/" + render + "/" + name
				l := parse(t, src)
				c := counter(t, enc, render, Options{})
				rep := c.Listing(l)
				checkAddsUp(t, what, rep)
				checkWhole(t, what, c, l, rep)
			}
		}
	}
}

// TestHostileTextBound: text made to be slow (runs with no exact boundary for more than
// blindCut bytes: digits, punctuation, spaces, one long word) is cut blindly by Pieces wherever
// the counter tokenizes it. The cuts fall at the same places in the tools' ends and junctions
// as in the whole text (they start at exact boundaries), so the total is the whole text's count
// in Pieces; against the text counted uncut, as a host would, each blind cut may add a token.
func TestHostileTextBound(t *testing.T) {
	q := func(s string) string { return string(listing.Marshal(listing.NewString(s), "")) }
	for _, unit := range []string{"1", "-.", " ", "a", "!!", " \n"} {
		for _, k := range []int{9000, 40000} {
			h := strings.Repeat(unit, k/len(unit))
			l := parse(t, `[{"name":"a","description":`+q(h)+`},{"name":"b b","description":`+q(h+"x")+`},{"name":"c","description":`+q("y"+h)+`}]`)
			for _, enc := range Encodings {
				what := fmt.Sprintf("%q x %d %s", unit, k, enc)
				c := counter(t, enc, "compact", Options{})
				rep := c.Listing(l)
				checkAddsUp(t, what, rep)
				checkWhole(t, what, c, l, rep)
				text, outside, _ := wholeText(c, l)
				blind := len(text) / blindCut
				diff := rep.Total.Tokens - (c.tok.(*tiktoken).count(text) + outside)
				t.Logf("%s: %d bytes, total %d, %+d against the text uncut, at most %d blind cuts", what, len(text), rep.Total.Tokens, diff, blind)
				if diff > blind*blindSlack || -diff > blind*blindSlack {
					t.Errorf("%s: total is %+d from the uncut count, over %d per blind cut", what, diff, blindSlack)
				}
			}
		}
	}
}

// blindSlack bounds the tokens one blind cut of Pieces may add or save against the text counted
// uncut (measured: 312 tokens for 469 cuts in 120 KB of digits, whose groups of three shift).
const blindSlack = 1

// notCutter is a tokenizer that cannot say where to cut.
type notCutter struct{ tok Tokenizer }

func (n notCutter) Name() string       { return n.tok.Name() }
func (n notCutter) Count(s string) int { return n.tok.Count(s) }

// TestTotalWithoutCutter: a tokenizer that is not a Cutter has the whole text counted at once,
// and the boundary tokens charged to the frame.
func TestTotalWithoutCutter(t *testing.T) {
	tok, err := NewTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	l := githubListing(t)
	c, err := NewCounter(notCutter{tok}, "wire", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Listing(l)
	checkAddsUp(t, "not a cutter", rep)
	checkWhole(t, "not a cutter", c, l, rep)
	for _, tool := range rep.Tools {
		if tool.Boundary != 0 {
			t.Fatalf("%s was charged %d boundary tokens", tool.Name, tool.Boundary)
		}
	}
	if want := counter(t, "cl100k_base", "wire", Options{}).Listing(l); rep.Total != want.Total || rep.Boundary != want.Boundary || rep.Boundary == 0 {
		t.Errorf("total %+v, boundary %d; with cuts %+v, %d", rep.Total, rep.Boundary, want.Total, want.Boundary)
	}
}

// TestEditsMatchFreshCounter: after a sequence of edits counted by one Counter (so from its
// caches), each report equals the one a fresh Counter gives the same listing.
func TestEditsMatchFreshCounter(t *testing.T) {
	l := githubListing(t)
	edits := []listing.Op{
		{Kind: listing.OpSet, Path: "/tools/3/description", Value: listing.NewString("A new description, to see it cost more.")},
		{Kind: listing.OpSet, Path: "/tools/4/description", Value: listing.NewString("无空格的描述")},
		{Kind: listing.OpSet, Path: "/tools/5/name", Value: listing.NewString("x")},
		{Kind: listing.OpRemove, Path: "/tools/0"},
		{Kind: listing.OpInsert, Path: "/tools/7", Value: listing.NewObject(listing.Member{Key: "name", Value: listing.NewString("new"), KeyPos: -1})},
		{Kind: listing.OpSet, Path: "/tools/6/description", Value: listing.NewString("ends with a word")},
		{Kind: listing.OpRemove, Path: "/tools/2/inputSchema"},
	}
	for _, enc := range Encodings {
		for _, render := range RenderingNames() {
			c := counter(t, enc, render, Options{})
			cur := l
			c.Listing(cur)
			for i, op := range edits {
				next, err := cur.Apply(op)
				if err != nil {
					t.Fatalf("edit %d: %v", i, err)
				}
				cur = next
				got := c.Listing(cur)
				want := counter(t, enc, render, Options{}).Listing(cur)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s/%s after edit %d: the cached report (total %+v) differs from a fresh one (total %+v)", enc, render, i, got.Total, want.Total)
				}
				if i == len(edits)-1 {
					checkWhole(t, fmt.Sprintf("%s/%s after the edits", enc, render), c, cur, got)
				}
			}
		}
	}
}

// spaceOnly is a tiktoken encoding that names only SpaceCut places, as the byte-level BPE
// tokenizers do: fewer cut places, longer junctions, more tools without any.
type spaceOnly struct{ Tokenizer }

func (spaceOnly) Cut(s string, i int) bool { return SpaceCut(s, i) }

// TestTotalWithSpaceCuts: a Cutter that names only spaces between ASCII letters gives the same
// exact totals (checked with Qwen3's, Llama 3's and Mistral Nemo's tokenizer.json too, through
// cost/hfbpe, when this branch was written: every corpus listing, every one-text rendering).
func TestTotalWithSpaceCuts(t *testing.T) {
	listings := corpus(t)
	listings["edge"] = parse(t, `[{"name":"a"},{"name":"find","description":"Finds a row by id."},{"name":"b"},{"name":"读取","description":"读取文件。"},{"name":"list","description":"Lists rows."},{"name":"d"}]`)
	listings["none cut"] = parse(t, `[{"name":"a"},{"name":"b"}]`)
	for _, enc := range Encodings {
		tok, err := NewTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, render := range RenderingNames() {
			c, err := NewCounter(spaceOnly{tok}, render, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := counter(t, enc, render, Options{})
			for n, l := range listings {
				what := enc + "/" + render + "/" + n
				rep := c.Listing(l)
				checkAddsUp(t, what, rep)
				checkWhole(t, what, c, l, rep)
				if w := want.Listing(l); w.Total != rep.Total {
					t.Errorf("%s: total %+v with space cuts, %+v with tiktoken's", what, rep.Total, w.Total)
				}
			}
		}
	}
}

// TestScriptsWithoutSpaces: a description in a script written without spaces (Thai, Japanese)
// runs for hundreds of bytes with no exact boundary; the total is still the text counted uncut,
// as a host counts it (it was cut every 256 bytes, two tokens off a cut).
func TestScriptsWithoutSpaces(t *testing.T) {
	q := func(s string) string { return string(listing.Marshal(listing.NewString(s), "")) }
	for name, sentence := range map[string]string{
		"thai":     "ระบบนี้ค้นหาตั๋วตามหมายเลขและสถานะของตั๋วที่เปิดอยู่ในโครงการทั้งหมดโดยไม่ต้องระบุเจ้าของหรือวันที่สร้างตั๋ว",
		"japanese": "このツールはプロジェクトの全てのチケットを番号と状態で検索して結果を一覧で返します",
	} {
		desc := strings.Repeat(sentence, 3)
		l := parse(t, `[{"name":"find","description":`+q(desc)+`,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":`+q(desc)+`}}}}]`)
		for _, enc := range Encodings {
			c := counter(t, enc, "compact", Options{})
			rep := c.Listing(l)
			text, outside, _ := wholeText(c, l)
			if uncut := c.tok.(*tiktoken).count(text) + outside; rep.Total.Tokens != uncut {
				t.Errorf("%s %s (%d bytes of description): total %d, the text counted uncut %d", name, enc, len(desc), rep.Total.Tokens, uncut)
			}
		}
	}
}
