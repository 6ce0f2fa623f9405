package analysis

import (
	"context"
	"slices"
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
	for _, ln := range reference.ToolLines(0, t, t.Get("name").Str) {
		if f, ok := fromLine(ln); ok {
			f.Pointer = strings.TrimPrefix(ln.Ptr, "/tools/0")
			out = append(out, f)
		}
	}
	return out
}

// Listing runs the reference's listing-wide checks (pagination, names, near-duplicates). They
// read only the envelope, the names and each description's words.
func (rl ReferenceLinter) Listing(l *listing.Listing) []Finding {
	descs := make([][]string, len(l.Tools))
	for i, t := range l.Tools {
		descs[i] = reference.DescriptionWords(t)
	}
	out, _ := rl.listingWords(context.Background(), l, l.Names(), descs, referenceParts{reference.NameLines, searchLine})
	return out
}

// referenceParts compute the reference's listing-wide lines: the engine passes versions that
// remember their last results (nameLines, nearDups), Listing the reference's own.
type referenceParts struct {
	nameLines func(l *listing.Listing, names []string) []reference.Line
	nearDup   func(ctx context.Context, names []string, descs [][]string) (reference.Line, error)
}

// listingWords is Listing with each tool's reference.DescriptionWords given: the engine caches
// the words per tool, so an edit splits only the edited description into words again.
func (ReferenceLinter) listingWords(ctx context.Context, l *listing.Listing, names []string, descs [][]string, parts referenceParts) ([]Finding, error) {
	var out []Finding
	nd, err := parts.nearDup(ctx, names, descs)
	if err != nil {
		return nil, err
	}
	lines := append(slices.Clip(parts.nameLines(l, names)), nd)
	for _, ln := range lines {
		if f, ok := fromLine(ln); ok {
			f.ToolIndex = -1
			f.Pointer = ln.Ptr
			f.Pointer = listingPointer(f)
			out = append(out, f)
		}
	}
	return out, nil
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

// listingPointer is where a listing-wide finding of the reference's points, in every report and
// on the page alike: its own pointer, else the next cursor for pagination and the tools array for
// the rest.
func listingPointer(f Finding) string {
	switch {
	case f.Pointer != "":
		return f.Pointer
	case f.Rule == "list-complete":
		return "/nextCursor"
	}
	return "/tools"
}
