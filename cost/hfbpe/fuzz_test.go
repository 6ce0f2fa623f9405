package hfbpe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCount counts arbitrary text: never a panic, and, on valid UTF-8 (all a rendering makes), never
// more tokens than bytes, since every byte has a token and merges only shrink the count.
func FuzzCount(f *testing.F) {
	tok := load(f, "qwen3")
	for _, s := range []string{"", "hello world", "<|im_start|>x<tools>", "  \n\n\t ", strings.Repeat("ab", 500), "é\u0301 1234 ÿ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := tok.Count(s)
		if n < 0 || (s == "") != (n == 0) {
			t.Fatalf("%q: %d tokens", s, n)
		}
		if utf8.ValidString(s) && n > len(s) {
			t.Fatalf("%q: %d tokens for %d bytes", s, n, len(s))
		}
	})
}
