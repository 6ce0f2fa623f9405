package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// The reference checker knows one answer per task. Under --rules reference, a task file with a
// list of answers gets the reference's own ERROR line (it refuses a non-string expect) and a
// "reject" is ignored as the reference ignores unknown keys: standard output stays the
// reference's byte for byte, and a hint on standard error says what --rules all does instead.
func TestCheckReferenceAnswers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := write("tools.json", `{"tools": [
	 {"name": "search_catalogue", "description": "Find books in the catalogue by title or author.", "inputSchema": {"type": "object"}},
	 {"name": "place_hold", "description": "Reserve a copy of a book for a member.", "inputSchema": {"type": "object"}}
	]}`)
	plain := write("plain.json", `[{"task": "reserve a book for a member", "expect": "place_hold"}]`)
	tests := []struct {
		name, tasks  string
		sameAs       string // a task file whose reference output stdout must equal ("": none)
		code         int
		stdout, hint string // substrings
	}{
		{"a list", write("list.json", `[{"task": "reserve a book", "expect": ["place_hold", "search_catalogue"]}]`), "", 2,
			"ERROR every task needs string fields `task` and `expect`\n", "task 1 lists several right tools"},
		{"a reject", write("reject.json", `[{"task": "reserve a book for a member", "expect": "place_hold", "reject": ["search_catalogue"]}]`), plain, 0,
			"PASS select-1", "ignores \"reject\" (task 1 names rejected tools)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", "check", src, "--tasks", tt.tasks, "--rules", "reference")
			if code != tt.code || !strings.Contains(out, tt.stdout) {
				t.Errorf("exit %d, stdout:\n%s\nwant exit %d and %q", code, out, tt.code, tt.stdout)
			}
			if !strings.Contains(errOut, tt.hint) || !strings.Contains(errOut, "--rules all") {
				t.Errorf("stderr = %q, want a hint containing %q and naming --rules all", errOut, tt.hint)
			}
			if tt.sameAs != "" {
				if want, _, _ := runCLI(t, "", "check", src, "--tasks", tt.sameAs, "--rules", "reference"); out != want {
					t.Errorf("stdout differs from the same tasks without reject:\n%s\nwant:\n%s", out, want)
				}
			}
			if _, err := exec.LookPath("python3"); err != nil {
				t.Log("python3 is not installed: the reference's own output is not compared")
				return
			}
			cmd := exec.Command("python3", testutil.Shared(t, "reference", "tool_design_check.py"), src, "--tasks", tt.tasks)
			ref, _ := cmd.Output()
			if string(ref) != out || cmd.ProcessState.ExitCode() != code {
				t.Errorf("the reference prints (exit %d):\n%s\nthe workbench (exit %d):\n%s", cmd.ProcessState.ExitCode(), ref, code, out)
			}
		})
	}
	// --rules all ranks the set: either tool is right.
	out, _, _ := runCLI(t, "", "check", src, "--tasks", filepath.Join(dir, "list.json"), "--format", "json")
	if !strings.Contains(out, `"status": "clear"`) && !strings.Contains(out, `"status":"clear"`) {
		t.Errorf("--rules all did not rank the set task clear:\n%.2000s", out)
	}
}
