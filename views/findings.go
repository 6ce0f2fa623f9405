package views

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A finding's message is one line of text, which for some rules runs long: the near-duplicate
// rule lists every pair of look-alike tools (98 of them on GitHub's server, 5,100 characters),
// or at 2,000 tools its groups. The panel shows such a message as a one-line summary with the
// rest behind a disclosure (MessageParts).
const (
	listMessage  = 200 // runes past which a message of ";"-separated items shows as a list
	longMessage  = 320 // runes past which any other message is cut at a word
	summaryRunes = 140
)

// MessageParts is a finding's message laid out for reading. A short message is Head alone. A
// long list ("head: item; item; …; advice") is Head, its Items and the advice after them (Tail).
// Any other long message is Head (its start, cut at a word) and Rest.
type MessageParts struct {
	Head  string
	Items []string
	Tail  string
	Rest  string
}

// SplitMessage lays out a finding's message (see MessageParts).
func SplitMessage(m string) MessageParts {
	n := utf8.RuneCountInString(m)
	if n <= listMessage {
		return MessageParts{Head: m}
	}
	if parts := strings.Split(m, "; "); len(parts) >= 4 {
		if i := strings.LastIndex(parts[0], ": "); i > 0 {
			p := MessageParts{Head: parts[0][:i], Items: append([]string{parts[0][i+2:]}, parts[1:]...)}
			// Advice after the list reads unlike its items, which end with their figures in
			// parentheses ("a and b (57%)"), and unlike the count of those left out ("and 39
			// more groups"): it stays in view.
			last := p.Items[len(p.Items)-1]
			if strings.HasSuffix(p.Items[0], ")") && !strings.HasSuffix(last, ")") && !strings.HasPrefix(last, "and ") {
				p.Tail, p.Items = last, p.Items[:len(p.Items)-1]
			}
			return p
		}
	}
	if n <= longMessage {
		return MessageParts{Head: m}
	}
	cut := wordCut(m, summaryRunes)
	return MessageParts{Head: m[:cut], Rest: m[cut:]}
}

// wordCut is the byte offset of the last space within the first n runes of s (or of the n-th
// rune, when those hold no space).
func wordCut(s string, n int) int {
	end, space := len(s), -1
	for i := range s {
		if n == 0 {
			end = i
			break
		}
		n--
		if s[i] == ' ' {
			space = i
		}
	}
	if space > 0 {
		return space
	}
	return end
}

// moreItems says how many items a list message holds past its first.
func moreItems(p MessageParts) string {
	return fmt.Sprintf("and %d more", len(p.Items)-1)
}

// gotoExpr is a finding's "Go to field": it selects the finding's tool and focuses the field; for
// hidden characters it also selects the first one there (marks.js, through FocusHidden), so that
// Delete removes it.
func gotoExpr(ws string, it FindingItem, g int) string {
	if it.Rule == "hidden-unicode" {
		return fmt.Sprintf("$tool = %d; @post('%s?focus=%s&at=hidden&g=%d')", it.Tool, wsURL(ws, "select"), it.Field, g)
	}
	return selectExpr(ws, it.Tool, it.Field, g)
}

// lastGroupTool is the index of the last tool the panel lists findings of (-1 for none): a tool
// past it may have findings the panel leaves out.
func lastGroupTool(f Findings) int {
	last := -1
	for _, g := range f.Groups {
		last = max(last, g.Tool)
	}
	return last
}
