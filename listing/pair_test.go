package listing

import (
	"reflect"
	"testing"
)

// TestPair pairs tools as Compare reports them: Pair's indexes agree with Compare's changes.
func TestPair(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []int
	}{
		{"same", `[{"name":"a"},{"name":"b"}]`, `[{"name":"a"},{"name":"b"}]`, []int{0, 1}},
		{"moved", `[{"name":"a"},{"name":"b"},{"name":"c"}]`, `[{"name":"c"},{"name":"a"},{"name":"b"}]`, []int{1, 2, 0}},
		{"removed and added", `[{"name":"a"},{"name":"b","description":"Beta finds issues."}]`,
			`[{"name":"z","description":"Zeta deletes every file."},{"name":"a"}]`, []int{1, -1}},
		{"renamed, same content", `[{"name":"a","description":"Reads a file."},{"name":"b"}]`,
			`[{"name":"b"},{"name":"read","description":"Reads a file."}]`, []int{1, 0}},
		{"repeated names pair in order", `[{"name":"a","description":"1"},{"name":"a","description":"2"}]`,
			`[{"name":"a","description":"3"}]`, []int{0, -1}},
		{"empty", `[]`, `[{"name":"a"}]`, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := mustParse(t, tt.old), mustParse(t, tt.new)
			got := Pair(old, new)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Pair = %v, want %v", got, tt.want)
			}
			for _, c := range Compare(old, new).Changes {
				if c.OldIndex >= 0 && c.NewIndex >= 0 && got[c.OldIndex] != c.NewIndex {
					t.Errorf("Compare pairs %d with %d (%s), Pair with %d", c.OldIndex, c.NewIndex, c, got[c.OldIndex])
				}
				if c.Kind == ToolRemoved && got[c.OldIndex] != -1 {
					t.Errorf("Compare removes %d, Pair pairs it with %d", c.OldIndex, got[c.OldIndex])
				}
			}
		})
	}
}
