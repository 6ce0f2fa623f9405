package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
)

// TestRunOrderBias runs a fake model that calls the tool listed first, with shuffled orders:
// the JSON report's orderBias puts every tool call at the front, above chance, and the text
// says so with the accuracy by the expected tool's position.
func TestRunOrderBias(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "first.json")
	src := `[{"task": "Show me ticket 4521 [[first]]", "expect": "tickets_get"},
	 {"task": "Find open tickets [[first]]", "expect": "tickets_search"},
	 {"task": "Look up the user Maria by email [[first]]", "expect": "users_find"}]`
	if err := os.WriteFile(tasks, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	url := fakeURL(t, &fake.Server{})
	args := []string{"run", filepath.Join(runTD, "tickets.json"), "--tasks", tasks, "--base-url", url, "--model", "fake",
		"--samples", "10", "--seed", "5", "--shuffle", "--estimate-tokenizer", "off"}
	out, errs, code := runWith(t, nil, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		OrderBias *struct {
			Tools  int     `json:"tools"`
			Chance float64 `json:"chance"`
			First  struct {
				N, K int
			} `json:"first"`
			Above      bool `json:"above"`
			ByExpected []struct {
				From, To int
			} `json:"byExpectedPosition"`
		} `json:"orderBias"`
		ByPosition []int `json:"byPosition"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	ob := r.OrderBias
	if ob == nil || ob.Tools != 4 || ob.Chance != 0.25 || ob.First.N != 30 || ob.First.K != 30 || !ob.Above || len(ob.ByExpected) != 2 {
		t.Fatalf("orderBias %+v, want 30 of 30 calls first-listed among 4 tools, above chance, in buckets 1 and 2-4", ob)
	}
	text, errs, code := runWith(t, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"the tool listed first was chosen in 30/30 = 1.000", "above chance: the model prefers the tool listed first",
		"accuracy by the expected tool's position in the order sent: 1: "} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
}
