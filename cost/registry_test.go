package cost

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

func TestTokenizersRefuse(t *testing.T) {
	cases := []struct {
		specs []string
		want  string
	}{
		{[]string{"tokenizer.json"}, "give NAME=PATH"},
		{[]string{"a/b=tokenizer.json"}, "give NAME=PATH"},
		{[]string{"x="}, "give NAME=PATH"},
		{[]string{"cl100k_base=t.json"}, "is taken"},
		{[]string{"approx=t.json"}, "is taken"},
		{[]string{"x=/nonexistent/tokenizer.json"}, "reading tokenizer file"},
		{[]string{"x=testdata/bpe-tokenizer.json"}, "not supported"},
		{slices.Repeat([]string{"x=t.json"}, maxTokenizerFiles+1), "at most"},
	}
	for _, tc := range cases {
		if _, err := NewTokenizers(tc.specs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.specs, err, tc.want)
		}
	}
}

func TestTokenizersByName(t *testing.T) {
	var none *Tokenizers
	if !slices.Equal(none.Names(), Encodings) {
		t.Errorf("nil: names %v", none.Names())
	}
	path := testutil.HFTokenizer(t, "qwen3")
	r, err := NewTokenizers([]string{"qwen3=" + path})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"o200k_base", "cl100k_base", "qwen3"}; !slices.Equal(r.Names(), want) {
		t.Errorf("names %v, want %v", r.Names(), want)
	}
	for _, name := range []string{"qwen3", "cl100k_base"} {
		if tok, err := r.Get(name); err != nil || tok.Name() != name {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{path, "qwen3=" + path, "llama3"} {
		if _, err := r.Get(name); !errors.Is(err, ErrUnknownTokenizer) || !strings.Contains(err.Error(), "o200k_base, cl100k_base, qwen3") {
			t.Errorf("%s: error %v, want an unknown tokenizer listing the names", name, err)
		}
	}
}
