package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

func fixedClock() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

// TestWorkspaceLifecycle creates a workspace, reads its listing, replaces it and lists the
// revisions, validating every answer against the document.
func TestWorkspaceLifecycle(t *testing.T) {
	fs := newFakeStore()
	e := newRouter(t, Options{Workspaces: fs, Now: fixedClock})
	// Member order and number spelling must survive the store and the GET.
	orig := `{"tools": [{"name": "b", "zeta": 2.50, "inputSchema": {"type": "object"}}, {"name": "a"}], "nextCursor": null}`
	create := body("title", `"library"`, "listing", orig, "tasks", `[{"task": "x", "expect": "a"}]`)
	checkRequest(t, http.MethodPost, Prefix+"/workspaces", create)
	rec := call(e, http.MethodPost, Prefix+"/workspaces", create)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodPost, Prefix+"/workspaces", rec)
	var w workspaceResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil {
		t.Fatal(err)
	}
	listingURL := Prefix + "/workspaces/" + w.ID + "/listing"
	if w.Title != "library" || w.Tools != 2 || w.Listing != listingURL || rec.Header().Get("Location") != listingURL {
		t.Errorf("created: %+v, Location %q", w, rec.Header().Get("Location"))
	}
	if string(fs.ws[w.ID].revs[0].Author) != "api" {
		t.Errorf("author %q, want api (no Access hook)", fs.ws[w.ID].revs[0].Author)
	}

	rec = call(e, http.MethodGet, listingURL, "")
	checkResponse(t, http.MethodGet, listingURL, rec)
	l, _ := listing.Parse([]byte(orig), listing.Options{})
	if rec.Body.String() != string(export.JSON(l, export.JSONOptions{})) || rec.Header().Get("X-Workbench-Revision") != "0" {
		t.Errorf("GET listing (revision %q):\n%s", rec.Header().Get("X-Workbench-Revision"), rec.Body)
	}
	if !strings.Contains(rec.Body.String(), `"zeta": 2.50`) {
		t.Errorf("number spelling lost: %s", rec.Body)
	}

	put := body("listing", quote(small), "message", `"from CI"`)
	checkRequest(t, http.MethodPut, listingURL, put)
	rec = call(e, http.MethodPut, listingURL, put)
	if rec.Code != http.StatusOK {
		t.Fatalf("put: %d %s", rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodPut, listingURL, rec)
	var pr putListingResponse
	json.Unmarshal(rec.Body.Bytes(), &pr)
	if pr.Revision.Number != 1 || pr.Revision.Kind != store.KindReplace || pr.Revision.Message != "from CI" || pr.Tools != 2 || pr.Seq != 1 {
		t.Errorf("put: %+v", pr)
	}
	rec = call(e, http.MethodGet, listingURL, "")
	if !strings.Contains(rec.Body.String(), `"search_books"`) || rec.Header().Get("X-Workbench-Revision") != "1" {
		t.Errorf("GET after PUT: %s", rec.Body)
	}

	revURL := Prefix + "/workspaces/" + w.ID + "/revisions"
	rec = call(e, http.MethodGet, revURL, "")
	checkResponse(t, http.MethodGet, revURL, rec)
	var rr revisionsResponse
	json.Unmarshal(rec.Body.Bytes(), &rr)
	if len(rr.Revisions) != 2 || rr.Revisions[0].Number != 1 || rr.Revisions[1].Kind != store.KindImport || rr.Workspace != w.ID {
		t.Errorf("revisions: %s", rec.Body)
	}
}

func TestWorkspaceErrors(t *testing.T) {
	fs := newFakeStore()
	denyWrites := func(r *http.Request, ws string, write bool) (string, error) {
		if r.Header.Get("X-Test-User") == "" {
			return "", errors.New("this link can view the workspace, not edit it")
		}
		if write && r.Header.Get("X-Test-User") == "viewer" {
			return "", &Error{Code: CodeForbidden, Message: "a view link cannot edit", Hint: "ask for an edit link"}
		}
		return r.Header.Get("X-Test-User"), nil
	}
	e := newRouter(t, Options{Workspaces: fs, Access: denyWrites, Now: fixedClock})
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small), "X-Test-User", "ann")
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var w workspaceResponse
	json.Unmarshal(rec.Body.Bytes(), &w)
	if fs.ws[w.ID].revs[0].Author != "ann" {
		t.Errorf("author %q, want the Access hook's ann", fs.ws[w.ID].revs[0].Author)
	}
	listingURL := Prefix + "/workspaces/" + w.ID + "/listing"
	missing := Prefix + "/workspaces/0123456789abcdef0123456789abcdef/listing"
	for _, c := range []struct {
		name, method, path, body string
		headers                  []string
		code                     Code
	}{
		{"malformed id", http.MethodGet, Prefix + "/workspaces/..%2f..%2fetc/listing", "", []string{"X-Test-User", "ann"}, CodeNotFound},
		{"upper-case id", http.MethodGet, Prefix + "/workspaces/0123456789ABCDEF0123456789ABCDEF/revisions", "", []string{"X-Test-User", "ann"}, CodeNotFound},
		{"unknown id", http.MethodGet, missing, "", []string{"X-Test-User", "ann"}, CodeNotFound},
		{"unknown id put", http.MethodPut, missing, body("listing", small), []string{"X-Test-User", "ann"}, CodeNotFound},
		{"no access", http.MethodGet, listingURL, "", nil, CodeForbidden},
		{"view link cannot edit", http.MethodPut, listingURL, body("listing", small), []string{"X-Test-User", "viewer"}, CodeForbidden},
		{"cross-origin put", http.MethodPut, listingURL, body("listing", small), []string{"X-Test-User", "ann", "Origin", "https://evil.example"}, CodeCrossOrigin},
		{"put without listing", http.MethodPut, listingURL, `{"message": "x"}`, []string{"X-Test-User", "ann"}, CodeMissingField},
		{"put unknown member", http.MethodPut, listingURL, body("listing", small, "title", `"x"`), []string{"X-Test-User", "ann"}, CodeUnknownField},
		{"put broken listing", http.MethodPut, listingURL, body("listing", `{"tools": "none"}`), []string{"X-Test-User", "ann"}, CodeInvalidListing},
		{"create bad tasks", http.MethodPost, Prefix + "/workspaces", body("listing", small, "tasks", `[1]`), []string{"X-Test-User", "ann"}, CodeInvalidTasks},
		{"create tasks with NaN", http.MethodPost, Prefix + "/workspaces", body("listing", small, "tasks", `[{"task": "x", "expect": null, "args": {"n": NaN}}]`), []string{"X-Test-User", "ann"}, CodeInvalidTasks},
		{"create wrong type", http.MethodPost, Prefix + "/workspaces", `{"listing": [], "title": 7}`, []string{"X-Test-User", "ann"}, CodeInvalidField},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := call(e, c.method, c.path, c.body, c.headers...)
			got := apiError(t, rec)
			if got.Code != c.code {
				t.Fatalf("%s (%s), want %s", got.Code, got.Message, c.code)
			}
			if c.name != "malformed id" {
				checkResponse(t, c.method, c.path, rec)
			}
		})
	}

	t.Run("store conflict", func(t *testing.T) {
		fs.fail = store.Errorf(store.Conflict, "commit", "another commit won the race")
		defer func() { fs.fail = nil }()
		rec := call(e, http.MethodPut, listingURL, body("listing", small), "X-Test-User", "ann")
		if got := apiError(t, rec); got.Code != CodeConflict {
			t.Errorf("%s, want conflict", got.Code)
		}
		checkResponse(t, http.MethodPut, listingURL, rec)
	})
	t.Run("store outage", func(t *testing.T) {
		fs.fail = errors.New("database is locked: /var/lib/secret.db")
		defer func() { fs.fail = nil }()
		rec := call(e, http.MethodPut, listingURL, body("listing", small), "X-Test-User", "ann")
		got := apiError(t, rec)
		if got.Code != CodeInternal || strings.Contains(rec.Body.String(), "secret") {
			t.Errorf("an outage must be a bare 500: %s", rec.Body)
		}
		checkResponse(t, http.MethodPut, listingURL, rec)
	})
}

// TestNoStore: without a store the workspace endpoints say so in the error shape.
func TestNoStore(t *testing.T) {
	e := newRouter(t, Options{})
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small))
	if got := apiError(t, rec); got.Code != CodeNotFound || !strings.Contains(got.Message, "no workspaces") {
		t.Errorf("%+v", got)
	}
}

// TestRevisionPages pages through a workspace's revisions with before= and limit=, following
// next, and refuses values that cannot be a page.
func TestRevisionPages(t *testing.T) {
	fs := newFakeStore()
	e := newRouter(t, Options{Workspaces: fs, Now: fixedClock})
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small))
	var w workspaceResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil {
		t.Fatalf("create: %v: %s", err, rec.Body)
	}
	listingURL := Prefix + "/workspaces/" + w.ID + "/listing"
	for range 4 {
		if rec := call(e, http.MethodPut, listingURL, body("listing", quote(small))); rec.Code != http.StatusOK {
			t.Fatalf("put: %d %s", rec.Code, rec.Body)
		}
	}
	revURL := w.Revisions
	page := func(t *testing.T, query string) ([]int, json.RawMessage) {
		t.Helper()
		rec := call(e, http.MethodGet, revURL+query, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", query, rec.Code, rec.Body)
		}
		checkResponse(t, http.MethodGet, revURL+query, rec)
		var got struct {
			Revisions []store.Revision `json:"revisions"`
			Next      json.RawMessage  `json:"next"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		var numbers []int
		for _, r := range got.Revisions {
			numbers = append(numbers, r.Number)
		}
		return numbers, got.Next
	}

	var seen []int
	query := "?limit=2"
	for range 3 {
		numbers, next := page(t, query)
		seen = append(seen, numbers...)
		if string(next) == "null" {
			break
		}
		query = "?limit=2&before=" + string(next)
	}
	if fmt.Sprint(seen) != "[4 3 2 1 0]" {
		t.Errorf("following next by pages of 2 gave %v; want [4 3 2 1 0]", seen)
	}
	for _, c := range []struct{ query, numbers, next string }{
		{"", "[4 3 2 1 0]", "null"},
		{"?limit=1", "[4]", "4"},
		{"?before=4&limit=2", "[3 2]", "2"},
		{"?before=1", "[0]", "null"},
		{"?before=99999&limit=1", "[4]", "4"},
		{"?limit=1000", "[4 3 2 1 0]", "null"},
	} {
		numbers, next := page(t, c.query)
		if fmt.Sprint(numbers) != c.numbers || string(next) != c.next {
			t.Errorf("GET revisions%s: %v, next %s; want %s, next %s", c.query, numbers, next, c.numbers, c.next)
		}
	}

	for _, c := range []struct{ query, field, hint string }{
		{"?before=x", "before", "revision number of 1 or more"},
		{"?before=0", "before", "revision number of 1 or more"},
		{"?before=-3", "before", "revision number of 1 or more"},
		{"?before=", "before", "revision number of 1 or more"},
		{"?before=2&before=3", "before", "revision number of 1 or more"},
		{"?limit=-1", "limit", "1 to 1000"},
		{"?limit=0", "limit", "1 to 1000"},
		{"?limit=100000", "limit", "1 to 1000"},
		{"?limit=1.5", "limit", "1 to 1000"},
		{"?limit=99999999999999999999", "limit", "1 to 1000"},
	} {
		t.Run(c.query, func(t *testing.T) {
			rec := call(e, http.MethodGet, revURL+c.query, "")
			got := apiError(t, rec)
			if rec.Code != http.StatusBadRequest || got.Code != CodeInvalidField || got.Field != c.field || !strings.Contains(got.Hint, c.hint) {
				t.Errorf("%d %+v; want 400 invalid_field on %s with a hint saying %q", rec.Code, got, c.field, c.hint)
			}
			checkResponse(t, http.MethodGet, revURL+c.query, rec)
		})
	}
}

// TestRenameWorkspace: PATCH /workspaces/{id} sets the title, cleaned as the pages clean it, and
// refuses an empty one, a read-only caller and an unknown workspace.
func TestRenameWorkspace(t *testing.T) {
	fs := newFakeStore()
	e := newRouter(t, Options{Workspaces: fs, Now: fixedClock})
	rec := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small))
	var w workspaceResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil {
		t.Fatalf("create: %v: %s", err, rec.Body)
	}
	url := Prefix + "/workspaces/" + w.ID
	viewOnly := func(_ *http.Request, _ string, write bool) (string, error) {
		if write {
			return "", &Error{Code: CodeForbidden, Message: "a view link cannot edit", Hint: "ask for an edit link"}
		}
		return "viewer", nil
	}
	tests := []struct {
		name, url, body string
		opts            *Options
		status          int
		title           string
	}{
		{"renamed", url, `{"title": " Library\u0007 ✓ "}`, nil, http.StatusOK, "Library  ✓"},
		{"empty", url, `{"title": "  "}`, nil, http.StatusBadRequest, ""},
		{"not a string", url, `{"title": 3}`, nil, http.StatusBadRequest, ""},
		{"read only", url, `{"title": "x"}`, &Options{Workspaces: fs, Access: viewOnly, Now: fixedClock}, http.StatusForbidden, ""},
		{"unknown", Prefix + "/workspaces/" + strings.Repeat("0", 32), `{"title": "x"}`, nil, http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e
			if tt.opts != nil {
				r = newRouter(t, *tt.opts)
			}
			rec := call(r, http.MethodPatch, tt.url, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			checkResponse(t, http.MethodPatch, tt.url, rec)
			if tt.title == "" {
				return
			}
			var got workspaceResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Title != tt.title || got.Tools != w.Tools {
				t.Errorf("answer %+v (%v), want title %q", got, err, tt.title)
			}
		})
	}
}
