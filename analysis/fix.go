package analysis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// FixOptions choose the repairs Fix applies.
type FixOptions struct {
	Rules     []string // only repairs of these rules (empty: every rule)
	Suggested bool     // suggested repairs too (default: safe only)
	// IDs, when set, names the only repairs to apply (Repair.ID), e.g. the one a person
	// previewed: a repair named here applies whatever its kind, since the person chose it.
	IDs []string
}

// FixResult is what Fix did.
type FixResult struct {
	Listing       *listing.Listing // the repaired listing (l itself when nothing applied)
	Tasks         []selection.Task // tasks with expects renamed (the input when none)
	Applied       []lint.Repair    // in the order applied
	Before, After []lint.Finding   // the findings the check reports before and after
}

// maxFixRounds bounds Fix's rounds: a repair can make another possible (a rename, then the
// mention it rewrote), but each round only removes findings, so a few rounds suffice.
const maxFixRounds = 8

// Repairs returns the repairs on offer for l's findings (what the browser lists per finding).
func (e *Engine) Repairs(ctx context.Context, l *listing.Listing, tasks []selection.Task) ([]lint.Repair, error) {
	fs, err := e.fixFindings(ctx, l, tasks)
	if err != nil {
		return nil, err
	}
	return lint.Repairs(l, fs), nil
}

// Fix applies the repairs opt allows, re-checking after each round until nothing is left to
// apply (bounded rounds); a repair that would make a finding appear that was not there is not
// applied. Each round applies, together, the allowed repairs whose edits do not overlap; when
// the round's result shows a new finding, it tries them one at a time and keeps those that
// show none.
func (e *Engine) Fix(ctx context.Context, l *listing.Listing, tasks []selection.Task, opt FixOptions) (FixResult, error) {
	before, err := e.fixFindings(ctx, l, tasks)
	if err != nil {
		return FixResult{}, err
	}
	st := &fixState{e: e, opt: opt, l: l, tasks: tasks, fs: before, refused: map[string]bool{}}
	for round := 0; round < maxFixRounds; round++ {
		reps := st.allowed(lint.Repairs(st.l, st.fs))
		if len(reps) == 0 {
			break
		}
		if err := st.round(ctx, reps); err != nil {
			return FixResult{}, err
		}
	}
	return FixResult{Listing: st.l, Tasks: st.tasks, Applied: st.applied, Before: before, After: st.fs}, nil
}

// fixState is a Fix run: the listing, tasks and findings so far.
type fixState struct {
	e       *Engine
	opt     FixOptions
	l       *listing.Listing
	tasks   []selection.Task
	fs      []lint.Finding
	applied []lint.Repair
	refused map[string]bool // repairs that showed a new finding: not tried again
}

// allowed keeps the repairs opt allows that were not refused.
func (st *fixState) allowed(reps []lint.Repair) []lint.Repair {
	var out []lint.Repair
	for _, r := range reps {
		kindOK := r.Kind == lint.FixSafe || r.Kind == lint.FixSuggested && (st.opt.Suggested || len(st.opt.IDs) > 0)
		switch {
		case st.refused[r.ID], !kindOK,
			len(st.opt.Rules) > 0 && !slices.Contains(st.opt.Rules, r.Rule),
			len(st.opt.IDs) > 0 && !slices.Contains(st.opt.IDs, r.ID):
			continue
		}
		out = append(out, r)
	}
	return out
}

// round applies the repairs of reps whose edits do not overlap: together when that shows no new
// finding, and otherwise each half on its own, down to the single repairs that show one, which
// are refused. A round with k such repairs among n costs O(k log n) checks, not n.
func (st *fixState) round(ctx context.Context, reps []lint.Repair) error {
	return st.group(ctx, disjoint(reps))
}

func (st *fixState) group(ctx context.Context, reps []lint.Repair) error {
	next, ok, err := st.try(ctx, reps)
	switch {
	case err != nil:
		return err
	case ok:
		st.accept(next, reps)
		return nil
	case len(reps) == 1:
		st.refused[reps[0].ID] = true
		return nil
	}
	// The halves' edits are disjoint, so the second's ops apply after the first's.
	half := len(reps) / 2
	if err := st.group(ctx, reps[:half]); err != nil {
		return err
	}
	return st.group(ctx, reps[half:])
}

// tried is the outcome of applying some repairs.
type tried struct {
	l     *listing.Listing
	tasks []selection.Task
	fs    []lint.Finding
}

// try applies reps to the listing and tasks so far and checks the result; ok is false when an
// edit fails or a finding appears that was not there.
func (st *fixState) try(ctx context.Context, reps []lint.Repair) (tried, bool, error) {
	l := st.l
	var renames []lint.Rename
	for _, r := range reps {
		next, err := l.ApplyAll(r.Ops)
		if err != nil {
			return tried{}, false, nil
		}
		l = next
		renames = append(renames, r.Renames...)
	}
	tasks := RenameTasks(st.tasks, renames)
	after, err := st.e.fixFindings(ctx, l, tasks)
	if err != nil {
		return tried{}, false, err
	}
	return tried{l, tasks, after}, !appeared(st.fs, after, renames), nil
}

func (st *fixState) accept(t tried, reps []lint.Repair) {
	st.l, st.tasks, st.fs = t.l, t.tasks, t.fs
	st.applied = append(st.applied, reps...)
}

// disjoint keeps, in order, the repairs whose edits touch no value another kept repair touches
// (no path is a prefix of another's), so that each one's ops, made from the same listing, still
// apply after the others. It remembers the kept paths and their prefixes, so each op costs its
// depth.
func disjoint(reps []lint.Repair) []lint.Repair {
	var out []lint.Repair
	taken, under := map[string]bool{}, map[string]bool{}
	for _, r := range reps {
		clash := false
		for _, op := range r.Ops {
			if under[op.Path] || taken[op.Path] {
				clash = true
			}
			for p := op.Path; !clash && p != ""; p = parentPath(p) {
				clash = taken[p]
			}
		}
		if clash {
			continue
		}
		for _, op := range r.Ops {
			taken[op.Path] = true
			for p := parentPath(op.Path); p != ""; p = parentPath(p) {
				under[p] = true
			}
		}
		out = append(out, r)
	}
	return out
}

// parentPath is the pointer p without its last token ("" for a single token).
func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// RenameTasks returns tasks with each tool they name renamed (expected tools, answers and
// rejected tools), or tasks itself when no name changes: what a rename repair does to a task
// file (the browser's fix makes it again on the freshest).
func RenameTasks(tasks []selection.Task, renames []lint.Rename) []selection.Task {
	if len(renames) == 0 {
		return tasks
	}
	var out []selection.Task
	rename := func(n string) (string, bool) { return renamed(n, renames) }
	for i, t := range tasks {
		r, ok := t.Renamed(rename)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(tasks)
		}
		out[i] = r
	}
	if out == nil {
		return tasks
	}
	return out
}

// renamed follows name through renames, in order.
func renamed(name string, renames []lint.Rename) (string, bool) {
	ok := false
	for _, r := range renames {
		if name == r.From {
			name, ok = r.To, true
		}
	}
	return name, ok
}

// appeared reports whether after holds a finding before did not (counting repeats), after
// following renames. A finding is known by its rule, tool and pointer without the tool index;
// the message is left out, since a repair may change a count or a name it quotes (name-style
// lists the names), except the task a ranker finding is about.
func appeared(before, after []lint.Finding, renames []lint.Rename) bool {
	clipped := make([]lint.Rename, len(renames))
	for i, r := range renames {
		clipped[i] = lint.Rename{From: lint.Clip(r.From), To: lint.Clip(r.To)}
	}
	n := map[string]int{}
	for _, f := range before {
		if to, ok := renamed(f.Tool, clipped); ok {
			f.Tool = to
		}
		n[fixKey(f)]++
	}
	for _, f := range after {
		k := fixKey(f)
		if n[k] == 0 {
			return true
		}
		n[k]--
	}
	return false
}

// fixKey is f's identity for appeared.
func fixKey(f lint.Finding) string {
	k := lint.Finding{Rule: f.Rule, Tool: f.Tool, Pointer: f.Pointer}
	if f.Rule == "select" {
		k.Message, _, _ = strings.Cut(f.Message, ":")
	}
	return k.Key()
}

// fixFindings returns the findings Check reports for l and tasks, without the token count,
// ignores or baseline.
func (e *Engine) fixFindings(ctx context.Context, l *listing.Listing, tasks []selection.Task) ([]lint.Finding, error) {
	if e.ext == nil {
		return nil, fmt.Errorf("fix: the engine has no extended rules (Options.Extended)")
	}
	// The check only decides whether the tasks are ranked: without tasks it is skipped, since it
	// reads the whole listing at every round and try.
	if len(tasks) > 0 && reference.Validate(l, true) != nil {
		tasks = nil
	}
	res, err := e.AnalyzeContext(ctx, l, tasks)
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	fs := e.referenceFindings(l, res)
	if len(tasks) > 0 {
		fs = append(fs, e.verdictFindings(l, res.Verdicts)...)
	}
	return append(fs, res.ext...), nil
}
