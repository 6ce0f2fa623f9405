package lint

import "unicode/utf8"

// clipSize bounds the user text a finding repeats (a name in its Tool and Message, a phrase): a
// listing may hold a name of megabytes, and every finding that repeated it would multiply it.
// Valid tool names have at most 128 bytes, so only names name-spec already fails are cut.
const clipSize = 160

// clip returns s, or its first clipSize bytes cut at a character boundary and marked with "…".
func clip(s string) string { return clipN(s, clipSize) }

// clipN is clip with a bound of n bytes.
func clipN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Clip is clip for the engine, which names tools in the findings it builds from the
// reference's lines and the ranker's verdicts.
func Clip(s string) string { return clip(s) }

// ClipN is clipN for the pages, which show other bounded texts (a task file's losses).
func ClipN(s string, n int) string { return clipN(s, n) }
