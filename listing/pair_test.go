package listing

import (
	"fmt"
	"reflect"
	"strings"
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

// TestPairByContent pairs tools of a repeated name by what they hold (the same content, then
// the most similar, then in order), and every other tool as Pair does.
func TestPairByContent(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []int
	}{
		{"swapped", `[{"name":"x","description":"A deletes."},{"name":"x","description":"B reads."}]`,
			`[{"name":"x","description":"B reads."},{"name":"x","description":"A deletes."}]`, []int{1, 0}},
		{"the first removed", `[{"name":"x","description":"A deletes."},{"name":"x","description":"B reads."}]`,
			`[{"name":"x","description":"B reads."}]`, []int{-1, 0}},
		{"both edited", `[{"name":"x","description":"Reads files."},{"name":"x","description":"Deletes every file."}]`,
			`[{"name":"x","description":"Deletes every file now."},{"name":"x","description":"Reads files and dirs."}]`, []int{1, 0}},
		{"unlike content pairs in order", `[{"name":"x","description":"a b"},{"name":"x","description":"c d"}]`,
			`[{"name":"x","description":"e f"},{"name":"x","description":"g h"}]`, []int{0, 1}},
		{"one of three kept, one added", `[{"name":"x","description":"1 one"},{"name":"y"},{"name":"x","description":"2 two"}]`,
			`[{"name":"x","description":"3 three"},{"name":"x","description":"2 two"},{"name":"y"},{"name":"x","description":"4 four"}]`, []int{0, 2, 1}},
		{"a rename by content keeps its pair", `[{"name":"x","description":"Reads a file."},{"name":"x","description":"Writes."}]`,
			`[{"name":"read","description":"Reads a file."},{"name":"x","description":"Writes."}]`, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PairByContent(mustParse(t, tt.old), mustParse(t, tt.new)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("PairByContent = %v, want %v", got, tt.want)
			}
		})
	}
	// Without a repeated name it is Pair.
	for _, srcs := range [][2]string{{`[{"name":"a"},{"name":"b"},{"name":"c"}]`, `[{"name":"c"},{"name":"a"},{"name":"b"}]`},
		{`[{"name":"a","description":"Reads a file."},{"name":"b"}]`, `[{"name":"b"},{"name":"read","description":"Reads a file."}]`}} {
		old, new := mustParse(t, srcs[0]), mustParse(t, srcs[1])
		if got, want := PairByContent(old, new), Pair(old, new); !reflect.DeepEqual(got, want) {
			t.Errorf("%s -> %s: PairByContent = %v, Pair = %v", srcs[0], srcs[1], got, want)
		}
	}
}

// BenchmarkPairByContentOneName pairs two listings of tools all of one name, in reverse order
// and slightly edited: 32 (each pairs with the most similar: 1,024 scores, maxGroupPairs) and
// 1,000 (past the bound: by the same content, then in order).
func BenchmarkPairByContentOneName(b *testing.B) {
	for _, k := range []int{32, 1000} {
		var old, new strings.Builder
		old.WriteString("[")
		new.WriteString("[")
		for i := range k {
			if i > 0 {
				old.WriteString(",")
				new.WriteString(",")
			}
			fmt.Fprintf(&old, `{"name":"x","description":"Tool %d does a thing with files here."}`, i)
			fmt.Fprintf(&new, `{"name":"x","description":"Tool %d does a thing with files there."}`, k-1-i)
		}
		old.WriteString("]")
		new.WriteString("]")
		o, n := mustParse(b, old.String()), mustParse(b, new.String())
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			for b.Loop() {
				if got := PairByContent(o, n); k <= 32 && got[0] != k-1 {
					b.Fatalf("tool 0 paired with %d, want %d", got[0], k-1)
				}
			}
		})
	}
}
