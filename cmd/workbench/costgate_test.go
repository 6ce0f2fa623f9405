package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// The gate's listings: head.json against base.json grows one tool, shrinks one, renames one
// (renew_loan to extend_loan), adds one and leaves two as they were.
var (
	gateBase = filepath.Join("testdata", "cost", "base.json")
	gateHead = filepath.Join("testdata", "cost", "head.json")
)

func TestCostGateGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"markdown", []string{gateHead, "--baseline", gateBase, "--format", "markdown"}, 0},
		{"github", []string{gateHead, "--baseline", gateBase, "--format", "github"}, 0},
		// head grows by 84 tokens (+37.0%) on o200k_base's compact rendering.
		{"markdown-within", []string{gateHead, "--baseline", gateBase, "--format", "markdown", "--max-increase", "84"}, 0},
		{"markdown-over", []string{gateHead, "--baseline", gateBase, "--format", "markdown", "--max-increase", "83"}, 1},
		{"github-over-percent", []string{gateHead, "--baseline", gateBase, "--format", "github", "--max-increase", "10%"}, 1},
		{"github-within-percent", []string{gateHead, "--baseline", gateBase, "--format", "github", "--max-increase", "40%"}, 0},
		{"github-shrink", []string{gateBase, "--baseline", gateHead, "--format", "github", "--max-increase", "0"}, 0},
		{"text-over", []string{gateHead, "--baseline", gateBase, "--max-increase", "1%", "--tokenizer", "cl100k_base"}, 1},
		{"markdown-stdin-baseline", []string{gateHead, "--baseline", "-", "--format", "markdown", "--render", "openai"}, 0},
	}
	stdin, err := os.ReadFile(gateBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCostCmd(t, string(stdin), c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			}
			got := fmt.Sprintf("%s[stderr]\n%s[exit %d]\n", out, errs, code)
			testutil.Golden(t, filepath.Join("testdata", "golden", "cost-gate-"+c.name+".txt"), []byte(got))
		})
	}
}

// A tool's name is the listing author's text: in --format github it must not end the command it
// is in or start another, and in markdown it must stay one cell of plain text.
func TestCostGateHostileNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{
		"a\n::error file=x.json::injected",
		"b\r\n::warning::also injected",
		"c%0A::error::encoded",
		"d,title=x:y",
		"e | <script>alert(1)</script> | @octocat [x](https://example.com) `code`",
	}
	var base, head strings.Builder
	base.WriteString(`{"tools": [`)
	head.WriteString(`{"tools": [`)
	for i, n := range names {
		q := fmt.Sprintf("%q", n)
		if i > 0 {
			base.WriteString(",")
			head.WriteString(",")
		}
		fmt.Fprintf(&base, `{"name": %s, "description": "short"}`, q)
		fmt.Fprintf(&head, `{"name": %s, "description": "a much longer description than before, which costs more tokens"}`, q)
	}
	base.WriteString("]}")
	head.WriteString("]}")
	bp, hp := filepath.Join(dir, "base.json"), filepath.Join(dir, "head,x:y%.json")
	os.WriteFile(bp, []byte(base.String()), 0o644)
	os.WriteFile(hp, []byte(head.String()), 0o644)

	out, errs, code := runCostCmd(t, "", hp, "--baseline", bp, "--format", "github", "--max-increase", "1")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (over the limit): %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// One summary, one notice a tool, one error: no name made a line of its own.
	if len(lines) != 2+len(names) {
		t.Errorf("%d lines, want %d:\n%s", len(lines), 2+len(names), out)
	}
	for _, ln := range lines {
		cmd, rest, ok := strings.Cut(ln, "::")
		if !ok || cmd != "" {
			t.Errorf("line is not a workflow command: %q", ln)
			continue
		}
		// The properties end at the first "::" and are split at commas; no name may add a
		// property of its own.
		head, _, _ := strings.Cut(rest, "::")
		_, props, _ := strings.Cut(head, " ")
		seen := map[string]bool{}
		for _, p := range strings.Split(props, ",") {
			key, _, _ := strings.Cut(p, "=")
			if (key != "file" && key != "line" && key != "title") || seen[key] {
				t.Errorf("property %q in %q", key, ln)
			}
			seen[key] = true
		}
	}
	if !strings.Contains(out, "file=") || !strings.Contains(out, "head%2Cx%3Ay%25.json") {
		t.Errorf("the file property is not escaped:\n%s", out)
	}
	for _, want := range []string{"title=grown tool%3A a%0A%3A%3Aerror file=x.json%3A%3Ainjected::a%0A::error file=x.json::injected",
		"b%0D%0A%3A%3Awarning", "c%250A", "d%2Ctitle=x%3Ay"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, _, _ = runCostCmd(t, "", hp, "--baseline", bp, "--format", "markdown")
	var rows int
	for _, ln := range strings.Split(out, "\n") {
		if strings.Contains(ln, "| grown |") {
			rows++
			// Six cells: seven unescaped pipes.
			if n := strings.Count(ln, "|") - strings.Count(ln, `\|`); n != 7 {
				t.Errorf("row has %d unescaped pipes, want 7: %q", n, ln)
			}
		}
	}
	if rows != len(names) {
		t.Errorf("%d rows for %d tools:\n%s", rows, len(names), out)
	}
	for _, bad := range []string{"<script>", "[x](", "@octocat", "\n::"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown holds %q unescaped:\n%s", bad, out)
		}
	}
}

func TestCostGateBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"markdown without baseline", []string{gateHead, "--format", "markdown"}, "--format markdown shows the change against a baseline: give --baseline FILE"},
		{"github without baseline", []string{gateHead, "--format", "github"}, "--format github shows the change"},
		{"limit without baseline", []string{gateHead, "--max-increase", "5%"}, "--max-increase limits the growth against a baseline"},
		{"bad limit", []string{gateHead, "--baseline", gateBase, "--max-increase", "lots"}, `--max-increase: "lots" is not a limit: give a whole number of tokens (500) or a percentage of the baseline's total (2.5%)`},
		{"negative limit", []string{gateHead, "--baseline", gateBase, "--max-increase", "-3%"}, `"-3%" is negative`},
		{"unknown format", []string{gateHead, "--format", "html"}, `unknown format "html"; use text, json, github or markdown`},
		{"bad baseline file", []string{gateHead, "--baseline", filepath.Join("testdata", "cost", "none.json"), "--format", "github"}, "baseline testdata/cost/none.json: [Errno 2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCostCmd(t, "", c.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stdout %q", code, out)
			}
			if !strings.Contains(errs, c.want) {
				t.Errorf("stderr %q lacks %q", errs, c.want)
			}
		})
	}
}
