package lint

import (
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
)

// compactLen returns len(listing.Marshal(v, "")) without encoding v: the default token estimate
// (ApproxTokens) needs only the length of a tool's compact JSON, and building the text was the
// largest allocation of linting a tool. It follows listing's encoder byte for byte; a test
// holds the two together.
func compactLen(v *listing.Value) int {
	if v == nil {
		return len("null")
	}
	switch v.Kind {
	case listing.Null:
		return len("null")
	case listing.Bool:
		if v.Bool {
			return len("true")
		}
		return len("false")
	case listing.Number:
		return len(v.Str)
	case listing.String:
		return quotedLen(v.Str)
	case listing.Array:
		if len(v.Items) == 0 {
			return 2
		}
		n := 2 + len(v.Items) - 1
		for _, it := range v.Items {
			n += compactLen(it)
		}
		return n
	case listing.Object:
		if len(v.Members) == 0 {
			return 2
		}
		n := 2 + len(v.Members) - 1
		for _, m := range v.Members {
			n += quotedLen(m.Key) + 1 + compactLen(m.Value)
		}
		return n
	}
	return 0
}

// quotedLen is the length of s as listing writes a JSON string without ensure_ascii: quotes and
// backslashes and the short control escapes take two bytes, other control characters and lone
// surrogates (kept in WTF-8) a six-byte \u escape, everything else its own bytes.
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				n++
			case c == '"', c == '\\', c == '\n', c == '\r', c == '\t', c == '\b', c == '\f':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			n += 6
			i += 3
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n += size
		i += size
	}
	return n
}
