package drafting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// Candidates keeps at most k usable candidates and says, a line each, why the others were not
// used.
func TestCandidates(t *testing.T) {
	long := strings.Repeat("word ", drafting.MaxDescriptionBytes/5+1)
	for _, tc := range []struct {
		name     string
		answer   string
		k        int
		usable   int
		refused  []string // Refused of the refused candidates, in order
		problems []string // parts of the problems, in order
	}{
		{"all good", `{"candidates":[{"description":"A."},{"description":"B."}]}`, 2, 2, nil, nil},
		{"refusals", fmt.Sprintf(`{"candidates":[{"description":"  "},{"description":"Current."},{"description":"A."},{"description":"A."},{"description":%q}]}`, long), 3, 1,
			[]string{"empty", "current description unchanged", "repeats an earlier", "over the 4000 allowed"},
			[]string{"candidate 1 was not used: its description is empty", "candidate 2", "candidate 4", "candidate 5", "1 of the 3 candidates asked for are usable"}},
		{"too many", `{"candidates":[{"description":"A."},{"description":"B."},{"description":"C."}]}`, 1, 1, nil,
			[]string{"2 more candidates than the 1 asked for"}},
		{"not json", "I would rather not.", 3, 0, nil, []string{`could not be used: the answer holds no JSON object: "I would rather not."; ask again`}},
		{"none", `{"candidates":[]}`, 3, 0, nil, []string{"sent no candidates"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands, problems := drafting.Candidates(tc.answer, tc.k, "Current.", true)
			usable, refused := 0, []string(nil)
			for _, c := range cands {
				if c.Refused == "" {
					usable++
				} else {
					refused = append(refused, c.Refused)
				}
			}
			if usable != tc.usable || len(refused) != len(tc.refused) || len(problems) != len(tc.problems) {
				t.Fatalf("usable %d, refused %q, problems %q", usable, refused, problems)
			}
			for i, want := range tc.refused {
				if !strings.Contains(refused[i], want) {
					t.Errorf("refusal %d %q lacks %q", i, refused[i], want)
				}
			}
			for i, want := range tc.problems {
				if !strings.Contains(problems[i], want) || strings.Contains(problems[i], "\n") {
					t.Errorf("problem %d %q lacks %q", i, problems[i], want)
				}
			}
		})
	}
}

const paramTool = `{"tools":[{"name":"get_ticket","description":"Get a ticket.","inputSchema":{"type":"object",
	"properties":{"id":{"type":"string"},"flag":true}}},{"name":"bare","description":"No schema."}]}`

// Ops set the description and the descriptions of parameters the schema has, and nothing else:
// an unknown parameter, or one whose schema is not an object, is left out.
func TestOps(t *testing.T) {
	l, err := listing.Parse([]byte(paramTool), listing.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{"id": "The ticket's id.", "flag": "A flag.", "nope": "Not there."}
	for _, tc := range []struct {
		tool    int
		paths   []string
		unknown string
	}{
		{0, []string{"/tools/0/description", "/tools/0/inputSchema/properties/id/description"}, "flag nope"},
		{1, []string{"/tools/1/description"}, "flag id nope"},
	} {
		ops, err := drafting.Ops(l, tc.tool, "New text.", params)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, op := range ops {
			paths = append(paths, op.Path)
		}
		if strings.Join(paths, " ") != strings.Join(tc.paths, " ") {
			t.Errorf("tool %d: ops at %q, want %q", tc.tool, paths, tc.paths)
		}
		if got := strings.Join(drafting.UnknownParams(l, tc.tool, params), " "); got != tc.unknown {
			t.Errorf("tool %d: unknown %q, want %q", tc.tool, got, tc.unknown)
		}
	}
	l2, err := drafting.Apply(l, 0, "New text.", params)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Get("/tools/0/description").Str != "New text." || l2.Get("/tools/0/inputSchema/properties/id/description").Str != "The ticket's id." ||
		l.Get("/tools/0/description").Str != "Get a ticket." || l2.Get("/tools/1/inputSchema") != nil {
		t.Errorf("applied: %s", l2.Marshal(""))
	}
	if _, err := drafting.Ops(l, 2, "x", nil); err == nil || !strings.Contains(err.Error(), "no tool 3") {
		t.Errorf("error %v for a tool out of range", err)
	}
}

// ScoreText scores a text without touching the listing, and counts the task it fixes.
func TestScoreText(t *testing.T) {
	l, tasks := confusing(t)
	eng := engine(t)
	before, _, err := drafting.ScoreText(context.Background(), eng, l, tasks, 0, l.Tools[0].Get("description").Str, nil)
	if err != nil {
		t.Fatal(err)
	}
	after, l2, err := drafting.ScoreText(context.Background(), eng, l, tasks, 0, "Get ticket data by id. Use it to show one ticket.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if before.Ambiguous != 1 || after.Won != 1 || after.Clear != before.Clear+1 || after.Tokens <= before.Tokens {
		t.Errorf("before %+v, after %+v: want task 1 won clearly and more tokens", before, after)
	}
	if l2 == l || l.Tools[0].Get("description").Str != "Get ticket data by id." {
		t.Error("ScoreText changed the listing it was given")
	}
}

// A rewrite brief carries a bounded list of tasks, each clipped, and at most MaxNeighbours.
func TestRewriteBriefBounds(t *testing.T) {
	l, tasks := confusing(t)
	for i := range 40 {
		e := "search"
		if i%2 == 0 {
			e = "find"
		}
		tasks = append(tasks, tasks[1].WithExpect(&e))
		tasks[len(tasks)-1].Task = fmt.Sprintf("Search ticket data %d %s", i, strings.Repeat("x", 400))
	}
	b, err := drafting.RewriteBrief(context.Background(), engine(t), l, tasks, 3, 20, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.K != drafting.MaxK || len(b.ShouldWin) != drafting.MaxBriefTasks || len(b.ShouldNotWin) > drafting.MaxBriefTasks ||
		len(b.Neighbours) > drafting.MaxNeighbours || len(b.Tool.InputSchema) == 0 || !b.Params {
		t.Errorf("brief: k %d, %d should win, %d should not, %d neighbours, schema %s", b.K, len(b.ShouldWin), len(b.ShouldNotWin), len(b.Neighbours), b.Tool.InputSchema)
	}
	for _, s := range append(b.ShouldWin, b.ShouldNotWin...) {
		if len([]rune(s)) > drafting.MaxBriefText {
			t.Errorf("task of %d characters in the brief", len([]rune(s)))
		}
	}
	if b.Neighbours[0].Name != "find" {
		t.Errorf("neighbours %+v: want find, which wins search's tasks, first", b.Neighbours)
	}
}

// The plan counts one call to draft and, with Run, a run per candidate and one for the current
// text.
func TestPlanSuggest(t *testing.T) {
	l, tasks := confusing(t)
	for _, tc := range []struct {
		req  drafting.SuggestRequest
		want int
	}{
		{drafting.SuggestRequest{Listing: l, Tasks: tasks}, 1},
		{drafting.SuggestRequest{Listing: l, Tasks: tasks, K: 2, Run: true, Samples: 3}, 1 + 3*8*3},
		{drafting.SuggestRequest{Listing: l, Tasks: tasks, K: 99, Run: true}, 1 + (drafting.MaxK+1)*8},
	} {
		if p := drafting.PlanSuggest(tc.req); p.Calls != tc.want || p.What == "" {
			t.Errorf("plan %+v, want %d calls", p, tc.want)
		}
	}
}

// The request a rewrite of the fixture's get_data sends, in full: the system prompt in our
// words, and the brief with its findings, neighbours and tasks (testdata/rewrite-request.json;
// -update rewrites it).
func TestRewriteRequestGolden(t *testing.T) {
	l, tasks := confusing(t)
	b, err := drafting.RewriteBrief(context.Background(), engine(t), l, tasks, 0, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(drafting.Request("fake-model", b), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/rewrite-request.json", append(out, '\n'))
}
