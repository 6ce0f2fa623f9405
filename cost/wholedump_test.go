package cost

import (
	"encoding/json"
	"flag"
	"os"
	"sort"
	"testing"
)

// Work in progress (issue 19): the whole rendered texts, uncut, for tools/tokref/hf.mjs, which
// checks cost/hfbpe's count of each against @lenml/tokenizers'.
var dumpWhole = flag.String("dump-whole", "", "write each corpus listing's whole rendering (wire, compact, anthropic, harmony) to this JSON file")

func TestDumpWhole(t *testing.T) {
	if *dumpWhole == "" {
		t.Skip("only with -dump-whole FILE (tools/tokref/hf.mjs gen)")
	}
	listings := corpus(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, render := range []string{"wire", "compact", "anthropic", "harmony"} {
		c, err := NewCounter(tok, render, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if text, _, ok := c.wholeText(listings[n]); ok {
				out[render+"/"+n] = text
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*dumpWhole, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
