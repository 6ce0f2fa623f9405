package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// MaxRequire is the most approvals a gate can require.
const MaxRequire = 100

// maxChanged bounds the lines of an Approval.Changed.
const maxChanged = 10

// changedKey names the lines of what changed between a sign-off's listing and a head.
type changedKey struct{ signoff, head string }

// Status answers the release gate for the head with require approvals; require 0 asks for
// the workspace's setting (Require), what the panel and a CI job that names no number use.
func (s *Service) Status(ctx context.Context, ws string, require int) (Status, error) {
	const op = "review status"
	if require == 0 {
		var err error
		if require, err = s.Require(ctx, ws); err != nil {
			return Status{}, err
		}
	}
	if require < 1 {
		require = 1
	}
	if require > MaxRequire {
		return Status{}, store.Errorf(store.Invalid, op, "%d approvals required is more than %d; require 1 to %d", require, MaxRequire, MaxRequire)
	}
	if s.opts.Errors == nil {
		return Status{}, store.Errorf(store.Internal, op, "the review service was made without Options.Errors, so it cannot count error findings")
	}
	head, err := s.st.Revision(ctx, ws, -1)
	if err != nil {
		return Status{}, err
	}
	st := Status{Workspace: ws, Revision: head.Number, Hash: Hash(head.Listing), Require: require, Reasons: []string{},
		Signoffs: []Approval{}, Approved: -1}
	sos, err := s.st.Signoffs(ctx, ws)
	if err != nil {
		return Status{}, err
	}
	for _, so := range latest(sos) {
		a := Approval{Signoff: so, Current: so.Hash == st.Hash}
		if !a.Current {
			if a.Changed, err = s.changedSince(ctx, ws, so, head.Listing, st.Hash); err != nil {
				return Status{}, err
			}
		}
		if so.Verdict == store.Approved {
			if err := s.approved(ctx, &st, so, a.Current); err != nil {
				return Status{}, err
			}
			if a.Current {
				st.Approvals++
			}
		}
		st.Signoffs = append(st.Signoffs, a)
	}
	comments, err := s.st.Comments(ctx, ws)
	if err != nil {
		return Status{}, err
	}
	for _, c := range comments {
		if c.Thread == "" && !c.Resolved {
			st.OpenThreads++
		}
	}
	if st.Errors, err = s.opts.Errors(ctx, ws, head.Listing); err != nil {
		return Status{}, fmt.Errorf("%s: counting the error findings of workspace %s: %w", op, ws, err)
	}
	st.Reasons = reasons(st)
	st.Passed = len(st.Reasons) == 0
	return st, nil
}

// approved makes approval so st's Approved when it names a newer revision whose listing has
// the approved hash: its own revision's (checked, see signedListing), or, when that is not the
// one signed but the head's is (current), the head.
func (s *Service) approved(ctx context.Context, st *Status, so store.Signoff, current bool) error {
	n := -1
	if sl, err := s.signedListing(ctx, st.Workspace, so); err != nil {
		return err
	} else if sl.l != nil {
		n = so.Revision
	} else if current {
		n = st.Revision
	}
	if n > st.Approved {
		st.Approved, st.ApprovedHash = n, so.Hash
	}
	return nil
}

// latest returns each person's latest sign-off (a person is an author ID, else a name), newest
// first; sos is oldest first.
func latest(sos []store.Signoff) []store.Signoff {
	seen := map[string]bool{}
	var out []store.Signoff
	for i := len(sos) - 1; i >= 0; i-- {
		k := "name:" + sos[i].Author
		if sos[i].AuthorID != "" {
			k = "id:" + sos[i].AuthorID
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, sos[i])
		}
	}
	return out
}

// reasons says why st does not pass, one sentence each.
func reasons(st Status) []string {
	out := []string{}
	if st.Approvals < st.Require {
		var stale []string
		for _, a := range st.Signoffs {
			if a.Verdict == store.Approved && !a.Current {
				stale = append(stale, fmt.Sprintf("%s approved revision %d, which has changed since", a.Author, a.Revision))
			}
		}
		r := fmt.Sprintf("%d of %d required approvals on this revision", st.Approvals, st.Require)
		if len(stale) > 0 {
			r += " (" + strings.Join(firstOf(stale, 3), "; ") + ")"
		}
		out = append(out, r)
	}
	var changes []string
	for _, a := range st.Signoffs {
		if a.Verdict == store.ChangesRequested && a.Current {
			changes = append(changes, a.Author)
		}
	}
	if len(changes) > 0 {
		out = append(out, strings.Join(firstOf(changes, 3), ", ")+" requested changes on this revision")
	}
	if st.OpenThreads > 0 {
		if st.OpenThreads == 1 {
			out = append(out, "1 thread is open")
		} else {
			out = append(out, fmt.Sprintf("%d threads are open", st.OpenThreads))
		}
	}
	if st.Errors > 0 {
		out = append(out, "the listing has "+plural(st.Errors, "error finding", "error findings"))
	}
	return out
}

// firstOf keeps the first n of xs, with a last item saying how many more there are.
func firstOf(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(xs[:n:n], fmt.Sprintf("%d more", len(xs)-n))
}

// changedSince summarises what changed from the listing so signed off to the head: one
// Compare per sign-off and head, the signed listing read once per sign-off (signedListing).
func (s *Service) changedSince(ctx context.Context, ws string, so store.Signoff, head *listing.Listing, headHash string) ([]string, error) {
	key := changedKey{so.ID, headHash}
	if lines, ok := s.changed.Get(key); ok {
		return lines, nil
	}
	sl, err := s.signedListing(ctx, ws, so)
	if err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("revision %d was extended after the sign-off", so.Revision)}
	if sl.l != nil {
		lines = summary(listing.Compare(sl.l, head))
	}
	size := int64(0)
	for _, l := range lines {
		size += int64(len(l)) + 16
	}
	s.changed.Add(key, lines, size)
	return lines, nil
}

// signed is the listing a sign-off names: its revision's, or nil when that revision's listing
// has another hash (a revision extended by typing after the sign-off, which only data written
// before sign-offs sealed their revision can hold).
type signed struct{ l *listing.Listing }

// signedListing returns the listing sign-off so names. A sign-off never changes and seals its
// revision, so the answer is kept by sign-off ID: a Status at every keystroke reads and hashes
// each stale sign-off's revision once, not at every new head.
func (s *Service) signedListing(ctx context.Context, ws string, so store.Signoff) (signed, error) {
	if v, ok := s.signed.Get(so.ID); ok {
		return v, nil
	}
	rev, err := s.st.Revision(ctx, ws, so.Revision)
	if err != nil {
		return signed{}, fmt.Errorf("review: reading revision %d, which %s signed off: %w", so.Revision, so.Author, err)
	}
	data := export.JSON(rev.Listing, export.JSONOptions{})
	out, size := signed{}, int64(len(so.ID))+64
	if hashOf(data) == so.Hash {
		// The listing is shared with the store's cache, but kept here past it: counted.
		out.l, size = rev.Listing, size+int64(len(data))
	}
	s.signed.Add(so.ID, out, size)
	return out, nil
}

// summary says what a diff changed in at most maxChanged lines: "tool x added", "x:
// description changed".
func summary(d *listing.Diff) []string {
	var lines []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	for _, c := range d.Changes {
		name := clip(clean(c.Tool), 80)
		switch c.Kind {
		case listing.ToolAdded:
			add("tool " + name + " added")
		case listing.ToolRemoved:
			add("tool " + name + " removed")
		case listing.ToolRenamed:
			add("tool " + clip(clean(c.OldName), 80) + " renamed to " + name)
		case listing.ToolMoved:
			add("tool " + name + " moved")
		default:
			add(name + ": " + memberChanged(c))
		}
	}
	if len(lines) == 0 {
		// The same tools with the same content: what changed is outside them (nextCursor, the
		// envelope's other members).
		return []string{"the listing's envelope changed"}
	}
	if len(lines) > maxChanged {
		more := len(lines) - (maxChanged - 1)
		lines = append(lines[:maxChanged-1:maxChanged-1], plural(more, "more change", "more changes"))
	}
	return lines
}

// memberChanged says which member of a tool changed.
func memberChanged(c listing.Change) string {
	switch c.Kind {
	case listing.DescriptionChanged:
		return "description changed"
	case listing.TitleChanged:
		return "title changed"
	case listing.InputSchemaChanged:
		if toks, err := listing.SplitPointer(c.Path); err == nil && len(toks) >= 3 && toks[1] == "properties" {
			return "parameter " + clip(clean(toks[2]), 80) + " changed"
		}
		return "input schema changed"
	case listing.OutputSchemaChanged:
		return "output schema changed"
	case listing.AnnotationChanged:
		return "annotations changed"
	case listing.FormatChanged:
		return "same content written differently"
	}
	return clip(clean(c.Path), 80) + " changed"
}
