package cost

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// openHF opens a fetched tokenizer.json under its model's name (skipping without it).
func openHF(t testing.TB, model string) Tokenizer {
	t.Helper()
	tok, err := OpenTokenizer(model + "=" + testutil.HFTokenizer(t, model))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestHuggingFaceCounts counts small texts with each tokenizer.json; the counts are
// @lenml/tokenizers 3.7.2's encode(s, {add_special_tokens: false}). Added tokens count one each
// (Qwen3's <|im_start|>, Nemo's [AVAILABLE_TOOLS]), other models' read as text.
func TestHuggingFaceCounts(t *testing.T) {
	texts := []string{"<|im_start|>system\n<tools>", `[AVAILABLE_TOOLS][{"type": "function"}][/AVAILABLE_TOOLS]`,
		"<s>[INST]hello[/INST]", "cafe\u0301 cafe\u0301s", "HelloWorld getUserID XMLHttpRequest", "<|begin_of_text|>hello world", "12345 6789", ""}
	want := map[string][]int{
		"qwen3":        {6, 16, 8, 4, 5, 9, 10, 0},
		"llama3":       {11, 16, 8, 6, 5, 3, 5, 0},
		"llama3_1":     {11, 16, 8, 6, 5, 3, 5, 0},
		"mistral_nemo": {11, 10, 4, 8, 7, 9, 10, 0},
	}
	for _, model := range testutil.HFModels {
		t.Run(model, func(t *testing.T) {
			tok := openHF(t, model)
			if tok.Name() != model {
				t.Errorf("name %q, want %q", tok.Name(), model)
			}
			for i, s := range texts {
				if got := tok.Count(s); got != want[model][i] {
					t.Errorf("%q: %d tokens, @lenml/tokenizers %d", s, got, want[model][i])
				}
			}
		})
	}
}

// TestHuggingFaceNames checks the names a tokenizer.json path gives its tokenizer.
func TestHuggingFaceNames(t *testing.T) {
	cases := []struct{ spec, name, path string }{
		{"models/Qwen3-8B/tokenizer.json", "hf:Qwen3-8B", "models/Qwen3-8B/tokenizer.json"},
		{"./qwen3-tokenizer.json", "hf:qwen3-tokenizer", "./qwen3-tokenizer.json"},
		{"tokenizer.json", "hf:tokenizer", "tokenizer.json"},
		{"qwen3=/srv/t/tokenizer.json", "qwen3", "/srv/t/tokenizer.json"},
		{"a/b=c/tokenizer.json", "hf:b=c", "a/b=c/tokenizer.json"}, // no name: a path with "="
	}
	for _, tc := range cases {
		name, path := tokenizerSpec(tc.spec)
		if name != tc.name || path != tc.path {
			t.Errorf("%q: name %q path %q, want %q %q", tc.spec, name, path, tc.name, tc.path)
		}
	}
}

// TestHuggingFaceRefused checks that files hfbpe does not count are refused with what they are.
func TestHuggingFaceRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"unigram.json":   `{"normalizer": null, "pre_tokenizer": {"type": "Metaspace"}, "model": {"type": "Unigram", "vocab": [["<unk>", 0], ["a", -1.5]]}}`,
		"fallback.json":  `{"pre_tokenizer": {"type": "Metaspace"}, "model": {"type": "BPE", "byte_fallback": true, "vocab": {"a": 0}, "merges": []}}`,
		"wordpiece.json": `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "vocab": {"a": 0}}}`,
	}
	want := map[string][]string{
		"unigram.json":   {`model "Unigram", pre-tokenizer "Metaspace", 2 vocabulary entries`, "not supported", "Qwen3"},
		"fallback.json":  {`model "BPE"`, "byte fallback true", "not supported"},
		"wordpiece.json": {`model "WordPiece", pre-tokenizer "BertPreTokenizer"`, "not supported"},
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := OpenTokenizer(p)
		if !errors.Is(err, ErrHuggingFaceUnsupported) {
			t.Errorf("%s: error %v, want ErrHuggingFaceUnsupported", name, err)
			continue
		}
		for _, w := range want[name] {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
	}
}

// TestHuggingFaceLoadedOnce checks that a file is loaded once while it is unchanged, and again
// when it changes.
func TestHuggingFaceLoadedOnce(t *testing.T) {
	src, err := os.ReadFile(testutil.HFTokenizer(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := OpenTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("an unchanged file was loaded twice")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	c, err := OpenTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Error("a changed file was not loaded again")
	}
}

var dumpHF = flag.String("dump-hf", "", "write every text the renderings give a Hugging Face tokenizer, and the whole renderings, to this JSON file (tools/tokref/hf.mjs gen)")

// hfReference is testdata/hf_reference_tokens.json: for each text (by textKey) its count with
// each model's tokenizer.json, as @lenml/tokenizers gives it (tools/tokref/hf.mjs gen).
type hfReference struct {
	Generator string           `json:"generator"`
	Keys      []string         `json:"keys"`
	Counts    map[string][]int `json:"counts"`
}

// hfChecker counts with tok and compares each text's count with the reference's.
type hfChecker struct {
	Tokenizer
	want map[string]int
	mu   sync.Mutex
	bad  []string // what differs or has no reference count
}

// Cut is the checked tokenizer's, so that the counter counts the texts it counts in use.
func (c *hfChecker) Cut(s string, i int) bool { return c.Tokenizer.(Cutter).Cut(s, i) }

func (c *hfChecker) Count(s string) int {
	n := c.Tokenizer.Count(s)
	w, ok := c.want[textKey(s)]
	if !ok || w != n {
		c.mu.Lock()
		if !ok {
			c.bad = append(c.bad, fmt.Sprintf("no reference count (regenerate with node tools/tokref/hf.mjs gen) for %d bytes %.80q", len(s), s))
		} else {
			c.bad = append(c.bad, fmt.Sprintf("%d tokens, @lenml/tokenizers %d, for %d bytes %.80q", n, w, len(s), s))
		}
		c.mu.Unlock()
	}
	return n
}

// TestHFTokensMatchReference counts every listing of the corpus in every rendering, with the
// tokenizer.json of each model, and checks every text the counter tokenizes, and each whole
// rendering, against @lenml/tokenizers' count (testdata/hf_reference_tokens.json).
func TestHFTokensMatchReference(t *testing.T) {
	listings := corpus(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	if *dumpHF != "" {
		dumpHFTexts(t, listings, names)
		return
	}
	b, err := os.ReadFile(filepath.Join("testdata", "hf_reference_tokens.json"))
	if err != nil {
		t.Fatalf("reading the reference counts (generate them with node tools/tokref/hf.mjs gen): %v", err)
	}
	var ref hfReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("testdata/hf_reference_tokens.json: %v", err)
	}
	for _, model := range testutil.HFModels {
		t.Run(model, func(t *testing.T) {
			counts := ref.Counts[model]
			if len(counts) != len(ref.Keys) {
				t.Fatalf("the reference has %d counts of %s for %d texts (regenerate with node tools/tokref/hf.mjs gen)", len(counts), model, len(ref.Keys))
			}
			chk := &hfChecker{Tokenizer: openHF(t, model), want: make(map[string]int, len(counts))}
			for i, k := range ref.Keys {
				chk.want[k] = counts[i]
			}
			for _, render := range RenderingNames() {
				c, err := NewCounter(chk, render, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					c.Listing(listings[n])
					if text, _, ok := wholeText(c, listings[n]); ok {
						chk.Count(text)
					}
				}
			}
			for i, s := range chk.bad {
				if i == 5 {
					t.Errorf("... %d differences in all", len(chk.bad))
					break
				}
				t.Error(s)
			}
		})
	}
}

// dumpHFTexts writes the texts a Hugging Face tokenizer is given for the corpus, each whole
// rendering, and the GitHub listing's whole compact rendering by name (for the speed
// comparison of tools/tokref/hf.mjs bench).
func dumpHFTexts(t *testing.T, listings map[string]*listing.Listing, names []string) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	// Cut where the tokenizer.json files cut (hfCutter), so that the texts are the ones they count.
	rec := &recorder{Tokenizer: named{spaceOnly{tok}, "hf:dump"}, texts: map[string]bool{}}
	bench := ""
	for _, render := range RenderingNames() {
		c, err := NewCounter(rec, render, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			c.Listing(listings[n])
			if text, _, ok := wholeText(c, listings[n]); ok {
				rec.texts[text] = true
				if render == "compact" && n == "github-mcp-server.json" {
					bench = text
				}
			}
		}
	}
	texts := make([]string, 0, len(rec.texts))
	for s := range rec.texts {
		texts = append(texts, s)
	}
	sort.Strings(texts)
	b, err := json.Marshal(map[string]any{"texts": texts, "bench": bench})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*dumpHF, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d texts to %s", len(texts), *dumpHF)
}

// TestHFTotalIsTheWholeCount: with each tokenizer.json, for every rendering and every listing
// of the corpus, the total that the counter builds tool by tool (cut before a space between two
// ASCII letters) is the whole text counted at once, and the figures add up to it.
func TestHFTotalIsTheWholeCount(t *testing.T) {
	listings := corpus(t)
	for _, model := range testutil.HFModels {
		t.Run(model, func(t *testing.T) {
			tok := openHF(t, model)
			if _, ok := tok.(Cutter); !ok {
				t.Fatalf("%s is not a Cutter: every report would count the whole text again", model)
			}
			for _, render := range RenderingNames() {
				c, err := NewCounter(tok, render, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for n, l := range listings {
					what := model + "/" + render + "/" + n
					rep := c.Listing(l)
					checkAddsUp(t, what, rep)
					checkWhole(t, what, c, l, rep)
					// Counted at once, without Pieces' cuts, as Hugging Face counts it.
					if text, outside, ok := wholeText(c, l); ok && tok.Count(text)+outside != rep.Total.Tokens {
						t.Errorf("%s: total %d, the whole text counted at once %d", what, rep.Total.Tokens, tok.Count(text)+outside)
					}
				}
			}
		})
	}
}
