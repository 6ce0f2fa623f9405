package schema

import (
	"strings"
	"testing"
)

// Walk finds what must be refused before the schema library parses a document, and names the
// first place in key order, so that the same document always gets the same message.
func TestWalk(t *testing.T) {
	tests := []struct {
		name, doc string
		want      Walked
	}{
		{"plain", `{"type": "object", "properties": {"a": {"type": "string"}}}`, Walked{Depth: 3, Nodes: 5}},
		{"huge exponent", `{"b": {"maximum": 1e999}, "a": {"minimum": 1e401}}`,
			Walked{Depth: 2, Nodes: 5, HugeNumber: "/a/minimum", HugeWhy: "the number 1e401, whose exponent is beyond ±400 (a float64 reaches 1.8e308)"}},
		{"escaped pointer", `{"properties": {"a/b~c": {"minimum": 1e401}}}`,
			Walked{Depth: 3, Nodes: 4, HugeNumber: "/properties/a~1b~0c/minimum", HugeWhy: "the number 1e401, whose exponent is beyond ±400 (a float64 reaches 1.8e308)"}},
		{"too deep", `{"not": {"not": {"not": {}}}}`, Walked{Depth: 3, Nodes: 4, TooDeepAt: "/not/not/not"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxDepth := MaxDepth
			if tt.want.TooDeepAt != "" {
				maxDepth = 2
			}
			if got := Walk(mustValue(t, tt.doc), maxDepth); got != tt.want {
				t.Errorf("Walk = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// CompileTrusted compiles the workbench's own schemas with the same settings as a listing's,
// refusing references outside the document.
func TestCompileTrusted(t *testing.T) {
	s, err := CompileTrusted("urn:test:one", mustValue(t, `{"type": "object", "required": ["task"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(mustValue(t, `{}`)); err == nil || !strings.Contains(ValidationSummary(err), "task") {
		t.Errorf("validating {}: %v, want a missing task", err)
	}
	_, err = CompileTrusted("urn:test:two", mustValue(t, `{"$ref": "https://example.com/s.json"}`))
	// The library words the loader's error without wrapping it.
	if err == nil || !strings.Contains(err.Error(), ErrRefused.Error()) {
		t.Errorf("an external $ref: %v, want ErrRefused", err)
	}
}
