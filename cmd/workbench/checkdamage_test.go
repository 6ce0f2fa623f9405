package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// checkDamageGolden compares got with testdata/golden/NAME, or rewrites it with -update.
func checkDamageGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		testutil.WriteFile(t, path, []byte(got))
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}

// TestCheckDamageGolden checks the damage part of check's text and JSON reports (the rest is
// the usual report, which other goldens keep) and the exit codes of --min-drop.
func TestCheckDamageGolden(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	tests := []struct {
		name, listing, tasks string
		flags                []string
		code                 int
	}{
		{"clear", "clear-tools.json", "tasks-clear.json", []string{"--damage"}, 0},
		{"clear-min-drop", "clear-tools.json", "tasks-clear.json", []string{"--min-drop", "50%"}, 1},
		{"clear-min-drop-zero", "clear-tools.json", "tasks-clear.json", []string{"--min-drop", "0"}, 0},
		{"confusing", "confusing-tools.json", "tasks-confusing.json", []string{"--damage"}, 1},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "json"} {
			t.Run(tt.name+"."+format, func(t *testing.T) {
				args := append([]string{"check", filepath.Join(fx, tt.listing), "--tasks", filepath.Join(fx, tt.tasks),
					"--tokenizer", "approx", "--format", format}, tt.flags...)
				out, errOut, code := runCLI(t, "", args...)
				if code != tt.code {
					t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
				}
				part := out
				if format == "json" {
					var r struct{ Damage json.RawMessage }
					if err := json.Unmarshal([]byte(out), &r); err != nil {
						t.Fatalf("not JSON: %v\n%s", err, out)
					}
					var b bytes.Buffer
					if err := json.Indent(&b, r.Damage, "", "  "); err != nil {
						t.Fatalf("no damage member: %v\n%s", err, out)
					}
					part = b.String() + "\n"
				} else if i := strings.Index(out, "\ndamage test: "); i >= 0 {
					part = out[i+1:]
				} else {
					t.Fatalf("no damage table:\n%s", out)
				}
				checkDamageGolden(t, fmt.Sprintf("check-damage-%s.%s.txt", tt.name, format), fmt.Sprintf("%s[exit %d]\n", part, code))
			})
		}
	}
}

// TestCheckDamageJSONKeepsMembers checks that --damage adds the member "damage" and keeps every
// member the report had, and that without it the member is absent.
func TestCheckDamageJSONKeepsMembers(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	args := []string{"check", filepath.Join(fx, "clear-tools.json"), "--tasks", filepath.Join(fx, "tasks-clear.json"), "--format", "json", "--tokenizer", "approx"}
	members := func(args ...string) map[string]json.RawMessage {
		out, _, _ := runCLI(t, "", args...)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return m
	}
	plain, damaged := members(args...), members(append(args, "--damage")...)
	if _, ok := plain["damage"]; ok {
		t.Error("the report has a damage member without --damage")
	}
	if _, ok := damaged["damage"]; !ok {
		t.Error("--damage: the report has no damage member")
	}
	for k := range plain {
		if _, ok := damaged[k]; !ok {
			t.Errorf("--damage dropped the member %q", k)
		}
	}
}

func TestCheckDamageUsage(t *testing.T) {
	fx := testutil.Shared(t, "reference", "fixtures")
	src, tasks := filepath.Join(fx, "clear-tools.json"), filepath.Join(fx, "tasks-clear.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{src, "--damage"}, "give --tasks FILE"},
		{[]string{src, "--tasks", tasks, "--min-drop", "1.5"}, "a number from 0 to 1"},
		{[]string{src, "--tasks", tasks, "--min-drop", "NaN"}, "a number from 0 to 1"},
		{[]string{src, "--tasks", tasks, "--min-drop", "-5%"}, "a number from 0 to 1"},
		{[]string{src, "--tasks", tasks, "--damage", "--format", "sarif"}, "text and json formats"},
		{[]string{src, "--tasks", tasks, "--damage", "--rules", "reference"}, "--damage needs --rules all"},
	}
	for _, tt := range tests {
		_, errOut, code := runCLI(t, "", append([]string{"check"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tt.args, code, errOut, tt.want)
		}
	}
}

// FuzzParseShare checks that --min-drop's parser never panics and accepts only shares.
func FuzzParseShare(f *testing.F) {
	for _, s := range []string{"0", "1", "0.25", "25%", "100%", "1e-3", "NaN", "Inf", "-0", "%", "", " 5% "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseShare(s)
		if err == nil && !(v >= 0 && v <= 1) {
			t.Errorf("parseShare(%q) = %v, outside 0 to 1", s, v)
		}
	})
}
