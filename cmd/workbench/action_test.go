package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// actionFile is the composite action's definition as the test reads it.
type actionFile struct {
	Name, Description string
	Inputs            map[string]struct {
		Description string
		Required    bool
		Default     *string
	}
	Outputs map[string]struct{ Description, Value string }
	Runs    struct {
		Using string
		Steps []struct {
			Name, ID, If, Shell, Run, Uses string
			Env                            map[string]string
			With                           map[string]string
		}
	}
}

var scriptSteps = regexp.MustCompile(`^"\$GITHUB_ACTION_PATH/scripts/action\.sh" (build|check|cost|verdict)$`)

// The action's structure: every input described, every shell step running the script with
// its inputs in the environment (never ${{ }} in the script's text, where a value would become
// shell code), the actions it uses pinned to a major version.
func TestActionYAML(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml needs a name, a description and composite steps: %+v", a)
	}
	for name, in := range a.Inputs {
		if in.Description == "" || (!in.Required && in.Default == nil) {
			t.Errorf("input %s: a description and, unless required, a default", name)
		}
	}
	for name, o := range a.Outputs {
		if o.Description == "" || !strings.Contains(o.Value, "steps.") {
			t.Errorf("output %s: a description and a step's output as its value", name)
		}
	}
	used := map[string]bool{}
	inputRef := regexp.MustCompile(`inputs\.([a-z-]+)`)
	for _, m := range inputRef.FindAllStringSubmatch(string(b), -1) {
		used[m[1]] = true
	}
	for _, s := range a.Runs.Steps {
		switch {
		case s.Run != "":
			if s.Shell != "bash" || !scriptSteps.MatchString(s.Run) {
				t.Errorf("step %q: shell %q, run %q; want bash running scripts/action.sh STEP", s.Name, s.Shell, s.Run)
			}
		case s.Uses != "":
			if !regexp.MustCompile(`^[\w-]+/[\w/-]+@v\d+$`).MatchString(s.Uses) {
				t.Errorf("step %q uses %q: pin a major version", s.Name, s.Uses)
			}
		default:
			t.Errorf("step %q neither runs nor uses", s.Name)
		}
	}
	for name := range used {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("inputs.%s is used but not declared", name)
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but not used", name)
		}
	}
}

// actionEnv is a runner's environment for the script: its own temp directory, output and
// summary files, and the go command's directory on PATH.
type actionEnv struct {
	dir, output, summary string
	env                  []string
}

func newActionEnv(t *testing.T, bin string) *actionEnv {
	t.Helper()
	dir := t.TempDir()
	a := &actionEnv{dir: dir, output: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary.md")}
	goDir := filepath.Dir(testutil.GoCommand(t))
	a.env = append(os.Environ(), "RUNNER_TEMP="+filepath.Join(dir, "runner"), "GITHUB_OUTPUT="+a.output,
		"GITHUB_STEP_SUMMARY="+a.summary, "PATH="+goDir+string(os.PathListSeparator)+os.Getenv("PATH"), "WORKBENCH="+bin,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	return a
}

// step runs `action.sh STEP` in dir with the inputs and returns its log, its exit code and the
// outputs it wrote.
func (a *actionEnv) step(t *testing.T, dir, step string, inputs ...string) (log string, code int, outputs map[string]string) {
	t.Helper()
	os.Remove(a.output)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, step)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, a.env...), inputs...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("action.sh %s: %v", step, err)
		}
	}
	outputs = map[string]string{}
	b, _ := os.ReadFile(a.output)
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(ln, "="); ok {
			outputs[k] = v
		}
	}
	return buf.String(), cmd.ProcessState.ExitCode(), outputs
}

func (a *actionEnv) takeSummary(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile(a.summary)
	os.Remove(a.summary)
	return string(b)
}

// actionBinary runs the action's build step (go build of this module, as the action does at
// its own ref) and returns the binary.
func actionBinary(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: the action's script needs %s, which is not on PATH", tool)
		}
	}
	if testing.Short() {
		t.Skip("skipped in -short: the action's build step builds the workbench")
	}
	a := newActionEnv(t, "")
	log, code, out := a.step(t, ".", "build")
	if code != 0 || out["path"] == "" {
		t.Fatalf("the action's build step failed (exit %d, outputs %v):\n%s", code, out, log)
	}
	return out["path"]
}

// gitRepo makes a repository whose commit holds base.json's tools at tools.json, and whose
// working tree holds head.json's: the pull request's change.
func gitRepo(t *testing.T, a *actionEnv) string {
	t.Helper()
	repo := filepath.Join(a.dir, "repo")
	os.MkdirAll(repo, 0o755)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, a.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(repo, to), b)
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "empty")
	git("tag", "before-listing")
	copyFile(gateBase, "listings/tools.json")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	// A branch only the remote has, as a pull request's base is in a shallow checkout.
	git("init", "-q", "--bare", filepath.Join(a.dir, "origin.git"))
	git("remote", "add", "origin", filepath.Join(a.dir, "origin.git"))
	git("push", "-q", "origin", "HEAD:refs/heads/upstream-base")
	copyFile(gateHead, "listings/tools.json")
	copyFile(manyFails, "listings/odd.json")
	return repo
}

// The action's steps, run as the action runs them, on a repository with a pull request's change.
func TestActionScript(t *testing.T) {
	bin := actionBinary(t)
	t.Run("check", func(t *testing.T) { actionCheckStep(t, bin) })
	t.Run("cost", func(t *testing.T) { actionCostStep(t, bin) })
	t.Run("verdict", func(t *testing.T) { actionVerdictStep(t, bin) })
}

func actionCheckStep(t *testing.T, bin string) {
	a := newActionEnv(t, bin)
	repo := gitRepo(t, a)
	log, code, out := a.step(t, repo, "check", "INPUT_LISTING=listings/tools.json", "INPUT_SARIF=out/findings.sarif", "INPUT_FAIL_ON=error")
	if code != 0 || out["exit-code"] != "0" || out["sarif"] != "out/findings.sarif" {
		t.Fatalf("exit %d, outputs %v:\n%s", code, out, log)
	}
	if !strings.Contains(log, "::warning file=listings/tools.json") || !strings.Contains(log, "::group::") {
		t.Errorf("the log lacks the annotations:\n%s", log)
	}
	var sarif struct {
		Version string
		Runs    []json.RawMessage
	}
	b, _ := os.ReadFile(filepath.Join(repo, "out", "findings.sarif"))
	if err := json.Unmarshal(b, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Errorf("SARIF file: %v, %+v", err, sarif)
	}
	if s := a.takeSummary(t); !strings.Contains(s, "## workbench check: listings/tools.json") || !strings.Contains(s, "| Rule | Tool | Where | Message |") {
		t.Errorf("summary:\n%s", s)
	}

	// Findings at fail-on: the step records exit 1 and goes on; the verdict fails the job.
	log, code, out = a.step(t, repo, "check", "INPUT_LISTING=listings/odd.json")
	if code != 0 || out["exit-code"] != "1" || !strings.Contains(log, "::error file=listings/odd.json") {
		t.Errorf("failing listing: exit %d, outputs %v:\n%s", code, out, log)
	}
	a.takeSummary(t)
	// A file name is an argument, never shell code.
	log, _, out = a.step(t, repo, "check", "INPUT_LISTING=$(touch pwned).json")
	if _, err := os.Stat(filepath.Join(repo, "pwned")); err == nil || out["exit-code"] != "2" {
		t.Errorf("hostile listing name: outputs %v, pwned made: %v\n%s", out, err == nil, log)
	}
	if s := a.takeSummary(t); !strings.Contains(s, "could not run on the listing (exit 2)") {
		t.Errorf("summary of an unreadable listing:\n%s", s)
	}
	if log, code, out := a.step(t, repo, "check"); code != 2 || out["exit-code"] != "2" || !strings.Contains(log, "the listing input is empty") {
		t.Errorf("no listing: exit %d:\n%s", code, log)
	}
}

func actionCostStep(t *testing.T, bin string) {
	a := newActionEnv(t, bin)
	repo := gitRepo(t, a)
	listing := "INPUT_LISTING=listings/tools.json"
	base, err := filepath.Abs(gateBase)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		inputs   []string
		code     string
		log, sum []string
	}{
		{"no baseline: skipped", nil, "", nil, nil},
		{"git ref, over", []string{"INPUT_BASELINE=main", "INPUT_MAX_INCREASE=10%"}, "1",
			[]string{"::error file=listings/tools.json,title=workbench cost%3A over the limit::the listing grew by 84 tokens"},
			[]string{"**Over the limit:** the listing grew by 84 tokens", "| reserve\\_book | added | – | 56 | +56 | new |"}},
		{"file, within", []string{"INPUT_BASELINE=" + base, "INPUT_MAX_INCREASE=40%"}, "0",
			[]string{"::notice file=listings/tools.json,line=2,title=grown tool%3A search_books::"},
			[]string{"**Within the limit:**", "2 added, 1 removed, 1 grown, 1 shrunk, 2 unchanged."}},
		{"ref fetched from origin", []string{"INPUT_LISTING=./listings/tools.json", "INPUT_BASELINE=upstream-base", "INPUT_MAX_INCREASE=85"}, "0", nil,
			[]string{"**Within the limit:** the listing grew by 84 tokens"}},
		{"another tokenizer", []string{"INPUT_BASELINE=main", "INPUT_TOKENIZER=cl100k_base"}, "0", nil,
			[]string{"| total tokens (compact, cl100k\\_base) |"}},
		{"ref without the listing", []string{"INPUT_BASELINE=before-listing", "INPUT_MAX_INCREASE=2%"}, "0",
			[]string{"listings/tools.json is not at before-listing: every tool counts as added, and max-increase does not apply"},
			[]string{"6 added, 0 removed", "The listing is new at before-listing, so max-increase (2%) does not apply."}},
		{"bad limit", []string{"INPUT_BASELINE=main", "INPUT_MAX_INCREASE=ten"}, "2",
			[]string{`--max-increase: "ten" is not a limit`}, []string{"could not run (exit 2)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log, code, out := a.step(t, repo, "cost", append([]string{listing}, c.inputs...)...)
			sum := a.takeSummary(t)
			if report := out["report"]; c.code != "" && c.code != "2" && (report == "" || !strings.Contains(sum, mustRead(t, report))) {
				t.Errorf("report output %q is not the summary's table", report)
			}
			if code != 0 || out["exit-code"] != c.code {
				t.Errorf("exit %d, outputs %v; want exit 0 and exit-code %q\n%s", code, out, c.code, log)
			}
			for _, w := range c.log {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			for _, w := range c.sum {
				if !strings.Contains(sum, w) {
					t.Errorf("summary lacks %q:\n%s", w, sum)
				}
			}
		})
	}
	// A step that cannot run fails with exit 2 and says why; the verdict reports its exit-code.
	for _, c := range []struct{ baseline, want string }{
		{"--output=/tmp/x", "a ref cannot start with -"}, // refused before git sees it as an option
		{"no-such-ref", "baseline no-such-ref: no such file, and no such git ref here or at origin"},
	} {
		log, code, out := a.step(t, repo, "cost", listing, "INPUT_BASELINE="+c.baseline)
		if code != 2 || out["exit-code"] != "2" || !strings.Contains(log, c.want) {
			t.Errorf("baseline %s: exit %d, outputs %v; want 2 and %q:\n%s", c.baseline, code, out, c.want, log)
		}
	}
}

func actionVerdictStep(t *testing.T, bin string) {
	a := newActionEnv(t, bin)
	cases := []struct {
		check, cost string
		code        int
		row         string
	}{
		{"0", "", 0, "| cost gate | skipped (no baseline) |"},
		{"0", "0", 0, "| check (fail on error) | passed |"},
		{"0", "1", 1, "| cost gate | **failed** |"},
		{"1", "0", 1, "| check (fail on error) | **failed** |"},
		{"2", "", 1, "| check (fail on error) | **could not run** (exit 2) |"},
		{"", "", 1, "| check (fail on error) | did not run |"},
	}
	for _, c := range cases {
		log, code, _ := a.step(t, a.dir, "verdict", "CHECK_EXIT="+c.check, "COST_EXIT="+c.cost)
		if sum := a.takeSummary(t); code != c.code || !strings.Contains(sum, "| Step | Result |") || !strings.Contains(sum, c.row) {
			t.Errorf("check %q, cost %q: exit %d, want %d; summary lacks %q:\n%s%s", c.check, c.cost, code, c.code, c.row, sum, log)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README's workflow (examples/github-workflow.yml) passes the action only inputs it has, and
// every required one, and asks for the permissions its steps need.
func TestActionExampleWorkflow(t *testing.T) {
	var a actionFile
	var wf struct {
		Permissions map[string]string
		Jobs        map[string]struct {
			Steps []struct {
				ID, Uses, Run string
				With          map[string]string
			}
		}
	}
	for path, v := range map[string]any{filepath.Join("..", "..", "action.yml"): &a, filepath.Join("..", "..", "examples", "github-workflow.yml"): &wf} {
		if err := yaml.Unmarshal([]byte(mustRead(t, path)), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "tool-workbench/workbench@") {
				continue
			}
			found = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("the workflow passes %s, which the action does not take", k)
				}
			}
			for k, in := range a.Inputs {
				if _, ok := s.With[k]; in.Required && !ok {
					t.Errorf("the workflow lacks the required input %s", k)
				}
			}
			if s.With["upload-sarif"] == "true" && wf.Permissions["security-events"] != "write" {
				t.Error("upload-sarif needs security-events: write")
			}
		}
	}
	if !found {
		t.Error("the workflow does not use the action")
	}
}
