package hfbpe

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
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

// smallFile is a byte-level BPE tokenizer.json with the 256 byte tokens, merges of "a b" and
// "ab c", one added token, and pre is its pre-tokenizer (JSON).
func smallFile(t testing.TB, pre string, merges any) []byte {
	var bt Tokenizer
	bt.byteTables()
	vocab := map[string]int{"ab": 256, "abc": 257}
	for b, r := range bt.byteChar {
		vocab[string(r)] = b
	}
	doc := map[string]any{
		"added_tokens":  []map[string]any{{"id": 258, "content": "<|x|>", "special": true}},
		"normalizer":    map[string]any{"type": "NFC"},
		"pre_tokenizer": json.RawMessage(pre),
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": merges, "ignore_merges": true},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzLoad loads arbitrary tokenizer.json bytes (a file from anyone): never a panic, either
// ErrUnsupported or a JSON error for what it does not take, and what it takes counts text.
func FuzzLoad(f *testing.F) {
	split := `{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]}`
	f.Add(smallFile(f, split, []string{"a b", "ab c"}))
	f.Add(smallFile(f, split, [][2]string{{"a", "b"}, {"ab", "c"}}))
	f.Add(smallFile(f, `{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}`, []string{"a b"}))
	f.Add(smallFile(f, strings.Replace(split, `\\p{L}+`, `(a+)+$`, 1), []string{"a b"}))
	f.Add([]byte(`{"model": {"type": "Unigram", "vocab": [["a", 0]]}}`))
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Load("fuzz", b)
		if err != nil {
			var syn *json.SyntaxError
			var typ *json.UnmarshalTypeError
			if !errors.Is(err, ErrUnsupported) && !errors.As(err, &syn) && !errors.As(err, &typ) && !strings.Contains(err.Error(), "reading tokenizer.json") {
				t.Fatalf("error %v: want ErrUnsupported or a JSON error", err)
			}
			return
		}
		// A pattern that backtracks without end would cost a second per input.
		tok.timeout, tok.textTimeout = 10*time.Millisecond, 10*time.Millisecond
		tok.split.MatchTimeout = tok.timeout
		for _, s := range []string{"", "abc abcabc", "<|x|>ab<|x|>", "é 12 \n\n  x"} {
			if n := tok.Count(s); n < 0 || n > len(s) || (s == "") != (n == 0) {
				t.Fatalf("%q: %d tokens", s, n)
			}
		}
	})
}
