package review

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// How a thread follows its tool from the Seq it was made at to the head: the edits between are
// replayed at the level of tools. An insert, a removal or a move of a tool shifts the places
// exactly; an op that sets the whole tools array (a commit of a new listing, a restore, an undo
// of a structural edit) pairs the tools before and after it as listing.Compare does (but by
// content among tools of one name), which also brings back a thread whose tool was removed when
// a tool of its name, or of a name it had before, comes back. Where each thread was is kept per
// workspace and head Seq, so the next call replays only the edits since.

// place is where a thread's tool is at some Seq: its index (-1: removed), its name then, and
// the names it had before (at most maxNames, oldest first), by which a removed tool comes back.
type place struct {
	index int
	name  string
	names []string
}

// maxNames bounds the earlier names a place keeps.
const maxNames = 8

// rename gives p's tool a new name, keeping the one it had among its earlier names. The slice
// is copied, never appended to in place: places are shared with the cache.
func (p *place) rename(name string) {
	if name == p.name {
		return
	}
	names := make([]string, 0, min(len(p.names)+1, maxNames))
	for _, n := range p.names {
		if n != name && n != p.name {
			names = append(names, n)
		}
	}
	names = append(names, p.name)
	if len(names) > maxNames {
		names = names[len(names)-maxNames:]
	}
	p.name, p.names = name, names
}

// places are the places of a workspace's threads at Seq.
type places struct {
	seq int64
	at  map[string]place
}

// editPage is how many edits one read of the history fetches while replaying.
const editPage = 500

// tracker follows one thread's tool while the edits are replayed.
type tracker struct {
	id    string
	from  int64 // the Seq its place holds at: it follows the edits after it
	place place
}

// replay follows the trackers' tools through the edits from the least from to head.
type replay struct {
	s    *Service
	ws   string
	head int64
	// cur is the listing after the edit at curSeq, once an op that sets every tool needed it:
	// from then on every edit is applied to it.
	cur    *listing.Listing
	curSeq int64
	active []*tracker
}

// locate returns where each thread's tool is at the head revision (whose last edit is head).
func (s *Service) locate(ctx context.Context, ws string, head int64, threads []store.Comment) (map[string]place, error) {
	cached, _ := s.places.Get(ws)
	ts := make([]*tracker, 0, len(threads))
	for _, c := range threads {
		t := &tracker{id: c.ID, from: c.Seq, place: place{index: c.Anchor.Index, name: c.Anchor.Tool}}
		if cached != nil && cached.seq <= head {
			if p, ok := cached.at[c.ID]; ok {
				t.from, t.place = cached.seq, p
			}
		}
		ts = append(ts, t)
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].from < ts[j].from })
	r := &replay{s: s, ws: ws, head: head}
	if err := r.run(ctx, ts); err != nil {
		return nil, err
	}
	out := make(map[string]place, len(ts))
	size := int64(0)
	keep := make(map[string]place, len(ts))
	for _, t := range ts {
		out[t.id] = t.place
		// A thread made after the head was read holds its place at a later Seq: not kept.
		if t.from <= head {
			keep[t.id] = t.place
			size += int64(len(t.id)+len(t.place.name)) + 64
			for _, n := range t.place.names {
				size += int64(len(n)) + 16
			}
		}
	}
	if cached == nil || cached.seq <= head {
		s.places.Add(ws, &places{seq: head, at: keep}, size)
	}
	return out, nil
}

// run replays the edits after the least from up to head, joining each tracker when the replay
// passes its from.
func (r *replay) run(ctx context.Context, ts []*tracker) error {
	next := 0
	join := func(seq int64) { // joins the trackers whose place holds before the edit at seq
		for next < len(ts) && ts[next].from < seq {
			r.active = append(r.active, ts[next])
			next++
		}
	}
	if len(ts) == 0 || ts[0].from >= r.head {
		return nil
	}
	after := ts[0].from
	for after < r.head {
		recs, err := r.s.st.Edits(ctx, r.ws, after, editPage)
		if err != nil {
			return fmt.Errorf("review: reading the edits after %d: %w", after, err)
		}
		if len(recs) == 0 {
			break
		}
		for _, rec := range recs {
			if rec.Seq > r.head {
				return nil
			}
			join(rec.Seq)
			if err := r.edit(ctx, rec); err != nil {
				return err
			}
			after = rec.Seq
		}
	}
	return nil
}

// edit moves the active trackers through one recorded edit.
func (r *replay) edit(ctx context.Context, rec store.EditRecord) error {
	cur := r.cur // the listing before the op at hand, if known
	if r.curSeq != rec.Seq-1 {
		cur = nil
	}
	for k, op := range rec.Ops {
		toks, err := listing.SplitPointer(op.Path)
		if err != nil || len(toks) == 0 || toks[0] != "tools" {
			continue
		}
		if len(toks) > 1 || op.Kind != listing.OpSet {
			r.shift(op, toks)
			if cur != nil {
				if cur, err = cur.Apply(op); err != nil {
					cur = nil // cannot happen for a recorded edit; read again if needed
				}
			}
			continue
		}
		before := cur
		if before == nil {
			if before, err = r.s.listingBefore(ctx, r.ws, rec); err == nil {
				before, err = before.ApplyAll(rec.Ops[:k])
			}
			if err != nil {
				return err
			}
		}
		if cur, err = before.Apply(op); err != nil {
			return fmt.Errorf("review: replaying edit %d of workspace %s: %w", rec.Seq, r.ws, err)
		}
		r.pair(before, cur)
	}
	r.cur, r.curSeq = cur, rec.Seq
	return nil
}

// shift follows an op below /tools: an insert, removal or move of a tool shifts places, and a
// new name (or a whole new tool) at a place renames its threads' tool.
func (r *replay) shift(op listing.Op, toks []string) {
	if len(toks) == 1 {
		if op.Kind == listing.OpMove {
			for _, t := range r.active {
				t.place.index = moved(t.place.index, op.From, op.To)
			}
		}
		return
	}
	at, err := strconv.Atoi(toks[1])
	if err != nil || at < 0 { // "-": an append shifts nothing
		return
	}
	switch {
	case len(toks) == 2 && op.Kind == listing.OpInsert:
		for _, t := range r.active {
			if t.place.index >= at {
				t.place.index++
			}
		}
	case len(toks) == 2 && op.Kind == listing.OpRemove:
		for _, t := range r.active {
			switch {
			case t.place.index == at:
				t.place.index = -1
			case t.place.index > at:
				t.place.index--
			}
		}
	case op.Kind == listing.OpSet && (len(toks) == 2 || len(toks) == 3 && toks[2] == "name"):
		name := op.Value
		if len(toks) == 2 {
			name = op.Value.Get("name")
		}
		if !name.IsString() {
			return
		}
		for _, t := range r.active {
			if t.place.index == at {
				t.place.rename(name.Str)
			}
		}
	}
}

// moved is where index i is after the item at from moved to to.
func moved(i, from, to int) int {
	switch {
	case i < 0:
		return i
	case i == from:
		return to
	case from < to && i > from && i <= to:
		return i - 1
	case to < from && i >= to && i < from:
		return i + 1
	}
	return i
}

// pair follows the tools through an op that set all of them, as listing.Compare pairs them
// but by content among tools of one name (listing.PairByContent); a thread whose tool was
// removed comes back on a new tool of its name, or of a name it had before.
func (r *replay) pair(before, after *listing.Listing) {
	newOf := listing.PairByContent(before, after)
	paired := make([]bool, len(after.Tools))
	for _, j := range newOf {
		if j >= 0 {
			paired[j] = true
		}
	}
	fresh := map[string]int{} // name -> index of the first unpaired tool of that name
	for j := len(after.Tools) - 1; j >= 0; j-- {
		if !paired[j] {
			fresh[after.Tools[j].Get("name").String()] = j
		}
	}
	for _, t := range r.active {
		switch i := t.place.index; {
		case i >= 0 && i < len(newOf) && newOf[i] >= 0:
			t.place.index = newOf[i]
			t.place.rename(after.Tools[newOf[i]].Get("name").String())
		case i >= 0:
			t.place.index = -1
		default:
			// Its last name first, then the earlier ones, newest first; a tool taken by one
			// thread can take others (they were on one tool or on tools of one name).
			for k := len(t.place.names); k >= 0; k-- {
				name := t.place.name
				if k < len(t.place.names) {
					name = t.place.names[k]
				}
				if j, ok := fresh[name]; ok {
					t.place.index = j
					t.place.rename(name)
					break
				}
			}
		}
	}
}

// listingBefore returns the listing just before edit rec, which sets every tool: the listing of
// the revision before rec's, since an edit that moves tools never extends a revision (the store's
// coalescing rule), so rec is the first of its own.
func (s *Service) listingBefore(ctx context.Context, ws string, rec store.EditRecord) (*listing.Listing, error) {
	rev, err := s.st.Revision(ctx, ws, rec.Revision)
	if err != nil {
		return nil, fmt.Errorf("review: reading revision %d: %w", rec.Revision, err)
	}
	if rev.Parent < 0 {
		return nil, fmt.Errorf("review: edit %d of workspace %s is in the baseline", rec.Seq, ws)
	}
	parent, err := s.st.Revision(ctx, ws, rev.Parent)
	if err != nil {
		return nil, fmt.Errorf("review: reading revision %d: %w", rev.Parent, err)
	}
	return parent.Listing, nil
}
