package drafting

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// ScoreText scores the listing with tool i's description (and parameter descriptions) replaced:
// what Suggest computes for each candidate, exported for the improvement loop and the pages.
func ScoreText(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, i int, description string, params map[string]string) (Scores, *listing.Listing, error) {
	l2, err := Apply(l, i, description, params)
	if err != nil {
		return Scores{}, nil, err
	}
	s, _, err := scoreListing(ctx, eng, l2, tasks, i)
	if err != nil {
		return Scores{}, nil, err
	}
	return s, l2, nil
}

// scoreListing scores tool i of l as it stands, and says for each task whether the ranker's
// verdict passes (a clear win of an expected tool, or no tool reached for a no-tool task).
func scoreListing(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, i int) (Scores, []bool, error) {
	if eng == nil {
		return Scores{}, nil, fmt.Errorf("scoring needs the analysis engine; none was given")
	}
	r, err := eng.AnalyzeContext(ctx, l, tasks)
	if err != nil {
		return Scores{}, nil, fmt.Errorf("scoring tool %d: %w", i+1, err)
	}
	name := l.Tools[i].Get("name").Str
	s := Scores{Findings: toolFindings(r, i, name), Tokens: r.Cost.Total.Tokens, Tasks: len(tasks)}
	for _, f := range s.Findings {
		switch f.Severity {
		case analysis.Error:
			s.Errors++
		case analysis.Warning:
			s.Warnings++
		default:
			s.Infos++
		}
	}
	pass := make([]bool, len(tasks))
	for n, v := range r.Verdicts {
		if n >= len(pass) {
			break
		}
		pass[n] = v.Level == "PASS"
		if pass[n] {
			s.Clear++
		}
		tallyVerdict(&s, v, i)
	}
	return s, pass, nil
}

// toolFindings are tool i's findings and the listing-wide ones that name it.
func toolFindings(r *analysis.Result, i int, name string) []analysis.Finding {
	out := []analysis.Finding{}
	if i < len(r.Tools) {
		out = append(out, r.Tools[i].Findings...)
	}
	for _, f := range r.Listing {
		if f.ToolIndex == i || (f.ToolIndex < 0 && f.Tool == name && name != "") {
			out = append(out, f)
		}
	}
	return out
}

// tallyVerdict counts one verdict into s's Won, Ambiguous, Lost and Stolen for tool i.
func tallyVerdict(s *Scores, v selection.Verdict, i int) {
	wins := v.Winner != nil && v.Winner.Tool == i && v.Winner.Score > 0
	if v.Expected != nil && v.Expected.Tool == i {
		switch v.Status {
		case selection.Clear:
			s.Won++
		case selection.Close:
			s.Ambiguous++
		default:
			s.Lost++
		}
		return
	}
	if wins {
		s.Stolen++
	}
}

// Apply returns the listing with tool i's description and parameters' descriptions set.
func Apply(l *listing.Listing, i int, description string, params map[string]string) (*listing.Listing, error) {
	ops, err := Ops(l, i, description, params)
	if err != nil {
		return nil, err
	}
	out, err := l.ApplyAll(ops)
	if err != nil {
		return nil, fmt.Errorf("setting the text of tool %d: %w", i+1, err)
	}
	return out, nil
}

// Ops are the listing operations that set tool i's description and parameters' descriptions:
// how a page accepts a candidate as an ordinary, undoable edit. A parameter the schema does not
// have is left out (UnknownParams names them): an edit never invents schema.
func Ops(l *listing.Listing, i int, description string, params map[string]string) ([]listing.Op, error) {
	if l == nil || i < 0 || i >= len(l.Tools) {
		return nil, fmt.Errorf("there is no tool %d to rewrite; pick one of the listing's tools", i+1)
	}
	at := strconv.Itoa(i)
	ops := []listing.Op{{Kind: listing.OpSet, Path: listing.JoinPointer("tools", at, "description"), Value: listing.NewString(description)}}
	props := l.Tools[i].Get("inputSchema").Get("properties")
	for _, name := range sortedKeys(params) {
		if p := props.Get(name); p != nil && p.Kind == listing.Object {
			ops = append(ops, listing.Op{Kind: listing.OpSet, Value: listing.NewString(params[name]),
				Path: listing.JoinPointer("tools", at, "inputSchema", "properties", name, "description")})
		}
	}
	return ops, nil
}

// UnknownParams are the names in params that tool i's schema has no object property for.
func UnknownParams(l *listing.Listing, i int, params map[string]string) []string {
	var out []string
	props := l.Tools[i].Get("inputSchema").Get("properties")
	for _, name := range sortedKeys(params) {
		if p := props.Get(name); p == nil || p.Kind != listing.Object {
			out = append(out, name)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// markRules are the kinds of mark, in the order marks are listed: wording that persuades or
// orders the model, and characters a reader cannot see.
var markRules = []string{"promotional-wording", "instructions-to-model", "hidden-unicode"}

// marker finds what marks a tool's text, independent of how the engine is configured, so that
// a mark never depends on which rules a workspace enabled: the hidden-unicode findings of a
// linter of its own, and every persuasive phrase (lint.Persuasion) of the tool's strings.
type marker struct{ lt *lint.Linter }

func newMarker() marker { return marker{lint.New(lint.Config{})} }

// markSet is what marks one tool's text: hidden-unicode findings keyed by message, and how
// often each persuasive phrase occurs, keyed by rule and phrase. The lint reports one finding
// per string (its first phrase), so phrases are counted: a candidate that keeps the current
// text's "the best tool" and adds "always use this tool" adds a phrase.
type markSet struct {
	hidden  map[string]Mark
	phrases map[string]int
}

// findings are what marks tool.
func (m marker) findings(ctx context.Context, tool *listing.Value) (markSet, error) {
	fs, err := m.lt.LintContext(ctx, &listing.Listing{Tools: []*listing.Value{tool}})
	if err != nil {
		return markSet{}, fmt.Errorf("checking the candidate's wording: %w", err)
	}
	out := markSet{hidden: map[string]Mark{}, phrases: map[string]int{}}
	for _, f := range fs {
		if f.Rule == "hidden-unicode" {
			out.hidden[f.Message] = Mark{Rule: f.Rule, Message: f.Message}
		}
	}
	eachString(tool, 0, func(str string) {
		promo, instr := lint.Persuasion(str)
		for _, p := range promo {
			out.phrases["promotional-wording\x00"+p]++
		}
		for _, p := range instr {
			out.phrases["instructions-to-model\x00"+p]++
		}
	})
	return out, nil
}

// maxMarkDepth bounds how deep eachString looks into a tool: a description sits at depth 1 and a
// parameter's at 4; nested schemas rarely go past a dozen.
const maxMarkDepth = 32

// eachString calls f with every string value of v, to maxMarkDepth levels.
func eachString(v *listing.Value, depth int, f func(string)) {
	if v == nil || depth > maxMarkDepth {
		return
	}
	switch v.Kind {
	case listing.String:
		f(v.Str)
	case listing.Array:
		for _, it := range v.Items {
			eachString(it, depth+1, f)
		}
	case listing.Object:
		for _, m := range v.Members {
			eachString(m.Value, depth+1, f)
		}
	}
}

// marks are what cand adds to cur, in rule order: a hidden-unicode finding cur does not have,
// and a persuasive phrase cand holds more often than cur.
func marks(cur, cand markSet) []Mark {
	var out []Mark
	for k, m := range cand.hidden {
		if _, ok := cur.hidden[k]; !ok {
			out = append(out, m)
		}
	}
	for k, n := range cand.phrases {
		if n <= cur.phrases[k] {
			continue
		}
		rule, phrase, _ := strings.Cut(k, "\x00")
		msg := fmt.Sprintf("%q, %d in the candidate and %d in the current text: ", phrase, n, cur.phrases[k])
		if rule == "promotional-wording" {
			msg += "assertive wording that pushes the model to this tool; say when the tool is the right one instead"
		} else {
			msg += "text aimed at the model, not a description of the tool"
		}
		out = append(out, Mark{Rule: rule, Message: msg})
	}
	sort.Slice(out, func(a, b int) bool {
		ra, rb := slices.Index(markRules, out[a].Rule), slices.Index(markRules, out[b].Rule)
		if ra != rb {
			return ra < rb
		}
		return out[a].Message < out[b].Message
	})
	return out
}

// flips compares two pass vectors: 1-based task numbers, positive where cand passes and cur
// does not, negative where cur passes and cand does not.
func flips(cur, cand []bool) []int {
	var out []int
	for n := range min(len(cur), len(cand)) {
		switch {
		case cand[n] && !cur[n]:
			out = append(out, n+1)
		case cur[n] && !cand[n]:
			out = append(out, -(n + 1))
		}
	}
	return out
}
