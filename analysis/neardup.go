package analysis

import (
	"slices"
	"sync"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// nearDups computes the reference's near-duplicate line from each tool's cached description
// words (reference.DescriptionWords), keeping the shared-word count of every pair of tools
// between calls: after an edit, only the pairs of the edited tools are counted again, where
// reference.NearDuplicates indexes every word of the listing on every call. It keeps one state
// per listing being edited (the one whose names match and whose descriptions match most).
type nearDups struct {
	mu     sync.Mutex
	states []*ndState // most recent first
}

const (
	maxNDStates = 16
	// maxNDTools bounds the listings counted incrementally: the counts take n² integers.
	maxNDTools = 512
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
	// pairs and out are the last near-duplicates found and the line that lists them.
	pairs []reference.Overlap
	out   reference.Line
}

// line returns what reference.NearDuplicates(names, descs) returns.
func (nd *nearDups) line(names []string, descs [][]string) reference.Line {
	n := len(names)
	if n > maxNDTools {
		return reference.NearDuplicates(names, descs)
	}
	st, changed := nd.take(names, descs)
	if st == nil {
		st = newNDState(names, descs)
	} else if len(changed) > 0 {
		st.update(descs, changed)
	}
	var pairs []reference.Overlap
	for i := 0; i < n; i++ {
		di := len(descs[st.docOf[i]])
		for j := i + 1; j < n; j++ {
			s := int(st.shared[i*n+j])
			if s == 0 {
				continue // shares no word: never a near-duplicate
			}
			o := reference.Overlap{I: i, J: j, Shared: s, Union: di + len(descs[st.docOf[j]]) - s}
			if o.NearDuplicate(names) {
				pairs = append(pairs, o)
			}
		}
	}
	// The line is formatted again only when the pairs changed (names are the state's).
	if st.out.Check == "" || !slices.Equal(pairs, st.pairs) {
		st.pairs, st.out = pairs, reference.NearDuplicateLine(names, pairs)
	}
	out := st.out
	nd.put(st)
	return out
}

func sameWords(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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
	var changed []int
	for i := range descs {
		if !sameWords(best.descs[i], descs[i]) {
			changed = append(changed, i)
		}
	}
	return best, changed
}

// put stores st as the most recent state.
func (nd *nearDups) put(st *ndState) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if len(nd.states) >= maxNDStates {
		nd.states = nd.states[:maxNDStates-1]
	}
	nd.states = append([]*ndState{st}, nd.states...)
}

// newNDState counts the shared words of every pair through an inverted index of the words.
func newNDState(names []string, descs [][]string) *ndState {
	n := len(names)
	st := &ndState{names: append([]string(nil), names...), descs: append([][]string(nil), descs...), docOf: docOf(names), shared: make([]int32, n*n)}
	ids := map[string]int{}
	var postings [][]int
	for i := range n {
		for _, w := range descs[st.docOf[i]] {
			id, ok := ids[w]
			if !ok {
				id = len(postings)
				ids[w] = id
				postings = append(postings, nil)
			}
			postings[id] = append(postings[id], i)
		}
	}
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
// names and whether a nextCursor is set, which an edit of a description leaves alone.
type nameLines struct {
	mu      sync.Mutex
	entries []nameEntry // most recent first
}

type nameEntry struct {
	names  []string
	cursor bool
	lines  []reference.Line
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
	nl.mu.Lock()
	if len(nl.entries) >= maxNDStates {
		nl.entries = nl.entries[:maxNDStates-1]
	}
	nl.entries = append([]nameEntry{e}, nl.entries...)
	nl.mu.Unlock()
	return e.lines
}
