// Package words splits the text of tool definitions and tasks into the word parts that the
// reference checker compares: ASCII runs split at camelCase, acronyms, digits and separators,
// lower-cased, with a plural "s" folded. The lint rules and the word-overlap ranker share it.
package words

import "cmp"

// Stop words carry no meaning for tool choice.
var Stop = set("a an the of to in on for and or is are be it this that with by from as at when you your use " +
	"used using into any all not no if then than can will which what who whom i me my we our")

// Generic words name no object: a tool named only with them never says what it works on.
var Generic = set("get fetch query run do execute data info information tool process handle search find list " +
	"update delete create read write call action item thing stuff object result record manage")

// WriteVerbs and ReadVerbs are the verbs from which the reference infers a tool's annotations.
var (
	WriteVerbs = set("create update delete remove drop send write set add post put patch cancel close publish " +
		"deploy insert upload reset clear edit rename move run execute")
	ReadVerbs = set("get list search find read fetch query lookup show view describe check")
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				m[s[start:i]] = true
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return m
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Tokens returns the lower-case word parts of text in order, stop words included.
func Tokens(text string) []string {
	var out []string
	Each(text, func(t string) { out = append(out, t) })
	return out
}

// Each calls f with every word part of text in order, as Tokens would return them.
func Each(text string, f func(string)) {
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if !isUpper(c) && !isLower(c) && !isDigit(c) {
			i++
			continue
		}
		j := i
		for j < n && (isUpper(text[j]) || isLower(text[j]) || isDigit(text[j])) {
			j++
		}
		parts(text[i:j], f)
		i = j
	}
}

// parts splits one alphanumeric run as the regular expression
// [A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+ does: an acronym stops before the capital that starts a
// word ("HTTPServer" gives "http", "server").
func parts(run string, f func(string)) {
	n := len(run)
	for i := 0; i < n; {
		c := run[i]
		var j int
		switch {
		case isDigit(c):
			j = i + 1
			for j < n && isDigit(run[j]) {
				j++
			}
		case isUpper(c):
			j = i + 1
			for j < n && isUpper(run[j]) {
				j++
			}
			// Back off while the next character is lower case; one capital followed by
			// lower case is a capitalised word instead.
			for j > i && j < n && isLower(run[j]) {
				j--
			}
			if j == i {
				j = i + 1
				for j < n && isLower(run[j]) {
					j++
				}
			}
		default:
			j = i + 1
			for j < n && isLower(run[j]) {
				j++
			}
		}
		f(fold(run[i:j]))
		i = j
	}
}

// fold lower-cases a part and folds a plural s (not "ss", not a stop word, longer than 3).
func fold(p string) string {
	t := p
	for k := 0; k < len(p); k++ {
		if isUpper(p[k]) {
			b := []byte(p)
			for j := k; j < len(b); j++ {
				if isUpper(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			t = string(b)
			break
		}
	}
	if !Stop[t] && len(t) > 3 && t[len(t)-1] == 's' && t[len(t)-2] != 's' {
		t = t[:len(t)-1]
	}
	return t
}

// Content returns the set of word parts of text that are not stop words.
func Content(text string) map[string]bool {
	m := map[string]bool{}
	Each(text, func(t string) {
		if !Stop[t] {
			m[t] = true
		}
	})
	return m
}

// Overlap counts the elements two sorted lists of distinct elements share, in one merge: the
// near-duplicate search compares word-id sets with it, the sibling rule word lists.
func Overlap[T cmp.Ordered](a, b []T) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}
