package drafting_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// One call proposes tasks of every kind; the one that names its tool is kept, refused, and the
// others carry the ranker's verdict.
func TestGenerateTasks(t *testing.T) {
	srv := &fakemodel.Server{}
	c := fakeCaller(t, srv, drafting.NewBudget(1), runner.ClientOptions{})
	l := seedListing(t, "clear-tools.json")
	req := drafting.TasksRequest{Listing: l, Existing: []selection.Task{{Task: "Show ticket 4521"}}}
	if p := drafting.PlanTasks(req); p.Calls != 1 {
		t.Errorf("plan %+v", p)
	}
	p, err := drafting.GenerateTasks(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if p.Calls != 1 || srv.Requests() != 1 || len(p.Tasks) == 0 {
		t.Fatalf("calls %d, requests %d, %d tasks", p.Calls, srv.Requests(), len(p.Tasks))
	}
	kinds := map[string]int{}
	named := 0
	for _, pt := range p.Tasks {
		kinds[pt.Kind]++
		if strings.HasPrefix(pt.Refused, "names the tool ") {
			named++
		}
		if pt.Kind == drafting.KindNoTool && pt.Task.Expect != nil {
			t.Errorf("no-tool task %q expects %q; want null", pt.Task.Task, *pt.Task.Expect)
		}
		if pt.Verdict == "" {
			t.Errorf("%q has no verdict", pt.Task.Task)
		}
	}
	if kinds[drafting.KindPlain] == 0 || kinds[drafting.KindConfusion] == 0 || kinds[drafting.KindNoTool] == 0 || named == 0 {
		t.Errorf("kinds %v, %d naming their tool: want every kind and the named one refused", kinds, named)
	}
	b := srv.Briefs()[0]
	if b.Job != drafting.JobTasks || len(b.Tools) != len(l.Tools) || len(b.Existing) != 1 || b.PerTool != drafting.DefaultPerTool {
		t.Errorf("brief: job %s, %d tools, %v existing, perTool %d", b.Job, len(b.Tools), b.Existing, b.PerTool)
	}
}

// Asked for one tool, the proposals are that tool's (and those that borrow its words, and the
// no-tool ones).
func TestGenerateTasksForOneTool(t *testing.T) {
	c := fakeCaller(t, &fakemodel.Server{}, nil, runner.ClientOptions{})
	p, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, "clear-tools.json"), Tools: []string{"users_find"}})
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, pt := range p.Tasks {
		e := pt.Task.Expected()
		if e != "" && e != "users_find" && pt.Neighbour != "users_find" {
			t.Errorf("%q expects %s", pt.Task.Task, e)
		}
		if e == "users_find" {
			mine++
		}
	}
	if mine == 0 || len(p.Problems) == 0 || !strings.Contains(p.Problems[len(p.Problems)-1], "for tools other than users_find left out") {
		t.Errorf("%d tasks for users_find, problems %q", mine, p.Problems)
	}
	if _, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, "clear-tools.json"), Tools: []string{"nope"}}); err == nil ||
		!strings.Contains(err.Error(), `no tool named "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
}

// A malformed answer gives no tasks and a problem that says so; a failed call is an error.
func TestGenerateTasksMalformed(t *testing.T) {
	for _, bad := range []fakemodel.Bad{fakemodel.BadText, fakemodel.BadShape} {
		c := fakeCaller(t, &fakemodel.Server{Mode: fakemodel.Malformed, Bad: bad}, nil, runner.ClientOptions{})
		p, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, "confusing-tools.json")})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tasks) != 0 || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "the model's answer is not the tasks asked for") {
			t.Errorf("bad %d: %d tasks, problems %q", bad, len(p.Tasks), p.Problems)
		}
	}
	c := fakeCaller(t, &fakemodel.Server{Mode: fakemodel.Malformed, Bad: fakemodel.BadEmpty}, nil, runner.ClientOptions{})
	p, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, "confusing-tools.json")})
	if err != nil || len(p.Problems) != 1 || p.Problems[0] != "the model proposed no tasks" {
		t.Errorf("empty: %v, %+v", err, p)
	}
	c = fakeCaller(t, &fakemodel.Server{}, drafting.NewBudget(0), runner.ClientOptions{})
	if _, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, "confusing-tools.json")}); err == nil ||
		!strings.Contains(err.Error(), "budget is spent") {
		t.Errorf("no budget: %v", err)
	}
}

// A listing past 60 tools is shown to the model in part, the asked tool first, and the answer
// says so.
func TestGenerateTasksBoundsTheBrief(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools": [`)
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "tool_%03d", "description": "Handle record kind %d of the archive.", "inputSchema": {"type": "object"}}`, i, i)
	}
	b.WriteString("]}")
	l, err := listing.Parse([]byte(b.String()), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := &fakemodel.Server{}
	c := fakeCaller(t, srv, nil, runner.ClientOptions{})
	p, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: l, Tools: []string{"tool_099"}})
	if err != nil {
		t.Fatal(err)
	}
	brief := srv.Briefs()[0]
	if len(brief.Tools) != drafting.MaxBriefTools || brief.Tools[0].Name != "tool_099" {
		t.Errorf("the brief shows %d tools, first %s", len(brief.Tools), brief.Tools[0].Name)
	}
	if len(p.Problems) == 0 || !strings.Contains(p.Problems[0], "the listing has 100 tools; the model was shown 60 of them") {
		t.Errorf("problems %q", p.Problems)
	}
}
