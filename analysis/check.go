package analysis

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// CheckInput is what one check reads: `workbench check` and POST /api/v1/check both fill one
// in.
type CheckInput struct {
	Name    string           // how the listing is called in the report
	Listing *listing.Listing // the listing checked
	Tasks   []selection.Task // ranked when given
	Others  []lint.Named     // other servers' listings, for name collisions when merged
	// OthersAt, when set, gives for each of Others where its text starts in a larger document
	// (an API request body whose "merge" entries are parsed each on its own), so that findings
	// about it carry their line and column in that document.
	OthersAt  []lint.Origin
	Ignores   []lint.Ignore
	Baseline  map[string]int // a previous report's findings; nil for none
	FailOn    lint.Severity
	Tokenizer string // the name the report gives for the token counts
}

// Checked is the outcome of Check: the report, and for the text format the extended findings
// apart from the reference's, whose lines ReferenceLines gives.
type Checked struct {
	Report    *Report
	Extended  []lint.Finding // the extended rules' findings, ignored ones included
	reference []lint.Finding // the reference's, ignored ones included
	listing   *listing.Listing
}

// Reference returns the reference's findings, ignored ones included: where the reference cannot
// read the listing, the text format prints them with the extended ones.
func (c *Checked) Reference() []lint.Finding { return c.reference }

// ReferenceLines returns the reference's lines as it prints them (its near-duplicate line
// lists the pairs one by one up to reference.MaxPairs, where the findings report groups past
// reference.ShownPairs), or nil when the reference cannot read the listing. Only the text
// format prints them, so they are made here, on demand.
func (c *Checked) ReferenceLines(ctx context.Context) ([]reference.Line, error) {
	if c.Report.ReferenceSkipped != "" {
		return nil, nil
	}
	lines, nd, err := reference.LintContext(ctx, c.listing)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return append(lines[:len(lines)-1:len(lines)-1], nd.Printed()), nil
}

// Check analyses in.Listing as the browser does (AnalyzeContext: the reference's checks, the
// extended rules and the ranking, from one call), adds the merge collisions, applies ignores
// and the baseline, and decides whether the result fails. The Engine must have an extended
// linter (Options.Extended), whose Config the report follows. It stops when ctx is done and
// then returns ctx's error, wrapped.
func (e *Engine) Check(ctx context.Context, in CheckInput) (*Checked, error) {
	if e.ext == nil {
		return nil, fmt.Errorf("check: the engine has no extended rules (Options.Extended)")
	}
	l := in.Listing
	r := &Report{Version: ReportVersion, Source: in.Name, Rules: "all", Profile: e.ext.Profile(), Tools: len(l.Tools),
		Tokenizer: in.Tokenizer, Baseline: in.Baseline != nil}
	// Where the reference cannot read the listing, its report and its ranker do not run; its
	// checks still report what the engine found, as the page shows it: a reference-input error
	// on each tool it cannot read, and its checks on the others.
	tasks := in.Tasks
	verr := reference.Validate(l, len(tasks) > 0)
	if verr != nil {
		r.ReferenceSkipped = fmt.Sprintf("the reference checker cannot read this listing (it would stop with a Python exception): %v", verr)
		tasks = nil
	}
	res, err := e.AnalyzeContext(ctx, l, tasks)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	if err := e.checkTokens(ctx, l, res, r); err != nil {
		return nil, err
	}
	findings := e.referenceFindings(l, res)
	ref := slices.Clip(findings)
	if len(tasks) > 0 {
		r.Ranking = res.Verdicts
		findings = append(findings, e.verdictFindings(l, res.Verdicts)...)
	}
	extended := append(slices.Clip(res.ext), e.mergeCollisions(in)...)
	findings = append(findings, extended...)
	r.Findings, r.Ignored = lint.ApplyIgnores(findings, in.Ignores)
	if in.Baseline != nil {
		r.New = lint.NewSince(r.Findings, in.Baseline)
	}
	r.Finish(in.FailOn)
	return &Checked{Report: r, Extended: extended, reference: ref, listing: l}, nil
}

// checkTokens sets the report's token count: the Cost tab's total (each tool in the compact
// rendering plus the listing's frame) when the engine counts with the report's tokenizer, so
// that the page, check and the review report say one figure; otherwise (approx, or an engine
// without costs) the budget rules' sum over the tools.
func (e *Engine) checkTokens(ctx context.Context, l *listing.Listing, res *Result, r *Report) error {
	if !e.noCost && e.tok != nil && e.tok.Name() == r.Tokenizer {
		r.Tokens = res.Cost.Total.Tokens
		return nil
	}
	tokens, err := e.ext.Tokens(ctx, l)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	for _, n := range tokens {
		r.Tokens += n
	}
	return nil
}

// referenceFindings returns the reference's findings of res in the order of the reference's
// lines: the listing-wide lines on names, each tool's lines, then the near-duplicate line.
func (e *Engine) referenceFindings(l *listing.Listing, res *Result) []lint.Finding {
	var out, last []lint.Finding
	for _, f := range res.Listing[:res.nRefListing] {
		if f.Rule == "near-duplicate" {
			last = append(last, toLint(f))
			continue
		}
		out = append(out, toLint(f))
	}
	for _, t := range res.Tools {
		for _, f := range t.Findings[:t.nRef] {
			out = append(out, toLint(f))
		}
	}
	out = append(out, last...)
	e.ext.Locate(l, out)
	return out
}

// toLint is f as package lint writes findings, with a long tool name cut short as lint cuts it.
func toLint(f Finding) lint.Finding {
	return lint.Finding{Rule: f.Rule, Severity: lint.Severity(f.Severity), Tool: lint.Clip(f.Tool),
		ToolIndex: f.ToolIndex, Pointer: f.Pointer, Message: f.Message}
}

// verdictFindings turns the ranker's WARN and FAIL verdicts into findings of rule select.
func (e *Engine) verdictFindings(l *listing.Listing, vs []selection.Verdict) []lint.Finding {
	var out []lint.Finding
	for _, v := range vs {
		if v.Level != reference.Warn && v.Level != reference.Fail {
			continue
		}
		sev := lint.Warning
		if v.Level == reference.Fail {
			sev = lint.Error
		}
		f := lint.Finding{Rule: "select", Severity: sev, ToolIndex: -1, Pointer: "/tools",
			Message: "task " + strconv.Itoa(v.N) + ": " + v.Detail}
		if v.Expected != nil {
			f.ToolIndex, f.Tool = v.Expected.Tool, lint.Clip(v.Expected.Name)
			f.Pointer = "/tools/" + strconv.Itoa(v.Expected.Tool) + "/description"
		}
		out = append(out, f)
	}
	e.ext.Locate(l, out)
	return out
}

// mergeCollisions reports the names that collide when in.Others are merged into one host, each
// finding located in its own listing (and shifted to where that listing starts in a larger
// document, per in.OthersAt).
func (e *Engine) mergeCollisions(in CheckInput) []lint.Finding {
	if len(in.Others) < 2 {
		return nil
	}
	bySource := map[string][]lint.Finding{}
	for _, f := range lint.MergeCollisions(in.Others...) {
		bySource[f.Source] = append(bySource[f.Source], f)
	}
	var out []lint.Finding
	for k, nl := range in.Others {
		mine := slices.Clone(bySource[nl.Name])
		e.ext.Locate(nl.Listing, mine)
		if k < len(in.OthersAt) {
			in.OthersAt[k].Shift(mine)
		}
		out = append(out, mine...)
	}
	return out
}
