package hfbpe

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// The counts of whole renderings against @lenml/tokenizers are checked in package cost
// (TestHFTokensMatchReference), which renders the texts.

// loaded are the tokenizers the tests loaded, by model: loading takes about a second.
var loaded sync.Map

func load(t testing.TB, name string) *Tokenizer {
	t.Helper()
	if tok, ok := loaded.Load(name); ok {
		return tok.(*Tokenizer)
	}
	path := testutil.HFTokenizer(t, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Load(name, b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	loaded.Store(name, tok)
	return tok
}

func TestCountSmall(t *testing.T) {
	tests := []struct {
		model, text string
		want        int
	}{
		{"qwen3", "", 0},
		{"qwen3", "<|im_start|>system\n<tools>", 6},
		{"llama3", "<|begin_of_text|>hello world", 3},
		// Qwen3 normalizes to NFC first, Llama 3 does not (counts from @lenml/tokenizers 3.7.2).
		{"qwen3", "cafe\u0301 cafe\u0301s", 4},
		{"llama3", "cafe\u0301 cafe\u0301s", 6},
		{"qwen3", "Ångström \u212b", 5},
		{"llama3", "Ångström \u212b", 6},
		// Added tokens are matched leftmost-longest: <|im_start|> inside <|im_start|>x.
		{"qwen3", "<|im_start|><|im_end|><|im_start|>", 3},
		{"mistral_nemo", "[AVAILABLE_TOOLS][/AVAILABLE_TOOLS]", 2},
	}
	for _, tt := range tests {
		tok := load(t, tt.model)
		if got := tok.Count(tt.text); got != tt.want {
			t.Errorf("%s %q: %d tokens, want %d", tt.model, tt.text, got, tt.want)
		}
	}
}

// benchText is the text BenchmarkCount counts: the GitHub listing's whole compact rendering, which
// node tools/tokref/hf.mjs bench writes before counting it with @lenml/tokenizers too.
func benchText(b *testing.B) string {
	dir := os.Getenv("WORKBENCH_HF_CACHE")
	if dir == "" {
		dir = filepath.Join(testutil.ModuleRoot(b), ".cache", "hf-tokenizers")
	}
	text, err := os.ReadFile(filepath.Join(dir, "bench.txt"))
	if errors.Is(err, os.ErrNotExist) {
		b.Skipf("no bench.txt (node tools/tokref/hf.mjs bench writes it and runs this benchmark): %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return string(text)
}

// BenchmarkCount counts benchText and reports tokens per second.
func BenchmarkCount(b *testing.B) {
	text := benchText(b)
	for _, name := range testutil.HFModels {
		b.Run(name, func(b *testing.B) {
			tok := load(b, name)
			n := 0
			for b.Loop() {
				// A new tokenizer's empty cache each time would measure loading; clearing the
				// piece cache measures counting text not seen before.
				clear(tok.cache)
				n += tok.Count(text)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkLoad reads a tokenizer.json: the cost a process pays once per file.
func BenchmarkLoad(b *testing.B) {
	for _, name := range testutil.HFModels {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(testutil.HFTokenizer(b, name))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Load(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHeapMatchesShort checks the two merge loops against each other on pieces of up to
// shortPiece bytes (the reference check reaches bpeHeap only on long pieces): random runs of
// letters, digits, spaces, punctuation and non-ASCII letters, which merge in many orders.
func TestHeapMatchesShort(t *testing.T) {
	alphabet := []string{"a", "e", "i", "n", "s", "t", "r", "th", "ing", "tion", " ", "_", "-", ".", "0", "1", "é", "ü", "語", "{", "\"", ":"}
	rng := rand.New(rand.NewPCG(1, 19))
	for _, name := range []string{"qwen3", "llama3"} {
		tok := load(t, name)
		for range 50_000 {
			var b strings.Builder
			for b.Len() < 2+rng.IntN(shortPiece-4) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			p := b.String()
			if len(p) > shortPiece {
				continue
			}
			if h, s := tok.bpeHeap(p), tok.bpeShort(p); h != s {
				t.Fatalf("%s %q: heap %d tokens, short %d", name, p, h, s)
			}
		}
	}
}

const splitPre = `{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]}`

// TestLoadSmall loads a small byte-level file and counts with it.
func TestLoadSmall(t *testing.T) {
	tok, err := Load("small", smallFile(t, splitPre, []string{"a b", "ab c"}))
	if err != nil {
		t.Fatal(err)
	}
	// "abc" merges to one token; "abd" to ab, d; the added token is one; " x" is " ", x.
	for s, want := range map[string]int{"abc": 1, "abd": 2, "<|x|>abc<|x|>": 3, "abc x": 3, "": 0} {
		if got := tok.Count(s); got != want {
			t.Errorf("%q: %d tokens, want %d", s, got, want)
		}
	}
}

// TestLoadRefuses checks what Load refuses, each with what it found.
func TestLoadRefuses(t *testing.T) {
	long := strings.Repeat("a|", MaxPatternBytes)
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"added tokens of many lengths", manyLengths(t), "different lengths"},
		{"unigram", []byte(`{"model": {"type": "Unigram", "vocab": [["a", 0]]}}`), `model "Unigram"`},
		{"byte fallback", []byte(`{"model": {"type": "BPE", "byte_fallback": true, "vocab": {}}}`), "byte fallback true"},
		{"no byte tokens", []byte(`{"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`), "not a byte-level vocabulary"},
		{"merge outside the vocabulary", smallFile(t, splitPre, []string{"a z"}), `merge 0 ("a", "z")`},
		{"merge without a space", smallFile(t, splitPre, []string{"ab"}), "not two tokens"},
		{"metaspace", smallFile(t, `{"type": "Metaspace"}`, []string{}), `pre-tokenizer "Metaspace"`},
		{"long regex", smallFile(t, strings.Replace(splitPre, `\\p{L}+`, long, 1), []string{}), "pre-tokenizer regex of"},
		{"bad regex", smallFile(t, strings.Replace(splitPre, `\\p{L}+`, `(`, 1), []string{}), "pre-tokenizer regex"},
		{"too big", make([]byte, MaxFileBytes+1), "MiB"},
		{"long added token", []byte(strings.Replace(string(smallFile(t, splitPre, []string{})), `\u003c|x|\u003e`, strings.Repeat("x", MaxAddedBytes+1), 1)), "added token of"},
	}
	for _, tc := range cases {
		_, err := Load(tc.name, tc.file)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrUnsupported containing %q", tc.name, err, tc.want)
		}
	}
}

// TestCatastrophicPattern checks that a pattern that backtracks without end ((a+)+$ on
// "aaa…a!") stops at the match timeout: the tokenizer turns slow and still counts.
func TestCatastrophicPattern(t *testing.T) {
	tok, err := Load("slow", smallFile(t, strings.Replace(splitPre, `\\p{L}+`, `(a+)+$`, 1), []string{"a b"}))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Repeat("a", 40) + "!"
	if n := tok.Count(s); n <= 0 || n > len(s) {
		t.Errorf("%d tokens for %d bytes", n, len(s))
	}
	if !tok.Slow() {
		t.Error("the pattern did not time out")
	}
	if n := tok.Count("abab"); n != 2 {
		t.Errorf("abab: %d tokens after the timeout, want 2", n)
	}
}

// TestByteLevelDefaults checks that a ByteLevel without use_regex or add_prefix_space is read as
// Hugging Face reads it, both true: a Split then such a ByteLevel would apply the GPT-2 regex
// too, and a prefix space changes every count, so both are refused rather than miscounted.
func TestByteLevelDefaults(t *testing.T) {
	for _, pre := range []string{
		strings.Replace(splitPre, `, "use_regex": false`, ``, 1),
		strings.Replace(splitPre, `"add_prefix_space": false, `, ``, 1),
		`{"type": "ByteLevel", "use_regex": true}`,
	} {
		if _, err := Load("defaults", smallFile(t, pre, []string{"a b"})); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v, want ErrUnsupported", pre, err)
		}
	}
}

// TestTextDeadlineIsNotSticky: a text that runs out of its time (a loaded machine) is merged
// without splitting that time only; the tokenizer, shared by every request of a server, keeps
// counting later texts exactly.
func TestTextDeadlineIsNotSticky(t *testing.T) {
	tok, err := Load("small", smallFile(t, splitPre, []string{"a b"}))
	if err != nil {
		t.Fatal(err)
	}
	exact := tok.Count("abab abab")
	tok.textTimeout, tok.perByte = 0, 0
	tok.Count("abab abab")
	tok.textTimeout, tok.perByte = matchTimeout, perByte
	if tok.Slow() {
		t.Error("one text out of time marked the tokenizer slow for good")
	}
	if n := tok.Count("abab abab"); n != exact {
		t.Errorf("after a text ran out of time: %d tokens, %d before", n, exact)
	}
}

// manyLengths is a small file with added tokens of MaxAddedLengths+1 different lengths.
func manyLengths(t *testing.T) []byte {
	var f map[string]any
	if err := json.Unmarshal(smallFile(t, splitPre, []string{}), &f); err != nil {
		t.Fatal(err)
	}
	var added []any
	for n := 1; n <= MaxAddedLengths+1; n++ {
		added = append(added, map[string]any{"id": 1000 + n, "content": "<" + strings.Repeat("q", n) + ">"})
	}
	f["added_tokens"] = added
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
