package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// reviewWriter checks a review write: the workspace id, the edit capability and a configured
// review service, and returns the author: the request's identity as Options.Identity names it
// (no request member can name another).
func (a *API) reviewWriter(c echo.Context) (id string, who review.Author, err error) {
	if id, err = workspaceID(c); err != nil {
		return "", who, err
	}
	author, err := a.access(c, id, true)
	if err != nil {
		return "", who, err
	}
	if a.opts.Review == nil {
		return "", who, errNoReview
	}
	if a.opts.Identity == nil {
		return id, review.Author{Name: author}, nil
	}
	if who, err = a.opts.Identity(c.Request(), id); err != nil {
		return "", who, &Error{Code: CodeForbidden, Message: err.Error(), err: err,
			Hint: "open the workspace through a share link with the capability you need, or sign in"}
	}
	return id, who, nil
}

// postSignoff records the request's identity's verdict on the head revision, naming its
// content hash: what a bot that reviews listings posts.
func (a *API) postSignoff(c echo.Context) error {
	id, who, err := a.reviewWriter(c)
	if err != nil {
		return err
	}
	req, err := a.read(c, "verdict", "message", "hash")
	if err != nil {
		return err
	}
	if req.get("verdict") == nil {
		return &Error{Code: CodeMissingField, Field: "verdict", Pointer: "/verdict", Message: `a sign-off needs a "verdict"`,
			Hint: `send "verdict": "approved" or "changes" (changes requested)`}
	}
	verdict, err := req.str("verdict", "", string(store.Approved), string(store.ChangesRequested))
	if err != nil {
		return err
	}
	msg, err := req.str("message", "")
	if err != nil {
		return err
	}
	// hash is the listing the bot checked (GET …/review's status.hash): an edit since is a conflict.
	hash, err := req.str("hash", "")
	if err != nil {
		return err
	}
	so, err := a.opts.Review.SignOffAt(c.Request().Context(), id, store.Verdict(verdict), msg, who, hash)
	if err != nil {
		return fmt.Errorf("sign off: %w", err)
	}
	return c.JSON(http.StatusCreated, so)
}

// postComment starts a thread on a tool of the head (tool and index, the name checked against
// the index so that a client holding an older listing cannot anchor on the wrong tool), a
// field of it or a finding; or, with "thread", replies to one.
func (a *API) postComment(c echo.Context) error {
	id, who, err := a.reviewWriter(c)
	if err != nil {
		return err
	}
	req, err := a.read(c, "thread", "tool", "index", "field", "finding", "text", "body")
	if err != nil {
		return err
	}
	if req.get("body") == nil {
		return &Error{Code: CodeMissingField, Field: "body", Pointer: "/body", Message: `a comment needs a "body"`,
			Hint: fmt.Sprintf(`send "body": the comment's text (at most %d characters)`, store.MaxCommentBody)}
	}
	body, err := req.str("body", "")
	if err != nil {
		return err
	}
	thread, err := req.str("thread", "")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if thread != "" {
		for _, k := range []string{"tool", "index", "field", "finding", "text"} {
			if v := req.get(k); v != nil {
				return req.invalid(k, v, fmt.Sprintf(`leave out %q: a reply is anchored where its thread is`, k), "%q does not go with \"thread\"", k)
			}
		}
		cm, err := a.opts.Review.Reply(ctx, id, thread, body, who)
		if store.KindOf(err) == store.NotFound {
			// The store's hint would be about the workspace id; the thread is what was not found.
			return &Error{Code: CodeNotFound, Field: "thread", Pointer: "/thread", Message: err.Error(), err: err,
				Hint: "reply to a thread of this workspace by its id: GET /api/v1/workspaces/{id}/review lists them"}
		}
		if err != nil {
			return fmt.Errorf("reply: %w", err)
		}
		return c.JSON(http.StatusCreated, cm)
	}
	var t review.Target
	if req.get("tool") == nil || req.get("index") == nil {
		return &Error{Code: CodeMissingField, Field: "tool", Pointer: "/tool", Message: `a new thread needs "tool" and "index": the tool's name and its place in the head listing`,
			Hint: `send "tool": "search_issues", "index": 0 (GET …/listing lists the tools in order), or "thread" to reply`}
	}
	if t.Tool, err = req.str("tool", ""); err != nil {
		return err
	}
	if t.Index, err = req.integer("index", 0, 0); err != nil {
		return err
	}
	if t.Field, err = req.str("field", ""); err != nil {
		return err
	}
	if t.Finding, err = req.str("finding", ""); err != nil {
		return err
	}
	if t.Text, err = req.str("text", ""); err != nil {
		return err
	}
	cm, err := a.opts.Review.Comment(ctx, id, t, body, who)
	if err != nil {
		return fmt.Errorf("comment: %w", err)
	}
	return c.JSON(http.StatusCreated, cm)
}
