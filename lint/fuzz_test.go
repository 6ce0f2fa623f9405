package lint

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// FuzzSchema lints a tool whose inputSchema and outputSchema are the fuzzer's JSON. Whatever
// the schema, linting ends (the fuzzer's per-input timeout catches a hang), does not panic or
// overflow the stack, and reports a deep or cyclic schema as a finding.
func FuzzSchema(f *testing.F) {
	f.Add(`{"type": "object", "properties": {"a": {"type": "string", "default": 3}}}`)
	f.Add(`{"$ref": "#"}`)
	f.Add(`{"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"x": {"$ref": "#/$defs/a", "default": 1}}}`)
	f.Add(`{"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:1/x.json"}}}`)
	f.Add(`{"$schema": "https://example.com/meta", "type": "object"}`)
	f.Add(`{"type": "object", "properties": {"x": {"pattern": "(a+)+$", "default": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}}}`)
	f.Add(`{"type": "object", "properties": {"x": {"pattern": "(?<=a)b", "enum": ["b", "ab"]}}}`)
	f.Add(`{"type": "object", "properties": {"x": {"type": "number", "default": 1e400, "minimum": NaN}}}`)
	f.Add(strings.Repeat(`{"items": `, 200) + `{}` + strings.Repeat(`}`, 200))
	f.Add(strings.Repeat(`{"allOf": [`, 60) + `{"$ref": "#"}` + strings.Repeat(`]}`, 60))
	f.Fuzz(func(t *testing.T, schema string) {
		v, err := listing.ParseJSON([]byte(schema))
		if err != nil {
			return
		}
		tool := listing.NewObject(
			listing.Member{Key: "name", Value: listing.NewString("t"), KeyPos: -1},
			listing.Member{Key: "description", Value: listing.NewString("A tool to fuzz."), KeyPos: -1},
			listing.Member{Key: "inputSchema", Value: v, KeyPos: -1},
			listing.Member{Key: "outputSchema", Value: v, KeyPos: -1},
		)
		l := &listing.Listing{Tools: []*listing.Value{tool}}
		fs := New(Config{}).Lint(l)
		for _, f := range fs {
			if Lookup(f.Rule) == nil || f.Message == "" || !strings.HasPrefix(f.Pointer, "/tools") {
				t.Fatalf("malformed finding %+v", f)
			}
		}
		if depth(v) > DefaultMaxSchemaDepth+1 && !has(fs, "schema-limit") {
			t.Fatalf("a schema %d deep has no schema-limit finding", depth(v))
		}
	})
}

func depth(v *listing.Value) int {
	d := 0
	for _, it := range v.Items {
		d = max(d, depth(it))
	}
	for _, m := range v.Members {
		d = max(d, depth(m.Value))
	}
	if v.Kind == listing.Array || v.Kind == listing.Object {
		return d + 1
	}
	return d
}

// FuzzIgnores reads ignore files and baselines: any input gives entries or an error, never a panic.
func FuzzIgnores(f *testing.F) {
	f.Add(`[{"rule": "hidden-unicode", "tool": "a", "pointer": "/tools/*/description", "reason": "x"}]`)
	f.Add(`{"findings": [{"rule": "x", "tool": "a", "pointer": "/tools/0", "message": "m"}]}`)
	f.Add(`[{"rule": "*", "reason": ""}]`)
	f.Fuzz(func(t *testing.T, src string) {
		if igs, err := ParseIgnores([]byte(src)); err == nil {
			for _, ig := range igs {
				if ig.Rule == "" || strings.TrimSpace(ig.Reason) == "" {
					t.Fatalf("accepted an entry without rule or reason: %+v", ig)
				}
				ig.Matches(Finding{Rule: "hidden-unicode", Pointer: "/tools/0/description"})
			}
		}
		if base, err := ParseBaseline([]byte(src)); err == nil {
			NewSince([]Finding{{Rule: "x"}}, base)
		}
	})
}

// Schemas nested past the limit, and $ref cycles, end in a finding (the fuzz corpus covers the
// rest).
func TestDeepAndCyclicSchemas(t *testing.T) {
	tests := []struct {
		name, schema, rule string
	}{
		{"deep items", `{"type": "object", "properties": {"a": ` + strings.Repeat(`{"items": `, 5000) + `{}` + strings.Repeat(`}`, 5000) + `}}`, "schema-limit"},
		{"deep arrays", `{"type": "object", "enum": [` + strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000) + `]}`, "schema-limit"},
		{"self ref", `{"$ref": "#", "type": "object"}`, "schema-invalid"},
		{"ref through allOf", `{"type": "object", "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"x": {"$ref": "#/$defs/a"}}}`, "schema-invalid"},
		{"escaped pointer", `{"type": "object", "$defs": {"a/b": {"$ref": "#/$defs/a~1b"}}, "properties": {"x": {"$ref": "#/$defs/a~1b"}}}`, "schema-invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := lintText(t, `[{"name": "t", "description": "x", "inputSchema": `+tt.schema+`}]`, Config{})
			if !has(fs, tt.rule) {
				t.Errorf("no %s finding: %v", tt.rule, fs)
			}
		})
	}
}

// A pattern that backtracks catastrophically (ECMA-262 only, so not Go's linear engine) stops the
// value checks with a finding instead of costing a timeout per value.
func TestSlowPatternStopsValueChecks(t *testing.T) {
	enum := make([]string, 300)
	for i := range enum {
		enum[i] = `"` + strings.Repeat("a", 30) + `!"`
	}
	schema := `{"type": "object", "properties": {"x": {"type": "string", "pattern": "^(?=a)(a+)+$", "enum": [` + strings.Join(enum, ",") + `]}}}`
	fs := lintText(t, `[{"name": "t", "description": "x", "inputSchema": `+schema+`}]`, Config{})
	if !has(fs, "schema-limit") {
		t.Errorf("no schema-limit finding for a catastrophic pattern: %v", fs)
	}
}
