package analysis

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// ReportFix is a repair on offer for a finding of a report, with what it changes in the
// listing's file: a SARIF result's fixes.
type ReportFix struct {
	Repair  lint.Repair
	Changes []FixChange
}

// FixChange replaces a region of the listing's file (lines and columns 1-based, columns in
// characters, the end exclusive; an empty region is an insertion point) with Text.
type FixChange struct {
	StartLine, StartColumn, EndLine, EndColumn int
	Text                                       string
}

// ReportFixes returns the repairs on offer for l's findings, each with its changes to l.Source
// (l must have been parsed from the file the report names). A repair whose change cannot be
// placed in the source is left out: a SARIF fix must say what it replaces.
func (e *Engine) ReportFixes(ctx context.Context, l *listing.Listing, tasks []selection.Task) ([]ReportFix, error) {
	repairs, err := e.Repairs(ctx, l, tasks)
	if err != nil {
		return nil, fmt.Errorf("fixes: %w", err)
	}
	var out []ReportFix
	var offsets []int
	var changes [][]listing.Replacement
	rw := listing.NewRewriter(l.Source)
	for _, r := range repairs {
		reps, err := repairReplacements(rw, l, r)
		if err != nil || len(reps) == 0 {
			continue
		}
		out = append(out, ReportFix{Repair: r})
		changes = append(changes, reps)
		for _, rp := range reps {
			offsets = append(offsets, rp.Offset, rp.Offset+rp.Length)
		}
	}
	pos := positions(l.Source, offsets)
	for i, reps := range changes {
		for _, rp := range reps {
			s, e := pos[rp.Offset], pos[rp.Offset+rp.Length]
			out[i].Changes = append(out[i].Changes, FixChange{StartLine: s[0], StartColumn: s[1], EndLine: e[0], EndColumn: e[1], Text: rp.Text})
		}
	}
	return out, nil
}

// repairReplacements returns the changes r makes to l's source. A repair that stays inside one
// tool is applied to that tool alone: applying it to the whole listing copies every tool's place,
// which over one repair per tool made a 20,000-tool listing's SARIF log quadratic.
func repairReplacements(rw *listing.Rewriter, l *listing.Listing, r lint.Repair) ([]listing.Replacement, error) {
	if ops, ok := toolOps(r.Ops, r.ToolIndex, len(l.Tools)); ok {
		orig := l.Tools[r.ToolIndex]
		fixed := orig
		for _, op := range ops {
			next, err := listing.EditValue(fixed, op)
			if err != nil {
				return nil, fmt.Errorf("repair %s: %w", r.ID, err)
			}
			fixed = next
		}
		if !fixed.IsObject() || !fixed.Get("name").IsString() {
			return nil, fmt.Errorf("repair %s would leave tool %d without a name", r.ID, r.ToolIndex+1)
		}
		return rw.ToolReplacements(orig, fixed, r.ToolIndex)
	}
	fixed, err := l.ApplyAll(r.Ops)
	if err != nil {
		return nil, fmt.Errorf("repair %s: %w", r.ID, err)
	}
	return rw.Replacements(l, fixed)
}

// toolOps returns ops relative to tool i when every one of them edits inside it.
func toolOps(ops []listing.Op, i, n int) ([]listing.Op, bool) {
	if i < 0 || i >= n || len(ops) == 0 {
		return nil, false
	}
	prefix := "/tools/" + strconv.Itoa(i)
	out := make([]listing.Op, len(ops))
	for k, op := range ops {
		if !strings.HasPrefix(op.Path, prefix+"/") {
			return nil, false
		}
		op.Path = op.Path[len(prefix):]
		out[k] = op
	}
	return out, true
}

// positions returns the 1-based line and character column of each byte offset of src, in one
// pass (listing.Position walks from the start for each).
func positions(src []byte, offsets []int) map[int][2]int {
	sorted := append([]int(nil), offsets...)
	sort.Ints(sorted)
	out := make(map[int][2]int, len(sorted))
	line, col, i := 1, 1, 0
	for _, off := range sorted {
		for i < off && i < len(src) {
			c := src[i]
			switch {
			case c == '\n':
				line, col = line+1, 1
				i++
			case c < utf8.RuneSelf:
				col++
				i++
			default:
				_, size := utf8.DecodeRune(src[i:])
				col++
				i += size
			}
		}
		out[off] = [2]int{line, col}
	}
	return out
}

// fixKey matches a repair to its finding.
func sarifFixKey(rule string, toolIndex int, pointer string) string {
	return rule + "\x00" + strconv.Itoa(toolIndex) + "\x00" + pointer
}

// sarifFixes indexes a report's fixes by their finding, as SARIF fix objects on the artifact uri.
func sarifFixes(fixes []ReportFix, uri string) map[string][]*sarif.Fix {
	out := map[string][]*sarif.Fix{}
	for _, f := range fixes {
		r := f.Repair
		var reps []*sarif.Replacement
		for _, c := range f.Changes {
			reps = append(reps, sarif.NewReplacement().
				WithDeletedRegion(sarif.NewRegion().WithStartLine(c.StartLine).WithStartColumn(c.StartColumn).
					WithEndLine(c.EndLine).WithEndColumn(c.EndColumn)).
				WithInsertedContent(sarif.NewArtifactContent().WithText(c.Text)))
		}
		fix := sarif.NewFix().WithDescription(sarif.NewTextMessage(r.Title)).
			AddArtifactChange(sarif.NewArtifactChange().WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).WithReplacements(reps)).
			WithProperties(sarif.NewPropertyBag().Add("kind", string(r.Kind)).Add("repair", r.ID))
		k := sarifFixKey(r.Rule, r.ToolIndex, r.Pointer)
		out[k] = append(out[k], fix)
	}
	return out
}
