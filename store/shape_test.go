package store

import (
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func TestReshapes(t *testing.T) {
	const before = `[{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {}, "y": {}}}}, {"name": "b"}]`
	schema := func(s string) *listing.Value {
		v, err := listing.ParseJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	set := func(path string, v *listing.Value) []listing.Op {
		return []listing.Op{{Kind: listing.OpSet, Path: path, Value: v}}
	}
	tests := []struct {
		name          string
		ops           []listing.Op
		tools, params bool
	}{
		{"a description", set("/tools/0/description", listing.NewString("d")), false, false},
		{"a tool renamed", set("/tools/1/name", listing.NewString("c")), false, false},
		{"one member of a parameter", set("/tools/0/inputSchema/properties/x/description", listing.NewString("d")), false, false},
		{"the required list", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/inputSchema/required", Value: schema(`["x"]`)}}, false, false},
		{"a parameter renamed in place", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"z": {}, "y": {}}}`)), false, false},
		{"a parameter added", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"x": {}, "y": {}, "z": {}}}`)), false, true},
		{"parameters swapped", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"y": {}, "x": {}}}`)), false, true},
		{"a repeated key, read as its first place", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"x": {}, "y": {}, "x": {"type": "string"}}}`)), false, false},
		{"the schema no longer an object", set("/tools/0/inputSchema", listing.NewBool(true)), false, true},
		{"a tool replaced whole", set("/tools/1", schema(`{"name": "b"}`)), true, true},
		{"a tool moved", []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 0, To: 1}}, true, true},
		{"a tool inserted", []listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: schema(`{"name": "c"}`)}}, true, true},
		{"a tool removed", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/1"}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listing.Parse([]byte(before), listing.Options{Name: "t"})
			if err != nil {
				t.Fatal(err)
			}
			after, err := l.ApplyAll(tt.ops)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if got := ReshapesTools(tt.ops); got != tt.tools {
				t.Errorf("ReshapesTools = %v, want %v", got, tt.tools)
			}
			if tt.tools {
				return // the params shape moves with the tools shape
			}
			if got := ReshapedParams(l, after, tt.ops); (len(got) > 0) != tt.params || tt.params && (len(got) != 1 || got[0] != 0) {
				t.Errorf("ReshapedParams = %v, want tool 0 %v", got, tt.params)
			}
		})
	}
}
