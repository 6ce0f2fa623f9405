package taskformat

import (
	"fmt"
	"strings"
	"testing"
)

// aliasBomb is the billion-laughs shape: each level repeats the one before nine times.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	fmt.Fprintf(&b, "prompts: ['{{query}}']\ntests: *a%d\n", levels)
	return b.String()
}

// Hostile YAML fails fast with a message saying what bound it broke; none of these may hang
// or take memory in proportion to what the aliases expand to.
func TestHostileYAML(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	deepYAML := "tests:\n" + strings.Repeat("  ", 1) + strings.Repeat("- ", 100) + "x\nprompts: ['{{q}}']\n"
	tests := []struct{ name, src, want string }{
		{"alias bomb", aliasBomb(9), "expands to more than"},
		{"deep JSON", `{"prompts": ["{{q}}"], "tests": ` + deep + `}`, "levels deep"},
		{"deep flow YAML", "prompts: ['{{q}}']\ntests: " + deep + "\n", "levels deep"},
		{"deep block YAML", deepYAML, "levels deep"},
		{"huge", "tests: [" + strings.Repeat("x", MaxYAMLSource) + "]", "YAML task files are read up to"},
		{"two documents", "tests: []\n---\ntests: []\n", "several YAML documents"},
		{"empty", "", "empty"},
		{"not UTF-8", "tests: [\xff]", "utf-8"},
		{"key is a mapping", "? {a: 1}\n: b\n", "keys must be plain strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []Format{promptfoo{}, mcpjam{}} {
				_, _, err := f.Read([]byte(tt.src))
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: error %v, want one saying %q", f.Name(), err, tt.want)
				}
			}
		})
	}
}

// A merge key brings an anchored mapping's members in; the explicit ones after it win.
func TestYAMLMerge(t *testing.T) {
	src := "base: &b {vars: {query: from base}, metadata: {id: one}}\nprompts: ['{{query}}']\ntests:\n  - <<: *b\n    metadata: {id: two}\n"
	cases, _, err := promptfoo{}.Read([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c := cases[0]; c.Query != "from base" || c.ID != "two" {
		t.Errorf("read %+v; want the merged query and the explicit id", c)
	}
}
