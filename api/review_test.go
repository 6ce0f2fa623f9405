package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// reviewRouter is the API over a SQLite store with a review service (no error findings unless
// errs says otherwise) and one workspace holding small.
func reviewRouter(t testing.TB, opts Options, errs *int) (e *echo.Echo, st store.Store, svc *review.Service, ws string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc = review.New(st, review.Options{Now: fixedClock, Errors: func(context.Context, string, *listing.Listing) (int, error) {
		if errs == nil {
			return 0, nil
		}
		return *errs, nil
	}})
	opts.Workspaces, opts.Review, opts.Now = st, svc, fixedClock
	e = newRouter(t, opts)
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small))
	var w workspaceResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	return e, st, svc, w.ID
}

// gateAnswer is GET …/review's answer with its threads whole (?threads=all or open).
type gateAnswer struct {
	Status  review.Status   `json:"status"`
	Threads []review.Thread `json:"threads"`
}

// getGate asks the gate and validates the answer against the document.
func getGate(t *testing.T, e *echo.Echo, ws, query string) gateAnswer {
	t.Helper()
	path := Prefix + "/workspaces/" + ws + "/review" + query
	rec := call(e, http.MethodGet, path, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodGet, path, rec)
	var r gateAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReviewGate walks the gate through a review: nobody approved; one approval passes
// require=1 but not require=2; an open thread and an error finding each fail it; an edit
// makes the approval stale; ?revision= reads the approved listing back.
func TestReviewGate(t *testing.T) {
	errs := 0
	e, _, svc, ws := reviewRouter(t, Options{}, &errs)
	ctx := context.Background()
	if r := getGate(t, e, ws, ""); r.Status.Passed || r.Status.Require != 1 || len(r.Status.Reasons) == 0 || r.Status.Approved != -1 {
		t.Errorf("no sign-off yet: %+v", r.Status)
	}
	if _, err := svc.SignOff(ctx, ws, store.Approved, "ships", review.Author{Name: "Ana", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	r := getGate(t, e, ws, "")
	if !r.Status.Passed || r.Status.Approvals != 1 || len(r.Status.Signoffs) != 1 || !r.Status.Signoffs[0].Current || r.Status.Approved != 0 {
		t.Errorf("approved by one: %+v", r.Status)
	}
	if r := getGate(t, e, ws, "?require=2"); r.Status.Passed || r.Status.Require != 2 {
		t.Errorf("require=2 with one approval passed: %+v", r.Status)
	}
	errs = 1
	if r := getGate(t, e, ws, ""); r.Status.Passed || r.Status.Errors != 1 {
		t.Errorf("an error finding passed: %+v", r.Status)
	}
	errs = 0
	c, err := svc.Comment(ctx, ws, review.Target{Index: 0, Tool: "search_books", Field: "/inputSchema/properties/q"}, "say <b>which</b> | fields", review.Author{Name: "Bo"})
	if err != nil {
		t.Fatal(err)
	}
	r = getGate(t, e, ws, "")
	if r.Status.Passed || r.Status.OpenThreads != 1 || len(r.Threads) != 1 || r.Threads[0].First.Body != "say <b>which</b> | fields" || r.Threads[0].Resolved {
		t.Errorf("an open thread: %+v %+v", r.Status, r.Threads)
	}
	if err := svc.Resolve(ctx, ws, c.ID, true, review.Author{Name: "Bo"}); err != nil {
		t.Fatal(err)
	}
	if r := getGate(t, e, ws, ""); !r.Status.Passed || !r.Threads[0].Resolved {
		t.Errorf("thread resolved: %+v", r.Status)
	}

	put := body("listing", quote(strings.Replace(small, "Le Guin", "Ursula K. Le Guin", 1)))
	if rec := call(e, http.MethodPut, Prefix+"/workspaces/"+ws+"/listing", put); rec.Code != http.StatusOK {
		t.Fatalf("put: %d %s", rec.Code, rec.Body)
	}
	r = getGate(t, e, ws, "")
	if r.Status.Passed || r.Status.Revision != 1 || r.Status.Signoffs[0].Current || r.Status.Approved != 0 {
		t.Errorf("after an edit the approval should be stale: %+v", r.Status)
	}
	path := Prefix + "/workspaces/" + ws + "/listing?revision=0"
	rec := call(e, http.MethodGet, path, "")
	checkResponse(t, http.MethodGet, path, rec)
	if rec.Header().Get("X-Workbench-Revision") != "0" || !strings.Contains(rec.Body.String(), `"Title or author, e.g. Le Guin."`) {
		t.Errorf("revision 0: %s %s", rec.Header().Get("X-Workbench-Revision"), rec.Body)
	}
}

// TestReviewErrors sends the review and listing endpoints what they must refuse.
func TestReviewErrors(t *testing.T) {
	e, _, _, ws := reviewRouter(t, Options{}, nil)
	base := Prefix + "/workspaces/" + ws
	for _, tc := range []struct {
		name, path string
		code       Code
		inMessage  string
	}{
		{"require zero", base + "/review?require=0", CodeInvalidField, "require=\"0\" is not a whole number from 1"},
		{"require word", base + "/review?require=two", CodeInvalidField, "require=\"two\""},
		{"require twice", base + "/review?require=1&require=2", CodeInvalidField, "given 2 times"},
		{"require huge", base + "/review?require=101", CodeInvalidField, "from 1 to 100"},
		{"no such workspace", Prefix + "/workspaces/0123456789abcdef0123456789abcdef/review", CodeNotFound, "no workspace"},
		{"malformed id", Prefix + "/workspaces/..%2f/review", CodeNotFound, "no such workspace"},
		{"revision negative", base + "/listing?revision=-1", CodeInvalidField, "from 0 to"},
		{"revision past head", base + "/listing?revision=7", CodeNotFound, "has no revision 7: its head is revision 0"},
		{"revision of no workspace", Prefix + "/workspaces/0123456789abcdef0123456789abcdef/listing?revision=0", CodeNotFound, "no workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := call(e, http.MethodGet, tc.path, "")
			got := apiError(t, rec)
			if got.Code != tc.code || !strings.Contains(got.Message, tc.inMessage) || got.Hint == "" && tc.code == CodeInvalidField {
				t.Errorf("%s: %s %q (hint %q), want %s with %q", tc.path, got.Code, got.Message, got.Hint, tc.code, tc.inMessage)
			}
			checkResponse(t, http.MethodGet, tc.path, rec)
		})
	}
}

// TestReviewAccess: the gate is read with a view capability (write false), a refusal is the
// API's 403, and a server without a review service says so.
func TestReviewAccess(t *testing.T) {
	var asked []bool
	deny := false
	e, _, _, ws := reviewRouter(t, Options{Access: func(_ *http.Request, _ string, write bool) (string, error) {
		asked = append(asked, write)
		if deny {
			return "", errors.New("no access to this workspace")
		}
		return "viewer", nil
	}}, nil)
	path := Prefix + "/workspaces/" + ws + "/review"
	asked = nil
	getGate(t, e, ws, "")
	if len(asked) != 1 || asked[0] {
		t.Errorf("access asked %v, want one read", asked)
	}
	deny = true
	rec := call(e, http.MethodGet, path, "")
	if got := apiError(t, rec); got.Code != CodeForbidden {
		t.Errorf("denied: %s %s", got.Code, got.Message)
	}
	checkResponse(t, http.MethodGet, path, rec)

	plain := newRouter(t, Options{Workspaces: newFakeStore()})
	rec = call(plain, http.MethodGet, path, "")
	if got := apiError(t, rec); got.Code != CodeNotFound || !strings.Contains(got.Message, "keeps no reviews") {
		t.Errorf("no review service: %s %s", got.Code, got.Message)
	}
}

// TestReviewWrites signs off and comments through the API: the author is the Access hook's
// identity and no member can name another; a view capability cannot write; mistakes answer
// what would work.
func TestReviewWrites(t *testing.T) {
	canEdit := true
	e, _, _, ws := reviewRouter(t, Options{Access: func(_ *http.Request, _ string, write bool) (string, error) {
		if write && !canEdit {
			return "", &Error{Code: CodeForbidden, Message: "a view link cannot change the workspace"}
		}
		return "release-bot", nil
	}}, nil)
	base := Prefix + "/workspaces/" + ws + "/review"
	post := func(path, b string, want int) *httptest.ResponseRecorder {
		t.Helper()
		checkRequest(t, http.MethodPost, path, b)
		rec := call(e, http.MethodPost, path, b)
		if rec.Code != want {
			t.Fatalf("POST %s %s: %d, want %d: %s", path, b, rec.Code, want, rec.Body)
		}
		checkResponse(t, http.MethodPost, path, rec)
		return rec
	}
	var so store.Signoff
	json.Unmarshal(post(base+"/signoffs", `{"verdict": "approved", "message": "bot: clean"}`, http.StatusCreated).Body.Bytes(), &so)
	if so.Author != "release-bot" || so.Verdict != store.Approved || so.Revision != 0 || !strings.HasPrefix(so.Hash, "sha256:") {
		t.Errorf("sign-off: %+v", so)
	}
	var first store.Comment
	json.Unmarshal(post(base+"/comments", `{"tool": "get_book", "index": 1, "field": "/description", "body": "clearer?"}`, http.StatusCreated).Body.Bytes(), &first)
	if first.Author != "release-bot" || first.Anchor.Tool != "get_book" || first.Anchor.Field != "/description" {
		t.Errorf("thread: %+v", first)
	}
	var reply store.Comment
	json.Unmarshal(post(base+"/comments", body("thread", quote(first.ID), "body", `"yes"`), http.StatusCreated).Body.Bytes(), &reply)
	if reply.Thread != first.ID || reply.Author != "release-bot" {
		t.Errorf("reply: %+v", reply)
	}
	if r := getGate(t, e, ws, ""); r.Status.Passed || r.Status.Approvals != 1 || r.Status.OpenThreads != 1 || len(r.Threads[0].Replies) != 1 {
		t.Errorf("after the writes: %+v", r)
	}

	for _, tc := range []struct {
		name, path, body string
		code             Code
		inMessage        string
	}{
		{"author named", base + "/signoffs", `{"verdict": "approved", "author": "Ana"}`, CodeUnknownField, "author"},
		{"no verdict", base + "/signoffs", `{"message": "x"}`, CodeMissingField, "verdict"},
		{"bad verdict", base + "/signoffs", `{"verdict": "lgtm"}`, CodeInvalidField, "unknown verdict"},
		{"no body", base + "/comments", `{"tool": "get_book", "index": 1}`, CodeMissingField, "body"},
		{"no tool", base + "/comments", `{"body": "x"}`, CodeMissingField, "tool"},
		{"reply with a tool", base + "/comments", body("thread", quote(first.ID), "tool", `"get_book"`, "body", `"x"`), CodeInvalidField, "does not go with"},
		{"negative index", base + "/comments", `{"tool": "get_book", "index": -1, "body": "x"}`, CodeInvalidField, "at least 0"},
		{"no such thread", base + "/comments", `{"thread": "0123456789abcdef0123456789abcdef", "body": "x"}`, CodeNotFound, "has no thread"},
		{"listing changed", base + "/comments", `{"tool": "search_books", "index": 1, "body": "x"}`, CodeConflict, "the listing changed"},
		{"no such field", base + "/comments", `{"tool": "get_book", "index": 1, "field": "/inputSchema/properties/nope", "body": "x"}`, CodeInvalidField, "has no"},
		{"stale hash", base + "/signoffs", `{"verdict": "approved", "hash": "sha256:00"}`, CodeConflict, ""},
		{"author id named", base + "/comments", `{"tool": "get_book", "index": 1, "body": "x", "authorId": "a1"}`, CodeUnknownField, "authorId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, tc.path, tc.body)
			got := apiError(t, rec)
			if got.Code != tc.code || !strings.Contains(got.Message, tc.inMessage) {
				t.Errorf("%s: %s %q, want %s with %q", tc.body, got.Code, got.Message, tc.code, tc.inMessage)
			}
			checkResponse(t, http.MethodPost, tc.path, rec)
		})
	}
	canEdit = false
	rec := call(e, http.MethodPost, base+"/signoffs", `{"verdict": "approved"}`)
	if got := apiError(t, rec); got.Code != CodeForbidden {
		t.Errorf("a view capability signed off: %s %s", got.Code, got.Message)
	}
}

// FuzzReviewPost: any body sent to the review's two POST routes is a 201 with a JSON body or an
// error in the one shape with a documented 4xx status: no panic, no 500.
func FuzzReviewPost(f *testing.F) {
	f.Add(uint8(0), []byte(`{"tool": "search_books", "index": 0, "field": "/description", "body": "Say what it matches."}`))
	f.Add(uint8(0), []byte(`{"thread": "00000000000000000000000000000000", "body": "x"}`))
	f.Add(uint8(0), []byte(`{"tool": "search_books", "index": 0, "finding": "rule", "text": "msg", "body": "a\u202eb"}`))
	f.Add(uint8(1), []byte(`{"verdict": "approved", "message": "ships", "hash": "sha256:00"}`))
	f.Add(uint8(1), []byte(`{"verdict": "changes", "author": "someone else"}`))
	e, _, _, ws := reviewRouter(f, Options{MaxBodyBytes: 1 << 16}, nil)
	paths := []string{"/comments", "/signoffs"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		path := Prefix + "/workspaces/" + ws + "/review" + paths[int(which)%len(paths)]
		rec := call(e, http.MethodPost, path, string(body))
		switch {
		case rec.Code == http.StatusCreated:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("201 with a body that is not JSON: %.200s", rec.Body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			var eb struct{ Error *Error }
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == nil || eb.Error.Code.Status() != rec.Code {
				t.Fatalf("%d without the error shape: %.300s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d for %q: %.300s", rec.Code, body, rec.Body)
		}
	})
}
