package analysis

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection"
)

// Formats are the output formats of a report.
var Formats = []string{"text", "json", "sarif", "github", "markdown"}

// ReportVersion is the version of the JSON report's layout; it changes only when a field is
// renamed or removed (new fields may appear without a change).
const ReportVersion = 1

// Report is the result of checking one listing: the JSON format is this struct.
type Report struct {
	Version int    `json:"version"`
	Source  string `json:"source"` // the file checked, as given
	Rules   string `json:"rules"`  // the rule set: "all"
	// Profile names the directory or platform profile the rules followed (lint.Profiles), if any.
	Profile string `json:"profile,omitempty"`
	Tools   int    `json:"tools"`
	// Tokens is the listing's token count with Tokenizer: the Cost tab's total (the compact
	// rendering, frame included), or with approx the budget rules' estimate over the tools.
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
	// Findings are the findings not ignored, the reference's WARN and FAIL lines included.
	Findings []lint.Finding `json:"findings"`
	// Ignored are the findings an ignore file silenced; they never fail the check.
	Ignored []lint.Finding `json:"ignored"`
	// New are the findings not in the baseline (with --baseline); only they can fail the check.
	New      []lint.Finding `json:"new,omitempty"`
	Baseline bool           `json:"baseline"`
	Counts   Counts         `json:"counts"`
	// Ranking holds the ranker's verdicts when a task file was given.
	Ranking []selection.Verdict `json:"ranking,omitempty"`
	FailOn  lint.Severity       `json:"failOn"`
	Failed  bool                `json:"failed"`
	// ReferenceSkipped says why the reference's checks could not run on this listing, if so.
	ReferenceSkipped string `json:"referenceSkipped,omitempty"`
	// Damage is the description damage test (check --damage), when asked for.
	Damage *DamageReport `json:"damage,omitempty"`
	// OrderBias is the ranker's verdicts under every rotation of the tool order (check
	// --order-bias with a task file).
	OrderBias *selection.OrderBias `json:"orderBias,omitempty"`
	// Overlap is the overlap map's strongest pairs (check --overlap).
	Overlap *OverlapReport `json:"overlap,omitempty"`
	// Fixes are the repairs on offer for the findings with their changes to the file
	// (Engine.ReportFixes), which SARIF gives as each result's fixes; nil when not asked for.
	Fixes []ReportFix `json:"-"`
}

// Counts tallies findings by severity, and the ignored ones.
type Counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
	Ignored int `json:"ignored"`
	New     int `json:"new"`
}

// Finish sorts nothing, but computes Counts and Failed for failOn: the report fails when a
// finding at or above failOn is not ignored (and, with a baseline, is new).
func (r *Report) Finish(failOn lint.Severity) {
	r.FailOn = failOn
	r.Counts = Counts{Ignored: len(r.Ignored), New: len(r.New)}
	for _, f := range r.Findings {
		switch f.Severity {
		case lint.Error:
			r.Counts.Error++
		case lint.Warning:
			r.Counts.Warning++
		case lint.Info:
			r.Counts.Info++
		}
	}
	judged := r.Findings
	if r.Baseline {
		judged = r.New
	}
	r.Failed = false
	for _, f := range judged {
		if f.Severity.Rank() >= failOn.Rank() {
			r.Failed = true
		}
	}
	if r.Findings == nil {
		r.Findings = []lint.Finding{}
	}
	if r.Ignored == nil {
		r.Ignored = []lint.Finding{}
	}
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing the JSON report: %w", err)
	}
	return nil
}

// TextLevel is the reference-style level word of a severity: FAIL, WARN or INFO.
func TextLevel(s lint.Severity) string {
	switch s {
	case lint.Error:
		return "FAIL"
	case lint.Warning:
		return "WARN"
	}
	return "INFO"
}

// TextLine formats a finding as the reference formats its lines: "WARN rule:tool: message",
// with the line and column appended when known.
func TextLine(f lint.Finding) string {
	var b strings.Builder
	b.WriteString(TextLevel(f.Severity))
	b.WriteByte(' ')
	b.WriteString(f.Rule)
	if f.Tool != "" {
		b.WriteByte(':')
		b.WriteString(f.Tool)
	}
	b.WriteString(": ")
	b.WriteString(oneLine(f.Message))
	if f.Source != "" {
		fmt.Fprintf(&b, " [%s]", f.Source)
	}
	if f.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", f.Line, f.Column)
	}
	return b.String()
}

func oneLine(s string) string { return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s) }

// WriteText writes findings as reference-style lines and a summary line.
func WriteText(w io.Writer, fs []lint.Finding, r *Report) error {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(TextLine(f))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "all rules: %d error, %d warning, %d info (the reference's WARN and FAIL lines included); %d ignored", r.Counts.Error, r.Counts.Warning, r.Counts.Info, r.Counts.Ignored)
	if r.Baseline {
		fmt.Fprintf(&b, "; %d new since the baseline", r.Counts.New)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// sarifLevel maps a severity to SARIF's result levels.
func sarifLevel(s lint.Severity) string {
	switch s {
	case lint.Error:
		return "error"
	case lint.Warning:
		return "warning"
	}
	return "note"
}

// SARIF builds a SARIF 2.1.0 log of the report: one run, every registered rule as a reporting
// descriptor with its doc as help, and one result per finding located in the source file and,
// logically, at its JSON pointer. Ignored findings are included with a suppression. A finding
// with a repair on offer (r.Fixes) carries it as a SARIF fix: its title as the description, and
// the replacements of text regions (lines and columns of the file) that make it. The profile
// the rules followed, if any, is the run's "profile" property.
func SARIF(r *Report) (*sarif.Report, error) {
	rep := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("workbench", "https://github.com/tool-workbench/workbench")
	if r.Profile != "" {
		run.WithProperties(sarif.NewPropertyBag().Add("profile", r.Profile))
	}
	// Columns count characters (code points), as listing.Position does, not UTF-16 units.
	run.WithColumnKind("unicodeCodePoints")
	for _, rule := range lint.Rules() {
		run.AddRule(rule.ID).
			WithName(rule.ID).
			WithDescription(rule.Summary).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(rule.What)).
			WithMarkdownHelp(rule.Doc()).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(rule.Severity))).
			WithProperties(sarif.NewPropertyBag().Add("category", string(rule.Category)).Add("scope", string(rule.Scope)).AddTag(string(rule.Category)))
	}
	uri := r.Source
	if uri == "" || uri == "-" {
		uri = "stdin"
	}
	run.AddDistinctArtifact(uri)
	fixes := sarifFixes(r.Fixes, uri)
	add := func(f lint.Finding, suppressed string) {
		res := run.CreateResultForRule(f.Rule).
			WithLevel(sarifLevel(f.Severity)).
			WithMessage(sarif.NewTextMessage(f.Message))
		if i := run.GetRuleIndex(f.Rule); i >= 0 {
			res.WithRuleIndex(i)
		}
		phys := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri))
		if f.Line > 0 {
			phys.WithRegion(sarif.NewRegion().WithStartLine(f.Line).WithStartColumn(f.Column))
		}
		loc := sarif.NewLocationWithPhysicalLocation(phys)
		logical := sarif.NewLogicalLocation().WithFullyQualifiedName(f.Pointer).WithKind("object")
		if f.Tool != "" {
			logical.WithName(f.Tool)
		}
		loc.AddLogicalLocation(logical)
		res.AddLocation(loc)
		res.WithPartialFingerprints(map[string]string{"workbench/v1": fingerprint(f)})
		if fs := fixes[sarifFixKey(f.Rule, f.ToolIndex, f.Pointer)]; fs != nil && (f.Source == "" || f.Source == r.Source) {
			res.WithFixes(fs)
		}
		if suppressed != "" {
			res.WithSuppressions([]*sarif.Suppression{sarif.NewSuppression().WithKind("external").WithJustification(suppressed)})
		}
	}
	for _, f := range r.Findings {
		add(f, "")
	}
	for _, f := range r.Ignored {
		add(f, "silenced by the ignore file")
	}
	rep.AddRun(run)
	return rep, nil
}

// fingerprint is a stable identity of a finding across runs (see Finding.Key): FNV-1a, short
// and enough to tell findings apart within one log.
func fingerprint(f lint.Finding) string {
	h := fnv.New64a()
	h.Write([]byte(f.Key()))
	return fmt.Sprintf("%016x", h.Sum64())
}

// WriteSARIF writes the report as SARIF 2.1.0.
func WriteSARIF(w io.Writer, r *Report) error {
	rep, err := SARIF(r)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding SARIF: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// GitHub's workflow commands: data escapes %, CR and LF; property values also escape : and ,.
var (
	ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// WriteGitHub writes one workflow command per finding (::error, ::warning, ::notice), so that
// a GitHub Actions run annotates the listing file, and a summary line.
func WriteGitHub(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		cmd := map[lint.Severity]string{lint.Error: "error", lint.Warning: "warning"}[f.Severity]
		if cmd == "" {
			cmd = "notice"
		}
		props := []string{"file=" + ghProp.Replace(r.Source)}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line), fmt.Sprintf("col=%d", f.Column))
		}
		title := f.Rule
		if f.Tool != "" {
			title += " (" + f.Tool + ")"
		}
		props = append(props, "title="+ghProp.Replace(title))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData.Replace(f.Message+" ["+f.Pointer+"]"))
	}
	fmt.Fprintf(&b, "workbench: %d error, %d warning, %d info; %d ignored\n", r.Counts.Error, r.Counts.Warning, r.Counts.Info, r.Counts.Ignored)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape makes text safe inside a Markdown table cell.
var mdEscape = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`)

// WriteMarkdown writes a review-ready Markdown summary: counts, then a table per severity.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## workbench check: %s\n\n", mdEscape.Replace(r.Source))
	fmt.Fprintf(&b, "%d tools, about %d tokens (%s). **%d error, %d warning, %d info**; %d ignored.",
		r.Tools, r.Tokens, r.Tokenizer, r.Counts.Error, r.Counts.Warning, r.Counts.Info, r.Counts.Ignored)
	if r.Baseline {
		fmt.Fprintf(&b, " %d new since the baseline.", r.Counts.New)
	}
	b.WriteString("\n")
	for _, sev := range []lint.Severity{lint.Error, lint.Warning, lint.Info} {
		var rows []lint.Finding
		for _, f := range r.Findings {
			if f.Severity == sev {
				rows = append(rows, f)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s (%d)\n\n| Rule | Tool | Where | Message |\n|---|---|---|---|\n", strings.ToUpper(string(sev[:1]))+string(sev[1:]), len(rows))
		for _, f := range rows {
			where := "`" + strings.ReplaceAll(f.Pointer, "`", "'") + "`"
			if f.Line > 0 {
				where += fmt.Sprintf(" (line %d)", f.Line)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Rule, mdEscape.Replace(f.Tool), strings.ReplaceAll(where, "|", `\|`), mdEscape.Replace(f.Message))
		}
	}
	if len(r.Ranking) > 0 {
		b.WriteString("\n### Ranking\n\n| # | Task | Verdict | Detail |\n|---|---|---|---|\n")
		for _, v := range r.Ranking {
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", v.N, mdEscape.Replace(v.Task.Task), v.Level, mdEscape.Replace(v.Detail))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Write writes the report in format (json, sarif, github, markdown). The text format needs the
// reference's lines and is written by the caller with WriteText.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "json":
		return WriteJSON(w, r)
	case "sarif":
		return WriteSARIF(w, r)
	case "github":
		return WriteGitHub(w, r)
	case "markdown":
		return WriteMarkdown(w, r)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}
