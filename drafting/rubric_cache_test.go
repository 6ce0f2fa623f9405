package drafting_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection/runner"
)

// neighbourEcho is a model whose rubric reasons name the neighbours its brief shows, as a real
// model's may.
var neighbourEcho = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	var b drafting.Brief
	_ = json.Unmarshal([]byte(req.Messages[len(req.Messages)-1].Content), &b)
	var names []string
	for _, n := range b.Neighbours {
		names = append(names, n.Name+" ("+n.Description+")")
	}
	scores := map[string]any{}
	for _, d := range drafting.Dimensions {
		scores[d.ID] = map[string]any{"score": 3, "reason": "Close to " + strings.Join(names, ", ")}
	}
	content, _ := json.Marshal(map[string]any{"scores": scores})
	resp, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": string(content)}, "finish_reason": "stop"}}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(resp)
})

// The server-wide rubric cache is shared by every workspace. A tool's brief holds its
// neighbours, so the cache key holds them too: listing B, which shares a tool with listing A,
// never gets a reason written about A's other tools.
func TestRubricCacheCrossListing(t *testing.T) {
	cl, err := runner.NewClient(runner.Endpoint{Name: "e", BaseURL: "http://e/v1", Model: "m"}, runner.ClientOptions{Retries: -1, HTTP: runner.HandlerDoer{Handler: neighbourEcho}})
	if err != nil {
		t.Fatal(err)
	}
	parse := func(s string) *listing.Listing {
		l, err := listing.Parse([]byte(s), listing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	shared := `{"name":"export_report","description":"Export a report as CSV.","inputSchema":{"type":"object"}}`
	a := parse(`{"tools":[` + shared + `,{"name":"acme_payroll_export_salaries","description":"Export the salaries report of ACME's executives as CSV (secret)","inputSchema":{"type":"object"}}]}`)
	b := parse(`{"tools":[` + shared + `,{"name":"get_weather","description":"Weather now.","inputSchema":{"type":"object"}}]}`)
	cache := drafting.NewRubricCache(0)
	eng := engine(t)
	ra, err := drafting.ScoreRubric(context.Background(), drafting.Caller{Model: cl}, eng, a, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ra.Tools[0].Dims[0].Reason, "acme_payroll") {
		t.Fatalf("the setup should show A's neighbour in A's brief; reason %q", ra.Tools[0].Dims[0].Reason)
	}
	if p := drafting.PlanRubric(b, drafting.ModelKey(cl), cache); p.Calls != 2 {
		t.Errorf("listing B: plan %+v, want 2 calls (its export_report has other neighbours)", p)
	}
	rb, err := drafting.ScoreRubric(context.Background(), drafting.Caller{Model: cl}, eng, b, cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rb.Tools[0].Dims {
		if strings.Contains(d.Reason, "acme_payroll") {
			t.Errorf("listing B's rubric of export_report (cached %v) says: %q", rb.Tools[0].Cached, d.Reason)
			break
		}
	}
}
