package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
	"github.com/tool-workbench/workbench/web"
)

// reviewListing has two tools without titles: no error finding without a profile, one each
// (profile-title-missing) with claude-connectors.
const reviewListing = `{"tools": [
  {"name": "search_books", "description": "Search the catalogue by title or author. Use when the user names a book but not its id.",
   "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Title or author, e.g. Le Guin."}}, "required": ["q"]},
   "annotations": {"readOnlyHint": true}},
  {"name": "get_book", "description": "Return one book by its id. Use search_books first when you only know the title.",
   "inputSchema": {"type": "object", "properties": {"id": {"type": "integer", "description": "Book id, e.g. 42."}}, "required": ["id"]},
   "annotations": {"readOnlyHint": true}}
]}`

var reviewClock = func() time.Time { return time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) }

// reviewFixture is a SQLite database holding one workspace, and a review service over it.
type reviewFixture struct {
	db  string // the --db value
	st  store.Store
	svc *review.Service
	ws  string
}

func newReviewFixture(t *testing.T) *reviewFixture {
	t.Helper()
	return newReviewFixtureOf(t, reviewListing)
}

func newReviewFixtureOf(t *testing.T, src string) *reviewFixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wb.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := listing.Parse([]byte(src), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "books", Author: "Ana", Message: "imported", Listing: l, Now: reviewClock()})
	if err != nil {
		t.Fatal(err)
	}
	svc := review.New(st, review.Options{Now: reviewClock, Errors: storeErrors(st, &env{})})
	return &reviewFixture{db: "sqlite:" + path, st: st, svc: svc, ws: w.ID}
}

// edit commits the head's listing with one description changed.
func (f *reviewFixture) edit(t *testing.T, from, to string) {
	t.Helper()
	l, err := listing.Parse([]byte(strings.Replace(reviewListing, from, to, 1)), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Commit(context.Background(), store.Commit{Workspace: f.ws, Author: "Ana", Message: "edit", Listing: l, Now: reviewClock()}); err != nil {
		t.Fatal(err)
	}
}

// reviewGolden compares the output with testdata/golden/review-NAME, the random workspace
// id written as WSID.
func reviewGolden(t *testing.T, name, ws, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "review-"+name), []byte(strings.ReplaceAll(got, ws, "WSID")))
}

// TestReviewStatusLocal asks the gate of the store through a review: unapproved (exit 1),
// approved (0), an open thread (1), an edit that makes the approval stale (1), and with
// --format json the API's document.
func TestReviewStatusLocal(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	status := func(name string, want int, extra ...string) string {
		t.Helper()
		out, errOut, code := fetchCLI(t, nil, append([]string{"review", "status", f.ws, "--db", f.db}, extra...)...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s%s", name, code, want, out, errOut)
		}
		if name != "" {
			reviewGolden(t, name, f.ws, out)
		}
		return out
	}
	status("unapproved.txt", 1)
	if _, err := f.svc.SignOff(ctx, f.ws, store.Approved, "ships", review.Author{Name: "Ana", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	status("approved.txt", 0)
	status("require2.txt", 1, "--require", "2")
	// Without --require, the workspace's setting: 2 answers as --require 2 did.
	if err := f.svc.SetRequire(ctx, f.ws, 2); err != nil {
		t.Fatal(err)
	}
	status("require2.txt", 1)
	status("approved.txt", 0, "--require", "1")
	if err := f.svc.SetRequire(ctx, f.ws, 1); err != nil {
		t.Fatal(err)
	}
	th, err := f.svc.Comment(ctx, f.ws, review.Target{Index: 0, Tool: "search_books", Field: "/inputSchema/properties/q"},
		"Say which\nfields   | `match` <b>x</b> "+strings.Repeat("long ", 30), review.Author{Name: "Bo", ID: "b1"})
	if err != nil {
		t.Fatal(err)
	}
	status("open-thread.txt", 1)
	if err := f.svc.Resolve(ctx, f.ws, th.ID, true, review.Author{Name: "Bo", ID: "b1"}); err != nil {
		t.Fatal(err)
	}
	f.edit(t, "Le Guin", "Ursula K. Le Guin")
	status("stale.txt", 1)

	out := status("", 1, "--format", "json")
	var ans reviewAnswer
	if err := json.Unmarshal([]byte(out), &ans); err != nil || ans.Status.Workspace != f.ws || ans.Status.Approved != 0 || len(ans.Threads) != 1 {
		t.Errorf("--format json: %v\n%s", err, out)
	}
}

// TestReviewStatusRemote asks the gate of a server's API: with the token, without it, with a
// wrong one, for a workspace it does not have, and of servers that answer nonsense or nothing.
func TestReviewStatusRemote(t *testing.T) {
	f := newReviewFixture(t)
	const token = "share-token-0123456789abcdef"
	a := api.New(api.Options{Workspaces: f.st, Review: f.svc, Access: func(r *http.Request, _ string, write bool) (string, error) {
		if r.Header.Get("Authorization") != "Bearer "+token || write {
			return "", &api.Error{Code: api.CodeForbidden, Message: "no access to this workspace"}
		}
		return "ci", nil
	}})
	e := echo.New()
	a.Register(e.Group(api.Prefix))
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	if _, err := f.svc.SignOff(context.Background(), f.ws, store.Approved, "ships", review.Author{Name: "Ana", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>not json")) }))
	t.Cleanup(garbage.Close)
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat(" ", reviewMaxBytes+10)))
	}))
	t.Cleanup(huge.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()

	withToken := map[string]string{"WORKBENCH_TOKEN": token}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string // in stdout (exit 0 or 1) or stderr (2)
	}{
		{"page URL", withToken, []string{srv.URL + "/w/" + f.ws + "/tools/0"}, 0, "PASS  workspace"},
		{"API URL", withToken, []string{srv.URL + "/api/v1/workspaces/" + f.ws + "/review"}, 0, "PASS  workspace"},
		{"require 2", withToken, []string{srv.URL + "/w/" + f.ws, "--require", "2"}, 1, "FAIL  workspace"},
		{"other variable", map[string]string{"CI_TOKEN": token}, []string{srv.URL + "/w/" + f.ws, "--token-env", "CI_TOKEN"}, 0, "PASS"},
		{"no token", nil, []string{srv.URL + "/w/" + f.ws}, 2, "refused access (403: no access to this workspace); set $WORKBENCH_TOKEN"},
		{"wrong token", map[string]string{"WORKBENCH_TOKEN": "nope"}, []string{srv.URL + "/w/" + f.ws}, 2, "refused the token in $WORKBENCH_TOKEN"},
		{"unknown workspace", withToken, []string{srv.URL + "/w/0123456789abcdef0123456789abcdef"}, 2, "has no such workspace or revision (404"},
		{"not JSON", nil, []string{garbage.URL + "/w/" + f.ws}, 2, "not a review status"},
		{"too large", nil, []string{huge.URL + "/w/" + f.ws}, 2, "is over 32 MiB"},
		{"unreachable", nil, []string{gone.URL + "/w/" + f.ws}, 2, "cannot reach the workbench at"},
		{"no workspace in URL", nil, []string{srv.URL + "/runs"}, 2, "names no workspace"},
		{"bad id in URL", nil, []string{srv.URL + "/w/XYZ"}, 2, "is not 32 lowercase hex digits"},
		{"not a URL nor id", nil, []string{"books"}, 2, "neither a workspace URL"},
		{"ftp", nil, []string{"ftp://host/w/" + f.ws}, 2, "is not an http(s) URL"},
		{"db with URL", nil, []string{srv.URL + "/w/" + f.ws, "--db", f.db}, 2, "--db applies to a workspace id"},
		{"require 0", nil, []string{f.ws, "--require", "0"}, 2, "--require 0: give how many people must approve"},
		{"format", nil, []string{f.ws, "--format", "xml"}, 2, `--format "xml": use text or json`},
		{"no such workspace here", nil, []string{"0123456789abcdef0123456789abcdef", "--db", f.db}, 2, "no workspace 0123456789abcdef0123456789abcdef in this database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := fetchCLI(t, tc.env, append([]string{"review", "status"}, tc.args...)...)
			where := out
			if tc.code == 2 {
				where = errOut
			}
			if code != tc.code || !strings.Contains(where, tc.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tc.code, tc.want, out, errOut)
			}
			if strings.Contains(out+errOut, token) {
				t.Errorf("the token shows in the output")
			}
		})
	}
	// Without --require the server answers with the workspace's setting; with it, the job decides.
	if err := f.svc.SetRequire(context.Background(), f.ws, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{{nil, 1, "1 of 2 approval(s)"}, {[]string{"--require", "1"}, 0, "1 of 1 approval(s)"}} {
		out, errOut, code := fetchCLI(t, withToken, append([]string{"review", "status", srv.URL + "/w/" + f.ws}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("setting 2, %q: exit %d, want %d with %q\nstdout: %s\nstderr: %s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
}

// TestReviewTextIsSafe: what a server answered is user text: its workspace and hash reach the
// terminal as one escaped line, not as escape sequences.
func TestReviewTextIsSafe(t *testing.T) {
	hostile := "\x1b]0;pwned\x07\x1b[2J\r\nPASS"
	out := reviewText(reviewAnswer{Status: review.Status{Workspace: hostile, Hash: "sha256:" + hostile, Require: 1, Reasons: []string{}}})
	if strings.ContainsAny(out, "\x1b\x07\r") || strings.Count(out, "\n") != 2 {
		t.Errorf("raw control characters reach the terminal: %q", out)
	}
}

// TestReviewErrorsAgree: the CLI counts a workspace's error findings as the server's pages
// do, with the workspace's stored profile (the key the pages write).
func TestReviewErrorsAgree(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	srv := newReviewWebServer(t, f.st)
	rev, err := f.st.Revision(ctx, f.ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, profile := range []string{"", "claude-connectors"} {
		if profile != "" {
			if code := setProfileViaPage(t, srv, f.ws, profile); code >= 300 {
				t.Fatalf("setting the profile: %d", code)
			}
		}
		want, err := srv.ReviewErrors(ctx, f.ws, rev.Listing)
		if err != nil {
			t.Fatal(err)
		}
		got, err := storeErrors(f.st, &env{})(ctx, f.ws, rev.Listing)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("profile %q: the CLI counts %d errors, the server %d", profile, got, want)
		}
		if profile != "" && got == 0 {
			t.Errorf("profile %q: no error counted; the listing lacks titles, which it refuses", profile)
		}
	}
}

// newReviewWebServer is the pages' server over st, with serve's engine.
func newReviewWebServer(t *testing.T, st store.Store) *web.Server {
	t.Helper()
	eng, err := serveEngine()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Config{Store: st, Engine: eng, DatastarJS: []byte("// test client")})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// setProfileViaPage chooses the workspace's profile as the findings panel's form does, so
// that the store holds it where and as the pages keep it.
func setProfileViaPage(t *testing.T, srv *web.Server, ws, profile string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/profile", strings.NewReader(url.Values{"profile": {profile}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Host = "127.0.0.1" // local mode answers to loopback names only
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// TestServeReviewGate: serve wires one review service into the pages and the API, counting
// errors with the workspace's profile; review status asks it through the API and through the
// store, and both answers agree.
func TestServeReviewGate(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "wb.db")
	base, stop := startServe(t, "--db", db)
	defer stop()
	post := func(path, ctype, body string, want int) []byte {
		t.Helper()
		resp, err := http.Post(base+path, ctype, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("POST %s: %d, want %d: %s", path, resp.StatusCode, want, b)
		}
		return b
	}
	var ws struct{ ID string }
	json.Unmarshal(post("/api/v1/workspaces", "application/json", `{"listing": `+reviewListing+`}`, http.StatusCreated), &ws)
	post("/api/v1/workspaces/"+ws.ID+"/review/signoffs", "application/json", `{"verdict": "approved"}`, http.StatusCreated)
	for _, tc := range []struct {
		profile string
		code    int
		want    string
	}{
		{"claude-connectors", 1, "0 open thread(s), 2 error finding(s)"},
		{"", 0, "PASS"},
	} {
		post("/w/"+ws.ID+"/profile", "application/x-www-form-urlencoded", url.Values{"profile": {tc.profile}}.Encode(), http.StatusNoContent)
		for _, target := range [][]string{{base + "/w/" + ws.ID}, {ws.ID, "--db", db}} {
			out, errOut, code := fetchCLI(t, nil, append([]string{"review", "status"}, target...)...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("profile %q, %v: exit %d, want %d with %q\n%s%s", tc.profile, target, code, tc.code, tc.want, out, errOut)
			}
		}
	}
}

// FuzzParseReviewTarget: any argument is a workspace target (an id of 32 lowercase hex digits,
// and for a URL an http(s) base with a host) or an error that says what to give; never a panic.
func FuzzParseReviewTarget(f *testing.F) {
	for _, s := range []string{"0123456789abcdef0123456789abcdef", "http://127.0.0.1:8080/w/0123456789abcdef0123456789abcdef",
		"https://wb.example.com/prefix/api/v1/workspaces/0123456789abcdef0123456789abcdef/review", "http://x/w/", "ftp://x/w/a", "http://[::1/w/x", "approved:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseReviewTarget(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", s)
			}
			return
		}
		if _, err := store.ParseID("workspace id", tg.id); err != nil {
			t.Fatalf("%q: accepted with the id %q: %v", s, tg.id, err)
		}
		if tg.base != "" && !strings.HasPrefix(tg.base, "http://") && !strings.HasPrefix(tg.base, "https://") {
			t.Fatalf("%q: accepted with the base %q", s, tg.base)
		}
	})
}
