package selection

import (
	"cmp"
	"fmt"
	"slices"
)

// SharedWords lists up to k of the words tools i and j both have (name or body), heaviest
// first: why a cell of the map is dark. It is computed when asked for, not kept in the map.
func (m *OverlapMap) SharedWords(i, j, k int) []WordScore {
	r := m.r
	has := func(t int, w string) bool { return r.nameT[t][w] || r.body[t][w] }
	var out []WordScore
	for _, w := range r.allWords(i, nil) {
		if has(j, w) {
			out = append(out, WordScore{Word: w, Weight: r.words[w].weight, InName: r.nameT[i][w] || r.nameT[j][w]})
		}
	}
	slices.SortStableFunc(out, func(a, b WordScore) int { return cmp.Compare(b.Weight, a.Weight) })
	return out[:min(k, len(out))]
}

// Advice says what to do about a pair: merge two tools that look like one, else name each in
// the other's description with when to use it, or, when both already do, reword them apart.
func (m *OverlapMap) Advice(p Pair) string {
	a, b := m.Names[p.I], m.Names[p.J]
	lost := ""
	if len(p.Lost) > 0 {
		lost = fmt.Sprintf(" (tasks lost between them: %d)", len(p.Lost))
	}
	if p.ModelConfused > 0 {
		lost += fmt.Sprintf(" (the model chose one for the other in %d of %d calls)", p.ModelConfused, p.ModelCalls)
	}
	switch {
	case p.Merge:
		return fmt.Sprintf("%s and %s say nearly the same%s: merge them, or say in each what the other is for", a, b, lost)
	case !p.NamesJ && !p.NamesI:
		return fmt.Sprintf("name %s in %s's description and %s in %s's, saying when to use which%s", b, a, a, b, lost)
	case !p.NamesJ:
		return fmt.Sprintf("name %s in %s's description too (%s names %s already)%s", b, a, b, a, lost)
	case !p.NamesI:
		return fmt.Sprintf("name %s in %s's description too (%s names %s already)%s", a, b, a, b, lost)
	default:
		return fmt.Sprintf("%s and %s name each other: word each with its own tasks' words and drop the words borrowed from the other%s", a, b, lost)
	}
}
