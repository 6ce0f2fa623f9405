package main

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersion runs `workbench version` over the build info each way of building leaves.
func TestVersion(t *testing.T) {
	const mod = "github.com/tool-workbench/workbench"
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	cases := []struct {
		name string
		info debug.BuildInfo
		text string // what the text output must say, line by line
		from string // RevisionFrom in the JSON output
	}{
		{"go install of a commit", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "v0.0.0-20261202023000-abcdef123456"}},
			mod + " v0.0.0-20261202023000-abcdef123456\nrevision: abcdef123456 (the commit the pseudo-version names)\ngo: go1.26.0\n", "pseudo-version"},
		{"go install of a commit after a tag", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "v1.2.4-0.20261202023000-0123456789ab"}},
			mod + " v1.2.4-0.20261202023000-0123456789ab\nrevision: 0123456789ab (the commit the pseudo-version names)\ngo: go1.26.0\n", "pseudo-version"},
		{"go install of a tag", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "v1.2.3"}},
			mod + " v1.2.3\nrevision: the commit tagged v1.2.3\ngo: go1.26.0\n", "tag"},
		{"go build in a checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "v0.0.0-20261202023000-abcdef123456+dirty"},
			Settings: vcs("vcs", "git", "vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.time", "2026-12-02T02:30:00Z", "vcs.modified", "true")},
			mod + " v0.0.0-20261202023000-abcdef123456+dirty\nrevision: abcdef1234567890abcdef1234567890abcdef12\ntime: 2026-12-02T02:30:00Z\nmodified: true\ngo: go1.26.0\n", "vcs"},
		{"go build in a clean checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "(devel)"},
			Settings: vcs("vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.modified", "false")},
			mod + " (devel)\nrevision: abcdef1234567890abcdef1234567890abcdef12\nmodified: false\ngo: go1.26.0\n", "vcs"},
		{"go build -buildvcs=false", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: mod, Version: "(devel)"}},
			mod + " (devel)\nrevision: unknown (built without version control information: go build -buildvcs=false, or outside a git checkout)\ngo: go1.26.0\n", "none"},
		{"go run of a file", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "command-line-arguments"}},
			"command-line-arguments (devel)\nrevision: unknown (built without version control information: go build -buildvcs=false, or outside a git checkout)\ngo: go1.26.0\n", "none"},
	}
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			readBuildInfo = func() (*debug.BuildInfo, bool) { return &c.info, true }
			for _, args := range [][]string{{"version"}, {"--version"}} {
				out, errb, code := runCLI(t, "", args...)
				if code != 0 || out != c.text {
					t.Errorf("%s: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", strings.Join(args, " "), code, errb, out, c.text)
				}
			}
			out, _, code := runCLI(t, "", "version", "--format", "json")
			var f buildFacts
			if err := json.Unmarshal([]byte(out), &f); code != 0 || err != nil {
				t.Fatalf("version --format json: exit %d, %v:\n%s", code, err, out)
			}
			if f.RevisionFrom != c.from || f.Version == "" || f.Go != c.info.GoVersion {
				t.Errorf("version --format json: %+v; want revisionFrom %q", f, c.from)
			}
		})
	}
}

func TestVersionUsage(t *testing.T) {
	for _, args := range [][]string{{"version", "extra"}, {"version", "--format", "yaml"}} {
		if _, errb, code := runCLI(t, "", args...); code != 2 || errb == "" {
			t.Errorf("%q: exit %d, stderr %q; want a usage error (exit 2)", args, code, errb)
		}
	}
}
