package listing

import "sort"

// maxGroupPairs bounds the similarity scores PairByContent computes for one group of tools of
// a repeated name (a few µs each: 32 tools on each side cost a few ms): past it (a hostile
// listing of a hundred tools of one name) the group pairs by the same content, then in order.
const maxGroupPairs = 1024

// PairByContent is Pair, except among tools of a repeated name: where Compare pairs their
// k-th occurrences in order, it pairs them by what they hold — the same content first, then the
// most similar, then in order — so that something that follows a tool (a review thread) stays
// on it when tools of one name swap places. Compare's pairing, and so its report, is Pair's.
func PairByContent(old, new *Listing) []int {
	newOf := Pair(old, new)
	oldOf := make([]int, len(new.Tools))
	for j := range oldOf {
		oldOf[j] = -1
	}
	for i, j := range newOf {
		if j >= 0 {
			oldOf[j] = i
		}
	}
	oldByName, newByName := map[string][]int{}, map[string][]int{}
	for i, t := range old.Tools {
		n := t.Get("name").String()
		oldByName[n] = append(oldByName[n], i)
	}
	for j, t := range new.Tools {
		n := t.Get("name").String()
		newByName[n] = append(newByName[n], j)
	}
	regrouped := false
	for n, is := range oldByName {
		js := newByName[n]
		if len(js) == 0 || len(is) < 2 && len(js) < 2 {
			continue
		}
		regrouped = true
		// The group: the tools of name n on each side that are unpaired or paired within it
		// (one paired by content under another name keeps its pair).
		var gi, gj []int
		for _, i := range is {
			if j := newOf[i]; j < 0 || new.Tools[j].Get("name").String() == n {
				gi = append(gi, i)
			}
		}
		for _, j := range js {
			if i := oldOf[j]; i < 0 || old.Tools[i].Get("name").String() == n {
				gj = append(gj, j)
			}
		}
		for _, i := range gi {
			newOf[i] = -1
		}
		pairGroup(old, new, gi, gj, newOf)
	}
	if regrouped {
		renamedLeftovers(old, new, newOf)
	}
	return newOf
}

// renamedLeftovers pairs the tools a group left unpaired with new tools of the same content
// under another name, as Compare pairs renames.
func renamedLeftovers(old, new *Listing, newOf []int) {
	taken := make([]bool, len(new.Tools))
	for _, j := range newOf {
		if j >= 0 {
			taken[j] = true
		}
	}
	bodies := map[string][]int{}
	for j, t := range new.Tools {
		if !taken[j] {
			k := bodyKey(t)
			bodies[k] = append(bodies[k], j)
		}
	}
	if len(bodies) == 0 {
		return
	}
	for i, t := range old.Tools {
		if newOf[i] >= 0 {
			continue
		}
		k := bodyKey(t)
		if q := bodies[k]; len(q) > 0 {
			newOf[i] = q[0]
			bodies[k] = q[1:]
		}
	}
}

// pairGroup pairs old tools gi with new tools gj, all of one name (in listing order), by the
// same content, then the most similar, then in order.
func pairGroup(old, new *Listing, gi, gj []int, newOf []int) {
	taken := map[int]bool{}
	bodies := map[string][]int{}
	for _, j := range gj {
		k := bodyKey(new.Tools[j])
		bodies[k] = append(bodies[k], j)
	}
	for _, i := range gi {
		k := bodyKey(old.Tools[i])
		if q := bodies[k]; len(q) > 0 {
			newOf[i], taken[q[0]] = q[0], true
			bodies[k] = q[1:]
		}
	}
	if len(gi)*len(gj) <= maxGroupPairs {
		type cand struct {
			i, j  int
			score float64
		}
		var cands []cand
		for _, i := range gi {
			for _, j := range gj {
				if newOf[i] < 0 && !taken[j] {
					if s := similarity(old.Tools[i], new.Tools[j]); s > 0 {
						cands = append(cands, cand{i, j, s})
					}
				}
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
		for _, c := range cands {
			if newOf[c.i] < 0 && !taken[c.j] {
				newOf[c.i], taken[c.j] = c.j, true
			}
		}
	}
	k := 0
	for _, i := range gi {
		if newOf[i] >= 0 {
			continue
		}
		for k < len(gj) && taken[gj[k]] {
			k++
		}
		if k == len(gj) {
			return
		}
		newOf[i], taken[gj[k]] = gj[k], true
	}
}
