package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// reviewResponse answers GET /workspaces/{id}/review: the release gate and the threads it
// counted, so that a CI job can say why it failed without a second request.
type reviewResponse struct {
	Status  review.Status   `json:"status"`
	Threads []review.Thread `json:"threads"`
}

var errNoReview = &Error{Code: CodeNotFound, Message: "this server keeps no reviews",
	Hint: "the review endpoints need a server started with a store (workbench serve)"}

// getReview answers the release gate for the head with ?require=N approvals (default: the
// workspace's setting).
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
	ctx := c.Request().Context()
	st, err := a.opts.Review.Status(ctx, id, require)
	if err != nil {
		return fmt.Errorf("review status: %w", err)
	}
	threads, err := a.opts.Review.Threads(ctx, id)
	if err != nil {
		return fmt.Errorf("review threads: %w", err)
	}
	return c.JSON(http.StatusOK, reviewResponse{Status: st, Threads: threads})
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
