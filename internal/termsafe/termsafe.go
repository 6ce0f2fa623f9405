// Package termsafe escapes text bound for a terminal. Error messages and reports quote what a
// listing, a server or a model wrote, and any of them may be hostile: an escape sequence would
// act on the terminal, and a bidirectional override or an invisible character would hide text.
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape is s with every character strconv.IsPrint rejects written as Go quotes it (\x1b,
// \u202e), and a byte that is not UTF-8 as U+FFFD; printable text, non-ASCII letters included,
// stays as it is.
func Escape(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strconv.IsPrint(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		}
	}
	return b.String()
}
