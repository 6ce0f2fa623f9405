package web

// Quick fixes: a finding's Fix button, and "Fix all safe" for a tool or the listing, open a
// preview of what the repairs change (fixPreview); its Apply makes them again from the listing
// as it then stands, under the store's lock, each rule's repairs as one revision "fix: RULE"
// (fixApply). A repair is named in the page by a short hash of its Repair.ID (fixRef), which
// holds tool names and so never goes into an expression.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// maxFixRefs bounds the repairs one request names (a tool's safe repairs; the listing's are
// asked for as "all").
const maxFixRefs = 200

// fixRef names a repair in the page: 16 hex digits of the SHA-256 of its ID.
func fixRef(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:8])
}

var fixRefsPattern = regexp.MustCompile(`^[0-9a-f]{16}(\.[0-9a-f]{16})*$`)

// fixSel is what a request selects: repairs by ref, or every safe repair of the listing.
type fixSel struct {
	refs map[string]bool
	all  bool
}

// query writes the selection back, for the preview's Apply.
func (f fixSel) query(order []string) string {
	if f.all {
		return "all=1"
	}
	return "r=" + strings.Join(order, ".")
}

func readFixSel(c echo.Context) (fixSel, []string, error) {
	if c.QueryParam("all") == "1" {
		return fixSel{all: true}, nil, nil
	}
	r := c.QueryParam("r")
	if !fixRefsPattern.MatchString(r) {
		return fixSel{}, nil, fail(BadRequest, "malformed fix selection; reload the page")
	}
	order := strings.Split(r, ".")
	if len(order) > maxFixRefs {
		return fixSel{}, nil, failf(BadRequest, "a fix names at most %d repairs", maxFixRefs)
	}
	sel := fixSel{refs: make(map[string]bool, len(order))}
	for _, x := range order {
		sel.refs[x] = true
	}
	return sel, order, nil
}

// pick returns the repairs of reps that sel selects, in order: the safe ones for "all", any
// named one otherwise (a suggested repair is applied only when named: the person previewed it).
func (f fixSel) pick(reps []lint.Repair) []lint.Repair {
	var out []lint.Repair
	for _, r := range reps {
		if f.all && r.Kind == lint.FixSafe || !f.all && f.refs[fixRef(r.ID)] {
			out = append(out, r)
		}
	}
	return out
}

// byRule groups repairs by rule, in the order each rule first comes: each group is one revision.
func byRule(reps []lint.Repair) [][]lint.Repair {
	var out [][]lint.Repair
	at := map[string]int{}
	for _, r := range reps {
		i, ok := at[r.Rule]
		if !ok {
			i = len(out)
			at[r.Rule] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

func ids(reps []lint.Repair) []string {
	out := make([]string, len(reps))
	for i, r := range reps {
		out[i] = r.ID
	}
	return out
}

// errFixGone is a repair that no longer applies to the listing as it stands.
var errFixGone = errors.New("no longer applies")

// fixRound applies one rule's repairs (by ID) to l: the engine applies them, re-checking, and
// leaves out any that would make a finding appear.
func fixRound(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, group []lint.Repair) (analysis.FixResult, error) {
	res, err := eng.Fix(ctx, l, tasks, analysis.FixOptions{IDs: ids(group), Suggested: true})
	if err != nil {
		return res, fmt.Errorf("fix %s: %w", group[0].Rule, err)
	}
	if len(res.Applied) == 0 {
		return res, errFixGone
	}
	return res, nil
}

// repairsOf returns the repairs on offer in ws, and the engine that made them: the workspace
// profile's, since the profile decides the findings and so the repairs.
func (s *Server) repairsOf(ctx context.Context, ws Workspace) (*analysis.Engine, []lint.Repair, error) {
	eng, err := s.engineFor(s.profileOf(ctx, ws.ID))
	if err != nil {
		return nil, nil, err
	}
	reps, err := eng.Repairs(ctx, ws.Listing, ws.Tasks)
	if err != nil {
		return nil, nil, fmt.Errorf("repairs of workspace %s: %w", ws.ID, err)
	}
	return eng, reps, nil
}

// fixPreview shows what the selected repairs change, made from the listing as it stands.
func (s *Server) fixPreview(c echo.Context) error {
	sel, order, err := readFixSel(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	eng, reps, err := s.repairsOf(ctx, ws)
	if err != nil {
		return err
	}
	picked := sel.pick(reps)
	p := views.FixPreview{WS: ws.ID, Query: sel.query(order), Heading: fixHeading(sel, picked)}
	if len(picked) == 0 {
		p.Problem = fixGoneText
		_ = newSSE(c).PatchElementTempl(views.FixPreviewView(p), datastar.WithModeReplace())
		return nil
	}
	cur, tasks := ws.Listing, ws.Tasks
	first := true
	var applied []lint.Repair
	for _, group := range byRule(picked) {
		res, err := fixRound(ctx, eng, cur, tasks, group)
		if errors.Is(err, errFixGone) {
			continue
		}
		if err != nil {
			return err
		}
		if first {
			p.Before, first = len(res.Before), false
		}
		p.After, p.Revisions = len(res.After), p.Revisions+1
		cur, tasks, applied = res.Listing, res.Tasks, append(applied, res.Applied...)
	}
	if len(applied) == 0 {
		p.Problem = "Applied to the listing as it stands, these repairs would make new findings appear, so none is offered."
	}
	for _, r := range applied[:min(len(applied), maxFixRows)] {
		p.Repairs = append(p.Repairs, views.FixRepairRow{Rule: r.Rule, Kind: string(r.Kind), Title: r.Title})
	}
	p.Tools, p.MoreTools = fixDiffs(ws.Listing, cur)
	p.Tasks = renamedExpects(ws.Tasks, tasks)
	_ = newSSE(c).PatchElementTempl(views.FixPreviewView(p), datastar.WithModeReplace())
	return nil
}

const fixGoneText = "This fix no longer applies: the listing changed since the page showed it (someone's edit fixed or changed what it repairs). The findings show what is left."

// fixHeading names a preview.
func fixHeading(sel fixSel, picked []lint.Repair) string {
	switch {
	case sel.all:
		return fmt.Sprintf("Fix all safe (%d)", len(picked))
	case len(picked) == 1:
		return "Fix: " + picked[0].Title
	case len(picked) > 1 && len(sel.refs) > 1:
		return fmt.Sprintf("Fix safe in this tool (%d)", len(picked))
	}
	return "Fix"
}

// fixApply applies the selected repairs, each rule's as one revision "fix: RULE" made again
// from the head under the store's lock; the page that asked gets every change at once, the
// others each as it lands.
func (s *Server) fixApply(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	sel, _, err := readFixSel(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	eng, reps, err := s.repairsOf(ctx, ws)
	if err != nil {
		return err
	}
	var merged *outcome
	var ch change
	stored, gone := 0, 0
	for _, group := range byRule(sel.pick(reps)) {
		ch = change{edit: fixEdit(ctx, eng, ws.Tasks, group), tool: sg.Tool, structure: true, tasks: renames(group), select_: -1, click: true}
		out, err := s.record(c, sg, ch)
		switch {
		case errors.Is(err, errFixGone):
			gone++
			continue
		case err != nil:
			return s.refused(c, sg, ch, out.ws, err)
		case out == nil:
			continue
		}
		stored++
		if merged != nil {
			out.shared = append(merged.shared, out.shared...)
			out.taskRows = append(merged.taskRows, out.taskRows...)
		}
		merged = out
	}
	if merged == nil {
		_ = newSSE(c).PatchElementTempl(views.FixPreviewView(views.FixPreview{WS: ws.ID, Heading: "Fix", Problem: fixGoneText}), datastar.WithModeReplace())
		return nil
	}
	merged.shared = append(merged.shared, Patch{HTML: render(ctx, views.FixDone(fixDoneText(stored, gone)))})
	s.follow(c.Param("id"), sg, ch, merged)
	return s.answer(c, sg, ch, merged)
}

// fixDoneText says what an Apply stored.
func fixDoneText(stored, gone int) string {
	t := "Fixed: 1 revision stored. Undo takes it back."
	if stored > 1 {
		t = fmt.Sprintf("Fixed: %d revisions stored, one per rule. Undo takes them back one at a time.", stored)
	}
	if gone > 0 {
		t += fmt.Sprintf(" %d no longer applied to the listing as it stands and were left out.", gone)
	}
	return t
}

// renames reports whether a group renames tools (the task table then changes too).
func renames(group []lint.Repair) bool {
	return slices.ContainsFunc(group, func(r lint.Repair) bool { return len(r.Renames) > 0 })
}

// fixEdit is one rule's repairs as an edit, made from the head under the store's lock: the
// engine applies them by ID there, and the fixed tools' changed members are set. A rename's
// task file, with its expects renamed, is recorded after it (a second record, made from the
// task file as it then stands, so that a task edit landing meanwhile is kept).
func fixEdit(ctx context.Context, eng *analysis.Engine, tasks []selection.Task, group []lint.Repair) *Edit {
	return &Edit{Message: "fix: " + group[0].Rule, Alone: true,
		Make: func(head *listing.Listing) ([]listing.Op, []lint.Rename, error) {
			res, err := fixRound(ctx, eng, head, tasks, group)
			if err != nil {
				return nil, nil, err
			}
			ops, err := fixOps(head, res.Listing)
			if err != nil {
				return nil, nil, err
			}
			if len(ops) == 0 {
				return nil, nil, errFixGone
			}
			var rn []lint.Rename
			for _, r := range res.Applied {
				rn = append(rn, r.Renames...)
			}
			return ops, rn, nil
		}}
}

// withFixes gives the findings panel its Fix buttons: each finding its repairs (matched by
// rule and pointer, which names the tool: a listing-wide finding, such as mixed naming styles,
// offers a repair for each tool it is about), each tool group and the panel its safe repairs'
// "Fix all safe".
func withFixes(f views.Findings, reps []lint.Repair) views.Findings {
	type key struct{ rule, ptr string }
	byFinding := map[key][]views.FixButton{}
	safe := map[int][]string{}
	for _, r := range reps {
		ref := fixRef(r.ID)
		k := key{r.Rule, r.Pointer}
		byFinding[k] = append(byFinding[k], views.FixButton{Ref: ref, Title: r.Title, Kind: string(r.Kind)})
		if r.Kind == lint.FixSafe {
			safe[r.ToolIndex] = append(safe[r.ToolIndex], ref)
			f.Safe.N++
		}
	}
	if f.Safe.N > 0 {
		f.Safe.Query = "all=1"
	}
	groups := make([]views.FindingGroup, len(f.Groups))
	for i, g := range f.Groups {
		items := make([]views.FindingItem, len(g.Items))
		for j, it := range g.Items {
			it.Fixes = byFinding[key{it.Rule, it.Pointer}]
			items[j] = it
		}
		g.Items = items
		if refs := safe[g.Tool]; len(refs) > 0 && len(refs) <= maxFixRefs {
			g.Safe = views.FixSet{Query: "r=" + strings.Join(refs, "."), N: len(refs)}
		}
		groups[i] = g
	}
	f.Groups = groups
	return f
}
