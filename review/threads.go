package review

import (
	"context"
	"sort"

	"github.com/tool-workbench/workbench/store"
)

// Threads returns the workspace's threads as they stand at the head, in the listing's tool
// order (threads of removed tools last), oldest first within a tool.
func (s *Service) Threads(ctx context.Context, ws string) ([]Thread, error) {
	head, err := s.st.Revision(ctx, ws, -1)
	if err != nil {
		return nil, err
	}
	comments, err := s.st.Comments(ctx, ws)
	if err != nil {
		return nil, err
	}
	var firsts []store.Comment
	byID := map[string]int{}
	out := []Thread{}
	for _, c := range comments {
		if c.Thread == "" {
			byID[c.ID] = len(out)
			firsts = append(firsts, c)
			out = append(out, Thread{ID: c.ID, Anchor: c.Anchor, First: c, Replies: []store.Comment{},
				Resolved: c.Resolved, ResolvedBy: c.ResolvedBy, ResolvedAt: c.ResolvedAt})
		}
	}
	for _, c := range comments {
		if i, ok := byID[c.Thread]; ok && c.Thread != "" {
			out[i].Replies = append(out[i].Replies, c)
		}
	}
	at, err := s.locate(ctx, ws, head.LastSeq, firsts)
	if err != nil {
		return nil, err
	}
	tools := head.Listing.Tools
	for i := range out {
		t := &out[i]
		p := at[t.ID]
		if p.index < 0 || p.index >= len(tools) {
			// The field went with its tool: outdated too, unless a finding's (see outdated).
			t.Tool, t.Index, t.Gone, t.Outdated = p.name, -1, true, t.Anchor.Finding == ""
			t.Label = label(t.Tool, t.Anchor)
			continue
		}
		tool := tools[p.index]
		t.Tool, t.Index = tool.Get("name").String(), p.index
		t.Label = label(t.Tool, t.Anchor)
		t.Outdated, t.Now = outdated(tool, t.Anchor)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Gone != b.Gone {
			return b.Gone
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if !a.First.Created.Equal(b.First.Created) {
			return a.First.Created.Before(b.First.Created)
		}
		return a.ID < b.ID
	})
	return out, nil
}
