package selection

import (
	"fmt"
	"slices"
)

// AddModel adds a model run's confusion matrix to the map: counts[e][c] are the run's scored
// calls that expected the tool labels[e] and chose labels[c] (runner.Confusion). Labels are
// matched to the listing's tools by name (the first tool of a name); labels the listing lacks
// (a run of another version, no tool, unknown names) are left out. Each pair's Model part is the
// calls of either tool's row that chose the other, over all the calls of the two rows; it
// counts in the pair's Strength, a pair only the model links is added, and the pairs and the
// order are sorted again. It returns how many of the listing's tools the labels name.
func (m *OverlapMap) AddModel(labels []string, counts [][]int) (matched int, err error) {
	if len(counts) != len(labels) {
		return 0, fmt.Errorf("the confusion matrix has %d rows for %d labels", len(counts), len(labels))
	}
	tool := make([]int, len(labels)) // listing index of each label, or -1
	rows := make([]int, len(m.Names))
	seen := make([]bool, len(m.Names))
	for e, name := range labels {
		if len(counts[e]) != len(labels) {
			return 0, fmt.Errorf("row %d of the confusion matrix has %d columns for %d labels", e, len(counts[e]), len(labels))
		}
		i, ok := m.r.firstNamed[name]
		if !ok || seen[i] {
			tool[e] = -1
			continue
		}
		tool[e], seen[i] = i, true
		matched++
		for _, n := range counts[e] {
			rows[i] += n
		}
	}
	confused := map[[2]int]int{}
	for e, row := range counts {
		for c, n := range row {
			if a, b := tool[e], tool[c]; n > 0 && a >= 0 && b >= 0 && a != b {
				confused[[2]int{min(a, b), max(a, b)}] += n
			}
		}
	}
	at := make(map[[2]int]int, len(m.Pairs))
	for k, p := range m.Pairs {
		at[[2]int{p.I, p.J}] = k
	}
	all := make([][]string, len(m.Names)) // the words of the tools a new pair needs
	for key := range confused {
		if _, ok := at[key]; ok {
			continue
		}
		// A pair only the model links: the words they share still explain it.
		p := Pair{I: key[0], J: key[1]}
		for _, i := range key {
			if all[i] == nil {
				all[i] = m.r.allWords(i, nil)
			}
		}
		p.Shared = m.r.jaccard(all, p.I, p.J)
		p.NamesJ, p.NamesI = slices.Contains(m.named[p.I], p.J), slices.Contains(m.named[p.J], p.I)
		at[key] = len(m.Pairs)
		m.Pairs = append(m.Pairs, p)
	}
	for k := range m.Pairs {
		p := &m.Pairs[k]
		calls := rows[p.I] + rows[p.J]
		if calls == 0 {
			continue
		}
		share := float64(confused[[2]int{p.I, p.J}]) / float64(calls)
		p.Model, p.ModelConfused, p.ModelCalls = &share, confused[[2]int{p.I, p.J}], calls
		p.Strength = min(1, max(p.Desc, p.Tasks, p.Shared, share))
	}
	sortPairs(m.Pairs)
	m.Order = seriate(len(m.Names), m.Pairs, m.r.byName)
	return matched, nil
}
