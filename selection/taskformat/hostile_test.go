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

// The formats that read YAML, and so every bound of the one YAML reader.
var yamlFormats = []string{Promptfoo, MCPJam, MCPChecker, MCPTest}

// TestHostileYAML: hostile YAML and JSON fail fast, in every format that reads them, with a
// message saying what bound it broke; none may hang or take memory in proportion to what the
// aliases expand to.
func TestHostileYAML(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	oneDoc := []string{Promptfoo, MCPJam, MCPTest}
	tests := []struct {
		name, src, want string
		formats         []string // yamlFormats when nil
	}{
		{"alias bomb", aliasBomb(9), "expands to more than", nil},
		{"alias bomb over documents", strings.Repeat(aliasBomb(5)+"---\n", 20), "expands to more than", nil},
		{"self alias", "a: &a [1, *a]\n", "", nil},
		{"deep JSON", `{"prompts": ["{{q}}"], "tests": ` + deep + `, "query": 1}`, "deeper than", append(yamlFormats, MCPTef)},
		{"deep flow YAML", "prompts: ['{{q}}']\ntests: " + deep + "\n", "deeper than", nil},
		{"deep block YAML", "tests:\n  " + strings.Repeat("- ", 100) + "x\nprompts: ['{{q}}']\n", "deeper than", nil},
		{"deep mappings", strings.Repeat("{a: ", 150) + "1" + strings.Repeat("}", 150), "deeper than", nil},
		{"huge YAML", "tests: [" + strings.Repeat("x", MaxYAMLSource) + "]", "YAML task files are read up to", nil},
		{"huge", strings.Repeat(" ", MaxSource+1), "read up to", append(yamlFormats, MCPTef)},
		{"two documents", "tests: []\n---\ntests: []\n", "2 YAML documents", oneDoc},
		{"empty", "", "empty", oneDoc},
		{"not UTF-8", "tests: [\xff]", "utf-8", append(yamlFormats, MCPTef)},
		{"key is a mapping", "? {a: 1}\n: b\n", "keys must be plain strings", nil},
		{"key is an alias", "a: &k x\n*k : b\n", "keys must be plain strings", nil},
		{"not YAML", "a: [1, 2\n", "does not parse", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			formats := tt.formats
			if formats == nil {
				formats = yamlFormats
			}
			for _, name := range formats {
				_, _, err := registry[name].Read([]byte(tt.src))
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: error %v, want one saying %q", name, err, tt.want)
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
