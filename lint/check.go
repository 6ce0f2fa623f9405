package lint

import (
	"context"
	"fmt"
	"slices"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// CheckInput is what one run of every rule reads: `workbench check` and POST /api/v1/check
// both fill one in.
type CheckInput struct {
	Name    string           // how the listing is called in the report
	Listing *listing.Listing // the listing checked
	Tasks   []selection.Task // ranked when given
	Others  []Named          // other servers' listings, for name collisions when merged
	// OthersAt, when set, gives for each of Others where its text starts in a larger document
	// (an API request body whose "merge" entries are parsed each on its own), so that findings
	// about it carry their line and column in that document.
	OthersAt  []Origin
	Ignores   []Ignore
	Baseline  map[string]int // a previous report's findings; nil for none
	FailOn    Severity
	Tokenizer string // the name the report gives for the token counts
}

// Checked is the outcome of Check: the report, and for the text format the reference's own
// lines and the extended findings apart from them.
type Checked struct {
	Report *Report
	// Reference is the reference's lines as its findings show them (nil when the reference
	// cannot read the listing); ReferenceLines gives them as the reference prints them.
	Reference []reference.Line
	Extended  []Finding // the extended rules' findings, ignored ones included
	nearDups  *reference.NearDups
}

// ReferenceLines returns the reference's lines as it prints them: its near-duplicate line lists
// the pairs one by one up to reference.MaxPairs, where Reference reports groups past
// reference.ShownPairs. The line is made here, for the callers that print it.
func (c *Checked) ReferenceLines() []reference.Line {
	if c.Reference == nil || c.nearDups == nil {
		return c.Reference
	}
	return append(c.Reference[:len(c.Reference)-1:len(c.Reference)-1], c.nearDups.Printed())
}

// Check runs the reference's checks and ranking (where the reference can read the listing), the
// extended rules and the merge collisions, applies ignores and the baseline, and decides whether
// the result fails.
func (lt *Linter) Check(in CheckInput) *Checked {
	out, _ := lt.CheckContext(context.Background(), in)
	return out
}

// CheckContext is Check that stops when ctx is done (between tools, rules and tasks) and then
// returns ctx's error, wrapped.
func (lt *Linter) CheckContext(ctx context.Context, in CheckInput) (*Checked, error) {
	l := in.Listing
	r := &Report{Version: ReportVersion, Source: in.Name, Rules: "all", Tools: len(l.Tools),
		Tokenizer: in.Tokenizer, Baseline: in.Baseline != nil}
	tokens, err := lt.tokens(ctx, l)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	for _, n := range tokens {
		r.Tokens += n
	}
	out := &Checked{Report: r}
	var findings []Finding
	if err := reference.Validate(l, len(in.Tasks) > 0); err != nil {
		r.ReferenceSkipped = fmt.Sprintf("the reference checker cannot read this listing (it would stop with a Python exception): %v", err)
	} else {
		lines, nd, err := reference.LintContext(ctx, l)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		findings = append(findings, lt.ReferenceFindings(l, lines)...)
		out.Reference, out.nearDups = lines, nd
		if len(in.Tasks) > 0 {
			if r.Ranking, err = selection.RankContext(ctx, l, in.Tasks, false); err != nil {
				return nil, fmt.Errorf("check: %w", err)
			}
			findings = append(findings, lt.VerdictFindings(l, r.Ranking)...)
		}
	}
	extended, err := lt.LintContext(ctx, l)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	if len(in.Others) > 1 {
		bySource := map[string][]Finding{}
		for _, f := range MergeCollisions(in.Others...) {
			bySource[f.Source] = append(bySource[f.Source], f)
		}
		for k, nl := range in.Others {
			mine := slices.Clone(bySource[nl.Name])
			lt.Locate(nl.Listing, mine)
			if k < len(in.OthersAt) {
				in.OthersAt[k].shift(mine)
			}
			extended = append(extended, mine...)
		}
	}
	out.Extended = extended
	findings = append(findings, extended...)
	r.Findings, r.Ignored = ApplyIgnores(findings, in.Ignores)
	if in.Baseline != nil {
		r.New = NewSince(r.Findings, in.Baseline)
	}
	r.Finish(in.FailOn)
	return out, nil
}
