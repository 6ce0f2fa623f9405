package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// reviewResponse answers GET /workspaces/{id}/review: the release gate and the threads it
// counted, so that a CI job can say why it failed without a second request. Threads holds
// []reviewThread, or []ReviewThreadSummary for ?threads=summary.
type reviewResponse struct {
	Status  review.Status `json:"status"`
	Threads any           `json:"threads"`
}

// reviewThread is a thread as the API sends it: its anchor once, not again in each comment.
type reviewThread struct {
	review.Thread
	First   threadComment   `json:"first"`
	Replies []threadComment `json:"replies"`
}

// threadComment is a comment of a thread without its anchor (the thread's), which would
// otherwise repeat up to store.MaxAnchorText characters in every reply.
type threadComment struct {
	store.Comment
	Anchor *store.Anchor `json:"anchor,omitempty"` // shadows the comment's: always nil
}

// ReviewThreadSummary is one thread in GET …/review?threads=summary: what a CI job prints of
// it, bounded (the first comment clipped to SummaryChars characters, the replies counted).
type ReviewThreadSummary struct {
	ID       string    `json:"id"`
	Label    string    `json:"label"`
	Tool     string    `json:"tool"`
	Index    int       `json:"index"`
	Resolved bool      `json:"resolved"`
	Outdated bool      `json:"outdated"`
	Gone     bool      `json:"gone"`
	Author   string    `json:"author"`
	AuthorID string    `json:"authorId,omitempty"`
	Created  time.Time `json:"created"`
	First    string    `json:"first"`
	Replies  int       `json:"replies"`
}

// SummaryChars is how much of a thread's first comment a summary keeps.
const SummaryChars = 200

// threadsView is what ?threads= asks of the threads: all (the default), open (the unresolved
// ones, whole), summary (every thread in brief) or none (the gate only).
func threadsView(c echo.Context, threads []review.Thread) (any, error) {
	const hint = "threads is all (every thread, whole: the default), open (the unresolved ones), summary (each thread's label, state, author and first comment clipped to 200 characters, and its reply count) or none (the gate only)"
	vs := c.QueryParams()["threads"]
	if len(vs) > 1 {
		return nil, &Error{Code: CodeInvalidField, Field: "threads", Message: fmt.Sprintf("threads is given %d times", len(vs)), Hint: hint}
	}
	view := "all"
	if len(vs) == 1 {
		view = vs[0]
	}
	switch view {
	case "none":
		return []reviewThread{}, nil
	case "summary":
		out := make([]ReviewThreadSummary, 0, len(threads))
		for _, t := range threads {
			// Every text clipped: tool and parameter names come from the listing, which may be
			// hostile, so that a summary stays small whatever the listing holds.
			out = append(out, ReviewThreadSummary{ID: t.ID, Label: clipChars(t.Label, SummaryChars), Tool: clipChars(t.Tool, SummaryChars), Index: t.Index, Resolved: t.Resolved,
				Outdated: t.Outdated, Gone: t.Gone, Author: t.First.Author, AuthorID: t.First.AuthorID, Created: t.First.Created,
				First: clipChars(t.First.Body, SummaryChars), Replies: len(t.Replies)})
		}
		return out, nil
	case "all", "open":
		out := make([]reviewThread, 0, len(threads))
		for _, t := range threads {
			if view == "open" && t.Resolved {
				continue
			}
			rt := reviewThread{Thread: t, First: threadComment{Comment: t.First}, Replies: make([]threadComment, len(t.Replies))}
			for i, r := range t.Replies {
				rt.Replies[i] = threadComment{Comment: r}
			}
			out = append(out, rt)
		}
		return out, nil
	}
	return nil, &Error{Code: CodeInvalidField, Field: "threads", Message: fmt.Sprintf("threads=%s is not one of all, open, summary, none", strconv.Quote(clipChars(view, 40))), Hint: hint}
}

// clipChars keeps the first n characters of s, with "…" when it cut.
func clipChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

var errNoReview = &Error{Code: CodeNotFound, Message: "this server keeps no reviews",
	Hint: "the review endpoints need a server started with a store (workbench serve)"}

// getReview answers the release gate for the head with ?require=N approvals (default: the
// workspace's setting), and the threads as ?threads= asks (threadsView).
// A view capability reads it: the gate tells nothing that the workspace's pages do not show.
func (a *API) getReview(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	if _, err := a.access(c, id, false); err != nil {
		return err
	}
	if a.opts.Review == nil {
		return errNoReview
	}
	require, err := requireParam(c)
	if err != nil {
		return err
	}
	if _, err := threadsView(c, nil); err != nil {
		return err // a bad ?threads= before any read
	}
	ctx := c.Request().Context()
	st, err := a.opts.Review.Status(ctx, id, require)
	if err != nil {
		return fmt.Errorf("review status: %w", err)
	}
	var threads []review.Thread
	if c.QueryParam("threads") != "none" {
		if threads, err = a.opts.Review.Threads(ctx, id); err != nil {
			return fmt.Errorf("review threads: %w", err)
		}
	}
	view, err := threadsView(c, threads)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, reviewResponse{Status: st, Threads: view})
}

// requireParam reads ?require=N: how many people must approve the head (0 when absent: the
// workspace's approvals-required setting, as the Review panel shows it).
func requireParam(c echo.Context) (int, error) {
	const hint = "require is how many people must approve the head's listing: a whole number from 1; leave it out for the workspace's setting (the Review panel's \"Approvals required\")"
	vs, ok := c.QueryParams()["require"]
	if !ok {
		return 0, nil
	}
	if len(vs) > 1 {
		return 0, &Error{Code: CodeInvalidField, Field: "require", Message: fmt.Sprintf("require is given %d times", len(vs)), Hint: hint}
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < 1 || n > review.MaxRequire {
		return 0, &Error{Code: CodeInvalidField, Field: "require",
			Message: fmt.Sprintf("require=%s is not a whole number from 1 to %d", strconv.Quote(vs[0]), review.MaxRequire), Hint: hint}
	}
	return n, nil
}

// revisionOf returns the revision ?revision=N names, with its listing, or the head when the
// parameter is absent: `workbench fetch --compare approved:…` reads the approved revision so.
func (a *API) revisionOf(c echo.Context, id string) (store.Revision, error) {
	const hint = "revision is a revision number from 0 (the baseline) to the head; GET /api/v1/workspaces/{id}/revisions lists them; leave it out for the head"
	vs, ok := c.QueryParams()["revision"]
	if !ok {
		return a.listings.HeadRevision(c.Request().Context(), id)
	}
	if len(vs) > 1 {
		return store.Revision{}, &Error{Code: CodeInvalidField, Field: "revision", Message: fmt.Sprintf("revision is given %d times", len(vs)), Hint: hint}
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < 0 || n > math.MaxInt32 {
		return store.Revision{}, &Error{Code: CodeInvalidField, Field: "revision",
			Message: fmt.Sprintf("revision=%s is not a whole number from 0 to %d", strconv.Quote(vs[0]), math.MaxInt32), Hint: hint}
	}
	rev, err := a.opts.Workspaces.Revision(c.Request().Context(), id, n)
	if store.KindOf(err) == store.NotFound {
		// Say which was missing: the workspace, or the revision of a workspace that exists.
		head, herr := a.listings.HeadRevision(c.Request().Context(), id)
		if herr != nil {
			return store.Revision{}, herr
		}
		return store.Revision{}, &Error{Code: CodeNotFound, Field: "revision", err: err,
			Message: fmt.Sprintf("workspace %s has no revision %d: its head is revision %d", id, n, head.Number), Hint: hint}
	}
	if err != nil {
		return store.Revision{}, fmt.Errorf("read revision %d: %w", n, err)
	}
	if rev.Listing == nil {
		return store.Revision{}, fmt.Errorf("read revision %d: the store returned it without its listing", n)
	}
	return rev, nil
}
