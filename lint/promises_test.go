package lint

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPromisesShapeIsTheExpression: promisesShape answers as returnsShape.MatchString does, on
// random text from the pieces that matter (the words, case, dots, spaces, word characters
// around them, and the characters (?i) folds to s and k).
func TestPromisesShapeIsTheExpression(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	atoms := []string{"return", "Return", "RETURNS", "returns", "returnſ", "json", "JSON", "object", "record", "dictionary", "field", "fields", "fieldſ",
		"keys", "\u212aeys", "properties", "structured", " ", " ", " ", ".", "x", "_", "1", "é", "ſ", "an", "the ", strings.Repeat("a", 30), ",", "\n"}
	matched := 0
	for n := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		s := b.String()
		got, want := promisesShape(s), returnsShape.MatchString(s)
		if got != want {
			t.Fatalf("case %d %q: promisesShape %v, the expression %v", n, s, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 500 || matched > 19500 {
		t.Errorf("%d of 20000 texts match: the cases do not exercise both answers", matched)
	}
}

// tagsByExpression is tags as it was written with tagRe, the expression tagAt follows.
func tagsByExpression(s string) []string {
	if !strings.Contains(s, "<") {
		return nil
	}
	ms := tagRe.FindAllStringSubmatch(s, -1)
	closes := map[string]bool{}
	for _, m := range ms {
		if m[1] == "/" {
			closes[strings.ToLower(m[2])] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		n := strings.ToLower(m[2])
		if seen[n] || injectionTags[n] {
			continue
		}
		if htmlTags[n] || closes[n] || m[4] == "/" {
			seen[n] = true
			out = append(out, "<"+m[2]+">")
		}
	}
	return out
}

// TestTagsIsTheExpression: tags finds what the expression found, on random markup.
func TestTagsIsTheExpression(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	atoms := []string{"<", ">", "/", "b", "B", "note", "x-1", "br", " ", "\t", "\n", "=", "\"", "a", "important", "1", "<<", "/>", "é", "_"}
	found := 0
	for n := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(16) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		s := b.String()
		got, want := strings.Join(tags(s), ","), strings.Join(tagsByExpression(s), ",")
		if got != want {
			t.Fatalf("case %d %q: tags %q, the expression %q", n, s, got, want)
		}
		if want != "" {
			found++
		}
	}
	if found < 500 {
		t.Errorf("only %d of 20000 texts hold tags", found)
	}
}
