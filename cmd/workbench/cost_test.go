package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

func runCostCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"cost"}, args...), func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	return testutil.Shared(t, "reference", "fixtures", name)
}

func TestCostJSON(t *testing.T) {
	out, errs, code := runCostCmd(t, "", fixture(t, "confusing-tools.json"), "--format", "json", "--context", "4096")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Tokenizer string `json:"tokenizer"`
		Render    string `json:"render"`
		Total     struct{ Tokens, Bytes int }
		Tools     []struct {
			Name          string
			Tokens, Bytes int
		}
		ContextShare float64 `json:"context_share"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// 1170 bytes is what the reference checker's INFO line prints for this fixture.
	if rep.Tokenizer != "o200k_base" || rep.Render != "compact" || rep.Total.Bytes != 1170 || len(rep.Tools) != 9 {
		t.Errorf("got %+v", rep)
	}
	sum := 0
	for _, tl := range rep.Tools {
		sum += tl.Tokens
		if tl.Name == "" || tl.Tokens <= 0 || tl.Bytes <= 0 {
			t.Errorf("tool entry %+v", tl)
		}
	}
	if sum >= rep.Total.Tokens || rep.ContextShare != float64(rep.Total.Tokens)/4096 {
		t.Errorf("tools sum %d, total %d, share %v", sum, rep.Total.Tokens, rep.ContextShare)
	}
}

func TestCostTextStdinAndBaseline(t *testing.T) {
	src, err := os.ReadFile(fixture(t, "clear-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCostCmd(t, string(src), "-", "--baseline", fixture(t, "draft-tools.json"), "--render", "openai", "--tokenizer", "cl100k_base", "--parts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"8 tools, rendered openai, tokenizer cl100k_base", "ESTIMATE for gpt-4", "cheapest:", "dearest:", "against the baseline", "name and description"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCostBadInputs(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tools": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	notTok := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(notTok, []byte(`{"model": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hf := filepath.Join("..", "..", "cost", "testdata", "bpe-tokenizer.json")
	good := fixture(t, "clear-tools.json")
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"missing file", "", []string{filepath.Join(dir, "nope.json")}, "No such file or directory"},
		{"malformed JSON", "", []string{bad}, "bad.json"},
		{"malformed JSON says where", `{"tools": [ {"name": "a",, }]}`, []string{"-"}, "line 1 column 26"},
		{"malformed stdin", "{", []string{"-"}, "-:"},
		{"unknown tokenizer", "", []string{good, "--tokenizer", "gpt2"}, `unknown tokenizer "gpt2"`},
		{"bad tokenizer.json", "", []string{good, "--tokenizer", notTok}, "not a tokenizer.json"},
		{"unsupported tokenizer.json", "", []string{good, "--tokenizer", hf}, "not supported"},
		{"unknown render", "", []string{good, "--render", "xml"}, `unknown rendering "xml"`},
		{"bad baseline", "", []string{good, "--baseline", bad}, "baseline"},
		{"no source", "", nil, "one SOURCE"},
		{"bad format", "", []string{good, "--format", "yaml"}, `unknown format "yaml"`},
		{"negative context", "", []string{good, "--context", "-5"}, "--context -5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCostCmd(t, tc.stdin, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stdout %q", code, out)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q lacks %q", errs, tc.want)
			}
		})
	}
}
