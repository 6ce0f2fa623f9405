package runner

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A model's arguments are checked against the input schema within lint's bounds: a schema
// whose check could hang, a pattern that backtracks, or a number too large for exact arithmetic
// leave the call "not checked" (Valid nil) instead of stalling the run.
func TestArgsCheckBounded(t *testing.T) {
	hostile := func(name string) string {
		src, err := os.ReadFile(filepath.Join("..", "..", "internal", "hostile", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	tests := []struct {
		name, listing, tool, args, want string
	}{
		{"anyOf doubling", hostile("schema-anyof-doubling"), "schema_anyof_doubling", `{"x": 1}`, "units of work"},
		{"patternProperties fan-out", hostile("schema-patternprops-fanout"), "schema_patternprops_fanout",
			`{"x": ` + strings.Repeat(`{"a": `, 40) + `1` + strings.Repeat(`}`, 40) + `}`, "patternProperties"},
		{"catastrophic pattern", `{"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object",
			"properties": {"x": {"type": "array", "items": {"pattern": "^(?=a)(a+)+$"}}}}}]}`, "t",
			`{"x": [` + strings.Repeat(`"`+strings.Repeat("a", 30)+`!", `, 200) + `"a"]}`, "too long to match"},
		{"huge number", `{"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object",
			"properties": {"x": {"type": "number", "multipleOf": 0.7}}}}]}`, "t", `{"x": 7e999999}`, "exponent"},
		{"huge number in the schema", hostile("schema-huge-exponent"), "schema_huge_exponent", `{"x": 1}`, "too costly to check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newToolSet(mustListing(t, tt.listing))
			ac := ts.check(tt.tool, tt.args, nil, tt.tool)
			if !ac.JSON || ac.Valid != nil || len(ac.Problems) != 1 || !strings.Contains(ac.Problems[0], "not checked against the input schema") ||
				!strings.Contains(ac.Problems[0], tt.want) {
				t.Errorf("check = %+v, want not checked (%q)", ac, tt.want)
			}
		})
	}
}

// A failing check words the first failure, not the whole tree of causes.
func TestArgsCheckProblemIsShort(t *testing.T) {
	enum := `"v0"` + strings.Repeat(`, "v"`, 2000)
	ts := newToolSet(mustListing(t, `{"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object",
		"properties": {"x": {"type": "array", "items": {"enum": [`+enum+`]}}}}}]}`))
	ac := ts.check("t", `{"x": [`+strings.Repeat(`"no", `, 500)+`"no"]}`, nil, "t")
	if ac.Valid == nil || *ac.Valid || len(ac.Problems) != 1 || !strings.HasPrefix(ac.Problems[0], `the arguments do not match the input schema: at "/x/`) ||
		len(ac.Problems[0]) > 600 {
		t.Errorf("check = %+v, want one short problem", ac)
	}
}

// Calls are checked concurrently (one worker per concurrent request): the bounds and the
// patterns' budget are shared safely (run with -race).
func TestArgsCheckConcurrent(t *testing.T) {
	ts := newToolSet(mustListing(t, `{"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object",
		"properties": {"code": {"type": "string", "pattern": "^(?=.*[0-9])[a-z0-9]+$"}, "n": {"anyOf": [{"type": "integer"}, {"$dynamicRef": "#x"}]}},
		"$defs": {"x": {"$dynamicAnchor": "x", "type": "string"}}}}]}`))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				for args, want := range map[string]bool{`{"code": "abc1", "n": 1}`: true, `{"code": "abc", "n": "x"}`: false} {
					if ac := ts.check("t", args, nil, "t"); ac.Valid == nil || *ac.Valid != want {
						t.Errorf("%s: %+v, want valid %v", args, ac, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
