package lint

import "strings"

// hintSet finds which of many short needles occur in a text in one pass over it. The cheap
// substring tests that guard the costly regular expressions (see instructionPatterns) were one
// strings.Contains per needle, about forty passes over every string of every tool; a scan looks
// at each pair of adjacent bytes once, through a bitset of the pairs that start a needle, and
// compares only the needles that start with a pair it meets.
type hintSet struct {
	needles []string
	ids     map[string]int
	pair    [1 << 16 / 64]uint64 // bit k: some needle starts with the two bytes k>>8, k&0xff
	group   [1 << 16]uint8       // for such a pair k, 1 + the index in byPair of its needles
	byPair  [][]int
}

// hintMask is a set of needles of one hintSet.
type hintMask [2]uint64

func (m hintMask) any(o hintMask) bool { return m[0]&o[0] != 0 || m[1]&o[1] != 0 }

func newHintSet(lists ...[]string) *hintSet {
	h := &hintSet{ids: map[string]int{}}
	for _, l := range lists {
		for _, n := range l {
			if _, ok := h.ids[n]; ok {
				continue
			}
			if len(n) < 2 || len(h.needles) == 128 || len(h.byPair) == 255 {
				panic("lint: a hint must have two bytes or more, and a set at most 128 hints: " + n)
			}
			id := len(h.needles)
			h.ids[n] = id
			h.needles = append(h.needles, n)
			k := uint16(n[0])<<8 | uint16(n[1])
			h.pair[k>>6] |= 1 << (k & 63)
			if h.group[k] == 0 {
				h.byPair = append(h.byPair, nil)
				h.group[k] = uint8(len(h.byPair))
			}
			g := h.group[k] - 1
			h.byPair[g] = append(h.byPair[g], id)
		}
	}
	return h
}

// of returns the mask of needles, which must belong to the set.
func (h *hintSet) of(needles ...string) hintMask {
	var m hintMask
	for _, n := range needles {
		id, ok := h.ids[n]
		if !ok {
			panic("lint: hint not in the set: " + n)
		}
		m[id/64] |= 1 << (id % 64)
	}
	return m
}

// scan returns the needles that occur in s: the needle n is in the result exactly when
// strings.Contains(s, n).
func (h *hintSet) scan(s string) hintMask {
	var m hintMask
	for i := 0; i+1 < len(s); i++ {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		if h.pair[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, id := range h.byPair[h.group[k]-1] {
			if strings.HasPrefix(s[i:], h.needles[id]) {
				m[id/64] |= 1 << (id % 64)
			}
		}
	}
	return m
}

// scanLower returns scan(strings.ToLower(s)) without building the lower-cased text when s is
// ASCII (then lower-casing folds A-Z alone, which the scan does as it reads).
func (h *hintSet) scanLower(s string) hintMask {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return h.scan(strings.ToLower(s))
		}
	}
	var m hintMask
	for i := 0; i+1 < len(s); i++ {
		k := uint16(lowerASCII(s[i]))<<8 | uint16(lowerASCII(s[i+1]))
		if h.pair[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, id := range h.byPair[h.group[k]-1] {
			if hasLowerPrefix(s[i:], h.needles[id]) {
				m[id/64] |= 1 << (id % 64)
			}
		}
	}
	return m
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasLowerPrefix reports strings.HasPrefix(lower-cased s, p) for ASCII s.
func hasLowerPrefix(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if lowerASCII(s[j]) != p[j] {
			return false
		}
	}
	return true
}
