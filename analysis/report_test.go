package analysis

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// The SARIF output validates against the SARIF 2.1.0 schema (go-sarif's Validate) and carries
// the rules as reporting descriptors with help, and the findings with file, line and column.
func TestSARIFValidates(t *testing.T) {
	path := testutil.Shared(t, "listings", "real", "github-mcp-server.json")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: filepath.Base(path)})
	if err != nil {
		t.Fatal(err)
	}
	lt := lint.New(lint.Config{})
	r := &Report{Version: ReportVersion, Source: "github-mcp-server.json", Rules: "all"}
	r.Findings = append(lt.ReferenceFindings(l, reference.Lint(l)), lt.Lint(l)...)
	r.Findings, r.Ignored = lint.ApplyIgnores(r.Findings, []lint.Ignore{{Rule: "description-whitespace", Reason: "test"}})
	r.Finish(lint.Error)
	rep, err := SARIF(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Validate(); err != nil {
		t.Fatalf("SARIF does not validate: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, r); err != nil {
		t.Fatal(err)
	}
	back, err := sarif.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("written SARIF does not validate: %v", err)
	}
	run := back.Runs[0]
	if len(run.Tool.Driver.Rules) != len(lint.Rules()) || run.Tool.Driver.Rules[0].Help == nil {
		t.Errorf("rules: %d descriptors, want %d with help", len(run.Tool.Driver.Rules), len(lint.Rules()))
	}
	if len(run.Results) != len(r.Findings)+len(r.Ignored) || len(r.Ignored) == 0 {
		t.Fatalf("results: %d, want %d", len(run.Results), len(r.Findings)+len(r.Ignored))
	}
	located := 0
	for _, res := range run.Results {
		pl := res.Locations[0].PhysicalLocation
		if *pl.ArtifactLocation.URI != "github-mcp-server.json" {
			t.Fatalf("artifact %q", *pl.ArtifactLocation.URI)
		}
		if pl.Region != nil && pl.Region.StartLine != nil && *pl.Region.StartLine > 0 && *pl.Region.StartColumn > 0 {
			located++
		}
	}
	if located < len(run.Results)/2 {
		t.Errorf("only %d of %d results have a line and column", located, len(run.Results))
	}
}

// A report with a baseline fails only on new findings at or above failOn.
func TestReportFailsOnNewFindingsOnly(t *testing.T) {
	now := []lint.Finding{
		{Rule: "hidden-unicode", Severity: lint.Error, Tool: "a", Pointer: "/tools/1/description", Message: "m"},
		{Rule: "secret-in-text", Severity: lint.Error, Tool: "b", Pointer: "/tools/2/description", Message: "m"},
	}
	r := &Report{Findings: now, New: now[1:], Baseline: true}
	r.Finish(lint.Error)
	if !r.Failed || r.Counts.New != 1 {
		t.Errorf("report with a new error: failed %v, counts %+v", r.Failed, r.Counts)
	}
	r.New = nil
	r.Finish(lint.Error)
	if r.Failed {
		t.Error("with nothing new, the report must not fail")
	}
}

func TestGitHubFormat(t *testing.T) {
	r := &Report{Source: "dir/a,b:c.json", Findings: []lint.Finding{
		{Rule: "hidden-unicode", Severity: lint.Error, Tool: "t", Pointer: "/tools/0/description", Message: "50% hidden\nsecond line", Line: 3, Column: 7},
		{Rule: "text-url-or-email", Severity: lint.Info, Pointer: "/tools", Message: "m"},
	}}
	r.Finish(lint.Error)
	var buf bytes.Buffer
	if err := WriteGitHub(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "::error file=dir/a%2Cb%3Ac.json,line=3,col=7,title=hidden-unicode (t)::50%25 hidden%0Asecond line [/tools/0/description]\n" +
		"::notice file=dir/a%2Cb%3Ac.json,title=text-url-or-email::m [/tools]\n"
	if !strings.HasPrefix(buf.String(), want) {
		t.Errorf("got:\n%s\nwant prefix:\n%s", buf.String(), want)
	}
}

func TestJSONAndMarkdownFormats(t *testing.T) {
	r := &Report{Version: ReportVersion, Source: "x.json", Findings: []lint.Finding{
		{Rule: "hidden-unicode", Severity: lint.Error, Tool: "t|x", Pointer: "/tools/0/description", Message: "a <b> | c", Line: 1, Column: 2},
	}}
	r.Finish(lint.Warning)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	f := back["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "severity", "tool", "pointer", "message", "line", "column"} {
		if _, ok := f[k]; !ok {
			t.Errorf("JSON finding lacks %q: %v", k, f)
		}
	}
	if back["failed"] != true || back["ignored"] == nil || back["counts"].(map[string]any)["error"] != 1.0 {
		t.Errorf("JSON report: %v", back)
	}
	buf.Reset()
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `| t\|x |`) || strings.Contains(buf.String(), "<b>") {
		t.Errorf("markdown does not escape: %s", buf.String())
	}
}
