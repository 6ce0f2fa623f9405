package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
)

// workbench rules --profile NAME prints what the profile turns on (golden per profile).
func TestRulesProfileGolden(t *testing.T) {
	for _, name := range lint.ProfileNames() {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", "rules", "--profile", name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "rules-profile-"+name+".txt"), []byte(out))
		})
	}
	out, _, code := runCLI(t, "", "rules", "--profile", "chatgpt-apps", "--format", "json")
	var p lint.Profile
	if err := json.Unmarshal([]byte(out), &p); err != nil || code != 0 || p.Name != "chatgpt-apps" || len(p.Sources) == 0 {
		t.Errorf("rules --profile --format json: exit %d, %v: %.300s", code, err, out)
	}
	out, _, code = runCLI(t, "", "rules", "--profile", "openai-functions", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| `profile-name-openai` | error |") || !strings.Contains(out, "<https://") {
		t.Errorf("rules --profile --format markdown: exit %d\n%s", code, out)
	}
}

func TestProfileFlag(t *testing.T) {
	draft := filepath.Join(testutil.Shared(t, "reference", "fixtures"), "draft-tools.json")
	findings := func(args ...string) (map[string]int, string, int) {
		t.Helper()
		out, errOut, code := runCLI(t, "", append([]string{"check", draft, "--format", "json", "--tokenizer", "approx"}, args...)...)
		var r struct {
			Profile  string
			Findings []lint.Finding
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %s%s", err, out, errOut)
		}
		n := map[string]int{}
		for _, f := range r.Findings {
			n[f.Rule]++
		}
		return n, r.Profile, code
	}
	plain, prof, _ := findings()
	if prof != "" || plain["profile-title-missing"] != 0 {
		t.Errorf("without --profile: profile %q, %d profile-title-missing", prof, plain["profile-title-missing"])
	}
	tests := []struct {
		profile, rule string
		code          int // the draft fails on errors; strict mode's findings are warnings
	}{
		{"claude-connectors", "profile-title-missing", 1},
		{"chatgpt-apps", "profile-hints-explicit", 1},
		{"openai-functions", "profile-schema-openai-strict", 0},
	}
	for _, tt := range tests {
		got, prof, code := findings("--profile", tt.profile)
		if prof != tt.profile || got[tt.rule] == 0 || code != tt.code {
			t.Errorf("--profile %s: report profile %q, %d %s findings, exit %d", tt.profile, prof, got[tt.rule], tt.rule, code)
		}
	}
}

func TestProfileFlagRefused(t *testing.T) {
	clear := filepath.Join(testutil.Shared(t, "reference", "fixtures"), "clear-tools.json")
	valid := strings.Join(lint.ProfileNames(), ", ")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown on check", []string{"check", clear, "--profile", "claude"}, `unknown profile "claude"; use one of ` + valid},
		{"unknown on rules", []string{"rules", "--profile", "OpenAI"}, `unknown profile "OpenAI"; use one of ` + valid},
		{"unknown on export", []string{"export", clear, "--format", "review", "--baseline", clear, "--profile", "x"}, "use one of " + valid},
		{"reference rules", []string{"check", clear, "--rules", "reference", "--profile", "chatgpt-apps"}, "--profile needs --rules all"},
		{"export json", []string{"export", clear, "--profile", "chatgpt-apps"}, "--profile applies to --format review only"},
		{"rule and profile", []string{"rules", "hidden-unicode", "--profile", "chatgpt-apps"}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, "", tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// export --format review lints with the profile: its report lists the profile's findings.
func TestExportReviewProfile(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	args := []string{"export", filepath.Join(fx, "draft-tools.json"), "--format", "review", "--baseline", filepath.Join(fx, "clear-tools.json")}
	plain, _, code := runCLI(t, "", args...)
	with, errOut, code2 := runCLI(t, "", append(args, "--profile", "claude-connectors")...)
	if code != 0 || code2 != 0 {
		t.Fatalf("exit %d, %d: %s", code, code2, errOut)
	}
	row := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "| Findings |") {
				return l
			}
		}
		return ""
	}
	if row(plain) == "" || row(plain) == row(with) {
		t.Errorf("the review does not follow --profile:\nwithout:\n%.400s\nwith:\n%.400s", plain, with)
	}
}

// check --profile --format sarif names the profile in the run's properties, beside its findings.
func TestProfileSARIF(t *testing.T) {
	draft := filepath.Join(testutil.Shared(t, "reference", "fixtures"), "draft-tools.json")
	out, errOut, code := runCLI(t, "", "check", draft, "--format", "sarif", "--tokenizer", "approx", "--profile", "claude-connectors")
	rep, err := sarif.FromBytes([]byte(out))
	if err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if err := rep.Validate(); err != nil {
		t.Fatalf("SARIF does not validate: %v", err)
	}
	run := rep.Runs[0]
	if run.Properties == nil || run.Properties.Properties["profile"] != "claude-connectors" {
		t.Errorf("the run's properties do not name the profile: %+v", run.Properties)
	}
	found := false
	for _, res := range run.Results {
		found = found || res.RuleID != nil && *res.RuleID == "profile-title-missing"
	}
	if !found || code != 1 {
		t.Errorf("exit %d; profile-title-missing among the results: %v", code, found)
	}
}
