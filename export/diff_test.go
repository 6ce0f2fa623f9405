package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// stepString writes steps as "=a -b +c", naming the items they take.
func stepString(x, y []string, steps []Step) string {
	var b []string
	for _, s := range steps {
		switch s.Op {
		case '+':
			b = append(b, "+"+y[s.J])
		default:
			b = append(b, string(s.Op)+x[s.I])
		}
	}
	return strings.Join(b, " ")
}

func TestAlign(t *testing.T) {
	tests := []struct{ x, y, want string }{
		{"", "", ""},
		{"a b", "a b", "=a =b"},
		{"", "a b", "+a +b"},
		{"a b", "", "-a -b"},
		{"a b c", "a x c", "=a -b +x =c"},
		{"a b c d", "b d", "-a =b -c =d"},
		{"b d", "a b c d", "+a =b +c =d"},
		// Two alignments are equally long: the removal comes first.
		{"a b", "b a", "-a =b +a"},
		{"x y", "y z", "-x =y +z"},
		// Equal ends are kept before the middle is aligned.
		{"a a b", "a b b", "=a -a +b =b"},
		{"p a b q", "p b a c q", "=p -a =b +a +c =q"},
	}
	for _, tt := range tests {
		x, y := strings.Fields(tt.x), strings.Fields(tt.y)
		steps := Align(x, y)
		if got := stepString(x, y, steps); got != tt.want {
			t.Errorf("Align(%q, %q) = %q, want %q", tt.x, tt.y, got, tt.want)
		}
		// The indexes walk both sequences in order, each item once.
		i, j := 0, 0
		for _, s := range steps {
			switch {
			case s.Op == '=' && s.I == i && s.J == j && x[i] == y[j]:
				i, j = i+1, j+1
			case s.Op == '-' && s.I == i && s.J == -1:
				i++
			case s.Op == '+' && s.I == -1 && s.J == j:
				j++
			default:
				t.Fatalf("Align(%q, %q): step %+v out of order at %d, %d", tt.x, tt.y, s, i, j)
			}
		}
		if i != len(x) || j != len(y) {
			t.Errorf("Align(%q, %q) covers %d and %d items, want %d and %d", tt.x, tt.y, i, j, len(x), len(y))
		}
	}
}

// TestAlignBound: the table is built up to maxDiffCells cells and not one more; past that the
// differing middle is all removals then all additions, so the one item the two share is not
// found. The common prefix and suffix do not count.
func TestAlignBound(t *testing.T) {
	side := func(n int, tag string) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%d", tag, i)
		}
		s[n/2] = "shared"
		// Equal ends, set aside before the table is sized.
		return append(append([]string{"start", "start"}, s...), "end")
	}
	const fits = 2047 // (2047+1)² == maxDiffCells
	tests := []struct {
		name    string
		n, m    int
		aligned bool
	}{
		{"at the bound", fits, fits, true},
		{"one row past it", fits + 1, fits, false},
		{"one column past it", fits, fits + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := Align(side(tt.n, "x"), side(tt.m, "y"))
			kept := 0
			for _, s := range steps {
				if s.Op == '=' {
					kept++
				}
			}
			if want := map[bool]int{true: 4, false: 3}[tt.aligned]; kept != want {
				t.Errorf("%d kept items, want %d (aligned: %v)", kept, want, tt.aligned)
			}
			if len(steps) != tt.n+3+tt.m+3-kept {
				t.Errorf("%d steps for %d and %d items with %d kept", len(steps), tt.n+3, tt.m+3, kept)
			}
		})
	}
}

// A word diff's runs read as characters in JSON (the API's suggestions carry them).
func TestEditJSON(t *testing.T) {
	b, err := json.Marshal(WordDiff("get data", "get ticket data"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"op":"=","text":"get "},{"op":"+","text":"ticket "},{"op":"=","text":"data"}]`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
