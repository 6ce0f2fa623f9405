package selection

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/tool-workbench/workbench/listing"
)

// The damage test asks of each tool that some task expects: does its description carry its
// selection, or would it win its tasks on its name (and parameters) alone? It spoils the
// description in four ways, one tool at a time, ranks that tool's tasks again and reports how
// far they fall.

// The ways the damage test spoils a description.
const (
	DamageBlank    = "blank"    // no description
	DamageGeneric  = "generic"  // GenericDescription, a sentence that would fit any tool
	DamageTruncate = "truncate" // the first half of its words (see TruncateDescription)
	DamageDrop     = "drop"     // without the words its tasks share with it (title and parameters too)
)

// DamageIntact is the Kind of a tool's result with its description as it is.
const DamageIntact = "intact"

// DamageKinds lists the damages in report order: ToolDamage.After follows it.
var DamageKinds = []string{DamageBlank, DamageGeneric, DamageTruncate, DamageDrop}

// GenericDescription stands in for a description that says nothing about its tool.
const GenericDescription = "Use this tool to perform the requested operation and return the result."

// How a tool's tasks depend on its description (ToolDamage.CarriedBy).
const (
	// CarriedByDescription: blanking the description loses some of the tasks the tool wins.
	CarriedByDescription = "description"
	// CarriedByName: blanked, the tool still wins every task it wins intact; its name, title
	// and parameters carry it.
	CarriedByName = "name"
	// CarriedByNothing: the tool wins none of its tasks even intact.
	CarriedByNothing = "none"
)

// TruncateDescription is the truncate damage: the first half of the description's
// whitespace-separated words, rounded up (one word of three is kept as two). A rule of our own:
// the tools the issue cites do not publish theirs.
func TruncateDescription(desc string) string {
	f := strings.Fields(desc)
	return strings.Join(f[:(len(f)+1)/2], " ")
}

// DamageResult is how one tool's tasks fare under one damage (Kind DamageIntact: undamaged).
type DamageResult struct {
	Kind string `json:"kind"`
	// Won counts the tasks the tool still wins as the ranker judges them (clear or ambiguous:
	// it scores, and no tool scores more); WonShare is Won over the tool's tasks.
	Won      int     `json:"won"`
	WonShare float64 `json:"wonShare"`
	// MeanRank is its mean place in the ranker's order (1: first; an exact tie is broken by
	// name), MeanShare its mean score as a share of the winner's (1 when it wins, 0 when
	// nothing of it scores).
	MeanRank  float64 `json:"meanRank"`
	MeanShare float64 `json:"meanShare"`
}

// ToolDamage is the damage test of one tool over the tasks that expect it.
type ToolDamage struct {
	Tool  int            `json:"tool"` // its index in the listing
	Name  string         `json:"name"`
	Tasks int            `json:"tasks"`
	Base  DamageResult   `json:"base"`  // intact
	After []DamageResult `json:"after"` // under each of DamageKinds, in that order
	// Lost is the share of its tasks it loses when its description is blanked: the part of
	// its selection that only the description carries (0 for a tool that wins by name alone).
	Lost      float64 `json:"lost"`
	CarriedBy string  `json:"carriedBy"` // CarriedByDescription, CarriedByName or CarriedByNothing
}

// Damage returns the result under kind (one of DamageKinds), or false.
func (d ToolDamage) Damage(kind string) (DamageResult, bool) {
	for _, r := range d.After {
		if r.Kind == kind {
			return r, true
		}
	}
	return DamageResult{}, false
}

// classify sets Lost and CarriedBy from Base and the blank damage.
func (d *ToolDamage) classify() {
	blank, _ := d.Damage(DamageBlank)
	d.Lost = float64(d.Base.Won-blank.Won) / float64(d.Tasks)
	switch {
	case d.Base.Won == 0:
		d.CarriedBy = CarriedByNothing
	case blank.Won >= d.Base.Won:
		d.CarriedBy = CarriedByName
	default:
		d.CarriedBy = CarriedByDescription
	}
}

// damageAnswers are the tools a task counts for in the damage test: each of its answers, whose
// description is damaged with the task among its own (its fellow answers stay rivals there: the
// test asks whether this tool's own words carry the task).
func damageAnswers(t Task) []string { return t.Answers() }

// dterm is a term of a damaged score: like term, but it may leave out the damaged tool.
type dterm struct {
	tools []int
	value float64
	skip  int // a tool of tools to leave out, or -1
}

// damagedPlace scores a task (all: its content words, sorted) with tool t's body words replaced
// by body, and returns t's place (1: first) and its score as a share of the winner's. Every
// weight a changed word carries is recomputed from its new document frequency, so the result
// equals ranking the damaged listing (TestDamagedPlaceMatchesRank); terms are summed in
// ascending order as scoresInto does, so exact ties stay exact.
func (r *Ranker) damagedPlace(all []string, t int, body map[string]bool, sc *scratch, terms []dterm) (int, float64, []dterm) {
	n := float64(len(r.names))
	self := []int{t}
	terms = terms[:0]
	for _, w := range all {
		e := r.words[w]
		inName := r.nameT[t][w]
		oldHas := !inName && r.body[t][w]
		newHas := !inName && body[w]
		df := 0
		if e != nil {
			df = e.df
		}
		if oldHas != newHas {
			if newHas {
				df++
			} else {
				df--
			}
		}
		if df == 0 {
			continue
		}
		wt := log(1 + n/float64(df))
		if e != nil {
			skip := -1
			if oldHas && !newHas {
				skip = t
			}
			terms = append(terms, dterm{e.body, wt, skip}, dterm{e.name, 3 * wt, -1})
		}
		if newHas && !oldHas {
			terms = append(terms, dterm{self, wt, -1})
		}
	}
	sortDterms(terms)
	s, touched := sc.s, sc.touched[:0]
	for _, tm := range terms {
		for _, i := range tm.tools {
			if i == tm.skip {
				continue
			}
			if s[i] == 0 {
				touched = append(touched, i)
			}
			s[i] += tm.value
		}
	}
	sc.touched = touched
	defer sc.reset()
	place, top, before := 1, 0.0, 0
	for _, j := range touched {
		top = max(top, s[j])
		if j != t && r.before(s, j, t) {
			place++
		}
		if r.order[j] < r.order[t] {
			before++
		}
	}
	if s[t] == 0 {
		// Every scored tool is ahead, and the unscored ones before it in name order.
		place = 1 + len(touched) + int(r.order[t]) - before
	}
	shr := 0.0
	if top > 0 {
		shr = s[t] / top
	}
	return place, shr, terms
}

// sortDterms sorts by value, stably enough for sums: terms of equal value add the same amount
// in either order. Insertion sort: a task has a few dozen terms.
func sortDterms(ts []dterm) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].value < ts[j-1].value; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// damagedBodies returns tool t's body words under each of DamageKinds; drop removes the words
// of ws (the content words of its tasks) from body.
func damagedBodies(tool *listing.Value, body map[string]bool, ws [][]string) []map[string]bool {
	drop := make(map[string]bool, len(body))
	for w := range body {
		drop[w] = true
	}
	for _, task := range ws {
		for _, w := range task {
			delete(drop, w)
		}
	}
	// The title and parameters are read once; the other damages add a text's words to them.
	blank := bodyWordsDesc(tool, "")
	with := func(s string) map[string]bool {
		m := make(map[string]bool, len(blank)+8)
		for w := range blank {
			m[w] = true
		}
		addWords(m, s)
		return m
	}
	trunc := with(TruncateDescription(text(tool.Get("description"))))
	return []map[string]bool{blank, with(GenericDescription), trunc, drop}
}

// damageMemo is the last damage test: the tasks, each tool's word sets and the results.
type damageMemo struct {
	tasks   []Task
	tools   []*toolWords
	results []ToolDamage // sorted by tool
}

// DamageCache runs the damage test, and after an edit reuses the result of every tool whose own
// words did not change and whose tasks share no word the edit changed: a task's scores read
// only the weights and postings of its own words (as Cache.Rank reuses verdicts). It is safe
// for concurrent use; one DamageCache follows one listing being edited.
type DamageCache struct {
	c    *Cache
	mu   sync.Mutex
	memo *damageMemo
	// reused counts the tools whose result the last Test took from the one before.
	reused int
}

// NewDamageCache returns a damage test that reads tools and tasks through c (nil: a cache of
// its own).
func NewDamageCache(c *Cache) *DamageCache {
	if c == nil {
		c = NewCache(0)
	}
	return &DamageCache{c: c}
}

// Reused returns how many tools the last Test took from the one before.
func (dc *DamageCache) Reused() int {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	return dc.reused
}

// Test damages every tool that some task expects, one at a time, and ranks that tool's tasks
// again; the results are in listing order. A task counts for the first tool of the name it
// expects (as the ranker's verdict does); tasks that expect no tool, or one not in the listing,
// count for none. It stops between tools when ctx is done, and returns ctx's error, wrapped.
func (dc *DamageCache) Test(ctx context.Context, l *listing.Listing, tasks []Task) ([]ToolDamage, error) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	tw := dc.c.toolWords(l.Tools)
	r := newRanker(tw)
	ws := make([][][]string, len(tw))
	for _, t := range tasks {
		for _, a := range damageAnswers(t) {
			if i, ok := r.firstNamed[a]; ok {
				ws[i] = append(ws[i], dc.c.taskContent(t.Task))
			}
		}
	}
	memo := dc.memo
	var changed map[string]bool
	if memo != nil {
		ok := len(memo.tools) == len(tw) && sameTasks(memo.tasks, tasks)
		if ok {
			changed, ok = changedWords(memo.tools, tw)
		}
		if !ok {
			memo = nil
		}
	}
	dc.reused = 0
	sc := r.newScratch()
	var terms []dterm
	out := []ToolDamage{}
	for i := range tw {
		if len(ws[i]) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("damage test: %w", err)
		}
		if memo != nil && memo.tools[i] == tw[i] && !touchesAny(ws[i], changed) {
			if d, ok := findDamage(memo.results, i); ok {
				out = append(out, d)
				dc.reused++
				continue
			}
		}
		d := ToolDamage{Tool: i, Name: r.names[i], Tasks: len(ws[i])}
		d.Base, terms = r.damageResult(DamageIntact, ws[i], i, r.body[i], sc, terms)
		for k, b := range damagedBodies(l.Tools[i], r.body[i], ws[i]) {
			var res DamageResult
			res, terms = r.damageResult(DamageKinds[k], ws[i], i, b, sc, terms)
			d.After = append(d.After, res)
		}
		d.classify()
		out = append(out, d)
	}
	dc.memo = &damageMemo{tasks: append([]Task(nil), tasks...), tools: tw, results: out}
	return out, nil
}

// DamageTest is DamageCache.Test without a cache: the damage test of one listing, once.
func DamageTest(ctx context.Context, l *listing.Listing, tasks []Task) ([]ToolDamage, error) {
	return NewDamageCache(nil).Test(ctx, l, tasks)
}

// damageResult places tool t in each of its tasks (ws) with body as its body words.
func (r *Ranker) damageResult(kind string, ws [][]string, t int, body map[string]bool, sc *scratch, terms []dterm) (DamageResult, []dterm) {
	res := DamageResult{Kind: kind}
	for _, w := range ws {
		var place int
		var shr float64
		place, shr, terms = r.damagedPlace(w, t, body, sc, terms)
		if shr == 1 {
			// The ranker's rule: the expected tool wins when nothing scores above it (an exact
			// tie included, though the tie-break may place it second) and it scores at all.
			res.Won++
		}
		res.MeanRank += float64(place)
		res.MeanShare += shr
	}
	n := float64(len(ws))
	res.WonShare = float64(res.Won) / n
	res.MeanRank /= n
	res.MeanShare /= n
	return res, terms
}

func touchesAny(ws [][]string, changed map[string]bool) bool {
	for _, w := range ws {
		if touches(w, changed) {
			return true
		}
	}
	return false
}

// findDamage finds tool i's result in rs (sorted by tool).
func findDamage(rs []ToolDamage, i int) (ToolDamage, bool) {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := (lo + hi) / 2
		if rs[m].Tool < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(rs) && rs[lo].Tool == i {
		return rs[lo], true
	}
	return ToolDamage{}, false
}
