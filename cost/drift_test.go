package cost

import (
	"sort"
	"testing"
)

// TestPerToolCountingDrift compares the per-tool total with the whole rendering tokenized at
// once. Tokens form across the boundaries between tools ("}},{" is one pre-token in JSON), so
// the two differ by about one or two tokens a tool; the test bounds that at three a tool.
func TestPerToolCountingDrift(t *testing.T) {
	listings := corpus(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, render := range []string{"wire", "compact", "anthropic", "harmony"} {
		for _, enc := range Encodings {
			c := counter(t, enc, render, Options{Whole: true})
			for _, n := range names {
				rep := c.Listing(listings[n])
				if rep.Whole == nil {
					t.Fatalf("%s: no whole-text count", render)
				}
				// The whole text is tokenized in pieces cut by splitLong; on real listings every
				// cut must be exact.
				text, fixed, _ := c.wholeText(listings[n])
				if unsplit := c.Tokenizer().(*tiktoken).count(text) + fixed; unsplit != rep.Whole.Tokens {
					t.Errorf("%s %s %s: whole text counted in pieces %d, at once %d", render, enc, n, rep.Whole.Tokens, unsplit)
				}
				diff := rep.Total.Tokens - rep.Whole.Tokens
				t.Logf("%-9s %-11s %-42s per-tool %7d whole %7d diff %+5d (%+.2f%%)", render, enc, n, rep.Total.Tokens, rep.Whole.Tokens, diff, 100*float64(diff)/float64(rep.Whole.Tokens))
				if diff < 0 {
					diff = -diff
				}
				if diff > 3*len(rep.Tools)+3 {
					t.Errorf("%s %s %s: per-tool total %d is %d from the whole text's %d", render, enc, n, rep.Total.Tokens, diff, rep.Whole.Tokens)
				}
			}
		}
	}
	if rep := counter(t, "o200k_base", "openai", Options{Whole: true}).Listing(listings[names[0]]); rep.Whole != nil {
		t.Error("the openai estimate is not one text, yet it reported a whole-text count")
	}
}
