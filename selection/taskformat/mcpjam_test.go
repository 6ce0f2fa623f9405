package taskformat

import (
	"strings"
	"testing"
)

// jamSuite wraps cases in a suite file's required members.
func jamSuite(cases string) string {
	return `{"schemaVersion": "1", "mode": "agentWorkflow", "reportingMode": "standard",
 "suite": {"id": "s_t", "name": "t"}, "target": {"servers": [{"name": "srv"}]},
 "defaults": {"model": "m", "repetitions": 1, "passThreshold": 1, "validity": {}},
 "cases": [` + cases + `]}`
}

// The case-level losses (Case >= 0) each suite file says, by field, and the case read.
func TestMCPJamReadLosses(t *testing.T) {
	fileFields := "suite.id suite.name target.servers defaults.model defaults.repetitions defaults.passThreshold"
	tests := []struct {
		name, cases string
		want        string // the case's parts as casesJSON would not show at a glance
		fields      string // the fields of the case-level losses, in order
	}{
		{"plain", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"},
			{"id": "a", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "x"}}]}`,
			"expect=[x] reject=[] none=false", ""},
		{"exact arguments", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"},
			{"id": "a", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "x", "args": {"args": {"k": 1}, "argumentMatching": "exact"}, "minCount": 2}}]}`,
			`expect=[x{"k":1}] reject=[] none=false`, "steps[1].assertion steps[1].assertion.minCount"},
		{"ignored arguments", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"},
			{"id": "a", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "x", "args": {"args": {"k": 1}, "argumentMatching": "ignore"}}}]}`,
			"expect=[x] reject=[] none=false", ""},
		{"first tool goes first", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"}],
			"assertions": [{"type": "toolCalledAtLeastOnce", "toolName": "y"}, {"type": "firstToolWas", "toolName": "x"}, {"type": "toolNeverCalled", "toolName": "z"}]}`,
			"expect=[x y] reject=[z] none=false", ""},
		{"negative", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"}], "isNegativeTest": true}`,
			"expect=[] reject=[] none=true", ""},
		{"negative that expects", `{"id": "c1", "title": "t", "isNegativeTest": true, "steps": [{"id": "s", "kind": "prompt", "prompt": "q"},
			{"id": "a", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "x"}}]}`,
			"expect=[x] reject=[] none=false", "isNegativeTest"},
		{"everything else", `{"id": "c1", "title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "q"},
			{"id": "t", "kind": "toolCall", "serverName": "srv", "toolName": "x", "arguments": {}},
			{"id": "w", "kind": "assert", "assertion": {"kind": "textVisible", "text": "ok"}},
			{"id": "p", "kind": "prompt", "prompt": "and then?"}],
			"assertions": [{"type": "noToolErrors"}], "expectedOutput": "o", "model": "m2", "disabled": true}`,
			"expect=[] reject=[] none=false", "steps[1] steps[2].assertion steps[3] assertions[0] expectedOutput model disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, losses, err := mcpjam{}.Read([]byte(jamSuite(tt.cases)))
			if err != nil {
				t.Fatal(err)
			}
			if got := parts(cases[0]); got != tt.want {
				t.Errorf("read %s, want %s", got, tt.want)
			}
			var file, fields []string
			for _, l := range losses {
				if l.Case < 0 {
					file = append(file, l.Field)
				} else {
					fields = append(fields, l.Field)
				}
			}
			if got := strings.Join(file, " "); got != fileFields {
				t.Errorf("file losses %q, want %q", got, fileFields)
			}
			if got := strings.Join(fields, " "); got != tt.fields {
				t.Errorf("case losses %q, want %q", got, tt.fields)
			}
		})
	}
}

func TestMCPJamWriteLosses(t *testing.T) {
	long := strings.Repeat("é", 250)
	tests := []struct {
		name   string
		c      Case
		fields string // case-level loss fields
	}{
		{"carried", Case{ID: "c1", Title: "t", Query: "q", Expect: []Call{{Tool: "x"}, {Tool: "y"}}, Reject: []string{"z"}}, ""},
		{"any of", Case{ID: "c1", Query: "q", Expect: []Call{{Tool: "x"}, {Tool: "y"}}, AnyOf: true}, "expect"},
		{"tags", Case{ID: "c1", Query: "q", Tags: []string{"a"}}, "tags"},
		{"id not opaque", Case{ID: "refund one", Query: "q"}, "id"},
		{"long title", Case{ID: "c1", Title: long, Query: "q"}, "title"},
		{"long query, no title", Case{Query: long}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, losses, err := mcpjam{}.Write([]Case{tt.c})
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, l := range losses {
				if l.Case >= 0 {
					fields = append(fields, l.Field)
				}
			}
			if got := strings.Join(fields, " "); got != tt.fields {
				t.Errorf("losses %q, want %q", got, tt.fields)
			}
			back, _, err := mcpjam{}.Read(out)
			if err != nil {
				t.Fatalf("its own output does not read back: %v\n%s", err, out)
			}
			if back[0].Query != tt.c.Query {
				t.Errorf("query came back as %q", back[0].Query)
			}
			// A rewritten id stays as the title; anything else would be a title from nowhere.
			if tt.c.Title == "" && back[0].Title != "" && back[0].Title != tt.c.ID {
				t.Errorf("a title %q appeared from nowhere", back[0].Title)
			}
		})
	}
}

func TestMCPJamErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"version 2", `{"schemaVersion": "2", "mode": "agentWorkflow", "cases": []}`, `schemaVersion is "2"`},
		{"no cases", `{"schemaVersion": "1"}`, `without "cases"`},
		{"no prompt", jamSuite(`{"id": "c", "title": "t", "steps": [{"id": "a", "kind": "assert", "assertion": {"type": "noToolErrors"}}]}`), "no prompt step"},
		{"legacy without query", `[{"title": "t", "expectedToolCalls": ["x"]}]`, `string "query"`},
		{"legacy tools not a list", `[{"query": "q", "expectedToolCalls": "x"}]`, "must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := mcpjam{}.Read([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	if _, _, err := (mcpjam{}).Write(nil); err == nil {
		t.Error("wrote a suite file without cases, which MCPJam refuses")
	}
}
