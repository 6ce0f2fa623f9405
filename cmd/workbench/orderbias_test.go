package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
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

// TestCheckOrderBias checks --order-bias on the confusing seed, whose task words tie most of
// its nine tools: the text report's order-bias lines against a golden file, the JSON report's
// member, its absence without the flag, and the refusals.
func TestCheckOrderBias(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	args := []string{"check", filepath.Join(fx, "confusing-tools.json"), "--tasks", filepath.Join(fx, "tasks-confusing.json"), "--tokenizer", "approx"}
	out, errs, code := runCLI(t, "", append(args, "--order-bias")...)
	var lines []string
	for _, ln := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(ln, "INFO order bias") {
			lines = append(lines, ln)
		}
	}
	got := fmt.Sprintf("%s[exit %d]\n", strings.Join(lines, ""), code)
	golden := filepath.Join("testdata", "golden", "check-order-bias-confusing.txt")
	if *update {
		testutil.WriteFile(t, golden, []byte(got))
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("order-bias lines differ from %s (stderr %q):\n%s", golden, errs, got)
	}
	for _, withFlag := range []bool{true, false} {
		a := append(args, "--format", "json")
		if withFlag {
			a = append(a, "--order-bias")
		}
		out, _, _ := runCLI(t, "", a...)
		var r struct {
			Ranking   []any `json:"ranking"`
			OrderBias *struct {
				Rotations, Tied, Flips int
				Tasks                  []struct{ N, ExpectedWins int }
			} `json:"orderBias"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		ob := r.OrderBias
		if !withFlag {
			if ob != nil || len(r.Ranking) != 8 {
				t.Errorf("without --order-bias: orderBias %+v, %d verdicts; want none and 8", ob, len(r.Ranking))
			}
			continue
		}
		if ob == nil || ob.Rotations != 9 || ob.Tied != 5 || ob.Flips != 4 || len(ob.Tasks) != 5 || ob.Tasks[0].N != 1 || ob.Tasks[0].ExpectedWins != 1 {
			t.Errorf("orderBias %+v, want 9 rotations, 5 tied tasks of which 4 flip, the first won by get_data in 1", ob)
		}
	}
	for _, c := range [][]string{
		{"check", filepath.Join(fx, "confusing-tools.json"), "--order-bias"},
		append(append([]string{}, args...), "--order-bias", "--format", "sarif"),
	} {
		if _, errs, code := runCLI(t, "", c...); code != 2 || !strings.Contains(errs, "--order-bias") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a word on --order-bias", c[2:], code, errs)
		}
	}
}
