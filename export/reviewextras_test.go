package export

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// fakeExtras is fakeEngine with the overlap map, the damage test and the order bias of a test
// double: consecutive tools compete by the words their names share, a tool whose name has an
// underscore is carried by its name, and the order bias counts tools. With hostile names they
// show that every name and word in the sections is escaped.
func fakeExtras(l *listing.Listing) (*Analysis, error) {
	a, err := fakeEngine("")(l)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(l.Tools))
	for i, t := range l.Tools {
		names[i] = t.Get("name").Str
	}
	a.Overlap = []OverlapPair{}
	for i := 0; i+1 < len(names); i++ {
		s := float64(len(names[i])%5+1) / 6
		a.Overlap = append(a.Overlap, OverlapPair{A: names[i], B: names[i+1], Strength: s, SharedWords: []string{"read", "a|b", "`tick`"},
			Lost: i % 2, Close: 1, Advice: "name " + names[i+1] + " in " + names[i] + "'s description | or <merge>"})
	}
	a.OverlapPairs = len(a.Overlap) + 3
	a.Damage = []ToolDamage{}
	for i, n := range names {
		d := ToolDamage{Name: n, Tasks: 2, Won: 2, Blanked: 2, CarriedBy: "name"}
		switch {
		case i == len(names)-1:
			d.Won, d.Blanked, d.CarriedBy = 0, 0, "none"
		case !strings.Contains(n, "_"):
			d.Blanked, d.CarriedBy = 1, "description"
		}
		a.Damage = append(a.Damage, d)
	}
	a.OrderBias = &OrderBias{Tied: len(names) / 2, Flips: len(names) / 3, ExpectedRate: 0.5, ReferenceRate: float64(len(names)) / 10}
	return a, nil
}

// TestReviewExtrasGolden keeps the review's overlap, damage and order bias sections, from the
// awkward listing (hostile names and words) to its edited form, as a golden file; the sections
// come after the ranking and before the tools, and leave a report without them as it was.
func TestReviewExtrasGolden(t *testing.T) {
	awk := readListing(t, filepath.Join("testdata", "awkward-tools.json"))
	cur := awkwardEdited(t, awk)
	add := func(l *listing.Listing) *listing.Listing {
		edited, err := l.ApplyAll([]listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: listing.NewObject(
			listing.Member{Key: "name", Value: listing.NewString("a|b`c<d>*e*")},
			listing.Member{Key: "description", Value: listing.NewString("Hostile name.")})}})
		if err != nil {
			t.Fatal(err)
		}
		return edited
	}
	got, err := Review(awk, add(cur), ReviewOptions{BaselineName: "awkward-tools.json", CurrentName: "edited", Analyze: fakeExtras})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "awkward-extras.review.md", got)
	md := string(got)
	for _, want := range []string{"\n## Competing tools\n", "\n## Damage test\n", "\n## Order bias\n", "- Carried by its name alone: "} {
		if !strings.Contains(md, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	// Outside code spans, text is escaped; in a table, no cell's pipe ends it.
	if strings.Contains(md, "<merge>") || !strings.Contains(md, `\<merge\>`) {
		t.Error("the advice reaches the report unescaped")
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.Contains(line, "read") && strings.HasPrefix(line, "| `") {
			if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)); n != 7 {
				t.Errorf("%d cell borders, want 7: %s", n, line)
			}
		}
	}
	if i, j := strings.Index(md, "## Competing tools"), strings.Index(md, "## Tools"); i < 0 || j < i {
		t.Errorf("the overlap section is at %d, the tools at %d: it belongs before them", i, j)
	}
	plain, err := Review(awk, cur, ReviewOptions{Analyze: fakeEngine("")})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"## Competing tools", "## Damage test", "## Order bias"} {
		if strings.Contains(string(plain), h) {
			t.Errorf("an engine without the extras gave the section %q", h)
		}
	}
}
