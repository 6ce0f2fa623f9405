package views

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSplitMessage(t *testing.T) {
	// The near-duplicate rule's two shapes: every pair (GitHub's 117 tools), and past 2,000 pairs
	// groups of tools followed by advice (the benchmark's 2,000 tools).
	var pairs []string
	for i := range 98 {
		pairs = append(pairs, fmt.Sprintf("tool_%d and tool_%d (5%d%%)", i, i+1, i%10))
	}
	groups := []string{"a_0, b_1 and 1578 more (1584 tools, 2871 pairs, 50% to 68% of their words shared)",
		"c, d, e (3 tools, 2 pairs, 50% to 52% of their words shared)", "f, g (2 tools, 1 pairs, 50% of their words shared)",
		"and 39 more groups"}
	long := strings.Repeat("word ", 80)
	cases := []struct {
		name, msg string
		want      MessageParts
	}{
		{"short", "7 words, fewer than 8", MessageParts{Head: "7 words, fewer than 8"}},
		{"pairs", "descriptions that share most of their words: " + strings.Join(pairs, "; "),
			MessageParts{Head: "descriptions that share most of their words", Items: pairs}},
		{"groups", "descriptions that share most of their words: 2941 pairs, too many to list one by one, in 49 groups: " +
			strings.Join(groups, "; ") + "; say in each description what sets its tool apart",
			MessageParts{Head: "descriptions that share most of their words: 2941 pairs, too many to list one by one, in 49 groups",
				Items: groups, Tail: "say in each description what sets its tool apart"}},
		// Two clauses of advice are not a list, and at 211 characters not cut either.
		{"two clauses", "no behaviour hints: a careful host assumes destructive, open_world and asks for consent before every call; set readOnlyHint (and for a tool that changes things destructiveHint, idempotentHint), and openWorldHint",
			MessageParts{Head: "no behaviour hints: a careful host assumes destructive, open_world and asks for consent before every call; set readOnlyHint (and for a tool that changes things destructiveHint, idempotentHint), and openWorldHint"}},
		{"long text", long, MessageParts{Head: long[:139], Rest: long[139:]}},
		{"one long word", strings.Repeat("é", 400), MessageParts{Head: strings.Repeat("é", 140), Rest: strings.Repeat("é", 260)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SplitMessage(c.msg)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("SplitMessage(%.80q…)\n got %+v\nwant %+v", c.msg, got, c.want)
			}
			if whole := got.Head + got.Rest; got.Items == nil && whole != c.msg {
				t.Errorf("head and rest are %q, not the message", whole)
			}
		})
	}
}

func TestGotoExpr(t *testing.T) {
	cases := []struct {
		rule, want string
	}{
		{"hidden-unicode", "$tool = 3; @post('/w/ab/select?focus=f-desc&at=hidden&g=7')"},
		{"description", "$tool = 3; @post('/w/ab/select?focus=f-desc&g=7')"},
	}
	for _, c := range cases {
		if got := gotoExpr("ab", FindingItem{Rule: c.rule, Tool: 3, Field: "f-desc"}, 7); got != c.want {
			t.Errorf("gotoExpr(%s) = %q, want %q", c.rule, got, c.want)
		}
	}
}
