package analysis

import (
	"strings"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// ReferenceLinter reports the reference checker's checks as findings: WARN is a warning, FAIL an
// error; PASS and INFO lines are not findings. The rule is the check's name without its tool
// ("description"). Input the reference would crash on becomes one error finding that says so.
type ReferenceLinter struct{}

// Tool lints one tool alone: the reference's per-tool checks only depend on the tool.
func (ReferenceLinter) Tool(t *listing.Value) []Finding {
	one := &listing.Listing{Tools: []*listing.Value{t}, Pages: 1}
	if err := reference.Validate(one, true); err != nil {
		ce := err.(*reference.CrashError)
		return []Finding{{Rule: "reference-input", Severity: Error, ToolIndex: 0,
			Pointer: strings.TrimPrefix(ce.Ptr, "/tools/0"),
			Message: ce.Msg + "; the reference checker cannot read this tool, so its other checks are skipped"}}
	}
	var out []Finding
	for _, ln := range reference.Lint(one) {
		if ln.Tool != 0 {
			continue
		}
		if f, ok := fromLine(ln); ok {
			f.Pointer = strings.TrimPrefix(ln.Ptr, "/tools/0")
			out = append(out, f)
		}
	}
	return out
}

// Listing runs the reference's listing-wide checks (names, pagination, near-duplicates). They
// read only names, descriptions and the envelope, so the tools are cut down to those two fields
// first and the per-tool checks, which run again on the cut-down tools, are dropped.
func (ReferenceLinter) Listing(l *listing.Listing) []Finding {
	slim := &listing.Listing{Tools: make([]*listing.Value, len(l.Tools)), Envelope: l.Envelope, Shape: l.Shape, Pages: 1}
	for i, t := range l.Tools {
		ms := []listing.Member{{Key: "name", Value: t.Get("name"), KeyPos: -1}}
		if d := t.Get("description"); d != nil {
			if !d.IsString() {
				d = listing.NewString("")
			}
			ms = append(ms, listing.Member{Key: "description", Value: d, KeyPos: -1})
		}
		slim.Tools[i] = listing.NewObject(ms...)
	}
	var out []Finding
	for _, ln := range reference.Lint(slim) {
		if ln.Tool >= 0 {
			continue
		}
		if f, ok := fromLine(ln); ok {
			f.ToolIndex = -1
			f.Pointer = ln.Ptr
			out = append(out, f)
		}
	}
	return out
}

func fromLine(ln reference.Line) (Finding, bool) {
	var sev string
	switch ln.Level {
	case reference.Warn:
		sev = Warning
	case reference.Fail:
		sev = Error
	default:
		return Finding{}, false
	}
	return Finding{Rule: ln.Rule, Severity: sev, Message: ln.Detail}, true
}
