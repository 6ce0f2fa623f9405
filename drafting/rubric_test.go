package drafting

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// testEngine is the engine the server uses: the reference's rules and the extended ones.
func testEngine(t testing.TB) *analysis.Engine {
	t.Helper()
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{}), NoCost: true})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// fixture reads one of the seeds' reference fixtures in place.
func fixture(t testing.TB, name string) *listing.Listing {
	t.Helper()
	src := testutil.ReadShared(t, "reference", "fixtures", name)
	l, err := listing.Parse(src, listing.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestOfflineRubricGolden scores the seeds' three fixtures without a model: every dimension
// from the findings, the reasons citing them, the listing pulled toward its worst tool.
// Run with -update to rewrite drafting/testdata/rubric-offline-*.json.
func TestOfflineRubricGolden(t *testing.T) {
	for _, name := range []string{"clear-tools.json", "confusing-tools.json", "draft-tools.json"} {
		t.Run(name, func(t *testing.T) {
			r, err := ScoreRubric(context.Background(), Caller{}, testEngine(t), fixture(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Offline || r.Calls != 0 || r.Plan.Calls != 0 {
				t.Errorf("an offline rubric made calls or is not marked offline: %+v", r)
			}
			if r.Label != "offline: from the findings, no endpoint configured" {
				t.Errorf("label %q", r.Label)
			}
			got, _ := json.MarshalIndent(r, "", "  ")
			testutil.Golden(t, filepath.Join("testdata", "rubric-offline-"+strings.TrimSuffix(name, ".json")+".json"), append(got, '\n'))
		})
	}
}

// TestOfflineConfusingScoresBelowClear holds the offline score to its purpose: the seeds'
// confusing fixture (short descriptions, generic names, undescribed parameters) scores well
// below the clear one. (The draft fixture differs from the clear one only in wording no rule
// reads, so offline they score the same; telling them apart takes the model or the tasks.)
func TestOfflineConfusingScoresBelowClear(t *testing.T) {
	eng := testEngine(t)
	score := func(name string) *Rubric {
		r, err := ScoreRubric(context.Background(), Caller{}, eng, fixture(t, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	clear, confusing := score("clear-tools.json"), score("confusing-tools.json")
	if confusing.Score > clear.Score-1 {
		t.Errorf("confusing scores %.2f, clear %.2f: confusing should score at least a point lower", confusing.Score, clear.Score)
	}
}

// TestOfflineTable checks the mapping from findings to dimensions on single findings.
func TestOfflineTable(t *testing.T) {
	cases := []struct {
		name     string
		findings []analysis.Finding
		words    int
		want     map[string]int
		cites    string
	}{
		{"no findings", nil, 20, map[string]int{"purpose": 5, "usage": 5, "behaviour": 5, "parameters": 5, "brevity": 5, "neighbours": 5}, "no finding"},
		{"no description", []analysis.Finding{{Rule: "description", Message: "no description"}}, 0,
			map[string]int{"purpose": 1, "usage": 1, "brevity": 5}, "no description"},
		{"short description", []analysis.Finding{{Rule: "description", Message: "5 words, fewer than 8"}}, 5,
			map[string]int{"purpose": 3, "usage": 4}, "5 words, fewer than 8"},
		{"one rule counts once", []analysis.Finding{{Rule: "param-undescribed", Message: "a"}, {Rule: "param-undescribed", Message: "b"}}, 20,
			map[string]int{"parameters": 4}, "param-undescribed: a"},
		{"rules add up and stop at 1", []analysis.Finding{{Rule: "schema-invalid"}, {Rule: "params-described"}, {Rule: "params-opaque"}, {Rule: "no-params-closed"}}, 20,
			map[string]int{"parameters": 1}, "schema-invalid"},
		{"annotations", []analysis.Finding{{Rule: "annotations-destructive-unmarked", Message: "deletes"}}, 20,
			map[string]int{"behaviour": 3}, "deletes"},
		{"brevity", []analysis.Finding{{Rule: "description-too-long"}, {Rule: "promotional-wording"}}, 20,
			map[string]int{"brevity": 1}, "promotional-wording"},
		{"unmapped rule", []analysis.Finding{{Rule: "secret-in-text"}}, 20,
			map[string]int{"purpose": 5, "usage": 5, "behaviour": 5, "parameters": 5, "brevity": 5, "neighbours": 5}, "no finding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := offlineScore(analysis.ToolResult{Name: "x", Findings: c.findings, DescWords: c.words}, nil)
			got := map[string]int{}
			cited := false
			for _, d := range tr.Dims {
				got[d.ID] = d.Score
				cited = cited || strings.Contains(d.Reason, c.cites)
				if len([]rune(d.Reason)) > MaxReason {
					t.Errorf("%s: reason of %d characters", d.ID, len([]rune(d.Reason)))
				}
			}
			for id, w := range c.want {
				if got[id] != w {
					t.Errorf("%s = %d, want %d (all: %v)", id, got[id], w, got)
				}
			}
			if !cited {
				t.Errorf("no reason cites %q: %+v", c.cites, tr.Dims)
			}
			if len(tr.Dims) != len(Dimensions) || !tr.Offline {
				t.Errorf("want every dimension, offline: %+v", tr)
			}
		})
	}
}

// TestListingScoreLeansToWorst: the listing's score is the mean of the tools' means pulled
// halfway toward the worst one.
func TestListingScoreLeansToWorst(t *testing.T) {
	r := &Rubric{Tools: []ToolRubric{{Tool: "a", Mean: 5}, {Tool: "b", Mean: 5}, {Tool: "c", Mean: 2, Offline: true}}}
	r.summarise(nil)
	if r.Score != 3 || r.Worst != "c" { // mean 4, worst 2: (4+2)/2
		t.Errorf("score %.2f worst %q, want 3 and c", r.Score, r.Worst)
	}
	if r.Offline {
		t.Error("two tools were scored by a model: not offline")
	}
}

// TestOfflineReadsListingWideFindings: Offline with the listing finds the near-duplicates that
// name the tool.
func TestOfflineReadsListingWideFindings(t *testing.T) {
	l := fixture(t, "confusing-tools.json")
	res, err := testEngine(t).AnalyzeContext(context.Background(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	var withWide, alone float64
	for _, tr := range res.Tools {
		withWide += Offline(tr, l).Mean
		alone += Offline(tr, nil).Mean
	}
	if withWide >= alone {
		t.Errorf("the confusing fixture's listing-wide findings cost nothing: %.2f with, %.2f without", withWide, alone)
	}
}

var _ = os.ReadFile

// TestRubricCacheBounds: the cache keeps at most its entries, forgets the least recently used,
// and keeps no offline score (which the findings give again for free).
func TestRubricCacheBounds(t *testing.T) {
	rc := NewRubricCache(2)
	for _, h := range []string{"a", "b", "c"} {
		rc.add("m", "", ToolRubric{Tool: h, Hash: h, Dims: []DimScore{{ID: "purpose", Score: 3, Reason: "r"}}})
	}
	rc.add("m", "", ToolRubric{Tool: "d", Hash: "d", Offline: true})
	if _, ok := rc.get("m", "a", ""); ok || rc.Len() != 2 {
		t.Errorf("%d entries, the oldest kept: %v", rc.Len(), ok)
	}
	if _, ok := rc.get("m", "c", ""); !ok {
		t.Error("the newest is gone")
	}
	if _, ok := rc.get("other", "c", ""); ok {
		t.Error("another model reads this one's score")
	}
	if _, ok := rc.get("m", "d", ""); ok {
		t.Error("an offline score was kept")
	}
	var none *RubricCache
	none.add("m", "", ToolRubric{Hash: "x"})
	if _, ok := none.get("m", "x", ""); ok || none.Len() != 0 {
		t.Error("a nil cache keeps something")
	}
}

// A rubric brief's neighbours are the tools the ranker scores highest for the tool's own words,
// the earlier tool first on a tie: the same as sorting every scored tool, which the plan no
// longer does for every tool of a big listing.
func TestRubricNeighboursAreTheBest(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	words := []string{"ticket", "user", "report", "data", "file", "search", "record", "get", "list", "delete"}
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		// Overlapping word sets, many tied, a few tools sharing no word with the others.
		desc := []string{}
		for k, w := range words {
			if (i+k)%(2+i%4) == 0 {
				desc = append(desc, w)
			}
		}
		fmt.Fprintf(&b, `{"name":"t%d","description":%q,"inputSchema":{"type":"object"}}`, i, strings.Join(desc, " "))
	}
	b.WriteString(`]}`)
	l, err := listing.Parse([]byte(b.String()), listing.Options{Name: "ties"})
	if err != nil {
		t.Fatal(err)
	}
	ranker := selection.NewRanker(l.Tools)
	for i, tool := range l.Tools {
		scores := ranker.Scores(tool.Get("name").String() + " " + tool.Get("description").String())
		var idx []int
		for j, sc := range scores {
			if j != i && sc > 0 {
				idx = append(idx, j)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
		var want []string
		for _, j := range idx[:min(len(idx), maxRubricNeighbour)] {
			want = append(want, l.Tools[j].Get("name").String())
		}
		var got []string
		for _, n := range rubricNeighbours(l, ranker, i) {
			got = append(got, n.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("tool %d (%q): neighbours %v, want %v", i, tool.Get("description").String(), got, want)
		}
	}
}
