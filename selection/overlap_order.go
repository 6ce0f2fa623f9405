package selection

import (
	"cmp"
	"slices"
)

// seriate orders n tools so that strongly linked tools sit together: single-linkage merging of
// chains (Kruskal on the pairs, strongest first), joining two chains at the ends nearest the
// linked tools. Chains of two or more tools come first, larger first, then the tools in no
// pair in name order (byName). O(n + pairs · chain length), with no n×n matrix.
func seriate(n int, pairs []Pair, byName []int) []int {
	chain := make([][]int, n) // chain[c] for the chain headed by c
	of := make([]int, n)      // the chain head of each tool
	for i := range n {
		chain[i], of[i] = []int{i}, i
	}
	for _, p := range pairs {
		a, b := of[p.I], of[p.J]
		if a == b {
			continue
		}
		pi, pj := p.I, p.J
		ca, cb := chain[a], chain[b]
		if len(ca) < len(cb) {
			a, b, ca, cb, pi, pj = b, a, cb, ca, pj, pi
		}
		// Put pi at ca's tail and pj at cb's head where the ends allow it.
		if ca[0] == pi {
			slices.Reverse(ca)
		}
		if cb[len(cb)-1] == pj {
			slices.Reverse(cb)
		}
		ca = append(ca, cb...)
		for _, t := range cb {
			of[t] = a
		}
		chain[a], chain[b] = ca, nil
	}
	out := make([]int, 0, n)
	var singles, heads []int
	for _, i := range byName {
		switch {
		case of[i] != i:
		case len(chain[i]) == 1:
			singles = append(singles, i)
		default:
			heads = append(heads, i)
		}
	}
	slices.SortStableFunc(heads, func(a, b int) int { return cmp.Compare(len(chain[b]), len(chain[a])) })
	for _, h := range heads {
		out = append(out, chain[h]...)
	}
	return append(out, singles...)
}
