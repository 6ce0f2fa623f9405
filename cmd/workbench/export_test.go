package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// exportRun runs workbench with args and returns stdout, stderr and the exit code.
func exportRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func exportFixture(t *testing.T, name string) string {
	t.Helper()
	return testutil.Shared(t, "reference", "fixtures", name)
}

func TestExportCommand(t *testing.T) {
	clear := exportFixture(t, "clear-tools.json")
	draft := exportFixture(t, "draft-tools.json")
	src, err := os.ReadFile(clear)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("json by default", func(t *testing.T) {
		out, errs, code := exportRun(t, "", "export", clear)
		if code != 0 || out != string(export.JSON(l, export.JSONOptions{})) {
			t.Fatalf("code %d, stderr %q, stdout:\n%.300s", code, errs, out)
		}
	})
	t.Run("bare compact from stdin", func(t *testing.T) {
		out, errs, code := exportRun(t, string(src), "export", "-", "--bare", "--compact")
		if code != 0 || out != string(export.JSON(l, export.JSONOptions{Bare: true, Compact: true})) {
			t.Fatalf("code %d, stderr %q, stdout:\n%.300s", code, errs, out)
		}
	})
	t.Run("go with main to a file", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "server.go")
		out, errs, code := exportRun(t, "", "export", clear, "--format", "go", "--main", "--out", dst)
		if code != 0 || out != "" {
			t.Fatalf("code %d, stderr %q, stdout %q", code, errs, out)
		}
		if !strings.Contains(errs, "warning: 6 unset readOnlyHint/idempotentHint sent as false (hint-default)") || !strings.Contains(errs, "sorted by name") {
			t.Fatalf("stderr does not report the differences: %q", errs)
		}
		f, err := parser.ParseFile(token.NewFileSet(), dst, nil, 0)
		if err != nil {
			t.Fatalf("the written file is not Go: %v", err)
		}
		if f.Name.Name != "main" {
			t.Fatalf("package %s, want main", f.Name.Name)
		}
	})
	t.Run("go package name", func(t *testing.T) {
		out, _, code := exportRun(t, "", "export", clear, "--format", "go", "--package", "ticketing")
		if code != 0 || !strings.Contains(out, "\npackage ticketing\n") || strings.Contains(out, "func main()") {
			t.Fatalf("code %d, stdout:\n%.400s", code, out)
		}
	})
	t.Run("review", func(t *testing.T) {
		tasks := exportFixture(t, "tasks-clear.json")
		out, errs, code := exportRun(t, "", "export", clear, "--format", "review", "--baseline", draft, "--tasks", tasks)
		if code != 0 {
			t.Fatalf("code %d, stderr %q", code, errs)
		}
		for _, want := range []string{"# Review of", "| Tokens |", "| Findings |", "| Tasks clear |",
			"o200k\\_base tokens", "## Ranking per task", "### `tickets_get` (changed)", "[-Return-]{+Show+}"} {
			if !strings.Contains(out, want) {
				t.Errorf("the report lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("review without tasks", func(t *testing.T) {
		out, errs, code := exportRun(t, "", "export", clear, "--format", "review", "--baseline", draft)
		if code != 0 || !strings.Contains(out, "Ranking: not reported (no --tasks file given)") || strings.Contains(out, "## Ranking") {
			t.Fatalf("code %d, stderr %q, stdout:\n%s", code, errs, out)
		}
	})
}

func TestExportCommandErrors(t *testing.T) {
	clear := exportFixture(t, "clear-tools.json")
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{\"tools\": [\n  {\"name\": \"a\",}\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	noSchema := filepath.Join(dir, "noschema.json")
	if err := os.WriteFile(noSchema, []byte(`[{"name": "a"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"no source", "", []string{"export"}, 2, "export takes one SOURCE"},
		{"two sources", "", []string{"export", clear, clear}, 2, "got 2 arguments"},
		{"unknown format", "", []string{"export", clear, "--format", "yaml"}, 2, `unknown --format "yaml"`},
		{"review without baseline", "", []string{"export", clear, "--format", "review"}, 2, "needs --baseline"},
		{"baseline with json", "", []string{"export", clear, "--baseline", clear}, 2, "--baseline and --tasks apply to --format review only"},
		{"tasks with go", "", []string{"export", clear, "--format", "go", "--tasks", clear}, 2, "--baseline and --tasks apply to --format review only"},
		{"bad tasks file", "", []string{"export", clear, "--format", "review", "--baseline", clear, "--tasks", clear}, 1, clear},
		{"unknown tokenizer", "", []string{"export", clear, "--format", "review", "--baseline", clear, "--tokenizer", "gpt9"}, 2, "--tokenizer"},
		{"main with json", "", []string{"export", clear, "--main"}, 2, "apply to --format go only"},
		{"bare with go", "", []string{"export", clear, "--format", "go", "--bare"}, 2, "apply to --format json only"},
		{"both on stdin", "", []string{"export", "-", "--format", "review", "--baseline", "-"}, 2, "only one of SOURCE, --baseline and --tasks"},
		{"missing file", "", []string{"export", filepath.Join(dir, "nope.json")}, 2, "no such file"},
		{"malformed JSON", "", []string{"export", broken}, 2, "line 2 column"},
		{"empty stdin", "", []string{"export", "-"}, 2, "stdin"},
		{"no tools", `{"result": {"items": []}}`, []string{"export", "-"}, 2, "no tools array"},
		{"go refused", "", []string{"export", noSchema, "--format", "go"}, 1, "missing input schema"},
		{"bad package", "", []string{"export", clear, "--format", "go", "--package", "9lives"}, 1, "not a Go identifier"},
		{"unwritable out", "", []string{"export", clear, "--out", filepath.Join(dir, "no", "such", "dir", "x.json")}, 1, "writing"},
	}
	// Exit 2: the input could not be read or is not a listing (as every command); 1: the
	// export itself failed.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := exportRun(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) {
				t.Fatalf("code %d (want %d), stderr %q (want %q), stdout %.200q", code, tt.code, errs, tt.want, out)
			}
		})
	}
}
