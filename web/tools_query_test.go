package web

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseToolQuery reads each qualifier and keeps the rest as words, in lower case.
func TestParseToolQuery(t *testing.T) {
	cases := []struct {
		q    string
		want toolQuery
	}{
		{"", toolQuery{}},
		{"Pull  REQUEST", toolQuery{words: []string{"pull", "request"}}},
		{"has:error has:warnings readonly", toolQuery{errors: true, warnings: true, readOnly: true}},
		{"rule:Hidden-Unicode is:destructive rule:", toolQuery{rules: []string{"hidden-unicode"}, destructive: true, words: []string{"rule:"}}},
		{strings.Repeat("a ", 200), toolQuery{words: strings.Fields(strings.Repeat("a ", maxToolQuery/2))}},
	}
	for _, c := range cases {
		got := parseToolQuery(c.q)
		if !equalQuery(got, c.want) {
			t.Errorf("parseToolQuery(%.40q) = %+v, want %+v", c.q, got, c.want)
		}
	}
}

func equalQuery(a, b toolQuery) bool {
	return strings.Join(a.words, "|") == strings.Join(b.words, "|") && strings.Join(a.rules, "|") == strings.Join(b.rules, "|") &&
		a.errors == b.errors && a.warnings == b.warnings && a.readOnly == b.readOnly && a.destructive == b.destructive
}

// FuzzToolQuery: any search parses into at most maxToolQuery bytes of valid, non-empty words.
func FuzzToolQuery(f *testing.F) {
	for _, s := range []string{"", "has:error rule:x", "ÄÖ readonly", strings.Repeat("é", 300), "\xff\xfe rule:\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		tq := parseToolQuery(q)
		n := 0
		for _, w := range append(append([]string(nil), tq.words...), tq.rules...) {
			if w == "" || !utf8.ValidString(w) && utf8.ValidString(q) {
				t.Fatalf("word %q from %q", w, q)
			}
			n += len(w)
		}
		if n > maxToolQuery {
			t.Fatalf("%d bytes of words from a %d-byte query", n, len(q))
		}
	})
}
