package hfbpe

import "testing"

// TestMeasureTiktokenRoute logs, for the issue-19 notes, whether ranks follow token ids and whether
// tiktoken's whole-word shortcut (the opposite of the file's ignore_merges) changes any count.
// A measurement, not a check: drop it when the package is wired into cost.
func TestMeasureTiktokenRoute(t *testing.T) {
	ref := readReference(t)
	for _, name := range models {
		tok := load(t, name)
		// Is rank order the same as merged-token id order?
		inv := 0
		maxRank := int32(0)
		for _, m := range tok.merges {
			maxRank = max(maxRank, m.rank)
		}
		byRank := make([]int32, maxRank+1)
		for _, m := range tok.merges {
			if int(m.rank) < len(byRank) {
				byRank[m.rank] = m.id
			}
		}
		for i := 1; i < len(byRank); i++ {
			if byRank[i] != 0 && byRank[i-1] != 0 && byRank[i] <= byRank[i-1] {
				inv++
			}
		}
		tok.ignoreMerges = !tok.ignoreMerges
		clear(tok.cache)
		bad, diff := 0, 0
		for i, s := range ref.Texts {
			if g := tok.Count(s); g != ref.Counts[name][i] {
				bad++
				diff += g - ref.Counts[name][i]
			}
		}
		t.Logf("%s: rank-vs-id inversions %d of %d merges; with ignore_merges flipped to %v: %d of %d texts differ, net %+d tokens", name, inv, len(byRank), tok.ignoreMerges, bad, len(ref.Texts), diff)
	}
}
