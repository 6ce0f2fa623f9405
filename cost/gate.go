package cost

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Gate is a report's change against its baseline, tool by tool, as a pull request's reviewers
// read it: what was added, removed, grew or shrank, in tokens. Tools are matched by name, so a
// renamed tool is one removed and one added.
type Gate struct {
	Tokenizer string
	Render    string
	Estimate  bool
	// Before and After are the listings' totals.
	Before, After Measure
	// Changes are the tools added, removed, grown or shrunk, the largest change in tokens first.
	Changes []GateChange
	// The count of tools of each kind; Unchanged tools cost the same tokens on both sides (their
	// bytes may differ).
	Added, Removed, Grown, Shrunk, Unchanged int
}

// GateChange is one tool's change in tokens.
type GateChange struct {
	Name   string
	Status string // added, removed, grown or shrunk
	// Index is the tool's place in the listing, or -1 for a removed tool.
	Index         int
	Before, After int
}

// Delta is the change in tokens.
func (c GateChange) Delta() int { return c.After - c.Before }

// Total is the tools' changes added up: the listing's change but for the tokens that form across
// the boundaries between tools and the frame's change.
func (g *Gate) Total() int {
	n := 0
	for _, c := range g.Changes {
		n += c.Delta()
	}
	return n
}

// Gate returns the change of a report compared against a baseline (Report.Compare).
func (r *Report) Gate() (*Gate, error) {
	d := r.Baseline
	if d == nil {
		return nil, errors.New("cost: the report has no baseline to compare against")
	}
	g := &Gate{Tokenizer: r.Tokenizer, Render: r.Render, Estimate: r.Estimate, Before: d.Before, After: r.Total}
	index := map[string]int{}
	for _, t := range r.Tools {
		if _, dup := index[t.Name]; !dup {
			index[t.Name] = t.Index
		}
	}
	for _, t := range d.Tools {
		c := GateChange{Name: t.Name, Index: -1, Before: t.Before.Tokens, After: t.After.Tokens}
		if i, ok := index[t.Name]; ok && t.Status != "removed" {
			c.Index = i
		}
		switch {
		case t.Status == "added":
			c.Status, g.Added = "added", g.Added+1
		case t.Status == "removed":
			c.Status, g.Removed = "removed", g.Removed+1
		case c.Delta() > 0:
			c.Status, g.Grown = "grown", g.Grown+1
		case c.Delta() < 0:
			c.Status, g.Shrunk = "shrunk", g.Shrunk+1
		default:
			continue // the same tokens, other bytes: unchanged for the gate
		}
		g.Changes = append(g.Changes, c)
	}
	// Tools present on both sides whose tokens did not change (duplicate names count once, as
	// Compare matches them).
	g.Unchanged = len(index) - g.Added - g.Grown - g.Shrunk
	slices.SortStableFunc(g.Changes, func(a, b GateChange) int {
		if c := cmp.Compare(abs(b.Delta()), abs(a.Delta())); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return g, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Limit is the most a listing may grow: a number of tokens, or a percentage of the baseline's
// total (--max-increase 500 or 2.5%).
type Limit struct {
	Tokens  int
	Percent float64
	// IsPercent says which of the two the limit is.
	IsPercent bool
	// Text is the limit as given.
	Text string
}

// ParseLimit reads a limit: a whole number of tokens (500) or a percentage of the baseline's
// total (2.5%), neither negative.
func ParseLimit(s string) (Limit, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || p == "" || strings.ContainsAny(p, "xXpP_") || math.IsNaN(f) || math.IsInf(f, 0) {
			return Limit{}, fmt.Errorf("%q is not a percentage: give a number followed by %%, such as 2.5%%", s)
		}
		if f < 0 {
			return Limit{}, fmt.Errorf("%q is negative: give how much the listing may grow, 0%% for not at all", s)
		}
		return Limit{Percent: f, IsPercent: true, Text: t}, nil
	}
	n, err := strconv.Atoi(t)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return Limit{}, fmt.Errorf("%q is too large a number of tokens", s)
	case err != nil || strings.HasPrefix(t, "+"):
		return Limit{}, fmt.Errorf("%q is not a limit: give a whole number of tokens (500) or a percentage of the baseline's total (2.5%%)", s)
	case n < 0:
		return Limit{}, fmt.Errorf("%q is negative: give how much the listing may grow, 0 for not at all", s)
	}
	return Limit{Tokens: n, Text: t}, nil
}

// Allowed is the growth in tokens the limit allows on a baseline of before tokens; a
// percentage allows the whole tokens within it (1% of 35,506 allows 355).
func (l Limit) Allowed(before int) int {
	if !l.IsPercent {
		return l.Tokens
	}
	a := math.Floor(l.Percent * float64(max(before, 0)) / 100)
	if a >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int(a)
}

// Verdict is a gate's result against a limit.
type Verdict struct {
	Limit   Limit
	Allowed int
	// Over is true when the listing grew by more than the limit allows.
	Over    bool
	Message string
}

// Check compares the listing's growth with a limit.
func (g *Gate) Check(l Limit) Verdict {
	v := Verdict{Limit: l, Allowed: l.Allowed(g.Before.Tokens)}
	change := g.After.Tokens - g.Before.Tokens
	v.Over = change > v.Allowed
	limit := fmt.Sprintf("--max-increase %s", l.Text)
	if l.IsPercent {
		limit += fmt.Sprintf(" (%s of the baseline's %s)", tokens(v.Allowed), Group(g.Before.Tokens))
	}
	grew := fmt.Sprintf("the listing grew by %s (%s), from %s to %s,", tokens(change), Percent(change, g.Before.Tokens), Group(g.Before.Tokens), Group(g.After.Tokens))
	switch {
	case change <= 0:
		v.Message = fmt.Sprintf("the listing did not grow (%s tokens, %s to %s): within %s", Signed(change), Group(g.Before.Tokens), Group(g.After.Tokens), limit)
	case v.Over:
		v.Message = fmt.Sprintf("%s %s past %s", grew, tokens(change-v.Allowed), limit)
	default:
		v.Message = fmt.Sprintf("%s within %s", grew, limit)
	}
	return v
}

// Group writes n with thousands separators (35,506).
func Group(n int) string {
	s := strconv.Itoa(abs(n))
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// tokens writes a count of tokens (1 token, 1,024 tokens).
func tokens(n int) string {
	if n == 1 {
		return "1 token"
	}
	return Group(n) + " tokens"
}

// Signed writes n with its sign and thousands separators (+532, -1,204, 0).
func Signed(n int) string {
	if n > 0 {
		return "+" + Group(n)
	}
	return Group(n)
}

// Percent writes change as a percentage of before, signed: one decimal, two under 1%, "new"
// when there was nothing before.
func Percent(change, before int) string {
	switch {
	case before == 0 && change == 0:
		return "0%"
	case before == 0:
		return "new"
	}
	p := 100 * float64(change) / float64(before)
	if math.Abs(p) < 1 {
		return fmt.Sprintf("%+.2f%%", p)
	}
	return fmt.Sprintf("%+.1f%%", p)
}
