package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tool-workbench/workbench/internal/testutil"
)

type preCommitHook struct {
	ID, Name, Description, Entry, Language, Files string
	Args                                          []string
	PassFilenames                                 *bool `yaml:"pass_filenames"`
}

func readPreCommitHooks(t *testing.T) []preCommitHook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	if len(hooks) == 0 {
		t.Fatal(".pre-commit-hooks.yaml defines no hook")
	}
	return hooks
}

// The hook's definition: what pre-commit requires (id, name, entry, language), built from this
// repository (golang), and a files pattern that takes listings and leaves other JSON alone.
func TestPreCommitHookDefinition(t *testing.T) {
	for _, h := range readPreCommitHooks(t) {
		if h.ID == "" || h.Name == "" || h.Description == "" || h.Language != "golang" || !strings.HasPrefix(h.Entry, "workbench check") {
			t.Errorf("hook %+v: want id, name, description, language golang and entry workbench check", h)
		}
		if h.PassFilenames != nil && !*h.PassFilenames {
			t.Errorf("hook %s does not pass the file names", h.ID)
		}
		// pre-commit matches files with Python's re.search; this pattern means the same in Go.
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Fatalf("hook %s: files %q: %v", h.ID, h.Files, err)
		}
		for name, want := range map[string]bool{
			"tools.json": true, "mcp/tools.json": true, "servers/github.tools.json": true, "a/b/my-tools.json": true, "mcp_tools.json": true,
			"package.json": false, "tools.json.bak": false, "mytools.json": false, "tools/x.json": false, "tools.jsonl": false,
		} {
			if re.MatchString(name) != want {
				t.Errorf("hook %s: files %q matches %s: %v, want %v", h.ID, h.Files, name, !want, want)
			}
		}
	}
}

// The hook run as pre-commit runs it: the entry, its args, then the staged file names, with the
// binary `go install` puts on PATH.
func TestPreCommitHookRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: builds the workbench")
	}
	hooks := readPreCommitHooks(t)
	bin := t.TempDir()
	build := exec.Command(testutil.GoCommand(t), "build", "-o", filepath.Join(bin, "workbench"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	files := map[string]string{"tools.json": gateBase, "b.tools.json": gateHead, "bad-tools.json": manyFails, "broken_tools.json": manyBad}
	for name, from := range files {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(dir, name), b)
	}
	cases := []struct {
		files []string
		code  int
	}{
		{[]string{"tools.json"}, 0},
		{[]string{"tools.json", "b.tools.json"}, 0},
		{[]string{"tools.json", "bad-tools.json", "b.tools.json"}, 1},
		{[]string{"broken_tools.json", "bad-tools.json"}, 2},
	}
	for _, h := range hooks {
		entry := strings.Fields(h.Entry)
		for _, c := range cases {
			cmd := exec.Command(filepath.Join(bin, entry[0]), append(append(entry[1:], h.Args...), c.files...)...)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Errorf("hook %s on %v: exit %d, want %d\n%s", h.ID, c.files, code, c.code, out)
			}
			for _, f := range c.files {
				if len(c.files) > 1 && !strings.Contains(string(out), "==> "+f+" <==") {
					t.Errorf("hook %s on %v: no report headed %s", h.ID, c.files, f)
				}
			}
		}
	}
}
