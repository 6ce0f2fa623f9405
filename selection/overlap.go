package selection

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

// Pair is how strongly two tools of a listing compete (I < J, listing indices). Every part is
// a share between 0 and 1; Strength is the largest.
type Pair struct {
	I int `json:"i"`
	J int `json:"j"`
	// Strength is what the map colours and sorts by: max(Desc, Shared, Tasks).
	Strength float64 `json:"strength"`
	// DescI is tool J's score on tool I's own words (its definition less its name and the names
	// of the tools it already names) as a share of I's score on them, at most 1: 1 means J takes
	// I's description as well as I does. DescJ is the other way round; 0 when the other tool is
	// not among the row's strongest (overlapK). Desc is their mean: a pair competes when each
	// takes the other's words (the larger alone ranked first tools whose few words another
	// tool's long description happens to hold).
	Desc  float64 `json:"desc"`
	DescI float64 `json:"descI"`
	DescJ float64 `json:"descJ"`
	// Shared is the weighted Jaccard index of the two tools' words (name and body): the weight
	// of the words they share over that of the words either has.
	Shared float64 `json:"shared"`
	// Tasks is the largest share of the expected tool's score the other reached on a task that
	// expects one of them and went to the other (Lost, share 1) or was close (Close, within
	// Ambiguous). Lost and Close are task numbers, 1-based as in select-N lines.
	Tasks float64 `json:"tasks"`
	Lost  []int   `json:"lost,omitempty"`
	Close []int   `json:"close,omitempty"`
	// NamesJ is true when I's description names J; NamesI when J's names I.
	NamesJ bool `json:"iNamesJ"`
	NamesI bool `json:"jNamesI"`
	// Merge is true when the two look like one tool: each takes nearly all of the other's
	// description (DescI and DescJ at least 0.9), and their weighted words are nearly the same (0.85)
	// or their names differ only in verbs of reading (get_data, fetch_data).
	Merge bool `json:"merge"`
	// Model is the share of a model run's scored calls expecting either tool that chose the
	// other (AddModel): ModelConfused of ModelCalls. Nil without a run, or when no call of the
	// run expected either tool.
	Model         *float64 `json:"model,omitempty"`
	ModelConfused int      `json:"modelConfused,omitempty"`
	ModelCalls    int      `json:"modelCalls,omitempty"`
}

// OverlapMap is every tool's strongest competitors and an order that puts clusters together.
// The pairs come from the ranker, the words and the ranker's verdicts on tasks, and with
// AddModel from a model run's confusion matrix.
type OverlapMap struct {
	Names []string
	// Pairs are the competing pairs, strongest first (then more lost tasks, then Desc).
	Pairs []Pair
	// Order lists every tool index once: clusters of linked tools contiguous, the largest first,
	// then the tools in no pair by name.
	Order []int
	r     *Ranker
	named [][]int // the tools each tool's description names (mentions)
}

// overlapK is how many competitors each tool's row keeps: the map is sparse, n·overlapK pairs
// at most, so that it costs O(n) to draw and sort past a few hundred tools.
const overlapK = 8

// share is one entry of a tool's row: tool j's score on the row tool's own words, as a share of
// the row tool's own score (not capped), and the weight of all the words the two share.
type share struct {
	j int
	s float64
	w float64
}

// overlapMemo keeps the rows of the last map, so that an edit recomputes only the rows whose
// words it touched.
type overlapMemo struct {
	tools  []*toolWords
	rows   [][]share
	all    [][]string // each tool's words, sorted (allWords)
	totals []float64  // the weight of each tool's words
}

// OverlapCache computes overlap maps over a ranking cache and remembers the last one, so that
// after an edit only the rows of tools whose words the edit touched are computed again (the
// rule of Cache.Rank). It is safe for concurrent use; one cache suits one listing being edited.
type OverlapCache struct {
	c    *Cache
	mu   sync.Mutex
	memo *overlapMemo
	// Reused counts the rows the last Map took from the previous one.
	Reused int
}

// NewOverlapCache returns a cache over the ranking cache c (nil: a new one).
func NewOverlapCache(c *Cache) *OverlapCache {
	if c == nil {
		c = NewCache(0)
	}
	return &OverlapCache{c: c}
}

// Overlap ranks tasks against l (they may be none) and maps its tools' overlap, afresh.
func Overlap(ctx context.Context, l *listing.Listing, tasks []Task) (*OverlapMap, error) {
	oc := NewOverlapCache(nil)
	vs, err := oc.c.Rank(ctx, l, tasks, false)
	if err != nil {
		return nil, err
	}
	return oc.Map(ctx, l, vs)
}

// Map computes the overlap map of l's tools, with the verdicts vs of some tasks on l (from a
// ranking of the same listing; nil for none). It stops between rows when ctx is done.
func (oc *OverlapCache) Map(ctx context.Context, l *listing.Listing, vs []Verdict) (*OverlapMap, error) {
	tools := oc.c.toolWords(l.Tools)
	oc.mu.Lock()
	defer oc.mu.Unlock()
	var changed map[string]bool
	memo := oc.memo
	if memo != nil {
		ok := len(memo.tools) == len(tools)
		if ok {
			changed, ok = changedWords(memo.tools, tools)
		}
		if !ok {
			memo = nil
		}
	}
	r := newRanker(tools)
	named := mentions(l, r)
	next, reused, err := r.overlapRows(ctx, named, memo, tools, changed)
	if err != nil {
		return nil, err
	}
	oc.memo, oc.Reused = next, reused
	return r.buildMap(next, vs, named), nil
}

// mentions returns, for each tool, the first maxMentions tools its description names (a name
// standing as a word of its own: between characters that cannot be part of a name). The bound
// keeps a description that lists every tool of a big listing from making each row's words cost
// the number of tools: real descriptions name a few neighbours.
func mentions(l *listing.Listing, r *Ranker) [][]int {
	out := make([][]int, len(l.Tools))
	for i, t := range l.Tools {
		d := text(t.Get("description"))
		for _, tok := range strings.FieldsFunc(d, func(c rune) bool { return !isNameRune(c) }) {
			if len(out[i]) == maxMentions {
				break
			}
			tok = strings.TrimRight(tok, ".-")
			if j, ok := r.firstNamed[tok]; ok && j != i && !slices.Contains(out[i], j) {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// maxMentions bounds the neighbours a description is read to name.
const maxMentions = 64

// isNameRune reports whether c may be part of a tool name (the specification's A-Z a-z 0-9 _ - .).
func isNameRune(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// allWords is tool i's words, name and body, sorted.
func (r *Ranker) allWords(i int, buf []string) []string {
	buf = buf[:0]
	for w := range r.nameT[i] {
		buf = append(buf, w)
	}
	for w := range r.body[i] {
		if !r.nameT[i][w] {
			buf = append(buf, w)
		}
	}
	slices.Sort(buf)
	return buf
}

// ownWords is the pseudo-task of tool i's row: its body words less its name's words and the
// name words of the tools it names (naming a neighbour, which the advice asks for, must not
// make the two look closer), sorted.
func (r *Ranker) ownWords(i int, named []int, buf []string) []string {
	buf = buf[:0]
	for w := range r.body[i] {
		if r.nameT[i][w] || slices.ContainsFunc(named, func(j int) bool { return r.nameT[j][w] }) {
			continue
		}
		buf = append(buf, w)
	}
	slices.Sort(buf)
	return buf
}

// row scores every tool on tool i's own words (own) and keeps the overlapK largest shares of
// i's own score, with the weight of all the words (all) each shares with i.
func (r *Ranker) row(i int, own, all []string, sc *scratch) []share {
	var self float64
	for _, w := range own {
		self += r.words[w].weight // in ascending word order, the same sum every time
	}
	if self == 0 {
		return nil
	}
	r.scoresInto(own, sc)
	defer sc.reset()
	var out []share
	for _, j := range sc.touched {
		v := sc.s[j] / self
		if j == i || len(out) == overlapK && !shareBefore(v, j, out[overlapK-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(out, share{j: j, s: v}, func(e, t share) int {
			return cmp.Or(cmp.Compare(t.s, e.s), cmp.Compare(e.j, t.j))
		})
		out = slices.Insert(out, at, share{j: j, s: v})
		out = out[:min(len(out), overlapK)]
	}
	// The shared weight of the few kept tools only: a lookup per word and kept tool costs less
	// than walking every posting of every word when the vocabulary is small and dense.
	for k := range out {
		j := out[k].j
		for _, w := range all {
			if r.nameT[j][w] || r.body[j][w] {
				out[k].w += r.words[w].weight
			}
		}
	}
	return out
}

// shareBefore reports whether a share v of tool j ranks before e: larger first, then lower index.
func shareBefore(v float64, j int, e share) bool { return v > e.s || v == e.s && j < e.j }

// overlapRows computes every tool's row, words and their weight, reusing memo's of tools whose
// words are the same and touch no changed word (changed: the words some tool gained or lost
// since memo). It returns how many rows it reused.
func (r *Ranker) overlapRows(ctx context.Context, named [][]int, memo *overlapMemo, cur []*toolWords, changed map[string]bool) (*overlapMemo, int, error) {
	n := len(r.names)
	out := &overlapMemo{tools: cur, rows: make([][]share, n), all: make([][]string, n), totals: make([]float64, n)}
	sc := r.newScratch()
	var own []string
	reused := 0
	for i := range n {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, fmt.Errorf("mapping the overlap: %w", err)
			}
		}
		same := memo != nil && memo.tools[i] == cur[i]
		if same {
			out.all[i] = memo.all[i]
		} else {
			out.all[i] = r.allWords(i, nil)
		}
		if same && !touches(out.all[i], changed) {
			out.rows[i], out.totals[i] = memo.rows[i], memo.totals[i]
			reused++
			continue
		}
		for _, w := range out.all[i] {
			out.totals[i] += r.words[w].weight
		}
		own = r.ownWords(i, named[i], own)
		out.rows[i] = r.row(i, own, out.all[i], sc)
	}
	return out, reused, nil
}

// expectedTools are the tools a verdict's task accepts, by index (the first of each name): with
// several right answers, each answer counts.
func (r *Ranker) expectedTools(v Verdict) []int {
	if v.Expected == nil {
		return nil
	}
	names := v.Task.Answers()
	out := make([]int, 0, len(names))
	for _, n := range names {
		if i, ok := r.firstNamed[n]; ok {
			out = append(out, i)
		}
	}
	return out
}

// taskPairs adds to pairs what the verdicts say: each task that went to another tool (lost) or
// was close links the expected tool with the tool that beat or nearly beat it.
func (r *Ranker) taskPairs(vs []Verdict, pairs map[[2]int]*Pair) {
	for _, v := range vs {
		if v.Winner == nil || v.Status != Wrong && v.Status != Close {
			continue
		}
		for _, e := range r.expectedTools(v) {
			o, s := v.Winner.Tool, 1.0
			if v.Status == Close {
				if v.Runner == nil {
					continue
				}
				o = v.Runner.Tool
				if v.Expected.Score > 0 {
					s = min(1, v.Runner.Score/v.Expected.Score)
				}
			}
			if o == e {
				continue
			}
			p := pairOf(pairs, e, o)
			p.Tasks = max(p.Tasks, s)
			if v.Status == Wrong {
				p.Lost = append(p.Lost, v.N)
			} else {
				p.Close = append(p.Close, v.N)
			}
		}
	}
}

func pairOf(pairs map[[2]int]*Pair, i, j int) *Pair {
	if i > j {
		i, j = j, i
	}
	p := pairs[[2]int{i, j}]
	if p == nil {
		p = &Pair{I: i, J: j}
		pairs[[2]int{i, j}] = p
	}
	return p
}

// buildMap turns rows and verdicts into the map: pairs, strongest first, and the order.
func (r *Ranker) buildMap(rs *overlapMemo, vs []Verdict, named [][]int) *OverlapMap {
	totals := rs.totals
	pairs := map[[2]int]*Pair{}
	for i, row := range rs.rows {
		for _, e := range row {
			p := pairOf(pairs, i, e.j)
			if i == p.I {
				p.DescI = min(1, e.s)
			} else {
				p.DescJ = min(1, e.s)
			}
			if u := totals[i] + totals[e.j] - e.w; u > 0 {
				p.Shared = e.w / u
			}
		}
	}
	r.taskPairs(vs, pairs)
	m := &OverlapMap{Names: r.names, Pairs: make([]Pair, 0, len(pairs)), r: r, named: named}
	for _, p := range pairs {
		if p.DescI == 0 && p.DescJ == 0 {
			p.Shared = r.jaccard(rs.all, p.I, p.J) // a pair only the tasks link
		}
		p.Desc = (p.DescI + p.DescJ) / 2
		p.Strength = min(1, max(p.Desc, p.Tasks, p.Shared))
		p.NamesJ, p.NamesI = slices.Contains(named[p.I], p.J), slices.Contains(named[p.J], p.I)
		p.Merge = min(p.DescI, p.DescJ) >= 0.9 && (p.Shared >= 0.85 || readSynonyms(r.nameT[p.I], r.nameT[p.J]))
		m.Pairs = append(m.Pairs, *p)
	}
	sortPairs(m.Pairs)
	m.Order = seriate(len(r.names), m.Pairs, r.byName)
	return m
}

// sortPairs puts the strongest pairs first. Many pairs reach 1 (a lost task, a description
// another takes whole): lost tasks, then the descriptions, order them.
func sortPairs(ps []Pair) {
	slices.SortFunc(ps, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(b.Strength, a.Strength), cmp.Compare(len(b.Lost), len(a.Lost)),
			cmp.Compare(b.Desc, a.Desc), cmp.Compare(b.Shared, a.Shared), cmp.Compare(a.I, b.I), cmp.Compare(a.J, b.J))
	})
}

// readSynonyms reports whether two names differ, and only in verbs of reading: a word ranker
// cannot tell get from fetch, and neither can a reader of two such names.
func readSynonyms(a, b map[string]bool) bool {
	differ := false
	for _, pair := range [2][2]map[string]bool{{a, b}, {b, a}} {
		for w := range pair[0] {
			if !pair[1][w] {
				if !words.ReadVerbs[w] {
					return false
				}
				differ = true
			}
		}
	}
	return differ
}

// jaccard is the weighted Jaccard index of the words of tools i and j, summed in word order so
// that it does not depend on map iteration.
func (r *Ranker) jaccard(all [][]string, i, j int) float64 {
	var both, either float64
	has := func(t int, w string) bool { return r.nameT[t][w] || r.body[t][w] }
	for _, w := range all[i] {
		either += r.words[w].weight
		if has(j, w) {
			both += r.words[w].weight
		}
	}
	for _, w := range all[j] {
		if !has(i, w) {
			either += r.words[w].weight
		}
	}
	if either == 0 {
		return 0
	}
	return both / either
}
