package cost

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestPiecesKeepCounts: on text with exact boundaries at least every blindCut bytes (any real
// text: words, JSON, numbers, non-Latin scripts with punctuation), counting the pieces gives the
// count of the whole text, with both encodings.
func TestPiecesKeepCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	atoms := []string{"word", "Words", "it's", "HTTPServer", " ", "  ", "\n", "\n\n", "\t", "/", ",", ".", ":", "\"", "{", "}", "[", "]",
		"12", "12345", "3.14", "é", "naïve", "café", "中文", "，", "。", "e\u0301", "😀", "don't", "  \n  ", "-", "_", "\\n", "x1y2"}
	texts := map[string]string{}
	for k := range 6 {
		var b strings.Builder
		for b.Len() < 40<<10+k*9000 {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		texts[fmt.Sprintf("random %d", k)] = b.String()
	}
	texts["json"] = strings.Repeat(`{"name":"get_issue","description":"Get one issue by its number, e.g. 4521.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,3,4,5,6,7,8,9,10]}}}},`, 300)
	texts["numbers"] = "[" + strings.Repeat("1234567,", 6000) + "0]"
	for _, enc := range Encodings {
		tok, err := NewTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		tt := tok.(*tiktoken)
		for name, s := range texts {
			pieces := Pieces(s)
			if strings.Join(pieces, "") != s || len(pieces) < 2 {
				t.Fatalf("%s: %d pieces do not join back into the text", name, len(pieces))
			}
			sum := 0
			for _, p := range pieces {
				if len(p) > longText {
					t.Errorf("%s: a piece of %d bytes", name, len(p))
				}
				sum += tt.count(p)
			}
			if whole := tt.count(s); sum != whole {
				t.Errorf("%s %s: %d pieces count %d tokens, the whole text %d", enc, name, len(pieces), sum, whole)
			}
		}
	}
}

// TestCountLinear: counting texts made to be slow (runs of whitespace, a word without spaces)
// takes time linear in their length: 4 MB cost at most a few times 1 MB.
func TestCountLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: timing megabytes of hostile text")
	}
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, unit := range []string{" \n", "ab", " ", "-."} {
		timeOf := func(n int) time.Duration {
			s := strings.Repeat(unit, n/len(unit))
			start := time.Now()
			tok.Count(s)
			return time.Since(start)
		}
		small, large := timeOf(256<<10), timeOf(1<<20)
		t.Logf("%q: 256 KiB in %v, 1 MiB in %v", unit, small, large)
		if large > 12*small+100*time.Millisecond {
			t.Errorf("%q: 4 times the text took %.1f times as long", unit, float64(large)/float64(small))
		}
	}
}
