package store

import (
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func TestReshapesTools(t *testing.T) {
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
		name string
		ops  []listing.Op
		want bool
	}{
		{"a description", set("/tools/0/description", listing.NewString("d")), false},
		{"a tool renamed", set("/tools/1/name", listing.NewString("c")), false},
		{"one member of a parameter", set("/tools/0/inputSchema/properties/x/description", listing.NewString("d")), false},
		{"the required list", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/inputSchema/required", Value: schema(`["x"]`)}}, false},
		{"a parameter renamed in place", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"z": {}, "y": {}}}`)), false},
		{"a parameter added", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"x": {}, "y": {}, "z": {}}}`)), true},
		{"parameters swapped", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"y": {}, "x": {}}}`)), true},
		{"a repeated key, read as its first place", set("/tools/0/inputSchema", schema(`{"type": "object", "properties": {"x": {}, "y": {}, "x": {"type": "string"}}}`)), false},
		{"the schema no longer an object", set("/tools/0/inputSchema", listing.NewBool(true)), true},
		{"a tool replaced whole", set("/tools/1", schema(`{"name": "b"}`)), true},
		{"a tool moved", []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 0, To: 1}}, true},
		{"a tool inserted", []listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: schema(`{"name": "c"}`)}}, true},
		{"a tool removed", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/1"}}, true},
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
			if got := ReshapesTools(l, after, tt.ops); got != tt.want {
				t.Errorf("ReshapesTools = %v, want %v", got, tt.want)
			}
		})
	}
}
