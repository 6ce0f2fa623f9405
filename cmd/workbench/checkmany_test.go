package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Listings of each outcome: clean (exit 0), with an error finding (exit 1), unreadable (exit 2).
var (
	manyClean = filepath.Join("testdata", "cost", "base.json")
	manyFails = filepath.Join("testdata", "check", "odd-names.json")
	manyBad   = filepath.Join("testdata", "check", "not-json.txt")
)

// pre-commit passes every staged listing at once: each is reported, the exit is the worst.
func TestCheckSeveralSources(t *testing.T) {
	cases := []struct {
		name    string
		sources []string
		rules   string
		code    int
	}{
		{"clean", []string{manyClean, gateHead}, "all", 0},
		{"one fails", []string{manyClean, manyFails, gateHead}, "all", 1},
		{"one unreadable", []string{manyBad, manyFails, manyClean}, "all", 2},
		{"reference clean", []string{manyClean, gateHead}, "reference", 0},
		{"reference one fails", []string{manyFails, manyClean}, "reference", 1},
		{"reference one unreadable", []string{manyClean, manyBad}, "reference", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCLI(t, "", append([]string{"check", "--rules", c.rules}, c.sources...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			}
			// Each listing's report, under its name, is what checking it alone prints.
			parts := strings.Split(out, "==> ")
			if len(parts) != len(c.sources)+1 || parts[0] != "" {
				t.Fatalf("want %d headed reports:\n%s", len(c.sources), out)
			}
			for i, src := range c.sources {
				alone, _, _ := runCLI(t, "", "check", "--rules", c.rules, src)
				want := src + " <==\n" + alone
				if i < len(c.sources)-1 {
					want += "\n"
				}
				if parts[i+1] != want {
					t.Errorf("report %d differs from checking %s alone:\n got: %q\nwant: %q", i, src, parts[i+1], want)
				}
			}
		})
	}
}

func TestCheckSeveralSourcesFormats(t *testing.T) {
	sources := []string{manyClean, manyFails, manyBad}
	t.Run("json", func(t *testing.T) {
		out, errs, code := runCLI(t, "", append([]string{"check", "--format", "json"}, sources...)...)
		var reports []struct {
			Source string
			Failed bool
		}
		if err := json.Unmarshal([]byte(out), &reports); err != nil {
			t.Fatalf("not a JSON array of reports: %v\n%s", err, out)
		}
		if code != 2 || len(reports) != 2 || reports[0].Source != manyClean || reports[0].Failed || reports[1].Source != manyFails || !reports[1].Failed {
			t.Errorf("exit %d, reports %+v", code, reports)
		}
		if !strings.Contains(errs, manyBad) {
			t.Errorf("stderr does not say which listing was unreadable: %q", errs)
		}
	})
	t.Run("sarif", func(t *testing.T) {
		out, _, code := runCLI(t, "", append([]string{"check", "--format", "sarif"}, sources[:2]...)...)
		var log struct {
			Version string
			Runs    []struct {
				Results []struct {
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatalf("not one SARIF log: %v\n%s", err, out)
		}
		if code != 1 || log.Version != "2.1.0" || len(log.Runs) != 2 {
			t.Fatalf("exit %d, version %q, %d runs; want 1, 2.1.0, 2", code, log.Version, len(log.Runs))
		}
		r := log.Runs[1].Results
		if len(r) == 0 || r[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != filepath.ToSlash(manyFails) {
			t.Errorf("the second run does not point at %s: %+v", manyFails, r)
		}
	})
	t.Run("github", func(t *testing.T) {
		out, _, code := runCLI(t, "", append([]string{"check", "--format", "github"}, sources[:2]...)...)
		if code != 1 || !strings.Contains(out, "file="+manyClean) || !strings.Contains(out, "::error file="+manyFails) {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}

func TestCheckSeveralSourcesRefused(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"none", []string{"check"}, "check takes a SOURCE"},
		{"stdin twice", []string{"check", "-", manyClean, "-"}, "standard input (-) can be only one of the SOURCEs"},
		{"tasks from stdin", []string{"check", manyClean, gateHead, "--tasks", "-"}, "--tasks - reads standard input once"},
		{"baseline", []string{"check", manyClean, gateHead, "--baseline", "r.json"}, "--baseline is a report of one listing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runCLI(t, "", c.args...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, c.want)
			}
		})
	}
}
