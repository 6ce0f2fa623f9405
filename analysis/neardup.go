package analysis

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// nearDups computes the reference's near-duplicate line from each tool's cached description
// words (reference.DescriptionWords), keeping the shared-word count of every pair of tools
// between calls: after an edit, only the pairs of the edited tools are counted again, where
// reference.FindNearDuplicates searches the whole listing on every call. It keeps one state
// per listing being edited (the one whose names match and whose descriptions match most), at
// most maxNDStates states in at most maxNDBytes.
type nearDups struct {
	mu     sync.Mutex
	states []*ndState // most recent first
	bytes  int64      // the states' sizes, summed
}

const (
	maxNDStates = 16
	// maxNDTools bounds the listings counted incrementally: the counts take n² integers (16 MiB
	// at 2,048 tools). Large servers' listings (the benchmark's 2,000 tools) are edited too, and
	// a search of the whole listing per keystroke took 0.6 s there.
	maxNDTools = 2048
	// maxNDBytes bounds the bytes of the states kept: 32 MiB, a dozen states of 512 tools or
	// one of 2,048.
	maxNDBytes = 32 << 20
	// maxNDCount bounds the work of counting a new state's shared words, which grows with the
	// square of the tools that share each word: past it the listing is searched as a large one
	// (reference.FindNearDuplicates, with its budget) and no state is kept.
	maxNDCount = 64 << 20
)

// ndState holds the counts for one listing revision.
type ndState struct {
	names []string
	descs [][]string // each tool's description words, as passed (compared by identity)
	// docOf is the tool whose description stands for tool i: like the reference, the last tool
	// of its name.
	docOf []int
	// shared[i*n+j] (i < j) counts the words the descriptions standing for i and j share.
	shared []int32
	// pairs and out are the last near-duplicates found and the line that lists them; pairs is
	// kept only while the line lists them one by one (at most reference.ShownPairs).
	pairs []reference.Overlap
	out   reference.Line
	// all is every near-duplicate pair of the descriptions counted, kept while there are at
	// most maxNDPairs of them (allOK): an edit then checks again only the edited tools' pairs
	// instead of all n² (2 million at 2,000 tools, most of an edit's time there).
	all   []reference.Overlap
	allOK bool
}

// maxNDPairs bounds the near-duplicate pairs a state keeps between edits.
const maxNDPairs = 1 << 16

// size estimates the bytes st keeps reachable besides the description words, which the
// engine's per-tool cache accounts.
func (st *ndState) size() int64 {
	n := int64(len(st.names))
	b := 4*n*n + 64*n + 32*int64(len(st.pairs)+len(st.all)) + int64(len(st.out.Detail)) + 256
	for _, name := range st.names {
		b += int64(len(name))
	}
	return b
}

// line returns what reference.NearDuplicates(names, descs) returns, or ctx's error, wrapped.
func (nd *nearDups) line(ctx context.Context, names []string, descs [][]string) (reference.Line, error) {
	n := len(names)
	if n > maxNDTools {
		return searchLine(ctx, names, descs)
	}
	if err := ctx.Err(); err != nil {
		return reference.Line{}, fmt.Errorf("near-duplicates: %w", err)
	}
	st, changed := nd.take(names, descs)
	if st != nil && len(changed) > 0 && !st.cheapUpdate(descs, changed) {
		st = nil // counting the changed pairs again costs more than starting afresh
	}
	known := st != nil && st.allOK
	if st == nil {
		if st = newNDState(names, descs); st == nil {
			return searchLine(ctx, names, descs) // too costly to count every pair
		}
	} else if len(changed) > 0 {
		st.update(descs, changed)
	}
	var pairs []reference.Overlap
	switch {
	case known && len(changed) == 0:
		pairs = st.all
	case known:
		pairs = st.rescan(names, descs, changed)
	default:
		pairs = st.scan(names, descs)
	}
	st.all, st.allOK = nil, len(pairs) <= maxNDPairs
	if st.allOK {
		st.all = pairs
	}
	// The line is formatted again only when the pairs changed (names are the state's); past
	// MaxPairs the line reports groups, and is made again on every call rather than keeping
	// a list of pairs that only grows with the square of the tools.
	if st.out.Check == "" || len(pairs) > reference.ShownPairs || !slices.Equal(pairs, st.pairs) {
		st.out = reference.NearDuplicateLine(names, pairs)
		st.pairs = nil
		if len(pairs) <= reference.ShownPairs {
			st.pairs = pairs
		}
	}
	out := st.out
	nd.put(st)
	return out, nil
}

// pair is tools i and j (i < j) as a near-duplicate pair, if they are one.
func (st *ndState) pair(names []string, lens []int, i, j int) (reference.Overlap, bool) {
	n := len(st.names)
	s := int(st.shared[i*n+j])
	if s == 0 {
		return reference.Overlap{}, false // shares no word: never a near-duplicate
	}
	// The ratio first: comparing the names of 2 million pairs took most of an edit's time at
	// 2,000 tools, and few pairs pass it.
	u := lens[i] + lens[j] - s
	if u <= 0 || float64(s)/float64(u) < reference.Duplicate {
		return reference.Overlap{}, false
	}
	o := reference.Overlap{I: i, J: j, Shared: s, Union: u}
	return o, o.NearDuplicate(names)
}

// descLens is the word count of the description standing for each tool.
func (st *ndState) descLens(descs [][]string) []int {
	lens := make([]int, len(st.names))
	for i := range lens {
		lens[i] = len(descs[st.docOf[i]])
	}
	return lens
}

// scan checks every pair, in order.
func (st *ndState) scan(names []string, descs [][]string) []reference.Overlap {
	var pairs []reference.Overlap
	lens := st.descLens(descs)
	for i := range lens {
		for j := i + 1; j < len(lens); j++ {
			if o, ok := st.pair(names, lens, i, j); ok {
				pairs = append(pairs, o)
			}
		}
	}
	return pairs
}

// rescan is scan after an edit of the changed descriptions, from the pairs st.all found before
// it: the pairs of the tools those descriptions stand for are checked again, the rest kept.
func (st *ndState) rescan(names []string, descs [][]string, changed []int) []reference.Overlap {
	lens := st.descLens(descs)
	hit := make([]bool, len(lens))
	isChanged := make(map[int]bool, len(changed))
	for _, c := range changed {
		isChanged[c] = true
	}
	for k := range hit {
		hit[k] = isChanged[st.docOf[k]]
	}
	var pairs []reference.Overlap
	for _, o := range st.all {
		if !hit[o.I] && !hit[o.J] {
			pairs = append(pairs, o)
		}
	}
	for k := range hit {
		if !hit[k] {
			continue
		}
		for j := range hit {
			if j == k || hit[j] && j < k {
				continue // itself, or a pair checked from j already
			}
			if o, ok := st.pair(names, lens, min(j, k), max(j, k)); ok {
				pairs = append(pairs, o)
			}
		}
	}
	slices.SortFunc(pairs, func(a, b reference.Overlap) int {
		if a.I != b.I {
			return a.I - b.I
		}
		return a.J - b.J
	})
	return pairs
}

// searchLine is the line of a listing too large, or too costly, to count incrementally.
func searchLine(ctx context.Context, names []string, descs [][]string) (reference.Line, error) {
	found, err := reference.FindNearDuplicates(ctx, names, descs)
	if err != nil {
		return reference.Line{}, fmt.Errorf("near-duplicates: %w", err)
	}
	return found.Line(), nil
}

func sameWords(a, b []string) bool {
	// The words of an unedited tool are the same slice; a tool edited elsewhere than its
	// description (a repair's hint) has words equal to its old ones, which cost a comparison.
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

// take removes and returns the state with the same names whose descriptions match descs the
// most, with the tools whose descriptions differ, or nil. The caller owns the state until put.
func (nd *nearDups) take(names []string, descs [][]string) (*ndState, []int) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	best, bestAt, bestSame := (*ndState)(nil), -1, -1
	for k, st := range nd.states {
		if len(st.names) != len(names) {
			continue
		}
		same, ok := 0, true
		for i, n := range names {
			if st.names[i] != n {
				ok = false
				break
			}
			if sameWords(st.descs[i], descs[i]) {
				same++
			}
		}
		if ok && same > bestSame {
			best, bestAt, bestSame = st, k, same
		}
	}
	if best == nil {
		return nil, nil
	}
	nd.states = append(nd.states[:bestAt], nd.states[bestAt+1:]...)
	nd.bytes -= best.size()
	var changed []int
	for i := range descs {
		if !sameWords(best.descs[i], descs[i]) {
			changed = append(changed, i)
		}
	}
	return best, changed
}

// put stores st as the most recent state, dropping the least recent ones past maxNDStates
// states or maxNDBytes.
func (nd *nearDups) put(st *ndState) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	size := st.size()
	if size > maxNDBytes {
		return
	}
	nd.states = append([]*ndState{st}, nd.states...)
	nd.bytes += size
	for len(nd.states) > maxNDStates || nd.bytes > maxNDBytes {
		last := len(nd.states) - 1
		nd.bytes -= nd.states[last].size()
		nd.states = nd.states[:last]
	}
}

// stateBytes returns the bytes the states are accounted at.
func (nd *nearDups) stateBytes() int64 {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.bytes
}

// newNDState counts the shared words of every pair through an inverted index of the words, or
// returns nil when that would take more than maxNDCount steps.
func newNDState(names []string, descs [][]string) *ndState {
	n := len(names)
	dof := docOf(names)
	ids := map[string]int{}
	var postings [][]int
	for i := range n {
		for _, w := range descs[dof[i]] {
			id, ok := ids[w]
			if !ok {
				id = len(postings)
				ids[w] = id
				postings = append(postings, nil)
			}
			postings[id] = append(postings[id], i)
		}
	}
	work := 0
	for _, p := range postings {
		if work += len(p) * (len(p) - 1) / 2; work > maxNDCount {
			return nil
		}
	}
	st := &ndState{names: append([]string(nil), names...), descs: append([][]string(nil), descs...), docOf: dof, shared: make([]int32, n*n)}
	for _, p := range postings {
		for a, i := range p {
			for _, j := range p[a+1:] {
				st.shared[i*n+j]++ // postings list tools in ascending order, so i < j
			}
		}
	}
	return st
}

// docOf maps each tool to the last tool of its name, whose description the reference reads.
func docOf(names []string) []int {
	last := make(map[string]int, len(names))
	for i, n := range names {
		last[n] = i
	}
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = last[n]
	}
	return out
}

// cheapUpdate reports whether update(descs, changed) takes at most maxNDCount steps: each
// changed description is compared with every other.
func (st *ndState) cheapUpdate(descs [][]string, changed []int) bool {
	total := 0
	for _, d := range descs {
		total += len(d)
	}
	return len(changed)*total <= maxNDCount
}

// update takes the new descriptions and counts again the pairs of every tool whose description
// is one of the changed ones.
func (st *ndState) update(descs [][]string, changed []int) {
	n := len(st.names)
	st.descs = append(st.descs[:0], descs...)
	isChanged := make(map[int]bool, len(changed))
	for _, c := range changed {
		isChanged[c] = true
	}
	set := map[string]bool{}
	for k := range n {
		if !isChanged[st.docOf[k]] {
			continue
		}
		clear(set)
		for _, w := range descs[st.docOf[k]] {
			set[w] = true
		}
		for j := range n {
			if j == k {
				continue
			}
			s := int32(0)
			for _, w := range descs[st.docOf[j]] {
				if set[w] {
					s++
				}
			}
			if k < j {
				st.shared[k*n+j] = s
			} else {
				st.shared[j*n+k] = s
			}
		}
	}
}

// nameLines remembers reference.NameLines for the latest listings: the lines read only the
// names and whether a nextCursor is set, which an edit of a description leaves alone. It keeps
// at most maxNDStates entries in at most maxNDBytes.
type nameLines struct {
	mu      sync.Mutex
	entries []nameEntry // most recent first
	bytes   int64
}

type nameEntry struct {
	names  []string
	cursor bool
	lines  []reference.Line
	size   int64
}

// lines returns reference.NameLines(l, names). The slice is shared: callers must not modify it
// (slices.Clip it before appending).
func (nl *nameLines) lines(l *listing.Listing, names []string) []reference.Line {
	cursor := l.NextCursor().Truthy()
	nl.mu.Lock()
	for k, e := range nl.entries {
		if e.cursor == cursor && slices.Equal(e.names, names) {
			copy(nl.entries[1:k+1], nl.entries[:k])
			nl.entries[0] = e
			nl.mu.Unlock()
			return e.lines
		}
	}
	nl.mu.Unlock()
	e := nameEntry{names: append([]string(nil), names...), cursor: cursor, lines: slices.Clip(reference.NameLines(l, names))}
	e.size = int64(24*len(names) + 256)
	for _, n := range names {
		e.size += int64(len(n))
	}
	for _, ln := range e.lines {
		e.size += int64(len(ln.Detail) + len(ln.Check) + 96)
	}
	if e.size > maxNDBytes {
		return e.lines
	}
	nl.mu.Lock()
	nl.entries = append([]nameEntry{e}, nl.entries...)
	nl.bytes += e.size
	for len(nl.entries) > maxNDStates || nl.bytes > maxNDBytes {
		last := len(nl.entries) - 1
		nl.bytes -= nl.entries[last].size
		nl.entries = nl.entries[:last]
	}
	nl.mu.Unlock()
	return e.lines
}

// size returns the bytes the entries are accounted at.
func (nl *nameLines) size() int64 {
	nl.mu.Lock()
	defer nl.mu.Unlock()
	return nl.bytes
}
