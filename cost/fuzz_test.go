package cost

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func FuzzInspectHuggingFace(f *testing.F) {
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b", ["a", "b"]]}, "pre_tokenizer": {"type": "ByteLevel"}}`))
	f.Add([]byte(`{"model": {"type": "Unigram", "vocab": [["a", -1.0]]}}`))
	f.Add([]byte(`{"model": {"type": ""}}`))
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": 3}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := InspectHuggingFace(b)
		if err != nil {
			if !strings.Contains(err.Error(), "tokenizer.json") {
				t.Errorf("error does not say what was expected: %v", err)
			}
			return
		}
		if info.Model == "" || info.Vocab < 0 || info.Merges < 0 {
			t.Errorf("accepted with an empty outline: %+v", info)
		}
	})
}

// FuzzRenderings feeds arbitrary listings to every rendering: none may panic, parts must add up
// to the tool, tools and frame to the total, a one-text rendering's total must be its text's
// count, and the compact bytes must be those of the whole array.
func FuzzRenderings(f *testing.F) {
	f.Add(`[{"name": "a", "description": "x.", "inputSchema": {"type": "object", "properties": {"p": {"type": ["string", "null"], "enum": [1, "b"], "oneOf": [{"type": "object"}]}}}}]`)
	f.Add(`{"tools": [{"name": "b", "inputSchema": {"type": "object", "properties": {"q": {"oneOf": 3, "default": {"k": 1e400}}}}}], "nextCursor": null}`)
	f.Add(`[{"name": "c", "description": "line\r\nnext\n", "inputSchema": null, "annotations": []}]`)
	f.Add(`{"name": "\ud800", "inputSchema": {"type": "array", "items": {"type": "array"}}}`)
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		f.Fatal(err)
	}
	counters := map[string]*Counter{}
	for _, r := range RenderingNames() {
		c, err := NewCounter(tok, r, Options{})
		if err != nil {
			f.Fatal(err)
		}
		counters[r] = c
	}
	f.Fuzz(func(t *testing.T, src string) {
		l, err := listing.Parse([]byte(src), listing.Options{Name: "fuzz"})
		if err != nil {
			return
		}
		for name, c := range counters {
			rep := c.Listing(l)
			if len(rep.Tools) != len(l.Tools) {
				t.Fatalf("%s: %d tools reported of %d", name, len(rep.Tools), len(l.Tools))
			}
			for _, tool := range rep.Tools {
				var sum Measure
				for _, p := range tool.Parts {
					sum.Tokens += p.Tokens
					sum.Bytes += p.Bytes
				}
				if sum != tool.Measure {
					t.Fatalf("%s: parts %+v, tool %+v", name, sum, tool.Measure)
				}
			}
			// A one-text rendering's total is its text's count, whatever the text.
			checkAddsUp(t, name, rep)
			checkWhole(t, name, c, l, rep)
			if name == "compact" && rep.Total.Bytes != len(listing.PythonJSON(listing.NewArray(l.Tools...), true)) {
				t.Fatalf("compact bytes %d, array %d", rep.Total.Bytes, len(listing.PythonJSON(listing.NewArray(l.Tools...), true)))
			}
			if name == "wire" && rep.Total.Bytes != len(listing.Marshal(l.Result(), "")) {
				t.Fatalf("wire bytes %d, result %d", rep.Total.Bytes, len(listing.Marshal(l.Result(), "")))
			}
		}
	})
}

// TestSplitLongKeepsCounts checks that exact cuts do not change the count, and that a hostile
// text is cut into pieces the tokenizer handles quickly.
func TestSplitLongKeepsCounts(t *testing.T) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	line := `{"name": "tool", "description": "Does a thing; see /docs and ${x}.\n  Indented.", "n": 12345}` + "\n"
	cases := []string{
		strings.Repeat(line, 2000),
		strings.Repeat("word\n/path\n", 8000),
		strings.Repeat(`{"description":"Lists the open issues of a repository, newest first.","n":1},`, 1000),
		strings.Repeat("é ", 30000),
		strings.Repeat(" \n", 40000),
		"short",
	}
	for i, s := range cases {
		pieces := splitLong(s)
		if strings.Join(pieces, "") != s {
			t.Fatalf("case %d: pieces do not join back into the text", i)
		}
		for _, p := range pieces {
			if len(p) > longText {
				t.Errorf("case %d: piece of %d bytes", i, len(p))
			}
		}
		if i < 3 {
			sum := 0
			for _, p := range pieces {
				sum += tok.Count(p)
			}
			if whole := tok.Count(s); sum != whole {
				t.Errorf("case %d: %d pieces count %d tokens, the whole text %d", i, len(pieces), sum, whole)
			}
			if len(pieces) < 2 {
				t.Errorf("case %d: a %d-byte text was not cut", i, len(s))
			}
		}
	}
}
