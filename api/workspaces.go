package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// Workspaces is what the workspace endpoints need of a store (workspace.Records); store.Store
// has these methods. The endpoints go through the workspace service's whole-listing
// operations over it (workspace.Listings).
type Workspaces = workspace.Records

// workspaceResponse answers POST /workspaces.
type workspaceResponse struct {
	store.Workspace
	Tools int `json:"tools"`
	// Listing and Revisions are the URLs of the workspace's other endpoints.
	Listing   string `json:"listing"`
	Revisions string `json:"revisions"`
}

// putListingResponse answers PUT /workspaces/{id}/listing.
type putListingResponse struct {
	Workspace string         `json:"workspace"`
	Seq       int64          `json:"seq"`
	Revision  store.Revision `json:"revision"`
	Tools     int            `json:"tools"`
}

type revisionsResponse struct {
	Workspace string           `json:"workspace"`
	Revisions []store.Revision `json:"revisions"`
	// Next is the before= of the page of older revisions; null when this page ends at the
	// baseline.
	Next *int `json:"next"`
}

var errNoStore = &Error{Code: CodeNotFound, Message: "this server keeps no workspaces",
	Hint: "the workspace endpoints need a server started with a store (workbench serve)"}

// access asks Options.Access whether the request may read or change the workspace.
func (a *API) access(c echo.Context, workspace string, write bool) (string, error) {
	if a.listings == nil {
		return "", errNoStore
	}
	if a.opts.Access == nil {
		return "api", nil
	}
	author, err := a.opts.Access(c.Request(), workspace, write)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return "", ae
		}
		return "", &Error{Code: CodeForbidden, Message: err.Error(), err: err,
			Hint: "open the workspace through a share link with the capability you need, or sign in"}
	}
	return author, nil
}

// workspaceID checks the id in the path before anything else sees it.
func workspaceID(c echo.Context) (string, error) {
	id, err := store.ParseID("workspace id", c.Param("id"))
	if err != nil {
		return "", &Error{Code: CodeNotFound, Message: "no such workspace: " + err.Error(), err: err,
			Hint: "a workspace id is the 32 lowercase hex digits POST /api/v1/workspaces returned"}
	}
	return id, nil
}

func (a *API) createWorkspace(c echo.Context) error {
	author, err := a.access(c, "", true)
	if err != nil {
		return err
	}
	req, err := a.read(c, "title", "listing", "tasks", "message")
	if err != nil {
		return err
	}
	title, err := req.str("title", "")
	if err != nil {
		return err
	}
	msg, err := req.str("message", "imported through the API")
	if err != nil {
		return err
	}
	l, err := req.listingOf("listing", "listing", a.opts.Limits, true, false)
	if err != nil {
		return err
	}
	nw := store.NewWorkspace{Title: title, Author: author, Message: msg, Listing: l, Now: a.opts.Now()}
	if v := req.get("tasks"); v != nil {
		// Parse to refuse a bad task file now; the store keeps the JSON as sent.
		if _, err := req.tasksOf("tasks"); err != nil {
			return err
		}
		d, err := req.doc("tasks", v)
		if err != nil {
			return err
		}
		// The store keeps JSON that encoding/json must read back; Python's NaN and Infinity,
		// which the task parser accepts, are not that.
		if !json.Valid(d.exact) {
			return &Error{Code: CodeInvalidTasks, Field: "tasks", Message: "the task file is not standard JSON (NaN or Infinity?)",
				Hint: "write numbers as JSON numbers"}
		}
		nw.Tasks = append([]byte(nil), d.exact...)
	}
	w, err := a.listings.CreateRecord(c.Request().Context(), nw)
	if err != nil {
		return err
	}
	base := c.Echo().Reverse("getWorkspaceListing", w.ID)
	resp := workspaceResponse{Workspace: w, Tools: len(l.Tools), Listing: base,
		Revisions: c.Echo().Reverse("listWorkspaceRevisions", w.ID)}
	c.Response().Header().Set(echo.HeaderLocation, base)
	return c.JSON(http.StatusCreated, resp)
}

// renameWorkspace sets a workspace's title and answers its record, as POST /workspaces does.
func (a *API) renameWorkspace(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	if _, err := a.access(c, id, true); err != nil {
		return err
	}
	req, err := a.read(c, "title")
	if err != nil {
		return err
	}
	title, err := req.str("title", "")
	if err != nil {
		return err
	}
	if strings.TrimSpace(title) == "" {
		return &Error{Code: CodeInvalidField, Field: "title", Pointer: "/title", Message: "a workspace's title cannot be empty",
			Hint: `send {"title": "the new name"}`}
	}
	w, err := a.listings.Rename(c.Request().Context(), id, title, a.opts.Now())
	if err != nil {
		return err
	}
	rev, err := a.listings.HeadRevision(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, workspaceResponse{Workspace: w, Tools: len(rev.Listing.Tools),
		Listing: c.Echo().Reverse("getWorkspaceListing", id), Revisions: c.Echo().Reverse("listWorkspaceRevisions", id)})
}

// getListing answers the head listing (or ?revision=N's) as a tools/list result, exactly as export.JSON writes
// it (key order and numbers as written). X-Workbench-Revision names the revision.
func (a *API) getListing(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	if _, err := a.access(c, id, false); err != nil {
		return err
	}
	rev, err := a.revisionOf(c, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set("X-Workbench-Revision", strconv.Itoa(rev.Number))
	return c.Blob(http.StatusOK, "application/json", export.JSON(rev.Listing, export.JSONOptions{}))
}

// putListing records a whole new listing as the workspace's next revision. It takes what
// getListing answers, or the wrapped form (see listingPut).
func (a *API) putListing(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	author, err := a.access(c, id, true)
	if err != nil {
		return err
	}
	l, msg, err := a.listingPut(c)
	if err != nil {
		return err
	}
	res, err := a.listings.Replace(c.Request().Context(), store.Commit{Workspace: id, Author: author, Message: msg, Listing: l, Now: a.opts.Now()})
	if err != nil {
		return err
	}
	c.Response().Header().Set("X-Workbench-Revision", strconv.Itoa(res.Revision.Number))
	return c.JSON(http.StatusOK, putListingResponse{Workspace: id, Seq: res.Seq, Revision: res.Revision, Tools: len(l.Tools)})
}

func (a *API) revisions(c echo.Context) error {
	id, err := workspaceID(c)
	if err != nil {
		return err
	}
	if _, err := a.access(c, id, false); err != nil {
		return err
	}
	page, err := revisionPage(c)
	if err != nil {
		return err
	}
	revs, err := a.listings.Revisions(c.Request().Context(), id, page)
	if err != nil {
		return err
	}
	resp := revisionsResponse{Workspace: id, Revisions: revs}
	if resp.Revisions == nil {
		resp.Revisions = []store.Revision{}
	}
	// Revisions are numbered 0..head without gaps: a page ending above the baseline has older ones.
	if n := len(revs); n > 0 && revs[n-1].Number > 0 {
		resp.Next = &revs[n-1].Number
	}
	return c.JSON(http.StatusOK, resp)
}

// revisionPage reads ?before=N&limit=M. Unlike the store, which clamps a limit above the
// maximum, the API refuses it: a client asking for more than it gets would take a short page
// for the end of the history.
func revisionPage(c echo.Context) (store.RevisionPage, error) {
	var page store.RevisionPage
	q := c.QueryParams()
	for _, p := range []struct {
		name     string
		min, max int
		dst      *int
		hint     string
	}{
		{"before", 1, math.MaxInt32, &page.Before,
			"before is a revision number of 1 or more: the page lists the revisions below it; leave it out for the newest (a page's next gives the following one)"},
		{"limit", 1, store.MaxRevisionLimit, &page.Limit,
			fmt.Sprintf("limit is how many revisions a page holds, 1 to %d; leave it out for %d", store.MaxRevisionLimit, store.DefaultRevisionLimit)},
	} {
		vs, ok := q[p.name]
		if !ok {
			continue
		}
		if len(vs) > 1 {
			return page, &Error{Code: CodeInvalidField, Field: p.name, Message: fmt.Sprintf("%s is given %d times", p.name, len(vs)), Hint: p.hint}
		}
		n, err := strconv.Atoi(vs[0])
		if err != nil || n < p.min || n > p.max {
			return page, &Error{Code: CodeInvalidField, Field: p.name, Message: fmt.Sprintf("%s=%s is not a whole number from %d to %d", p.name, strconv.Quote(vs[0]), p.min, p.max), Hint: p.hint}
		}
		*p.dst = n
	}
	return page, nil
}
