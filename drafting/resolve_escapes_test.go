package drafting

import (
	"strings"
	"testing"
)

// resolveEscapes resolves the escapes that can spell a key (\uXXXX, surrogate pairs, \/) and
// keeps every other escape, and anything malformed, as written.
func TestResolveEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`\u0073k-a\/b`, `sk-a/b`},
		{`\\u0073`, `\\u0073`},
		{`a\"b\nc`, `a\"b\nc`},
		{`\ud83d\ude00!`, "\U0001F600!"},
		{`\ud83d lone`, "\uFFFD lone"},
		{`\u00zz \u12`, `\u00zz \u12`},
		{`end\`, `end\`},
	} {
		if got := resolveEscapes(tc.in); got != tc.want {
			t.Errorf("resolveEscapes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever the text, resolving never makes it longer and leaves a text without a backslash
// as it is.
func FuzzResolveEscapes(f *testing.F) {
	for _, s := range []string{`\u0073k-a\/b`, `\ud83d\ude00`, `\\u0073`, `\u`, `x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := resolveEscapes(s)
		if len(got) > len(s) {
			t.Errorf("resolveEscapes(%q) = %q, longer", s, got)
		}
		if !strings.Contains(s, `\`) && got != s {
			t.Errorf("resolveEscapes(%q) = %q, changed a text without escapes", s, got)
		}
	})
}
