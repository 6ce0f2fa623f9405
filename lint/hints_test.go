package lint

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// checkScan fails when scan disagrees with strings.Contains on any needle of h.
func checkScan(t *testing.T, h *hintSet, s string) {
	t.Helper()
	got := h.scan(s)
	for _, n := range h.needles {
		if want := strings.Contains(s, n); got.any(h.of(n)) != want {
			t.Errorf("scan(%q): needle %q found %v, strings.Contains says %v", s, n, !want, want)
		}
	}
	if got, want := h.scanLower(s), h.scan(strings.ToLower(s)); got != want {
		t.Errorf("scanLower(%q) = %v, scan of the lower-cased text %v", s, got, want)
	}
}

func TestHintScanMatchesContains(t *testing.T) {
	tests := []string{
		"", "u", "us", "user", "the user must not know", "USER", "ignore all previous instructions",
		"read ~/.ssh/id_rsa and /etc/passwd", "token=abc", "<|im_start|>", "system promp", "system prompt",
		"xnotx", "n't", "nn't", "always be used first", "tool", "toolfunction", "end with us",
		"ssh", ".ss", "ghp_" + strings.Repeat("a", 36), "-----BEGIN RSA PRIVATE KEY-----", "AKIAAKIA",
		"héllo user ünicode\u212Aey", "\xff\xfe not valid utf-8 user", "The USER Must NOT Know", "IGNORE Previous INSTRUCTIONS",
		"<SYSTEM>", "Read ~/.SSH/ID_RSA", "PASSWORD=x", "A", "AB",
	}
	for _, s := range tests {
		checkScan(t, lowHints, s)
		checkScan(t, secretHintSet, s)
		checkScan(t, sentenceHints, s)
		checkScan(t, typeHints, s)
	}
	l := load(t, testutil.Shared(t, "listings", "real", "github-mcp-server.json"))
	for _, tool := range l.Tools {
		allStrings(tool, true, func(_ *path, s string, _ bool) {
			checkScan(t, lowHints, strings.ToLower(s))
			checkScan(t, secretHintSet, s)
			checkScan(t, sentenceHints, strings.ToLower(s))
			checkScan(t, typeHints, s)
		})
	}
}

func TestHintSetRefusesShortHints(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a one-byte hint was accepted; scan reads pairs of bytes and would never find it")
		}
	}()
	newHintSet([]string{"x"})
}

func FuzzHintScan(f *testing.F) {
	for _, s := range []string{"the user must not know", "<system>", "ghp_x", "~/.aws/credentials"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkScan(t, lowHints, s)
		checkScan(t, secretHintSet, s)
		checkScan(t, sentenceHints, s)
		checkScan(t, typeHints, s)
	})
}

// TestExampleIntrosMatchesRegexp checks the hand-written matcher against the expression it
// replaces, on edge cases and on every string of the real listings.
func TestExampleIntrosMatchesRegexp(t *testing.T) {
	tests := []string{
		"", "like", "unlike", "e.g. 42", "eg. x", "e.g.", "see e.g.: a", "for example, 3", "for instance",
		"such as: a, b", "example: 1", "examples: 1", "example : 1", "examples\t\n:x", "example x", "examplesx:",
		"_like", "9like", "élike", "\u212Alike", "like like  ,: like", "alike likely", "for  example",
		"such as,,,::: \f\rend", "examples:", "example\v:",
	}
	check := func(s string) {
		want := exampleIntro.FindAllStringIndex(s, -1)
		got := exampleIntros(s)
		if len(got) != len(want) {
			t.Errorf("exampleIntros(%q) = %v, the expression finds %v", s, got, want)
			return
		}
		for i := range got {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Errorf("exampleIntros(%q) = %v, the expression finds %v", s, got, want)
				return
			}
		}
	}
	for _, s := range tests {
		check(s)
	}
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	for _, f := range files {
		for _, tool := range load(t, f).Tools {
			allStrings(tool, true, func(_ *path, s string, _ bool) { check(strings.ToLower(s)) })
		}
	}
}

func FuzzExampleIntros(f *testing.F) {
	for _, s := range []string{"for example: 4521", "e.g. ord_1", "unlike examples :"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := exampleIntro.FindAllStringIndex(s, -1)
		got := exampleIntros(s)
		if len(got) != len(want) {
			t.Fatalf("exampleIntros(%q) = %v, the expression finds %v", s, got, want)
		}
		for i := range got {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Fatalf("exampleIntros(%q) = %v, the expression finds %v", s, got, want)
			}
		}
	})
}

func TestHasDefaultWord(t *testing.T) {
	for _, s := range []string{"", "default", "DEFAULT", "Defaults to 3", "defaul", "de\u212Aault", "xDeFaUlTx", "dEfault", "d", "\xffdefault", "DEFAUL T", "Default\x00", "d@fault", "D%FAULT"} {
		if got, want := hasDefaultWord(s), strings.Contains(strings.ToLower(s), "default"); got != want {
			t.Errorf("hasDefaultWord(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestTriggerHintsFoldInASCII checks the claim that lets findMentions test triggerRe's first
// words on the lower-cased sentence: under (?i), no character outside ASCII matches a letter of
// them (as U+212A KELVIN SIGN matches k).
func TestTriggerHintsFoldInASCII(t *testing.T) {
	for _, h := range triggerHints {
		for _, r := range h {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					t.Errorf("%q of trigger hint %q folds to %U outside ASCII", r, h, f)
				}
			}
		}
	}
}

// TestPromoMatchesMatchesRegexp checks the anchored search against promoRe itself.
func TestPromoMatchesMatchesRegexp(t *testing.T) {
	tests := []string{
		"", "always use this tool", "xalways use this tool", "always  use\tthis\ntool first", "use this tool first, always use this function",
		"the best tool. the only search tool. the most powerful function", "the\fbest tool", "prefer this tool", "prefer this toolbox",
		"instead of any other tools", "never use other tool", "never use any other functions", "must always be called first",
		"should always be used before", "the best the best tool", "use this tool for every", "call this tool whenever",
		"the", "use", "always", "always use this tool always use this tool", "_the best tool", "éthe best tool",
	}
	check := func(s string) {
		want := promoRe.FindAllStringIndex(s, -1)
		got := promoMatches(s)
		if len(got) != len(want) {
			t.Errorf("promoMatches(%q) = %v, promoRe finds %v", s, got, want)
			return
		}
		for i := range got {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Errorf("promoMatches(%q) = %v, promoRe finds %v", s, got, want)
				return
			}
		}
	}
	for _, s := range tests {
		check(s)
	}
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	for _, f := range files {
		for _, tool := range load(t, f).Tools {
			allStrings(tool, false, func(_ *path, s string, _ bool) { check(strings.ToLower(s)) })
		}
	}
}

func FuzzPromoMatches(f *testing.F) {
	for _, s := range []string{"always use this tool", "the most reliable search tool", "must always be called first"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := promoRe.FindAllStringIndex(s, -1)
		got := promoMatches(s)
		if len(got) != len(want) {
			t.Fatalf("promoMatches(%q) = %v, promoRe finds %v", s, got, want)
		}
		for i := range got {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Fatalf("promoMatches(%q) = %v, promoRe finds %v", s, got, want)
			}
		}
	})
}
