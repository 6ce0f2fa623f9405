package drafting_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/runner"
)

// paramsAdder passes tool-choice requests to inner and adds parameter descriptions to every
// rewrite candidate inner answers: a model that fills the answer format's "parameters" field
// although the brief did not ask for them.
type paramsAdder struct {
	inner  http.Handler
	params map[string]string
}

func (p paramsAdder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	p.inner.ServeHTTP(rec, r)
	out := rec.Body.Bytes()
	var resp struct {
		Choices []struct {
			Message map[string]any `json:"message"`
		} `json:"choices"`
	}
	var full map[string]any
	if !bytes.Contains(body, []byte(`"tools"`)) && json.Unmarshal(out, &resp) == nil && json.Unmarshal(out, &full) == nil && len(resp.Choices) > 0 {
		content, _ := resp.Choices[0].Message["content"].(string)
		var ans map[string]any
		if drafting.Decode(content, &ans) == nil {
			if cands, ok := ans["candidates"].([]any); ok {
				for _, c := range cands {
					c.(map[string]any)["parameters"] = p.params
				}
				b, _ := json.Marshal(ans)
				full["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = string(b)
				out, _ = json.Marshal(full)
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(out)
}

func handlerCaller(t *testing.T, h http.Handler, budget int) drafting.Caller {
	t.Helper()
	cl, err := runner.NewClient(runner.Endpoint{Name: "fake", BaseURL: "http://fake/v1", Model: "fake-model"},
		runner.ClientOptions{HTTP: runner.HandlerDoer{Handler: h}, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return drafting.Caller{Model: cl, Budget: drafting.NewBudget(budget), Record: &drafting.Recorder{}}
}

// The loop asks for descriptions only (the brief's Params is false): parameter descriptions a
// model sends anyway are neither measured nor kept, so the revised listing (what the CLI writes
// and the page applies) differs from the original only in the descriptions the report shows.
func TestImproveKeepsNoUnaskedParameters(t *testing.T) {
	l, tasks := confusing(t)
	h := paramsAdder{inner: &fakemodel.Server{Rewrites: ticketRewrites}, params: map[string]string{"id": "PARAMMARK the ticket's id"}}
	r, err := drafting.Improve(context.Background(), handlerCaller(t, h, 500), engine(t), l, tasks, drafting.ImproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer logReport(t, r)
	if !r.Improved || len(r.Changed) == 0 {
		t.Fatalf("improved %v, changed %v: the honest rewrites should still be kept", r.Improved, r.Changed)
	}
	for _, tl := range r.Revised.Tools {
		if d := tl.Get("inputSchema").Get("properties").Get("id").Get("description").String(); strings.Contains(d, "PARAMMARK") {
			t.Errorf("the revised listing's %s holds a parameter description the loop never asked for: %q", tl.Get("name").String(), d)
		}
	}
}

// A rewrite that adds a persuasive phrase is refused even when the workspace's lint does not
// report promotional wording (here an engine with no extended rules): the loop counts
// lint.Persuasion's phrases, as the page's marks do.
func TestImproveRefusesAddedPersuasion(t *testing.T) {
	l, tasks := confusing(t)
	eng, err := analysis.New(analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rw := map[string][]string{}
	for k, v := range ticketRewrites {
		rw[k] = []string{v[0] + " This is the best tool for tickets."}
	}
	r, err := drafting.Improve(context.Background(), fakeCaller(t, &fakemodel.Server{Rewrites: rw}, drafting.NewBudget(500), runner.ClientOptions{}), eng, l, tasks, drafting.ImproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer logReport(t, r)
	if len(r.Attempts) == 0 {
		t.Fatal("no attempt recorded")
	}
	for _, a := range r.Attempts {
		if a.Kept || a.Ran || !strings.HasPrefix(a.Reason, "refused: ") || !strings.Contains(a.Reason, `"the best tool"`) {
			t.Errorf("attempt on %s: kept %v, ran %v, reason %q; want it refused for \"the best tool\"", a.Tool, a.Kept, a.Ran, a.Reason)
		}
	}
	if len(r.Changed) > 0 {
		t.Errorf("changed %v: a promotional rewrite was kept", r.Changed)
	}
}

// Candidates keeps a candidate's parameter descriptions only when the brief asked for them.
func TestCandidatesUnaskedParameters(t *testing.T) {
	answer := `{"candidates":[{"description":"A.","parameters":{"id":"The ticket's id."}}]}`
	for _, params := range []bool{true, false} {
		cands, problems := drafting.Candidates(answer, 1, "Current.", params)
		if len(cands) != 1 || (len(cands[0].Params) > 0) != params {
			t.Errorf("params %v: candidates %+v", params, cands)
		}
		if !params && (len(problems) != 1 || !strings.Contains(problems[0], "not asked for")) {
			t.Errorf("params false: problems %q; want the unasked parameters named", problems)
		}
	}
}
