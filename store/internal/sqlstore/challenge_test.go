package sqlstore

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

func TestNewCode(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 2000 {
		c := newCode()
		if len(c) != store.CodeLength || strings.Trim(c, store.CodeAlphabet) != "" {
			t.Fatalf("newCode() = %q, not %d characters of %s", c, store.CodeLength, store.CodeAlphabet)
		}
		if got, ok := normalCode(c); !ok || got != c {
			t.Fatalf("normalCode(%q) = %q, %v", c, got, ok)
		}
		seen[c] = true
		for _, r := range c {
			counts[r]++
		}
	}
	// 2000 draws from 31^6 codes repeat with a chance of about 1 in 450.
	if len(seen) < 1998 {
		t.Errorf("2000 codes held %d distinct ones", len(seen))
	}
	// Every letter of the alphabet turns up (each is expected about 390 times in 12000).
	for _, r := range store.CodeAlphabet {
		if counts[r] < 200 {
			t.Errorf("%c came %d times in 12000 characters", r, counts[r])
		}
	}
}

func TestNormalCode(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"AB3DEF", "AB3DEF"}, {"ab3def", "AB3DEF"}, {"  ab3-def\n", "AB3DEF"}, {"AB3 DEF", "AB3DEF"}, {"a-b3def", "AB3DEF"},
		{"", ""}, {"AB3DE", ""}, {"AB3DEFG", ""}, {"-AB3DEF", ""}, {"AB3DEF-", ""}, {"AB-3D-EF", ""}, {"AB--3DEF", ""},
		{"AB0DEF", ""}, {"ABODEF", ""}, {"AB1DEF", ""}, {"ABIDEF", ""}, {"ABLDEF", ""}, {"AB3DÉF", ""}, {"ſſſſſſ", ""}, {"AB3DE\x00", ""},
	} {
		got, ok := normalCode(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("normalCode(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzNormalCode: whatever is typed, a code read is CodeLength characters of the alphabet,
// the typed text without its spaces and dash, and reads as itself.
func FuzzNormalCode(f *testing.F) {
	for _, s := range []string{"AB3DEF", " ab3-def ", "AB--3DEF", "ſſſſſſ", "AB3DÉF", "-AB3DEF", "\u00a0AB3DEF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := normalCode(in)
		if !ok {
			if got != "" {
				t.Errorf("normalCode(%q) = %q, false", in, got)
			}
			return
		}
		if len(got) != store.CodeLength || strings.Trim(got, store.CodeAlphabet) != "" {
			t.Fatalf("normalCode(%q) = %q, not a code", in, got)
		}
		if again, ok := normalCode(got); !ok || again != got {
			t.Errorf("normalCode(%q) = %q, %v; want it unchanged", got, again, ok)
		}
		if typed := strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(in))); typed != got {
			t.Errorf("normalCode(%q) = %q; the typed text reads %q", in, got, typed)
		}
	})
}
