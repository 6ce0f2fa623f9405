package reference

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/words"
)

// Bounds of the near-duplicate check. The reference compares every pair of tools and prints
// every near-duplicate pair on one line: 3,000 near-identical tools make 4.5 million pairs and a
// line of 230 MB, 20,000 make 200 million.
//
// The workbench reproduces the reference's line (Exact) while it lists at most MaxPairs pairs in
// at most MaxLineBytes (500 near-identical tools with long names still fit), and past that
// refuses with a *PairsError. Where the line is shown as a finding (the API, the browser, the
// extended report) it lists the pairs only up to ShownPairs in ShownLineBytes, and otherwise
// reports them as groups of tools (Line): a finding of a thousand pairs helps nobody.
const (
	MaxPairs       = 250_000
	MaxLineBytes   = 16 << 20
	ShownPairs     = 2000
	ShownLineBytes = 128 << 10
	// MaxComparisons bounds the work of the search, in steps: an entry of the word index
	// visited, or a word compared while counting the words two descriptions share (about
	// 2 ns each). Listings of real servers take a few thousand; 3,000 near-identical tools 144
	// million; 20,000 of them would take 6,400 million, which the budget cuts short.
	MaxComparisons = 160 << 20
)

// How much of each group the grouped line shows.
const (
	shownGroups   = 10
	shownTools    = 6
	shownNameSize = 64
)

// NearDups is the outcome of the near-duplicate search: the tools whose descriptions share
// half their content words or more, kept in a size linear in the listing however many pairs
// there are. Tools whose descriptions (looked up by name, as the reference does) have the same
// content words form a class, and every pair of a class with different names is a
// near-duplicate at 100%; classes are linked when their words overlap enough. The number of
// pairs the reference would print is counted from the classes, not by listing them.
type NearDups struct {
	names []string
	rep   []int32   // the tool whose description stands for tool i: the last of its name
	class []int32   // each tool's class, -1 when its description has no content words
	mem   [][]int32 // each class's tools, ascending
	words []int32   // each class's number of words
	nb    []int64   // each class's bytes of names (the sum over its tools)
	// links are the first MaxPairs+1 linked class pairs: enough to list the pairs when there
	// are at most MaxPairs (each link is one pair or more).
	links     []classLink
	parent    []int32 // union-find over classes: the groups
	stats     []groupStats
	hasWithin []bool // the class holds tools of different names: each pair of them is listed

	// Pairs is the number of pairs the reference lists (as far as the search went), Bytes the
	// length of the reference's line detail that lists them.
	Pairs, Bytes int64
	// Complete is false when the comparison budget ran out: Compared of the Total pairs of
	// distinct descriptions were decided, and there may be more pairs.
	Complete        bool
	Compared, Total int64
}

type classLink struct{ a, b, shared, union int32 }

// posting is a class whose indexed prefix holds a word, at pos.
type posting struct{ class, pos int32 }

// groupStats is what a group's line shows besides its tools: the pairs and the least and most
// overlap among them (shared over union).
type groupStats struct {
	pairs    int64
	loS, loU int64
	hiS, hiU int64
}

func (s *groupStats) add(pairs, shared, union int64) {
	if s.pairs == 0 || shared*s.loU < s.loS*union {
		s.loS, s.loU = shared, union
	}
	if s.pairs == 0 || shared*s.hiU > s.hiS*union {
		s.hiS, s.hiU = shared, union
	}
	s.pairs += pairs
}

func (s *groupStats) merge(o groupStats) {
	switch {
	case o.pairs == 0:
		return
	case s.pairs == 0:
		*s = o
		return
	}
	if o.loS*s.loU < s.loS*o.loU {
		s.loS, s.loU = o.loS, o.loU
	}
	if o.hiS*s.hiU > s.hiS*o.hiU {
		s.hiS, s.hiU = o.hiS, o.hiU
	}
	s.pairs += o.pairs
}

// NearDuplicates returns the reference's near-duplicate line for tools named names whose
// descriptions have the content words descs[i] (DescriptionWords); past ShownPairs pairs or
// ShownLineBytes the line reports groups instead (see NearDups.Line).
func NearDuplicates(names []string, descs [][]string) Line {
	nd, _ := FindNearDuplicates(context.Background(), names, descs)
	return nd.Line()
}

// FindNearDuplicates searches the pairs of tools whose descriptions share half their content
// words or more, as the reference's near-duplicate check compares them, in time and memory
// linear in the listing and at most MaxComparisons steps of comparison. It returns ctx's error,
// wrapped, when ctx is done first.
//
// It works on classes of tools with the same words, and finds the linked classes with a set
// similarity join: each class's words are sorted rarest first, and two sets whose Jaccard
// overlap is at least 0.5 share a word among the first |x| - ceil(|x|/2) + 1 of the larger one
// and the first |y| - ceil(2|y|/3) + 1 of the smaller one, so only those prefixes are indexed
// and probed (with the size filter |y| >= |x|/2 and the position filter that drops a candidate
// once its remaining words cannot reach the overlap).
func FindNearDuplicates(ctx context.Context, names []string, descs [][]string) (*NearDups, error) {
	n := len(names)
	nd := &NearDups{names: names, rep: make([]int32, n), class: make([]int32, n), Complete: true}
	last := make(map[string]int32, n)
	for i, name := range names {
		last[name] = int32(i)
	}
	for i, name := range names {
		nd.rep[i] = last[name]
	}
	// Words become ids; a class is a sorted set of ids, keyed by its bytes.
	ids := map[string]int32{}
	classOf := map[string]int32{}
	var sets [][]int32
	repClass := map[int32]int32{}
	var key []byte
	for i := range names {
		r := nd.rep[i]
		c, ok := repClass[r]
		if !ok {
			ws := descs[r]
			set := make([]int32, 0, len(ws))
			for _, w := range ws {
				id, ok := ids[w]
				if !ok {
					id = int32(len(ids))
					ids[w] = id
				}
				set = append(set, id)
			}
			slices.Sort(set)
			set = slices.Compact(set) // DescriptionWords are distinct, but callers may repeat
			c = -1
			if len(set) > 0 {
				key = key[:0]
				for _, id := range set {
					key = binary.LittleEndian.AppendUint32(key, uint32(id))
				}
				if c, ok = classOf[string(key)]; !ok {
					c = int32(len(sets))
					classOf[string(key)] = c
					sets = append(sets, set)
				}
			}
			repClass[r] = c
		}
		nd.class[i] = c
	}
	k := len(sets)
	nd.mem = make([][]int32, k)
	nd.words = make([]int32, k)
	nd.nb = make([]int64, k)
	for i, c := range nd.class {
		if c >= 0 {
			nd.mem[c] = append(nd.mem[c], int32(i))
			nd.nb[c] += int64(len(names[i]))
		}
	}
	nd.parent = make([]int32, k)
	nd.stats = make([]groupStats, k)
	nd.hasWithin = make([]bool, k)
	for c := range k {
		nd.words[c] = int32(len(sets[c]))
		nd.parent[c] = int32(c)
		pairs, bytes := nd.withinPairs(c)
		if pairs > 0 {
			nd.hasWithin[c] = true
			nd.stats[c].add(pairs, 1, 1)
			nd.Pairs += pairs
			nd.Bytes += bytes
		}
	}
	nd.Total = int64(k) * int64(k-1) / 2
	if err := nd.join(ctx, sets, len(ids)); err != nil {
		return nil, err
	}
	return nd, nil
}

// withinPairs counts the pairs of class c's tools with different names, and the bytes of
// their "a and b (100%)" entries.
func (nd *NearDups) withinPairs(c int) (pairs, bytes int64) {
	m := int64(len(nd.mem[c]))
	if m < 2 {
		return 0, 0
	}
	// Tools of one name share their representative; count each name's tools.
	count := map[int32]int64{}
	for _, i := range nd.mem[c] {
		count[nd.rep[i]]++
	}
	for r, k := range count {
		other := m - k
		pairs += k * other
		bytes += k * other * int64(len(nd.names[r]))
	}
	pairs /= 2 // each pair was counted from both sides; the bytes count each side's name once
	bytes += pairs * int64(len(" and ")+len(" (100%)"))
	return pairs, bytes
}

func (nd *NearDups) find(c int32) int32 {
	for nd.parent[c] != c {
		nd.parent[c] = nd.parent[nd.parent[c]]
		c = nd.parent[c]
	}
	return c
}

// link records that classes a and b share shared of their union words.
func (nd *NearDups) link(a, b int32, shared, union int) {
	if len(nd.links) <= MaxPairs {
		nd.links = append(nd.links, classLink{a, b, int32(shared), int32(union)})
	}
	ma, mb := int64(len(nd.mem[a])), int64(len(nd.mem[b]))
	pairs := ma * mb
	nd.Pairs += pairs
	nd.Bytes += nd.nb[a]*mb + nd.nb[b]*ma + pairs*int64(len(" and ")+len(" (%)")+percentLen(shared, union))
	ra, rb := nd.find(a), nd.find(b)
	if ra != rb {
		nd.parent[rb] = ra
		nd.stats[ra].merge(nd.stats[rb])
	}
	nd.stats[ra].add(pairs, int64(shared), int64(union))
}

// join finds the linked classes (see FindNearDuplicates).
func (nd *NearDups) join(ctx context.Context, sets [][]int32, words int) error {
	k := len(sets)
	if k < 2 {
		return nil
	}
	ranked := rankByRarity(sets, words)
	bySize := make([]int32, k)
	for i := range bySize {
		bySize[i] = int32(i)
	}
	slices.SortStableFunc(bySize, func(a, b int32) int { return len(ranked[a]) - len(ranked[b]) })
	j := &joiner{nd: nd, ranked: ranked, index: make([][]posting, words), start: make([]int32, words),
		acc: make([]int32, k), nextCheck: 1 << 16}
	for done, xc := range bySize {
		if !nd.Complete {
			// The budget ran out: link each remaining class to the first near-duplicate
			// found, if any, so that the groups still gather their tools.
			if err := nd.joinFirst(ctx, ranked, bySize[done:], j.index, j.start, j.acc); err != nil {
				return err
			}
			break
		}
		j.probe(xc, done)
		j.verify(xc, done)
		x := ranked[xc]
		for i := 0; i < len(x)-(2*len(x)+2)/3+1; i++ {
			j.index[x[i]] = append(j.index[x[i]], posting{xc, int32(i)})
		}
		if j.steps >= j.nextCheck {
			j.nextCheck = j.steps + 1<<16
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("near-duplicate search: %w", err)
			}
		}
	}
	if nd.Complete {
		nd.Compared = nd.Total
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("near-duplicate search: %w", err)
	}
	return nil
}

// rankByRarity returns each set with its words replaced by their ranks, rarest first (by the
// classes that hold them, ties by id), sorted: a prefix of a set then holds its rarest words.
func rankByRarity(sets [][]int32, words int) [][]int32 {
	df := make([]int32, words)
	for _, s := range sets {
		for _, w := range s {
			df[w]++
		}
	}
	order := make([]int32, words)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if df[a] != df[b] {
			return int(df[a] - df[b])
		}
		return int(a - b)
	})
	rank := make([]int32, words)
	for r, w := range order {
		rank[w] = int32(r)
	}
	ranked := make([][]int32, len(sets))
	for c, s := range sets {
		r := make([]int32, len(s))
		for i, w := range s {
			r[i] = rank[w]
		}
		slices.Sort(r)
		ranked[c] = r
	}
	return ranked
}

// joiner is the state of join's prefix-filtered search: an inverted index of the prefixes of
// the classes compared so far, and the overlap counts of the candidates of the current class.
type joiner struct {
	nd     *NearDups
	ranked [][]int32
	index  [][]posting
	start  []int32 // postings before start are too small for every later probe
	acc    []int32 // overlap in the prefixes so far; -1 pruned
	// touched lists the classes whose acc the current probe set.
	touched          []int32
	steps, nextCheck int64
}

// budgetLeft spends cost steps and reports whether the budget still holds.
func (j *joiner) budgetLeft(cost int64) bool {
	j.steps += cost
	return j.steps <= MaxComparisons
}

// probe counts, for class xc (the done-th by size), the overlap of its prefix with the indexed
// prefixes, pruning the candidates that can no longer reach a near-duplicate's overlap.
func (j *joiner) probe(xc int32, done int) {
	x := j.ranked[xc]
	sx := len(x)
	minSize := (sx + 1) / 2
	probe := sx - (sx+1)/2 + 1
	for i := 0; i < probe; i++ {
		w := x[i]
		ps := j.index[w]
		for len(ps) > int(j.start[w]) && len(j.ranked[ps[j.start[w]].class]) < minSize {
			j.start[w]++ // sizes only grow: no later probe wants these
		}
		ps = ps[j.start[w]:]
		if !j.budgetLeft(int64(len(ps))) {
			j.nd.stop(done)
			break
		}
		for _, p := range ps {
			y := p.class
			if j.acc[y] < 0 {
				continue
			}
			sy := len(j.ranked[y])
			alpha := (sx + sy + 2) / 3 // the least overlap of a near-duplicate: 3o >= |x|+|y|
			if j.acc[y] == 0 {
				j.touched = append(j.touched, y)
			}
			if int(j.acc[y])+1+min(sx-i-1, sy-int(p.pos)-1) < alpha {
				j.acc[y] = -1
				continue
			}
			j.acc[y]++
		}
	}
}

// verify compares class xc in full with each candidate the probe kept, links the
// near-duplicates, and clears the counts for the next class.
func (j *joiner) verify(xc int32, done int) {
	x := j.ranked[xc]
	for _, y := range j.touched {
		if j.acc[y] > 0 {
			ys := j.ranked[y]
			if !j.nd.Complete || !j.budgetLeft(int64(len(x)+len(ys))) {
				j.nd.stop(done)
				j.acc[y] = 0
				continue
			}
			shared := words.Overlap(x, ys)
			if union := len(x) + len(ys) - shared; 2*shared >= union {
				a, b := xc, y
				if a > b {
					a, b = b, a
				}
				j.nd.link(a, b, shared, union)
			}
		}
		j.acc[y] = 0
	}
	j.touched = j.touched[:0]
}

// stop records that the budget ran out while classes bySize[done:] were not yet compared with
// the ones before them.
func (nd *NearDups) stop(done int) {
	if nd.Complete {
		nd.Complete = false
		nd.Compared = int64(done) * int64(done-1) / 2
	}
}

// joinFirst links each class of rest to the first class before it found to be a near-duplicate,
// within a budget of its own (a quarter of MaxComparisons): after the comparison budget ran
// out, this keeps the groups whole in the common case of many near-identical descriptions,
// where the first candidate is a near-duplicate, and gives up on listings made to defeat the
// index.
func (nd *NearDups) joinFirst(ctx context.Context, ranked [][]int32, rest []int32, index [][]posting, start, seen []int32) error {
	budget := int64(MaxComparisons / 4)
	for n, xc := range rest {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("near-duplicate search: %w", err)
			}
		}
		x := ranked[xc]
		sx := len(x)
		minSize := (sx + 1) / 2
		var touched []int32
	probe:
		for i := 0; i < sx-(sx+1)/2+1; i++ {
			w := x[i]
			for _, p := range index[w][start[w]:] {
				y := p.class
				if seen[y] != 0 || len(ranked[y]) < minSize {
					continue
				}
				seen[y] = 1
				touched = append(touched, y)
				ys := ranked[y]
				if budget -= int64(sx + len(ys)); budget < 0 {
					break probe
				}
				shared := words.Overlap(x, ys)
				if union := sx + len(ys) - shared; 2*shared >= union {
					nd.link(min(xc, y), max(xc, y), shared, union)
					break probe
				}
			}
		}
		for _, y := range touched {
			seen[y] = 0
		}
		if budget < 0 {
			return nil
		}
		for i := 0; i < sx-(2*sx+2)/3+1; i++ {
			index[x[i]] = append(index[x[i]], posting{xc, int32(i)})
		}
	}
	return nil
}

// percentLen is len(percent(shared, union)), without formatting it: "%.0f" rounds the double
// half to even, as math.RoundToEven does.
func percentLen(shared, union int) int {
	switch p := math.RoundToEven(float64(100*shared) / float64(union)); {
	case p >= 100:
		return 3
	case p >= 10:
		return 2
	}
	return 1
}

// percent formats shared/union as the reference does ("%.0f" of the percentage).
func percent(shared, union int) string {
	return strconv.FormatFloat(float64(100*shared)/float64(union), 'f', 0, 64)
}

// lineBytes is the length of the reference's line detail.
func (nd *NearDups) lineBytes() int64 {
	return int64(len(nearDupPrefix)) + nd.Bytes + 2*max(nd.Pairs-1, 0)
}

// within reports whether the reference's line lists at most pairs pairs in at most bytes, every
// pair known.
func (nd *NearDups) within(pairs, bytes int64) bool {
	return nd.Complete && nd.Pairs <= pairs && nd.lineBytes() <= bytes
}

// Overlaps lists the near-duplicate pairs in the reference's order, or returns nil and false
// when there are more than MaxPairs or the search was cut short.
func (nd *NearDups) Overlaps() ([]Overlap, bool) {
	if !nd.Complete || nd.Pairs > MaxPairs {
		return nil, false
	}
	var out []Overlap
	for _, l := range nd.links {
		for _, a := range nd.mem[l.a] {
			for _, b := range nd.mem[l.b] {
				out = append(out, Overlap{I: int(min(a, b)), J: int(max(a, b)), Shared: int(l.shared), Union: int(l.union)})
			}
		}
	}
	for c, mem := range nd.mem {
		if !nd.hasWithin[c] {
			continue
		}
		// Pairs of different names only: go through the names, so that many tools of one
		// name cost nothing (the class holds at most MaxPairs pairs of different names).
		byRep := map[int32][]int32{}
		var reps []int32
		for _, i := range mem {
			r := nd.rep[i]
			if _, ok := byRep[r]; !ok {
				reps = append(reps, r)
			}
			byRep[r] = append(byRep[r], i)
		}
		w := int(nd.words[c])
		for x, r := range reps {
			for _, q := range reps[x+1:] {
				for _, a := range byRep[r] {
					for _, b := range byRep[q] {
						out = append(out, Overlap{I: int(min(a, b)), J: int(max(a, b)), Shared: w, Union: w})
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(p, q Overlap) int {
		if p.I != q.I {
			return p.I - q.I
		}
		return p.J - q.J
	})
	return out, true
}

const nearDupPrefix = "descriptions that share most of their words: "

// Line returns the near-duplicate line as a finding shows it: the reference's own while it
// lists at most ShownPairs pairs in at most ShownLineBytes, and otherwise one that reports the
// pairs as groups of tools linked by them, each with its number of tools and pairs and range of
// overlap: at most shownGroups groups of shownTools names each, with how many more there are.
func (nd *NearDups) Line() Line {
	if nd.within(ShownPairs, ShownLineBytes) {
		pairs, _ := nd.Overlaps()
		return NearDuplicateLine(nd.names, pairs)
	}
	return groupedLine(nd.names, nd.groups(), nd.Pairs, nd.Complete, nd.Compared, nd.Total)
}

// Printed returns the line as a report prints it: the reference's while Exact has it, and
// otherwise the grouped Line.
func (nd *NearDups) Printed() Line {
	if ln, err := nd.Exact(); err == nil {
		return ln
	}
	return nd.Line()
}

// Exact returns the reference's line, or a *PairsError past MaxPairs pairs or MaxLineBytes, or
// when the search was cut short.
func (nd *NearDups) Exact() (Line, error) {
	if !nd.within(MaxPairs, MaxLineBytes) {
		return Line{}, &PairsError{Pairs: nd.Pairs, Bytes: nd.lineBytes(), Complete: nd.Complete, Compared: nd.Compared, Total: nd.Total}
	}
	pairs, _ := nd.Overlaps()
	return exactLine(nd.names, pairs), nil
}

// group is one group of the grouped line.
type group struct {
	tools []int32 // ascending
	groupStats
}

// groups returns the groups of tools linked by near-duplicate pairs, ordered by their first tool.
func (nd *NearDups) groups() []group {
	byRoot := map[int32]int{}
	var out []group
	for i, c := range nd.class {
		if c < 0 {
			continue
		}
		r := nd.find(c)
		if nd.stats[r].pairs == 0 {
			continue
		}
		g, ok := byRoot[r]
		if !ok {
			g = len(out)
			byRoot[r] = g
			out = append(out, group{groupStats: nd.stats[r]})
		}
		out[g].tools = append(out[g].tools, int32(i))
	}
	return out
}

// NearDuplicateLine is the near-duplicate line that lists pairs (near-duplicates, in order of
// I, then J) as the reference does, or, past ShownPairs pairs or ShownLineBytes, reports them
// as groups (see NearDups.Line).
func NearDuplicateLine(names []string, pairs []Overlap) Line {
	if len(pairs) > ShownPairs || pairsBytes(names, pairs) > ShownLineBytes {
		return groupedLine(names, pairGroups(names, pairs), int64(len(pairs)), true, 0, 0)
	}
	return exactLine(names, pairs)
}

// pairsBytes is the length of the line detail that lists pairs.
func pairsBytes(names []string, pairs []Overlap) int {
	size := len(nearDupPrefix) + 2*max(len(pairs)-1, 0)
	for _, o := range pairs {
		size += len(names[o.I]) + len(" and ") + len(names[o.J]) + len(" (%)") + len(percent(o.Shared, o.Union))
	}
	return size
}

// exactLine is the reference's near-duplicate line listing pairs.
func exactLine(names []string, pairs []Overlap) Line {
	if len(pairs) == 0 {
		return line(true, Warn, "near-duplicate", -1, "", fmt.Sprintf("no two descriptions overlap by %.0f%% or more", 100*Duplicate), "")
	}
	size := pairsBytes(names, pairs)
	var b strings.Builder
	b.Grow(size)
	b.WriteString(nearDupPrefix)
	for k, o := range pairs {
		if k > 0 {
			b.WriteString("; ")
		}
		b.WriteString(names[o.I])
		b.WriteString(" and ")
		b.WriteString(names[o.J])
		b.WriteString(" (")
		b.WriteString(percent(o.Shared, o.Union))
		b.WriteString("%)")
	}
	return line(false, Warn, "near-duplicate", -1, "", b.String(), "")
}

// pairGroups groups the tools of pairs as NearDups.groups does.
func pairGroups(names []string, pairs []Overlap) []group {
	parent := make([]int32, len(names))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	in := make([]bool, len(names))
	for _, o := range pairs {
		in[o.I], in[o.J] = true, true
		if a, b := find(int32(o.I)), find(int32(o.J)); a != b {
			parent[b] = a
		}
	}
	stats := map[int32]*groupStats{}
	for _, o := range pairs {
		r := find(int32(o.I))
		s := stats[r]
		if s == nil {
			s = &groupStats{}
			stats[r] = s
		}
		s.add(1, int64(o.Shared), int64(o.Union))
	}
	byRoot := map[int32]int{}
	var out []group
	for i := range names {
		if !in[i] {
			continue
		}
		r := find(int32(i))
		g, ok := byRoot[r]
		if !ok {
			g = len(out)
			byRoot[r] = g
			out = append(out, group{groupStats: *stats[r]})
		}
		out[g].tools = append(out[g].tools, int32(i))
	}
	return out
}

// groupedLine is the near-duplicate line that reports pairs as groups.
func groupedLine(names []string, groups []group, pairs int64, complete bool, compared, total int64) Line {
	var b strings.Builder
	b.WriteString(nearDupPrefix)
	fmt.Fprintf(&b, "%d pairs, too many to list one by one, in %d group", pairs, len(groups))
	if len(groups) != 1 {
		b.WriteString("s")
	}
	b.WriteString(": ")
	for k, g := range groups[:min(len(groups), shownGroups)] {
		if k > 0 {
			b.WriteString("; ")
		}
		for t, i := range g.tools[:min(len(g.tools), shownTools)] {
			if t > 0 {
				b.WriteString(", ")
			}
			b.WriteString(shortName(names[i]))
		}
		if more := len(g.tools) - shownTools; more > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
		lo, hi := percent(int(g.loS), int(g.loU)), percent(int(g.hiS), int(g.hiU))
		if lo == hi {
			fmt.Fprintf(&b, " (%d tools, %d pairs, %s%% of their words shared)", len(g.tools), g.pairs, lo)
		} else {
			fmt.Fprintf(&b, " (%d tools, %d pairs, %s%% to %s%% of their words shared)", len(g.tools), g.pairs, lo, hi)
		}
	}
	if more := len(groups) - shownGroups; more > 0 {
		fmt.Fprintf(&b, "; and %d more groups", more)
	}
	if !complete {
		fmt.Fprintf(&b, "; the comparison budget ran out after %d of the %d pairs of distinct descriptions, so the counts are lower bounds", compared, total)
	}
	b.WriteString("; say in each description what sets its tool apart from the others of its group, or merge the tools")
	return line(false, Warn, "near-duplicate", -1, "", b.String(), "")
}

// shortName cuts a name longer than shownNameSize bytes (at a character boundary) and marks
// the cut.
func shortName(s string) string {
	if len(s) <= shownNameSize {
		return s
	}
	cut := shownNameSize
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// PairsError is a near-duplicate line the workbench will not print as the reference would: it
// lists more than MaxPairs pairs or runs past MaxLineBytes, or the search ran out of its budget
// before every pair was compared.
type PairsError struct {
	Pairs, Bytes    int64
	Complete        bool
	Compared, Total int64
}

func (e *PairsError) Error() string {
	const todo = "run check --rules all, which reports near-duplicates as groups, or say in each description what sets its tool apart"
	if e.Pairs <= MaxPairs && e.Bytes <= MaxLineBytes {
		return fmt.Sprintf("the near-duplicate search stopped at its budget after comparing %d of the %d pairs of distinct descriptions (%d near-duplicate pairs found by then), so the reference's line cannot be reproduced: %s",
			e.Compared, e.Total, e.Pairs, todo)
	}
	atLeast := ""
	if !e.Complete {
		atLeast = "at least "
	}
	return fmt.Sprintf("the reference checker would list %s%d near-duplicate pairs on one line of %s%s; the workbench reproduces that line up to %d pairs and %s: %s",
		atLeast, e.Pairs, atLeast, byteSize(e.Bytes), MaxPairs, byteSize(MaxLineBytes), todo)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(math.Round(float64(n)/(1<<20)*10)/10, 'f', -1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(math.Round(float64(n)/(1<<10)*10)/10, 'f', -1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
