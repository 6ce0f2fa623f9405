package fakemodel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
)

var getTool = drafting.BriefTool{Name: "get_data", Description: "Get ticket data by id.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}

func rewriteBrief() drafting.Brief {
	return drafting.Brief{Job: drafting.JobRewrite, Tool: &getTool, K: 3, Params: true,
		Neighbours: []drafting.BriefTool{{Name: "fetch_data", Description: "Fetch ticket data."}},
		ShouldWin:  []string{"Show me ticket 4521", "Open the ticket numbered 77"}}
}

// ask sends b to s through a runner.Client and a Caller, as the product does.
func ask(t *testing.T, s *Server, b drafting.Brief) string {
	t.Helper()
	c, err := NewClient(s, runner.ClientOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	text, err := drafting.Caller{Model: c}.Ask(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func rewrites(t *testing.T, s *Server, b drafting.Brief) drafting.RewriteAnswer {
	t.Helper()
	var a drafting.RewriteAnswer
	if err := drafting.Decode(ask(t, s, b), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// A good model writes k different, plain rewrites that say when to use the tool and when not,
// and describes each parameter.
func TestGoodRewrites(t *testing.T) {
	s := &Server{}
	a := rewrites(t, s, rewriteBrief())
	if len(a.Candidates) != 3 {
		t.Fatalf("%d candidates, want 3", len(a.Candidates))
	}
	seen := map[string]bool{}
	for _, c := range a.Candidates {
		d := strings.ToLower(c.Description)
		if seen[d] || !strings.Contains(d, "use it to show ticket") || !strings.Contains(d, "not for what fetch_data does") {
			t.Errorf("candidate %q: want a new text with a use sentence and a not-for sentence", c.Description)
		}
		for _, w := range []string{"best", "always", "powerful", "important"} {
			if strings.Contains(d, w) {
				t.Errorf("candidate %q holds %q", c.Description, w)
			}
		}
		if c.Parameters["id"] == "" {
			t.Errorf("candidate %q describes no id parameter: %v", c.Description, c.Parameters)
		}
		seen[d] = true
	}
	if got := s.Briefs(); len(got) != 1 || got[0].ShouldWin[0] != "Show me ticket 4521" || s.Requests() != 1 {
		t.Errorf("briefs %v, requests %d: want the one brief", got, s.Requests())
	}
}

// Canned rewrites stand in for the built ones, at most k of them.
func TestCannedRewrites(t *testing.T) {
	s := &Server{Rewrites: map[string][]string{"get_data": {"One.", "Two.", "Three.", "Four."}}}
	b := rewriteBrief()
	b.K = 2
	a := rewrites(t, s, b)
	if len(a.Candidates) != 2 || a.Candidates[0].Description != "One." || a.Candidates[1].Description != "Two." {
		t.Errorf("got %+v, want One. and Two.", a.Candidates)
	}
}

// The misbehaving modes answer as they say.
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		want string
	}{
		{Promotional, "always"},
		{Stuffing, "numbered"},
	} {
		a := rewrites(t, &Server{Mode: tc.mode}, rewriteBrief())
		if len(a.Candidates) != 3 {
			t.Fatalf("mode %d: %d candidates, want 3", tc.mode, len(a.Candidates))
		}
		for _, c := range a.Candidates {
			if !strings.Contains(strings.ToLower(c.Description), tc.want) {
				t.Errorf("mode %d: %q lacks %q", tc.mode, c.Description, tc.want)
			}
		}
	}
}

// A malformed model cycles through prose, the wrong shape and an empty answer: none of them
// gives a candidate.
func TestMalformed(t *testing.T) {
	s := &Server{Mode: Malformed}
	for i, want := range []string{"no JSON object", "wrong shape", ""} {
		var a drafting.RewriteAnswer
		err := drafting.Decode(ask(t, s, rewriteBrief()), &a)
		switch {
		case want == "" && (err != nil || len(a.Candidates) != 0):
			t.Errorf("answer %d: %v, %d candidates; want an empty list", i, err, len(a.Candidates))
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("answer %d: error %v, want one saying %q", i, err, want)
		}
	}
}

// Tasks never name their tool, but for the one task that does on purpose; there are confusion
// and no-tool tasks, and existing tasks are not repeated.
func TestTasks(t *testing.T) {
	b := drafting.Brief{Job: drafting.JobTasks, Existing: []string{"Please work with ticket id for me."},
		Tools: []drafting.BriefTool{getTool, {Name: "search", Description: "Search ticket data."}}}
	var a drafting.TasksAnswer
	if err := drafting.Decode(ask(t, &Server{}, b), &a); err != nil {
		t.Fatal(err)
	}
	kinds, naming := map[string]int{}, 0
	for _, p := range a.Tasks {
		kinds[p.Kind]++
		if strings.Contains(p.Task, "get_data") || strings.Contains(strings.ToLower(p.Task), "search") {
			naming++
		}
		if p.Task == b.Existing[0] {
			t.Errorf("repeated the existing task %q", p.Task)
		}
	}
	if kinds[drafting.KindPlain] < 3 || kinds[drafting.KindConfusion] != 2 || kinds[drafting.KindNoTool] != 2 || naming != 1 {
		t.Errorf("kinds %v, %d naming a tool; want plain, 2 confusion, 2 no-tool and 1 naming: %+v", kinds, naming, a.Tasks)
	}
}

// The rubric scores every dimension asked, 1 to 5, higher for a text that says when to use it.
func TestRubric(t *testing.T) {
	var dims []drafting.BriefDimension
	for _, d := range drafting.Dimensions {
		dims = append(dims, drafting.BriefDimension{ID: d.ID, Question: d.Question})
	}
	usage := func(desc string) int {
		tool := getTool
		tool.Description = desc
		var a drafting.RubricAnswer
		if err := drafting.Decode(ask(t, &Server{}, drafting.Brief{Job: drafting.JobRubric, Tool: &tool, Dimensions: dims}), &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Scores) != len(dims) {
			t.Fatalf("%d scores, want %d", len(a.Scores), len(dims))
		}
		for id, s := range a.Scores {
			if s.Score < 1 || s.Score > 5 || s.Reason == "" {
				t.Errorf("%s: %+v", id, s)
			}
		}
		return a.Scores["usage"].Score
	}
	if poor, good := usage("Get data."), usage("Returns one ticket by id. Use it to show a ticket; not for searching."); poor >= good {
		t.Errorf("usage scores %d for a bare text and %d for one that says when; want the second higher", poor, good)
	}
}

// A request with tools is a tool choice, answered by the word-overlap ranker's winner.
func TestToolChoiceDelegated(t *testing.T) {
	s := &Server{}
	c, err := NewClient(s, runner.ClientOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Fetch the weather in Paris"}},
		Tools: []openai.Tool{
			{Type: "function", Function: &openai.FunctionDefinition{Name: "weather", Description: "Weather in a city.", Parameters: json.RawMessage(`{"type":"object"}`)}},
			{Type: "function", Function: &openai.FunctionDefinition{Name: "stock", Description: "Stock price of a company.", Parameters: json.RawMessage(`{"type":"object"}`)}}}}
	r, err := c.Complete(context.Background(), req, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if calls := r.Completion.Choices[0].Message.ToolCalls; len(calls) != 1 || calls[0].Function.Name != "weather" {
		t.Errorf("calls %+v, want weather", calls)
	}
	if s.Requests() != 1 || len(s.Briefs()) != 0 {
		t.Errorf("requests %d, briefs %d; want 1 and 0", s.Requests(), len(s.Briefs()))
	}
}

// A slow model gives up when the request is cancelled, well before its delay.
func TestDelayHonoursCancellation(t *testing.T) {
	s := &Server{Delay: time.Minute}
	c, err := NewClient(s, runner.ClientOptions{Retries: -1, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = drafting.Caller{Model: c}.Ask(context.Background(), rewriteBrief())
	if err == nil || !strings.Contains(err.Error(), "did not answer within") || time.Since(start) > 5*time.Second {
		t.Errorf("after %s: %v; want a timeout soon", time.Since(start), err)
	}
}

// An echoing model quotes the key; the client scrubs it before the text reaches anyone.
func TestEchoIsScrubbed(t *testing.T) {
	const key = "sk-fakemodel-secret-0123456789"
	text := ask(t, &Server{Mode: Echo, Key: key}, rewriteBrief())
	if strings.Contains(text, key) || !strings.Contains(text, "[redacted]") {
		t.Errorf("answer %q: want the key redacted", text)
	}
}
