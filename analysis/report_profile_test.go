package analysis

import (
	"bytes"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/lint"
)

// The SARIF run names the profile the rules followed in its properties (a code-scanning
// upload keeps it beside the results), and names none without one.
func TestSARIFProfile(t *testing.T) {
	tests := []struct{ name, profile string }{
		{"no profile", ""},
		{"claude-connectors", "claude-connectors"},
		{"mcp-2026-07-28", "mcp-2026-07-28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Version: ReportVersion, Source: "x.json", Rules: "all", Profile: tt.profile, Findings: []lint.Finding{
				{Rule: "hidden-unicode", Severity: lint.Error, Tool: "t", Pointer: "/tools/0/description", Message: "m", Line: 1, Column: 2},
			}}
			r.Finish(lint.Error)
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, r); err != nil {
				t.Fatal(err)
			}
			back, err := sarif.FromBytes(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := back.Validate(); err != nil {
				t.Fatalf("SARIF does not validate: %v", err)
			}
			var got any
			if p := back.Runs[0].Properties; p != nil {
				got = p.Properties["profile"]
			}
			switch {
			case tt.profile == "" && got != nil:
				t.Errorf("the run names profile %v; the report has none", got)
			case tt.profile != "" && got != tt.profile:
				t.Errorf("the run's profile property is %v, want %q:\n%.600s", got, tt.profile, buf.String())
			}
		})
	}
}
