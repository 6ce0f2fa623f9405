package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

func formatExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "selection", "taskformat", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTasksConvertMatchesCLI converts the formats' examples through the API: the output is
// the CLI's golden output byte for byte, the losses its stderr lines.
func TestTasksConvertMatchesCLI(t *testing.T) {
	e := newRouter(t, Options{})
	tests := []struct{ golden, file, from, to string }{
		{"promptfoo-to-workbench", "promptfoo/promptfooconfig.yaml", "", "workbench"},
		{"stdin-mcpjam-to-promptfoo", "mcpjam/suite.yaml", "", "promptfoo"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			req := body("tasks", quote(formatExample(t, tt.file)), "to", quote(tt.to))
			checkRequest(t, http.MethodPost, Prefix+"/tasks/convert", req)
			rec := call(e, http.MethodPost, Prefix+"/tasks/convert", req)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			checkResponse(t, http.MethodPost, Prefix+"/tasks/convert", rec)
			var resp convertResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			cli, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "cmd", "workbench", "testdata", "tasks", tt.golden+".golden"))
			if err != nil {
				t.Skipf("the CLI's golden output is not here: %v", err)
			}
			_, rest, _ := bytes.Cut(cli, []byte("--- stdout\n"))
			stdout, stderr, _ := bytes.Cut(rest, []byte("--- stderr\n"))
			if resp.Output != string(stdout) {
				t.Errorf("output differs from the CLI's\n%s", testutil.FirstDifference([]byte(resp.Output), stdout))
			}
			lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")[1:]
			if len(lines) != len(resp.Losses) {
				t.Fatalf("%d losses, the CLI printed %d", len(resp.Losses), len(lines))
			}
			for i, l := range resp.Losses {
				if "  "+l.String() != lines[i] {
					t.Errorf("loss %d: %q, the CLI printed %q", i, l, lines[i])
				}
			}
		})
	}
}

func TestTasksConvertRequests(t *testing.T) {
	e := newRouter(t, Options{MaxBodyBytes: 1 << 20})
	suite := quote(formatExample(t, "mcpjam/suite.yaml"))
	tests := []struct {
		name, req string
		status    int
		code      Code
		check     string // a string the answer holds
	}{
		{"a JSON value", body("tasks", `[{"id": "a", "task": "q", "expect": "x"}]`, "to", `"mcpjam"`), 200, "", `"from":"workbench"`},
		{"nothing lost", body("tasks", `[{"id": "a", "task": "q", "expect": "x"}]`, "to", `"promptfoo"`), 200, "", `"losses":[]`},
		{"from named", body("tasks", suite, "from", `"mcpjam"`), 200, "", `"cases":4`},
		{"to defaults to workbench", body("tasks", suite), 200, "", `"to":"workbench"`},
		{"no tasks", body("to", `"mcpjam"`), 400, CodeMissingField, ""},
		{"unknown format", body("tasks", suite, "to", `"nope"`), 400, CodeInvalidField, "use one of workbench"},
		{"unknown member", body("tasks", suite, "strict", "true"), 400, CodeUnknownField, ""},
		{"tasks a number", body("tasks", "3"), 400, CodeInvalidField, ""},
		{"unknown shape", body("tasks", `{"hello": "world"}`), 422, CodeInvalidTasks, `say the file's format in \"from\"`},
		{"wrong format", body("tasks", suite, "from", `"promptfoo"`), 422, CodeInvalidTasks, "no \\\"tests\\\""},
		{"nothing to write", body("tasks", `[]`, "from", `"workbench"`, "to", `"mcpjam"`), 422, CodeInvalidTasks, "at least one case"},
		{"alias bomb", body("tasks", quote(yamlAliasBomb()), "from", `"promptfoo"`), 422, CodeInvalidTasks, "expands to more than"},
		{"too large", body("tasks", quote(strings.Repeat("x", 2<<20))), 413, CodeTooLarge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+"/tasks/convert", tt.req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.code != "" {
				if got := apiError(t, rec); got.Code != tt.code {
					t.Errorf("code %s, want %s", got.Code, tt.code)
				}
			} else {
				checkResponse(t, http.MethodPost, Prefix+"/tasks/convert", rec)
			}
			if !strings.Contains(rec.Body.String(), tt.check) {
				t.Errorf("the answer does not hold %q: %s", tt.check, rec.Body)
			}
		})
	}
}

func yamlAliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("prompts: ['{{query}}']\ntests: *a9\n")
	return b.String()
}
