package challenge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Statuses a verdict has besides the ranker's (selection.Status): the task's tool is past the
// end of the listing (a tool was removed), or it shares its name with another tool, so the
// place cannot be told apart by name. Either way the task cannot be won.
const (
	StatusGone      = "gone"
	StatusDuplicate = "duplicate-name"
)

// Scoring rules, decided here:
//   - clear (the expected tool wins, clearly ahead) and none (a "no tool" task that no tool
//     shares a word with) win a point;
//   - ambiguous (wins within the ranker's margin) and none-risk (a "no tool" task that some
//     tool shares words with: a model might call it) win half a point;
//   - anything else (wrong, rejected, missing, no-words, gone, duplicate-name) wins nothing.
func credit(status string) (win, half bool) {
	switch selection.Status(status) {
	case selection.Clear, selection.NoneClear:
		return true, false
	case selection.Close, selection.NoneRisk:
		return true, true
	}
	return false, false
}

// Bounds of what a Result holds, so that a stored score stays far below store.MaxScore
// whatever the listing: the penalties listed (the points count them all), and the length of a
// penalty's message and tool name.
const (
	maxPenaltiesListed = 50
	maxMessage         = 300
	maxName            = 120
)

// Score scores a listing on one split of f's hidden tasks: the ranker on the split's tasks
// (expects mapped to the tools now in their places), the budget counted as f.Budget says, and
// the penalties of f.Penalties from the extended rules. It does not change l.
func Score(ctx context.Context, l *listing.Listing, f *File, split Split) (Result, error) {
	tasks, err := splitTasks(f, split)
	if err != nil {
		return Result{}, err
	}
	eng, err := engineFor(f.Budget.Tokenizer, f.Budget.Rendering)
	if err != nil {
		return Result{}, err
	}
	mapped, lost := mapTasks(tasks, f.Tools, l.Names())
	res, err := eng.AnalyzeContext(ctx, l, mapped)
	if err != nil {
		return Result{}, fmt.Errorf("score: %w", err)
	}
	r := Result{Split: split, Tasks: len(tasks), Budget: f.Budget.Tokens, Tokens: res.Cost.Total.Tokens,
		Verdicts: make([]Verdict, len(tasks))}
	for i, v := range res.Verdicts {
		vd := Verdict{Task: i, Status: string(v.Status), Place: -1}
		if v.Winner != nil && v.Winner.Score > 0 {
			vd.Picked, vd.Place = clipTo(v.Winner.Name, maxName), v.Winner.Tool
		}
		if lost[i] != "" {
			vd.Status = lost[i]
		}
		vd.Win, vd.Half = credit(vd.Status)
		switch {
		case vd.Half:
			r.Ambiguous++
		case vd.Win:
			r.Clear++
		}
		r.Verdicts[i] = vd
	}
	r.Penalties, r.PenaltyPoints = penalties(res, f.Penalties)
	if r.Penalties == nil {
		r.Penalties = []Penalty{} // a document lists none as [], as it lists some
	}
	r.OverBudget = r.Tokens > r.Budget
	if r.Tasks > 0 && !r.OverBudget {
		base := int(math.Round(100 * (float64(r.Clear) + float64(r.Ambiguous)/2) / float64(r.Tasks)))
		r.Score = max(0, base-r.PenaltyPoints)
	}
	return r, nil
}

func splitTasks(f *File, split Split) ([]selection.Task, error) {
	switch split {
	case Live:
		return f.Live, nil
	case Final:
		return f.Final, nil
	}
	return nil, fmt.Errorf("score: unknown split %q: use %q or %q", split, Live, Final)
}

// mapTasks maps each task's tool names, the starting tools', to the names of the tools now in
// their places (the identity rule). lost[i] says why task i cannot be won ("" when it can):
// every tool it accepts is gone or shares its name with another tool. Such a task is ranked as
// a "no tool" task, so that its verdict still says which tool a model would pick.
func mapTasks(tasks []selection.Task, start, now []string) ([]selection.Task, []string) {
	place := make(map[string]int, len(start))
	for i, n := range start {
		place[n] = i
	}
	count := make(map[string]int, len(now))
	for _, n := range now {
		count[n]++
	}
	// to returns the name now at the place of starting tool n, or why there is none.
	to := func(n string) (string, string) {
		p, ok := place[n]
		switch {
		case !ok || p >= len(now):
			return "", StatusGone
		case count[now[p]] > 1:
			return "", StatusDuplicate
		}
		return now[p], ""
	}
	out := make([]selection.Task, len(tasks))
	lost := make([]string, len(tasks))
	for i, t := range tasks {
		m := selection.Task{ID: t.ID, Task: t.Task}
		for _, n := range t.Reject {
			if name, _ := to(n); name != "" {
				m.Reject = append(m.Reject, name)
			}
		}
		answers := t.Answers()
		var names []string
		for _, n := range answers {
			name, why := to(n)
			if name == "" {
				if lost[i] != StatusDuplicate {
					lost[i] = why
				}
				continue
			}
			names = append(names, name)
		}
		switch {
		case len(answers) == 0:
		case len(names) == 0:
			m.Reject = nil // ranked as a "no tool" task only to learn which tool it picks
		default:
			lost[i] = ""
			m = m.WithExpect(&names[0])
			if len(names) > 1 {
				m.AnyOf = names
			}
		}
		out[i] = m
	}
	return out, lost
}

// penalties lists the findings that cost points: every error finding when p.Errors, and every
// finding of p.Rules. It lists at most maxPenaltiesListed; one last entry sums up the rest.
func penalties(res *analysis.Result, p Penalties) ([]Penalty, int) {
	var out []Penalty
	total, rest, restPoints := 0, 0, 0
	add := func(fd analysis.Finding) {
		if !(p.Errors && fd.Severity == analysis.Error) && !slices.Contains(p.Rules, fd.Rule) {
			return
		}
		total += p.Points
		if len(out) >= maxPenaltiesListed {
			rest++
			restPoints += p.Points
			return
		}
		place := fd.ToolIndex
		if place < 0 {
			place = -1
		}
		out = append(out, Penalty{Rule: fd.Rule, Tool: clipTo(fd.Tool, maxName), Place: place, Message: clipTo(fd.Message, maxMessage), Points: p.Points})
	}
	for _, fd := range res.Listing {
		add(fd)
	}
	for _, t := range res.Tools {
		for _, fd := range t.Findings {
			add(fd)
		}
	}
	if rest > 0 {
		out = append(out, Penalty{Rule: "more", Place: -1, Message: fmt.Sprintf("and %d more findings that cost points", rest), Points: restPoints})
	}
	return out, total
}

func clipTo(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Engines are kept per (tokenizer, rendering), a few at most: a server's challenges mostly
// share the defaults. Each has modest caches: a workshop's listings are small, and every
// participant's copy shares most tool values with the starting listing.
const (
	maxEngines  = 4
	engineBytes = 16 << 20
)

type engineKey struct{ tokenizer, rendering string }

var engines struct {
	sync.Mutex
	keys []engineKey // most recently used first
	m    map[engineKey]*analysis.Engine
}

// engineFor returns the engine that scores with a tokenizer and rendering, lint's extended
// rules counting tokens with the same tokenizer (as the pages' engine does).
func engineFor(tokenizer, rendering string) (*analysis.Engine, error) {
	k := engineKey{tokenizer, rendering}
	engines.Lock()
	defer engines.Unlock()
	if e, ok := engines.m[k]; ok {
		engines.keys = slices.DeleteFunc(engines.keys, func(x engineKey) bool { return x == k })
		engines.keys = slices.Insert(engines.keys, 0, k)
		return e, nil
	}
	tok, err := cost.NewTokenizer(tokenizer)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	e, err := analysis.New(analysis.Options{Tok: tok, Render: rendering, PlainVerdicts: true, CacheBytes: engineBytes,
		Extended: lint.New(lint.Config{Tokens: tok.Count, Cache: lru.NewBudget(engineBytes)})})
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if engines.m == nil {
		engines.m = map[engineKey]*analysis.Engine{}
	}
	if len(engines.keys) >= maxEngines {
		last := engines.keys[len(engines.keys)-1]
		delete(engines.m, last)
		engines.keys = engines.keys[:len(engines.keys)-1]
	}
	engines.m[k] = e
	engines.keys = slices.Insert(engines.keys, 0, k)
	return e, nil
}
