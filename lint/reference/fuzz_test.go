package reference

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/words"
)

// FuzzNearDuplicates: however NearDuplicates counts shared words (inverted index or bitsets), its
// line is the one the reference's plain pairwise comparison gives. Each line of the input is a
// tool, "name: description"; names may repeat.
func FuzzNearDuplicates(f *testing.F) {
	f.Add("a: alpha beta gamma\nb: alpha beta delta\nc: omega")
	f.Add("a: alpha beta\nb: gamma delta\na: gamma delta")
	f.Fuzz(func(t *testing.T, src string) {
		var names []string
		var descs [][]string
		sets := map[string]map[string]bool{}
		for _, ln := range strings.Split(src, "\n") {
			name, desc, _ := strings.Cut(ln, ":")
			c := words.Content(desc)
			var ws []string
			for w := range c {
				ws = append(ws, w)
			}
			names = append(names, name)
			descs = append(descs, ws)
			sets[name] = c // the reference keys descriptions by name: the last one stands
		}
		var pairs []Overlap
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				a, b := sets[names[i]], sets[names[j]]
				shared, union := 0, len(a)
				for w := range b {
					if a[w] {
						shared++
					} else {
						union++
					}
				}
				if o := (Overlap{I: i, J: j, Shared: shared, Union: union}); o.NearDuplicate(names) {
					pairs = append(pairs, o)
				}
			}
		}
		if got, want := NearDuplicates(names, descs), NearDuplicateLine(names, pairs); got != want {
			t.Fatalf("NearDuplicates\n got %v\nwant %v", got, want)
		}
	})
}
