package lint

import (
	"fmt"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// CheckInput is what one run of every rule reads: `workbench check` and POST /api/v1/check
// both fill one in.
type CheckInput struct {
	Name      string           // how the listing is called in the report
	Listing   *listing.Listing // the listing checked
	Tasks     []selection.Task // ranked when given
	Others    []Named          // other servers' listings, for name collisions when merged
	Ignores   []Ignore
	Baseline  map[string]int // a previous report's findings; nil for none
	FailOn    Severity
	Tokenizer string // the name the report gives for the token counts
}

// Checked is the outcome of Check: the report, and for the text format the reference's own
// lines and the extended findings apart from them.
type Checked struct {
	Report    *Report
	Reference []reference.Line // nil when the reference cannot read the listing
	Extended  []Finding        // the extended rules' findings, ignored ones included
}

// Check runs the reference's checks and ranking (where the reference can read the listing), the
// extended rules and the merge collisions, applies ignores and the baseline, and decides whether
// the result fails.
func (lt *Linter) Check(in CheckInput) *Checked {
	l := in.Listing
	r := &Report{Version: ReportVersion, Source: in.Name, Rules: "all", Tools: len(l.Tools),
		Tokenizer: in.Tokenizer, Baseline: in.Baseline != nil}
	for _, n := range lt.Tokens(l) {
		r.Tokens += n
	}
	out := &Checked{Report: r}
	var findings []Finding
	if err := reference.Validate(l, len(in.Tasks) > 0); err != nil {
		r.ReferenceSkipped = fmt.Sprintf("the reference checker cannot read this listing (it would stop with a Python exception): %v", err)
	} else {
		out.Reference = reference.Lint(l)
		findings = append(findings, lt.ReferenceFindings(l, out.Reference)...)
		if len(in.Tasks) > 0 {
			r.Ranking = selection.Rank(l, in.Tasks, false)
			findings = append(findings, lt.VerdictFindings(l, r.Ranking)...)
		}
	}
	extended := lt.Lint(l)
	if len(in.Others) > 1 {
		merged := MergeCollisions(in.Others...)
		for _, nl := range in.Others {
			var mine []Finding
			for _, f := range merged {
				if f.Source == nl.Name {
					mine = append(mine, f)
				}
			}
			lt.Locate(nl.Listing, mine)
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
	return out
}
