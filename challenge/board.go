package challenge

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// Board returns the leaderboard of a challenge. Callers at once share one read (flights).
func (s *Service) Board(ctx context.Context, id string) (Board, error) {
	return s.boards.board(ctx, id, func(ctx context.Context) (Board, error) { return s.readBoard(ctx, id) })
}

func (s *Service) readBoard(ctx context.Context, id string) (Board, error) {
	c, ps, err := s.standing(ctx, id)
	if err != nil {
		return Board{}, err
	}
	final := c.State == store.ChallengeRevealed
	rows, err := s.rows(ps, final)
	if err != nil {
		return Board{}, err
	}
	return Board{Challenge: c.ID, Title: c.Title, Code: c.Code, State: c.State, Final: final, Rows: rows, Ends: c.File.Window.End}, nil
}

// standing reads a challenge and its participants.
func (s *Service) standing(ctx context.Context, id string) (*Challenge, []store.Participant, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	ps, err := s.st.Participants(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("read participants: %w", err)
	}
	return c, ps, nil
}

// ranked is a participant's row with their score documents.
type ranked struct {
	Row
	live, final *scoreDoc
}

// rows ranks participants: by score (live, or final once revealed), then fewer tokens, then
// who reached their score first; the unscored last, in the order they joined. Rows that tie
// on all three share a rank.
func (s *Service) rows(ps []store.Participant, final bool) ([]Row, error) {
	rs, err := s.ranked(ps, final)
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(rs))
	for i, r := range rs {
		out[i] = r.Row
	}
	return out, nil
}

func (s *Service) ranked(ps []store.Participant, final bool) ([]ranked, error) {
	rs := make([]ranked, len(ps))
	for i, p := range ps {
		live, err := s.docs.get(p.Live)
		if err != nil {
			return nil, err
		}
		fin, err := s.docs.get(p.Final)
		if err != nil {
			return nil, err
		}
		r := ranked{Row: Row{Participant: p.ID, Name: p.Name, Workspace: p.Workspace}, live: live, final: fin}
		shown := live
		if final {
			shown = fin
		}
		if shown != nil {
			r.Score, r.Tokens, r.Budget, r.OverBudget = shown.Score, shown.Tokens, shown.Budget, shown.OverBudget
			r.Penalties, r.Clear, r.Tasks = shown.PenaltyPoints, shown.Clear, shown.Tasks
			r.Reached, r.Improved, r.Scored = shown.Reached, shown.Improved, true
		}
		rs[i] = r
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return order(a.Row, b.Row) })
	for i := range rs {
		rs[i].Rank = i + 1
		if i > 0 && rs[i].Scored && order(rs[i-1].Row, rs[i].Row) == 0 {
			rs[i].Rank = rs[i-1].Rank
		}
	}
	return rs, nil
}

// order is the leaderboard's order: scored first, higher score, fewer tokens, reached earlier.
func order(a, b Row) int {
	switch {
	case a.Scored != b.Scored:
		if a.Scored {
			return -1
		}
		return 1
	case !a.Scored:
		return 0
	}
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Tokens, b.Tokens), a.Reached.Compare(b.Reached))
}

// docCache keeps score documents decoded, by their bytes' hash: a leaderboard is drawn again at
// every score of every participant, and most documents have not changed since the last time.
type docCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]docEntry
}

type docEntry struct {
	raw []byte
	doc *scoreDoc
}

const maxDocs = 4096

func (dc *docCache) get(raw json.RawMessage) (*scoreDoc, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dc.mu.Lock()
	if dc.m == nil {
		dc.seed, dc.m = maphash.MakeSeed(), map[uint64]docEntry{}
	}
	h := maphash.Bytes(dc.seed, raw)
	e, ok := dc.m[h]
	dc.mu.Unlock()
	if ok && string(e.raw) == string(raw) {
		return e.doc, nil
	}
	d, err := decodeScore(raw)
	if err != nil {
		return nil, err
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if len(dc.m) >= maxDocs {
		for k := range dc.m {
			delete(dc.m, k)
			break
		}
	}
	dc.m[h] = docEntry{raw: raw, doc: d}
	return d, nil
}

// Heat returns the heat map of a challenge (teacher only: it holds the hidden tasks).
func (s *Service) Heat(ctx context.Context, id string) (Heat, error) {
	c, ps, err := s.standing(ctx, id)
	if err != nil {
		return Heat{}, err
	}
	revealed := c.State == store.ChallengeRevealed
	rs, err := s.ranked(ps, revealed)
	if err != nil {
		return Heat{}, err
	}
	h := Heat{Participants: make([]Row, len(rs))}
	for i, r := range rs {
		h.Participants[i] = r.Row
	}
	h.add(Live, c.File.Live, rs, func(r ranked) *scoreDoc { return r.live })
	if revealed {
		h.add(Final, c.File.Final, rs, func(r ranked) *scoreDoc { return r.final })
	}
	return h, nil
}

// add adds a split's rows to the heat map: each task, and each participant's verdict on it
// from the document doc picks (a participant not scored yet has an empty verdict).
func (h *Heat) add(split Split, tasks []selection.Task, rs []ranked, doc func(ranked) *scoreDoc) {
	for i, t := range tasks {
		ht := HeatTask{Split: split, Index: i, Text: t.Task, Expect: t.Expected()}
		cells := make([]Verdict, len(rs))
		for j, r := range rs {
			cells[j] = Verdict{Task: i, Place: -1}
			if d := doc(r); d != nil && i < len(d.Verdicts) {
				cells[j] = d.Verdicts[i]
			}
			if cells[j].Win {
				ht.Won++
			}
		}
		h.Tasks = append(h.Tasks, ht)
		h.Cells = append(h.Cells, cells)
	}
}
