package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// roundTripServer is the API over a real SQLite store on an httptest server, with one
// workspace: what a user reaches with curl.
func roundTripServer(t *testing.T, opts Options) (srv *httptest.Server, st store.Store, ws string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts.Workspaces = st
	e := echo.New()
	New(opts).Register(e.Group(Prefix))
	srv = httptest.NewServer(e)
	t.Cleanup(srv.Close)
	res := send(t, http.MethodPost, srv.URL+Prefix+"/workspaces", "application/json", body("listing", small), nil)
	var w workspaceResponse
	if err := json.Unmarshal([]byte(res.body), &w); err != nil || res.code != http.StatusCreated {
		t.Fatalf("create: %d %s", res.code, res.body)
	}
	return srv, st, w.ID
}

type answer struct {
	code int
	body string
	rev  string
}

func send(t *testing.T, method, u, contentType, body string, header http.Header) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, string(b), res.Header.Get("X-Workbench-Revision")}
}

// headMessage is the message of the workspace's newest revision.
func headMessage(t *testing.T, st store.Store, ws string) string {
	t.Helper()
	rev, err := st.Revision(context.Background(), ws, -1)
	if err != nil {
		t.Fatal(err)
	}
	return rev.Message
}

// TestListingRoundTrip is what a new user does: GET the listing, edit the file, PUT it back.
func TestListingRoundTrip(t *testing.T) {
	srv, st, ws := roundTripServer(t, Options{})
	u := srv.URL + Prefix + "/workspaces/" + ws + "/listing"
	got := send(t, http.MethodGet, u, "", "", nil)
	if got.code != http.StatusOK || got.rev != "0" {
		t.Fatalf("GET: %d (revision %q) %s", got.code, got.rev, got.body)
	}
	edited := strings.Replace(got.body, "Search the catalogue", "Search the library's catalogue", 1)
	if edited == got.body {
		t.Fatalf("the listing has no description to edit: %s", got.body)
	}
	for i, c := range []struct {
		name, contentType, query string
		header                   http.Header
		want                     string
	}{
		{"message in the query", "application/json", "?message=" + url.QueryEscape("tighten the search tool's description"), nil, "tighten the search tool's description"},
		{"message in the header", "application/json", "", http.Header{MessageHeader: {"from CI"}}, "from CI"},
		{"no message", "application/json", "", nil, "replaced through the API"},
		{"curl -d's form type", "application/x-www-form-urlencoded", "?message=curl", nil, "curl"},
	} {
		body := edited
		if i%2 == 1 {
			body = got.body // back and forth, so that every PUT changes the listing
		}
		put := send(t, http.MethodPut, u+c.query, c.contentType, body, c.header)
		if put.code != http.StatusOK {
			t.Fatalf("%s: PUT what GET gave: %d %s", c.name, put.code, put.body)
		}
		if m := headMessage(t, st, ws); m != c.want {
			t.Errorf("%s: the revision's message is %q, want %q", c.name, m, c.want)
		}
		again := send(t, http.MethodGet, u, "", "", nil)
		if again.body != body || again.rev != put.rev {
			t.Errorf("%s: GET after PUT (revision %s, PUT said %s):\n%s\nwant:\n%s", c.name, again.rev, put.rev, again.body, body)
		}
	}
}

// TestListingPutForms tells the wrapped form from a listing, and refuses what is neither.
func TestListingPutForms(t *testing.T) {
	srv, st, ws := roundTripServer(t, Options{})
	u := srv.URL + Prefix + "/workspaces/" + ws + "/listing"
	tool := func(name, extra string) string {
		return `{"name": "` + name + `", "description": "Find a thing by its name.", "inputSchema": {"type": "object"}` + extra + `}`
	}
	for _, c := range []struct {
		name, body, query string
		header            http.Header
		code              int
		tools             string // the tool names the head holds after, comma-separated
		message           string
	}{
		{"wrapped", body("listing", `{"tools": [`+tool("a", "")+`]}`, "message", `"wrapped"`), "", nil, 200, "a", "wrapped"},
		{"wrapped text", body("listing", quote(`[`+tool("b", "")+`]`)), "?message=m", nil, 200, "b", "m"},
		{"a result with a listing member", `{"tools": [` + tool("c", "") + `], "listing": {"tools": []}}`, "", nil, 200, "c", "replaced through the API"},
		{"a tool with a listing member", tool("d", `, "listing": {"tools": []}`), "", nil, 200, "d", "replaced through the API"},
		{"a JSON-RPC response with a listing member", `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [` + tool("e", "") + `]}, "listing": 1}`, "", nil, 200, "e", "replaced through the API"},
		{"an array of tools", `[` + tool("f", "") + `, ` + tool("g", "") + `]`, "", nil, 200, "f,g", "replaced through the API"},
		{"wrapped, a misspelt member", body("listing", `[`+tool("h", "")+`]`, "mesage", `"x"`), "", nil, 400, "", ""},
		{"wrapped, message twice", body("listing", `[`+tool("h", "")+`]`, "message", `"x"`), "?message=y", nil, 400, "", ""},
		{"message in query and header", `[` + tool("h", "") + `]`, "?message=y", http.Header{MessageHeader: {"z"}}, 400, "", ""},
		{"message not UTF-8", `[` + tool("h", "") + `]`, "", http.Header{MessageHeader: {"caf\xe9"}}, 400, "", ""},
		{"no tools", `{"nextCursor": null}`, "", nil, 422, "", ""},
		{"not JSON", `{"tools": [`, "", nil, 400, "", ""},
		{"deeply nested", `[{"name": "deep", "inputSchema": ` + strings.Repeat(`{"a":`, 80) + `1` + strings.Repeat(`}`, 80) + `}]`, "", nil, 413, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			put := send(t, http.MethodPut, u+c.query, "application/json", c.body, c.header)
			if put.code != c.code {
				t.Fatalf("PUT: %d, want %d: %s", put.code, c.code, put.body)
			}
			if c.code != http.StatusOK {
				var e errorBody
				if err := json.Unmarshal([]byte(put.body), &e); err != nil || e.Error == nil || e.Error.Message == "" {
					t.Errorf("the refusal is not an API error: %s", put.body)
				}
				return
			}
			rev, err := st.Revision(context.Background(), ws, -1)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range rev.Listing.Tools {
				names = append(names, tl.Get("name").Str)
			}
			if strings.Join(names, ",") != c.tools || rev.Message != c.message {
				t.Errorf("head: tools %v, message %q; want %s, %q", names, rev.Message, c.tools, c.message)
			}
		})
	}
}

// TestTasksRoundTrip serves the task file as the page's export writes it and takes it back.
func TestTasksRoundTrip(t *testing.T) {
	srv, st, ws := roundTripServer(t, Options{})
	u := srv.URL + Prefix + "/workspaces/" + ws + "/tasks"
	got := send(t, http.MethodGet, u, "", "", nil)
	if got.code != http.StatusOK || got.body != "[]\n" {
		t.Fatalf("GET with no task file: %d %q, want 200 \"[]\\n\"", got.code, got.body)
	}
	file := `[{"task": "Find books by Le Guin", "expect": "search_books", "tags": ["smoke"]}, {"task": "Hello", "expect": null}]`
	put := send(t, http.MethodPut, u+"?message=first+tasks", "application/json", file, nil)
	if put.code != http.StatusOK {
		t.Fatalf("PUT: %d %s", put.code, put.body)
	}
	var pr putTasksResponse
	if err := json.Unmarshal([]byte(put.body), &pr); err != nil || pr.Tasks != 2 || pr.Revision.Kind != store.KindTasks {
		t.Errorf("PUT answered %s", put.body)
	}
	got = send(t, http.MethodGet, u, "", "", nil)
	tasks, err := selection.ParseTasks([]byte(file), false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(tasks, "", "  ") // what the page's export writes
	if got.body != string(want)+"\n" || got.rev != put.rev {
		t.Errorf("GET (revision %s, PUT said %s):\n%s\nwant:\n%s", got.rev, put.rev, got.body, want)
	}
	if m := headMessage(t, st, ws); m != "first tasks" {
		t.Errorf("message %q", m)
	}

	// Edit the file GET gave and put it back, as it is and wrapped.
	edited := strings.Replace(got.body, "Hello", "Say hello", 1)
	for _, c := range []struct{ name, body, msg string }{
		{"as GET gave it", edited, "replaced the tasks through the API"},
		{"wrapped", body("tasks", got.body, "message", `"wrapped"`), "wrapped"},
	} {
		if put := send(t, http.MethodPut, u, "application/json", c.body, nil); put.code != http.StatusOK {
			t.Fatalf("%s: PUT %d %s", c.name, put.code, put.body)
		}
		if m := headMessage(t, st, ws); m != c.msg {
			t.Errorf("%s: message %q, want %q", c.name, m, c.msg)
		}
	}
	if got := send(t, http.MethodGet, u, "", "", nil); got.body != strings.Replace(string(want), "Hello", "Say hello", 1)+"\n" && got.body != string(want)+"\n" {
		t.Errorf("GET after the edits:\n%s", got.body)
	}

	for _, c := range []struct {
		name, body string
		code       int
	}{
		{"not a task file", `[{"expect": "x"}]`, 422},
		{"not JSON", `[{"task": `, 422},
		{"wrapped, null", `{"tasks": null}`, 400},
		{"wrapped, unknown member", `{"tasks": [], "note": 1}`, 400},
	} {
		if put := send(t, http.MethodPut, u, "application/json", c.body, nil); put.code != c.code {
			t.Errorf("%s: PUT %d, want %d: %s", c.name, put.code, c.code, put.body)
		}
	}
	// [] leaves no tasks.
	if put := send(t, http.MethodPut, u, "application/json", "[]", nil); put.code != http.StatusOK {
		t.Fatalf("PUT []: %d %s", put.code, put.body)
	}
	if got := send(t, http.MethodGet, u, "", "", nil); got.body != "[]\n" {
		t.Errorf("GET after PUT []: %q", got.body)
	}
}

// TestTasksAccess holds the task file endpoints to the access rules of the listing's.
func TestTasksAccess(t *testing.T) {
	refuse := errors.New("read-only link")
	srv, _, ws := roundTripServer(t, Options{Access: func(r *http.Request, w string, write bool) (string, error) {
		if write && w != "" {
			return "", refuse
		}
		return "reader", nil
	}})
	u := srv.URL + Prefix + "/workspaces/" + ws + "/tasks"
	if got := send(t, http.MethodGet, u, "", "", nil); got.code != http.StatusOK {
		t.Errorf("GET: %d %s", got.code, got.body)
	}
	if put := send(t, http.MethodPut, u, "application/json", "[]", nil); put.code != http.StatusForbidden {
		t.Errorf("PUT without write access: %d %s", put.code, put.body)
	}
	if got := send(t, http.MethodGet, srv.URL+Prefix+"/workspaces/"+strings.Repeat("0", 32)+"/tasks", "", "", nil); got.code != http.StatusNotFound {
		t.Errorf("GET of an unknown workspace: %d %s", got.code, got.body)
	}
	// Without a store that keeps task files, the endpoints say so.
	e := newRouter(t, Options{Workspaces: struct{ Workspaces }{newFakeStore()}})
	if rec := call(e, http.MethodGet, Prefix+"/workspaces/"+ws+"/tasks", ""); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "no task files") {
		t.Errorf("GET without task files: %d %s", rec.Code, rec.Body)
	}
}

// TestCurlRoundTrip runs the README's commands with curl itself: GET into a file, edit it,
// PUT it back with -d @file.
func TestCurlRoundTrip(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl on PATH: the round trip through curl is not tested (TestListingRoundTrip does it with net/http)")
	}
	srv, st, ws := roundTripServer(t, Options{})
	dir := t.TempDir()
	for _, doc := range []struct{ path, from, to string }{
		{"listing", "Search the catalogue", "Search the library's catalogue"},
		{"tasks", "", ""},
	} {
		f := filepath.Join(dir, doc.path+".json")
		u := srv.URL + Prefix + "/workspaces/" + ws + "/" + doc.path
		if out, err := exec.Command(curl, "-sSf", "-o", f, u).CombinedOutput(); err != nil {
			t.Fatalf("curl GET %s: %v\n%s", doc.path, err, out)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), doc.from, doc.to, 1)
		if doc.path == "tasks" {
			edited = `[{"task": "Find books by Le Guin", "expect": "search_books"}]`
		}
		if err := os.WriteFile(f, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(curl, "-sSf", "-X", "PUT", "-d", "@"+f, u+"?message=edited+with+curl").CombinedOutput()
		if err != nil {
			t.Fatalf("curl -X PUT -d @%s.json: %v\n%s", doc.path, err, out)
		}
		if m := headMessage(t, st, ws); m != "edited with curl" {
			t.Errorf("%s: message %q", doc.path, m)
		}
		again := send(t, http.MethodGet, u, "", "", nil)
		if doc.path == "listing" && again.body != edited {
			t.Errorf("GET after curl PUT:\n%s\nwant:\n%s", again.body, edited)
		}
		if doc.path == "tasks" && !strings.Contains(again.body, "Le Guin") {
			t.Errorf("GET tasks after curl PUT: %s", again.body)
		}
	}
}

// PutTasks records a task file as a revision of its own, so that the fake serves the task
// file endpoints too (the real store may coalesce it into the head; the API does not care).
func (s *fakeStore) PutTasks(_ context.Context, te store.TaskEdit) (store.EditResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fw, err := s.get(te.Workspace)
	if err != nil {
		return store.EditResult{}, err
	}
	head := fw.revs[len(fw.revs)-1]
	fw.w.Seq++
	fw.w.Head = len(fw.revs)
	rev := store.Revision{Workspace: te.Workspace, Number: fw.w.Head, Parent: fw.w.Head - 1, Kind: store.KindTasks,
		Author: te.Author, Message: te.Message, Created: te.Now.UTC(), Updated: te.Now.UTC(), Edits: 1,
		FirstSeq: fw.w.Seq, LastSeq: fw.w.Seq, RestoredFrom: -1, Listing: head.Listing, HasTasks: true, TasksSeq: fw.w.Seq, Tasks: te.Body}
	fw.revs = append(fw.revs, rev)
	out := rev
	out.Listing, out.Tasks = nil, nil
	return store.EditResult{Seq: fw.w.Seq, Revision: out, Listing: head.Listing}, nil
}
