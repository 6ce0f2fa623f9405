package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

const formatsTD = "../../selection/taskformat/testdata"

// tasksCLI runs the workbench with stdin and returns what it printed and its exit code.
func tasksCLI(stdin string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// TestTasksGolden keeps the help, the formats list and conversions, with their losses and exit
// codes, as golden files.
func TestTasksGolden(t *testing.T) {
	suite, err := os.ReadFile(filepath.Join(formatsTD, "mcpjam", "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, stdin string
		args        []string
		code        int
	}{
		{"help", "", []string{"tasks", "-h"}, 0},
		{"convert-help", "", []string{"tasks", "convert", "-h"}, 0},
		{"no-subcommand", "", []string{"tasks"}, 2},
		{"formats", "", []string{"tasks", "formats"}, 0},
		{"promptfoo-to-workbench", "", []string{"tasks", "convert", formatsTD + "/promptfoo/promptfooconfig.yaml"}, 0},
		{"stdin-mcpjam-to-promptfoo", string(suite), []string{"tasks", "convert", "-", "--to", "promptfoo"}, 0},
		{"strict", string(suite), []string{"tasks", "convert", "-", "--from", "mcpjam", "--strict"}, 1},
		{"no-loss", `[{"id": "a", "task": "q", "expect": "x"}]`, []string{"tasks", "convert", "-", "--to", "promptfoo", "--strict"}, 0},
		{"unknown-format", "", []string{"tasks", "convert", "-", "--to", "nope"}, 2},
		{"wrong-from", string(suite), []string{"tasks", "convert", "-", "--from", "promptfoo"}, 2},
		{"unknown-shape", `{"hello": "world"}`, []string{"tasks", "convert", "-"}, 2},
		{"alias-bomb", yamlBomb(), []string{"tasks", "convert", "-", "--from", "promptfoo"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := tasksCLI(tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			got := fmt.Sprintf("$ workbench %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(tt.args, " "), code, out, errOut)
			testutil.Golden(t, filepath.Join("testdata", "tasks", tt.name+".golden"), []byte(got))
		})
	}
}

func yamlBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("prompts: ['{{query}}']\ntests: *a9\n")
	return b.String()
}

// With -o the file is written and standard output stays empty; with --strict and a loss
// nothing is written.
func TestTasksConvertOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tasks.json")
	src := filepath.Join(formatsTD, "promptfoo", "promptfooconfig.yaml")
	stdout, _, code := tasksCLI("", "tasks", "convert", src, "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte(`"expect": "get_forecast"`)) {
		t.Fatalf("-o wrote %q (%v)", b, err)
	}
	strictOut := filepath.Join(dir, "strict.json")
	if _, _, code := tasksCLI("", "tasks", "convert", src, "-o", strictOut, "--strict"); code != 1 {
		t.Errorf("--strict with losses: exit %d, want 1", code)
	}
	if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
		t.Errorf("--strict wrote a file despite losses (%v)", err)
	}
}
