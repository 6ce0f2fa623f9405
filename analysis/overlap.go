package analysis

import "github.com/tool-workbench/workbench/selection"

// OverlapReport is the overlap map in a report (workbench check --overlap, and workbench
// overlap --format json): the order that keeps clusters together and the strongest pairs.
type OverlapReport struct {
	// Order lists the tools (listing indices) with clusters of competing tools together.
	Order      []int         `json:"order"`
	TotalPairs int           `json:"totalPairs"`
	Pairs      []OverlapPair `json:"pairs"`
}

// OverlapPair is one competing pair with the tools' names, the words they share (up to five,
// heaviest first) and what to do about it.
type OverlapPair struct {
	A           string   `json:"a"`
	B           string   `json:"b"`
	SharedWords []string `json:"sharedWords"`
	Advice      string   `json:"advice"`
	selection.Pair
}

// NewOverlapReport lists the top strongest pairs of m (0: every pair).
func NewOverlapReport(m *selection.OverlapMap, top int) *OverlapReport {
	ps := m.Pairs
	if top > 0 && top < len(ps) {
		ps = ps[:top]
	}
	r := &OverlapReport{Order: m.Order, TotalPairs: len(m.Pairs), Pairs: make([]OverlapPair, 0, len(ps))}
	for _, p := range ps {
		ws := []string{}
		for _, w := range m.SharedWords(p.I, p.J, 5) {
			ws = append(ws, w.Word)
		}
		r.Pairs = append(r.Pairs, OverlapPair{A: m.Names[p.I], B: m.Names[p.J], SharedWords: ws, Advice: m.Advice(p), Pair: p})
	}
	return r
}
