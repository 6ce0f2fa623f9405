package termsafe

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"esc \x1b[31mred", `esc \x1b[31mred`},
		{"bidi \u202e", `bidi \u202e`},
		{"line\nbreak\ttab", `line\nbreak\ttab`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"é ✓", "é ✓"},
		{"bad \xff byte", "bad \ufffd byte"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
