package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// update is -update: golden files are rewritten (reference cases with python3 and ../shared/reference).
var update = testutil.Update

// runCLI runs the workbench in-process and returns its output and exit code.
func runCLI(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

type goldenCase struct {
	name, source, tasks string
}

// referenceCases are the inputs on which `check --rules reference` must print exactly what the
// reference checker prints. Their golden files were written by the reference itself (-update).
func referenceCases(t *testing.T) []goldenCase {
	fx := testutil.Shared(t, "reference", "fixtures")
	cases := []goldenCase{
		{"confusing", filepath.Join(fx, "confusing-tools.json"), filepath.Join(fx, "tasks-confusing.json")},
		{"draft", filepath.Join(fx, "draft-tools.json"), filepath.Join(fx, "tasks-clear.json")},
		{"clear", filepath.Join(fx, "clear-tools.json"), filepath.Join(fx, "tasks-clear.json")},
		{"clear-no-tasks", filepath.Join(fx, "clear-tools.json"), ""},
	}
	realDir, _ := testutil.SharedPath(t, "listings", "real")
	real, _ := filepath.Glob(filepath.Join(realDir, "*.json"))
	for _, f := range real {
		cases = append(cases, goldenCase{"real-" + strings.TrimSuffix(filepath.Base(f), ".json"), f, ""})
	}
	td := filepath.Join("testdata", "check")
	for _, c := range []goldenCase{
		{"lending-sse", "lending-sse.txt", "lending-tasks.json"},
		{"odd-names", "odd-names.json", ""},
		{"ties", "ties.json", "ties-tasks.json"},
		{"not-json", "not-json.txt", ""},
		{"rpc-error", "rpc-error.json", ""},
		{"no-tools", "no-tools.json", ""},
		{"unnamed", "unnamed.json", ""},
		{"tasks-no-expect", "lending-sse.txt", "tasks-no-expect.json"},
		{"tasks-malformed", "lending-sse.txt", "tasks-malformed.json"},
		{"tasks-missing", "lending-sse.txt", "no-such-tasks.json"},
		{"missing-file", "no-such-file.json", ""},
		{"crlf-broken", "crlf-broken.json", ""},
	} {
		c.source = filepath.Join(td, c.source)
		if c.tasks != "" {
			c.tasks = filepath.Join(td, c.tasks)
		}
		cases = append(cases, c)
	}
	return cases
}

func TestCheckMatchesReference(t *testing.T) {
	for _, c := range referenceCases(t) {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"check", c.source}
			if c.tasks != "" {
				args = append(args, "--tasks", c.tasks)
			}
			out, _, code := runCLI(t, "", append(args, "--rules", "reference")...)
			got := fmt.Sprintf("%s[exit %d]\n", out, code)
			golden := filepath.Join("testdata", "golden", "check-"+c.name+".txt")
			if *update {
				cmd := exec.Command("python3", append([]string{testutil.Shared(t, "reference", "tool_design_check.py")}, args[1:]...)...)
				ref, _ := cmd.Output()
				want := fmt.Sprintf("%s[exit %d]\n", ref, cmd.ProcessState.ExitCode())
				testutil.WriteFile(t, golden, []byte(want))
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update with python3 to create it)", err)
			}
			if got != string(want) {
				t.Errorf("workbench check differs from the reference checker\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// On input where the reference crashes with a Python exception, the workbench refuses it with
// one ERROR line and exit 2.
func TestCheckRefusesWhatCrashesTheReference(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.json")
	os.WriteFile(tasks, []byte(`[{"task": "find a book", "expect": "a"}]`), 0o644)
	tests := []struct {
		name, listing string
		tasks         bool
		want          string
	}{
		{"description not a string", `[{"name": "a", "description": 12}]`, false, "/tools/0/description: description is a number, not a string"},
		{"title not a string", `[{"name": "a", "title": ["x"]}]`, true, "/tools/0/title: title is a array, not a string"},
		{"schema not an object", `[{"name": "a", "inputSchema": [1]}]`, true, "/tools/0/inputSchema: inputSchema is a array, not an object"},
		{"enum a number", `[{"name": "a", "inputSchema": {"properties": {"p": {"enum": 3}}}}]`, true, "/tools/0/inputSchema/properties/p/enum"},
		{"lone surrogate", `[{"name": "a", "description": "\ud800"}]`, false, "lone surrogate"},
		{"no tools to rank", `[]`, true, "no tools to rank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := filepath.Join(dir, "l.json")
			os.WriteFile(src, []byte(tt.listing), 0o644)
			args := []string{"check", src, "--rules", "reference"}
			if tt.tasks {
				args = append(args, "--tasks", tasks)
			}
			out, _, code := runCLI(t, "", args...)
			if code != 2 || !strings.HasPrefix(out, "ERROR ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, output %q; want exit 2 and one ERROR line containing %q", code, out, tt.want)
			}
		})
	}
}

func TestCheckReadsStandardInput(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "check", "odd-names.json"))
	if err != nil {
		t.Fatal(err)
	}
	fromFile, _, code1 := runCLI(t, "", "check", "-", "--rules", "reference", "--tasks", filepath.Join("testdata", "check", "ties-tasks.json"))
	if code1 != 2 || !strings.Contains(fromFile, "ERROR - holds neither JSON") {
		t.Errorf("empty stdin: exit %d, %q", code1, fromFile)
	}
	out, _, code := runCLI(t, string(src), "check", "-", "--rules", "reference")
	want, _ := os.ReadFile(filepath.Join("testdata", "golden", "check-odd-names.txt"))
	if got := fmt.Sprintf("%s[exit %d]\n", out, code); got != string(want) {
		t.Errorf("stdin output differs from the file's:\n%s", got)
	}
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{{"check"}, {"check", "-", "-"}, {"check", "x.json", "--rules", "nope"}, {"check", "--bogus"}, {"nosuchcommand"}} {
		_, errOut, code := runCLI(t, "", args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a message", args, code, errOut)
		}
	}
}

// Huge inputs are handled or refused with a message, never a crash.
func TestCheckHugeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 50 MB and 100,000-tool inputs")
	}
	dir := t.TempDir()
	// 50 MB in 500 tools with long descriptions: handled.
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	word := strings.Fields("catalogue member loan renew reserve branch shelf overdue fine card book author title isbn")
	for i := range 500 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"`, i)
		for k := 0; b.Len() < (i+1)*100_000; k++ {
			b.WriteString(word[(i*7+k*k)%len(word)])
			fmt.Fprintf(&b, "%d ", k%97)
		}
		b.WriteString(`","inputSchema":{"type":"object","properties":{},"additionalProperties":false}}`)
	}
	b.WriteString(`]}`)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(b.String()), 0o644)
	out, _, code := runCLI(t, "", "check", big, "--rules", "reference")
	if code != 0 && code != 1 || !strings.HasPrefix(out, "INFO 500 tools, ") {
		t.Errorf("50 MB listing: exit %d, output starts %.200q", code, out)
	}
	// 100,000 tools: refused with a message that names the limit.
	b.Reset()
	b.WriteString("[")
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"t%d"}`, i)
	}
	b.WriteString("]")
	many := filepath.Join(dir, "many.json")
	os.WriteFile(many, []byte(b.String()), 0o644)
	out, _, code = runCLI(t, "", "check", many)
	if code != 2 || !strings.Contains(out, "100000 tools") || !strings.Contains(out, "up to") {
		t.Errorf("100,000 tools: exit %d, %q", code, out)
	}
}

// The reference's Python decodes arrays and objects nested up to listing.PythonMaxDepth levels
// and stops with a RecursionError one level deeper, in a listing or a task file; the workbench
// reads the first and refuses the second. With python3 present, the reference confirms both.
func TestCheckNestingAtPythonsLimit(t *testing.T) {
	dir := t.TempDir()
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	// The tools wrapper opens 4 levels: {"tools": [{... "inputSchema": {... "x": here}}]}.
	listingAt := func(depth int) string {
		return `{"tools": [{"name": "a", "description": "x", "inputSchema": {"type": "object", "x": ` + nest(depth-4) + `}}]}`
	}
	// The task file opens 2: [{"task": ..., "args": here}].
	tasksAt := func(depth int) string {
		return `[{"task": "find a book", "expect": "a", "args": ` + nest(depth-2) + `}]`
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte(`[{"name": "a", "description": "x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	py, _ := exec.LookPath("python3")
	for _, tt := range []struct {
		name          string
		depth         int
		listing, task bool
	}{
		{"listing at the limit", listing.PythonMaxDepth, true, false},
		{"listing one deeper", listing.PythonMaxDepth + 1, true, false},
		{"task file at the limit", listing.PythonMaxDepth, false, true},
		{"task file one deeper", listing.PythonMaxDepth + 1, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"check", plain, "--rules", "reference"}
			if tt.listing {
				src := filepath.Join(dir, "deep.json")
				if err := os.WriteFile(src, []byte(listingAt(tt.depth)), 0o644); err != nil {
					t.Fatal(err)
				}
				args[1] = src
			}
			if tt.task {
				tasks := filepath.Join(dir, "tasks.json")
				if err := os.WriteFile(tasks, []byte(tasksAt(tt.depth)), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--tasks", tasks)
			}
			deeper := tt.depth > listing.PythonMaxDepth
			out, _, code := runCLI(t, "", args...)
			refused := code == 2 && strings.HasPrefix(out, "ERROR ") && strings.Contains(out, "RecursionError")
			if refused != deeper {
				t.Errorf("depth %d: exit %d, %q; want refused %v", tt.depth, code, out, deeper)
			}
			if tt.listing {
				// The default rules print the reference's report only when it has one.
				all, _, _ := runCLI(t, "", append([]string{"check", args[1], "--rules", "all"}, args[4:]...)...)
				if got := strings.Contains(all, "PASS list-complete"); got == deeper {
					t.Errorf("depth %d, --rules all: reference report shown %v, want %v:\n%.300s", tt.depth, got, !deeper, all)
				}
			}
			if py == "" {
				t.Log("python3 is not installed: the limit is not confirmed against the reference")
				return
			}
			refArgs := []string{testutil.Shared(t, "reference", "tool_design_check.py"), args[1]}
			if tt.task {
				refArgs = append(refArgs, args[4:]...) // --tasks FILE
			}
			ref := exec.Command(py, refArgs...)
			var stderr strings.Builder
			ref.Stderr = &stderr
			_ = ref.Run()
			if crashed := strings.Contains(stderr.String(), "RecursionError"); crashed != deeper {
				t.Errorf("depth %d: the reference crashed %v; listing.PythonMaxDepth is wrong for this python3", tt.depth, crashed)
			}
		})
	}
}
