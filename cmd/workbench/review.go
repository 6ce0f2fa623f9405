package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

func init() {
	register(command{
		name:    "review",
		summary: "the release gate: is the head approved by N people with no open threads and no error findings",
		usage:   "status WORKSPACE_URL_OR_ID [--require N] [--format text|json] [--db sqlite:PATH|postgres://…] [--token-env NAME]",
		run:     runReview,
	})
}

// reviewTimeout bounds a review status asked of a server: a CI job must end.
const reviewTimeout = 60 * time.Second

// reviewMaxBytes bounds the answer, so that a wrong URL cannot fill the job's memory. 32 MiB
// holds the summaries of a workspace's 5,000 threads (the store's limit) even when every clipped
// field is escaped six bytes a character (about 25 MiB). A variable so that a test can meet the
// cap with fewer comments than a real review needs.
var reviewMaxBytes = 32 << 20

// reviewAnswer is GET /api/v1/workspaces/{id}/review's answer, which --format json prints
// whether the gate was asked of a server or of the store.
type reviewAnswer struct {
	Status  review.Status   `json:"status"`
	Threads []review.Thread `json:"threads"`
}

// reviewTarget is where the gate is asked: a server's API (base and workspace id), or the
// store (id only).
type reviewTarget struct {
	base string // scheme://host[/prefix] of the server; empty: the store
	id   string
}

// runReview is "workbench review status": exit 0 when the gate passes, 1 when it does not,
// 2 when it could not be asked.
func runReview(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["review"], e.stderr)
	require := fs.Int("require", 0, "how many people must approve the head's listing (default: the workspace's setting, the Review panel's \"Approvals required\")")
	format := fs.String("format", "text", "text or json (the API's answer: {\"status\", \"threads\"})")
	db := dbFlag(fs)
	tokenEnv := fs.String("token-env", "WORKBENCH_TOKEN", "for a URL: the environment variable holding a share link's token or the admin token, sent as 'Authorization: Bearer'")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	const usage = "usage: workbench review status WORKSPACE_URL_OR_ID [--require N] [--format text|json] [--db …] [--token-env NAME]"
	if len(pos) != 2 || pos[0] != "status" {
		return usageError{usage}
	}
	if flagGiven(fs, "require") && (*require < 1 || *require > review.MaxRequire) {
		return usageError{fmt.Sprintf("--require %d: give how many people must approve, from 1 to %d", *require, review.MaxRequire)}
	}
	if *format != "text" && *format != "json" {
		return usageError{fmt.Sprintf("--format %q: use text or json", *format)}
	}
	t, err := parseReviewTarget(pos[1])
	if err != nil {
		return usageError{err.Error()}
	}
	var ans reviewAnswer
	if t.base != "" {
		if *db != "" {
			return usageError{"--db applies to a workspace id, which is read from the store; a URL is asked of its server"}
		}
		// Text prints each open thread in a line: the bounded summary serves it. JSON prints
		// the API's answer with the threads whole.
		threads := "summary"
		if *format == "json" {
			threads = "all"
		}
		ans, err = remoteReview(ctx, t, *require, threads, *tokenEnv, e.getenv)
	} else {
		ans, err = localReview(ctx, e, *db, t.id, *require)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "workbench review:", termsafe.Escape(err.Error()))
		return exitError{2}
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ans); err != nil {
			return fmt.Errorf("writing the review status: %w", err)
		}
	} else if _, err := io.WriteString(e.stdout, reviewText(ans)); err != nil {
		return err
	}
	if !ans.Status.Passed {
		return exitError{1}
	}
	return nil
}

// parseReviewTarget reads a workspace's page URL (http://host/w/ID…), its API URL
// (http://host/api/v1/workspaces/ID…) or its bare id.
func parseReviewTarget(s string) (reviewTarget, error) {
	if !strings.Contains(s, "://") {
		id, err := store.ParseID("workspace id", s)
		if err != nil {
			return reviewTarget{}, fmt.Errorf("%q is neither a workspace URL (http://HOST/w/ID) nor a workspace id (32 lowercase hex digits)", clip(s, 80))
		}
		return reviewTarget{id: id}, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return reviewTarget{}, fmt.Errorf("%q is not an http(s) URL; give the workspace's page (http://HOST/w/ID) or its id", clip(s, 80))
	}
	for _, marker := range []string{"/api/v1/workspaces/", "/w/"} {
		prefix, rest, ok := strings.Cut(u.Path, marker)
		if !ok {
			continue
		}
		seg, _, _ := strings.Cut(rest, "/")
		id, err := store.ParseID("workspace id", seg)
		if err != nil {
			return reviewTarget{}, fmt.Errorf("the URL's workspace id %q is not 32 lowercase hex digits; copy the workspace's address from the browser", clip(seg, 80))
		}
		return reviewTarget{base: u.Scheme + "://" + u.Host + prefix, id: id}, nil
	}
	return reviewTarget{}, fmt.Errorf("the URL %s names no workspace; give the workspace's page (http://HOST/w/ID) or its API address (http://HOST/api/v1/workspaces/ID)",
		clip(u.Redacted(), 120))
}

// remoteReview asks the server's API for the gate, with the threads as threads says (all,
// summary or none: reviewremote.go).
func remoteReview(ctx context.Context, t reviewTarget, require int, threads, tokenEnv string, getenv func(string) string) (reviewAnswer, error) {
	var ans reviewAnswer
	endpoint := t.base + "/api/v1/workspaces/" + t.id + "/review?threads=" + threads
	if require > 0 { // else the server answers with the workspace's setting
		endpoint += "&require=" + strconv.Itoa(require)
	}
	data, err := apiGet(ctx, endpoint, tokenEnv, getenv)
	if err != nil {
		return ans, tooLargeReview(err, threads)
	}
	if err := decodeReview(data, threads, &ans); err != nil || ans.Status.Workspace == "" {
		return ans, fmt.Errorf("%s answered something that is not a review status (%v); is it a workbench server of this version? Try --format json against its /api/v1/openapi.json", t.base, errOr(err, "no status"))
	}
	return ans, nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// apiGet GETs a workbench API URL with the token of $tokenEnv (if set), bounded in time and
// size, and turns every failure into a message that says what would work.
func apiGet(ctx context.Context, endpoint, tokenEnv string, getenv func(string) string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("the URL cannot be asked: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	token := ""
	if tokenEnv != "" {
		token = strings.TrimSpace(getenv(tokenEnv))
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	host := req.URL.Host
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the workbench at %s did not answer within %s; check that it runs and the URL is right", host, reviewTimeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, said already
		}
		return nil, fmt.Errorf("cannot reach the workbench at %s (%v); check the URL and that the server runs", host, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, int64(reviewMaxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %w", host, err)
	}
	if len(data) > reviewMaxBytes {
		return nil, &tooLargeError{host}
	}
	if res.StatusCode == http.StatusOK {
		return data, nil
	}
	msg := apiMessage(data)
	switch res.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if token == "" {
			return nil, fmt.Errorf("the workbench at %s refused access (%d: %s); set $%s to a share link's token or the admin token (--token-env names another variable)",
				host, res.StatusCode, msg, tokenEnv)
		}
		return nil, fmt.Errorf("the workbench at %s refused the token in $%s (%d: %s); use a share link's token that is not revoked, or the admin token",
			host, tokenEnv, res.StatusCode, msg)
	case http.StatusNotFound:
		return nil, fmt.Errorf("the workbench at %s has no such workspace or revision (404: %s); check the URL, and that the server keeps workspaces", host, msg)
	}
	return nil, fmt.Errorf("the workbench at %s answered %d: %s", host, res.StatusCode, msg)
}

// apiMessage is the message of an API error answer, or the start of whatever came instead.
func apiMessage(data []byte) string {
	var e struct {
		Error struct{ Message, Hint string } `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		if e.Error.Hint != "" {
			return clip(e.Error.Message, 300) + " (" + clip(e.Error.Hint, 300) + ")"
		}
		return clip(e.Error.Message, 300)
	}
	return "not the API's error shape: " + strconv.Quote(clip(string(data), 100))
}

// localReview asks the store for the gate, counting errors as the server does.
func localReview(ctx context.Context, e *env, db, id string, require int) (reviewAnswer, error) {
	var ans reviewAnswer
	st, err := openStore(ctx, db, e.getenv, e.log)
	if err != nil {
		return ans, err
	}
	defer st.Close()
	svc := review.New(st, review.Options{Errors: storeErrors(st, e)})
	if ans.Status, err = svc.Status(ctx, id, require); err != nil {
		return ans, storeMessage(err, id)
	}
	if ans.Threads, err = svc.Threads(ctx, id); err != nil {
		return ans, storeMessage(err, id)
	}
	return ans, nil
}

// storeMessage says what would work when the store could not answer.
func storeMessage(err error, id string) error {
	if store.KindOf(err) == store.NotFound {
		return fmt.Errorf("no workspace %s in this database (%w); check the id, and --db or $WORKBENCH_DB (the database workbench serve uses)", id, err)
	}
	return err
}

// profileMetaKey is where the pages keep a workspace's lint profile (web/profile.go's key of
// the same name; TestReviewErrorsAgree holds the two together).
const profileMetaKey = "profile"

// storeErrors counts error findings as the server's pages do (web.Server.ReviewErrors): with
// the workspace's stored profile, on an engine made as serve makes its own (o200k_base and
// the extended rules). An unknown stored profile counts as none, as on the pages.
func storeErrors(st store.Store, e *env) func(ctx context.Context, ws string, l *listing.Listing) (int, error) {
	return func(ctx context.Context, ws string, l *listing.Listing) (int, error) {
		p := ""
		b, err := st.Meta(ctx, ws, profileMetaKey)
		switch {
		case err != nil && store.KindOf(err) != store.NotFound:
			return 0, fmt.Errorf("read the workspace's profile: %w", err)
		case err == nil:
			if json.Unmarshal(b, &p) != nil {
				p = ""
			}
			if _, err := lint.LookupProfile(p); err != nil {
				fmt.Fprintf(e.stderr, "workbench review: the workspace's profile is unknown (%s); counting errors without one, as its pages do\n", termsafe.Escape(err.Error()))
				p = ""
			}
		}
		tok, err := cost.NewTokenizer("o200k_base")
		if err != nil {
			return 0, err
		}
		eng, err := analysis.New(analysis.Options{Tokenizer: tok.Name(), Extended: lint.New(lint.Config{Tokens: tok.Count, Profile: p})})
		if err != nil {
			return 0, err
		}
		res, err := eng.AnalyzeContext(ctx, l, nil)
		if err != nil {
			return 0, fmt.Errorf("count the error findings: %w", err)
		}
		return res.Errors, nil
	}
}

// reviewText is the gate for people: the verdict, why, who approved what, the open threads.
func reviewText(a reviewAnswer) string {
	s := a.Status
	var b strings.Builder
	verdict := "FAIL"
	if s.Passed {
		verdict = "PASS"
	}
	fmt.Fprintf(&b, "%s  workspace %s revision %d (%s): %d of %d approval(s), %d open thread(s), %d error finding(s)\n",
		verdict, line(s.Workspace, 40), s.Revision, shortHash(s.Hash), s.Approvals, s.Require, s.OpenThreads, s.Errors)
	for _, r := range s.Reasons {
		fmt.Fprintf(&b, "  - %s\n", line(r, 300))
	}
	if len(s.Signoffs) == 0 {
		b.WriteString("Sign-offs: none\n")
	} else {
		b.WriteString("Sign-offs:\n")
	}
	for _, ap := range s.Signoffs {
		what := "approved"
		if ap.Verdict == store.ChangesRequested {
			what = "requested changes on"
		}
		state := "current"
		if !ap.Current {
			state = "stale"
			if len(ap.Changed) > 0 {
				state += ": " + line(strings.Join(ap.Changed, "; "), 200)
			}
		}
		fmt.Fprintf(&b, "  %s %s revision %d (%s), %s — %s\n", line(ap.Author, 60), what, ap.Revision, shortHash(ap.Hash),
			ap.Created.UTC().Format("2006-01-02 15:04"), state)
	}
	open := 0
	for _, t := range a.Threads {
		if t.Resolved {
			continue
		}
		if open == 0 {
			b.WriteString("Open threads:\n")
		}
		open++
		extra := ""
		if t.Gone {
			extra = " (tool removed)"
		} else if t.Outdated {
			extra = " (outdated)"
		}
		fmt.Fprintf(&b, "  %s%s — %s: “%s” (%s)\n", line(t.Label, 100), extra, line(t.First.Author, 60), line(t.First.Body, 80), replies(len(t.Replies)))
	}
	if s.Approved >= 0 && s.Approved != s.Revision {
		fmt.Fprintf(&b, "Newest approved revision: %d (workbench fetch --compare approved:… compares with it)\n", s.Approved)
	}
	return b.String()
}

func replies(n int) string {
	switch n {
	case 0:
		return "no replies"
	case 1:
		return "1 reply"
	}
	return strconv.Itoa(n) + " replies"
}

// shortHash is a content hash as people read it: sha256: and 12 hex digits (a server's
// answer is checked like any user text).
func shortHash(h string) string {
	if r := []rune(h); len(r) > len("sha256:")+12 {
		h = string(r[:len("sha256:")+12])
	}
	return line(h, 80)
}

// line makes user text one safe terminal line of at most n characters: line breaks become
// spaces, control and invisible characters are escaped (printable), longer text ends in "…".
func line(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return termsafe.Escape(clip(s, n))
}

// clip cuts s to n characters, marking the cut with "…".
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
