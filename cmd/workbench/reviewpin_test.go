package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// TestFetchCompareApproved pins fetch --compare to a workspace's newest approved revision,
// read from the store (an id) and through the API (a URL): the server still serves what was
// approved, though the workspace was edited since; then the server changes.
func TestFetchCompareApproved(t *testing.T) {
	mcpURL := mcpServer(t, fetchTestServer(), nil)
	served, errOut, code := fetchCLI(t, nil, "fetch", mcpURL)
	if code != 0 {
		t.Fatalf("fetch: exit %d: %s", code, errOut)
	}
	f := newReviewFixtureOf(t, served)
	ctx := context.Background()

	_, errOut, code = fetchCLI(t, nil, "fetch", mcpURL, "--compare", "approved:"+f.ws, "--db", f.db)
	if code != 2 || !strings.Contains(errOut, "nobody has approved a revision of workspace "+f.ws+" yet") {
		t.Errorf("no approval: exit %d: %s", code, errOut)
	}
	if _, err := f.svc.SignOff(ctx, f.ws, store.Approved, "ships", review.Author{Name: "Ana", ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	// An edit after the approval: the pin stays the approved revision, 0.
	l, err := listing.Parse([]byte(strings.Replace(served, "Delete a file.", "Delete a file for good.", 1)), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Commit(ctx, store.Commit{Workspace: f.ws, Author: "Bo", Message: "edit", Listing: l, Now: reviewClock()}); err != nil {
		t.Fatal(err)
	}

	const token = "share-token-0123456789abcdef"
	a := api.New(api.Options{Workspaces: f.st, Review: f.svc, Access: func(r *http.Request, _ string, _ bool) (string, error) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			return "", &api.Error{Code: api.CodeForbidden, Message: "no access to this workspace"}
		}
		return "ci", nil
	}})
	e := echo.New()
	a.Register(e.Group(api.Prefix))
	wb := httptest.NewServer(e)
	t.Cleanup(wb.Close)
	withToken := map[string]string{"WORKBENCH_TOKEN": token}

	for _, pin := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"store", nil, []string{"--compare", "approved:" + f.ws, "--db", f.db}},
		{"api", withToken, []string{"--compare", "approved:" + wb.URL + "/w/" + f.ws}},
	} {
		out, errOut, code := fetchCLI(t, pin.env, append([]string{"fetch", mcpURL}, pin.args...)...)
		if code != 0 || !strings.Contains(out, "Compared approved revision 0 of workspace "+f.ws) || !strings.Contains(out, "No changes") {
			t.Errorf("%s: exit %d\n%s%s", pin.name, code, out, errOut)
		}
	}

	// The server changes: the report names what differs from the approved listing.
	changed := fetchTestServer()
	addFetchTool(changed, "wipe_disk", "Wipe the disk.", nil)
	out, errOut, code := fetchCLI(t, withToken, "fetch", mcpServer(t, changed, nil), "--compare", "approved:"+wb.URL+"/api/v1/workspaces/"+f.ws, "--format", "json")
	if code != 1 || !strings.Contains(out, `"baseline": "approved revision 0 of workspace `+f.ws+`"`) || !strings.Contains(out, "wipe_disk") {
		t.Errorf("changed server: exit %d\n%s%s", code, out, errOut)
	}

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no token", nil, []string{"--compare", "approved:" + wb.URL + "/w/" + f.ws}, "refused access (403"},
		{"not a workspace", nil, []string{"--compare", "approved:books"}, "neither a workspace URL"},
		{"db without approved", nil, []string{"--compare", "pin.json", "--db", f.db}, "--db applies to --compare approved:"},
		{"no such workspace", nil, []string{"--compare", "approved:0123456789abcdef0123456789abcdef", "--db", f.db}, "no workspace 0123456789abcdef0123456789abcdef in this database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := fetchCLI(t, tc.env, append([]string{"fetch", mcpURL}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, want 2 with %q\nstdout: %s\nstderr: %s", code, tc.want, out, errOut)
			}
		})
	}

	// A file whose name starts with approved: is still a file, as ./approved:…
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "approved:pin.json"), []byte(served), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if out, errOut, code := fetchCLI(t, nil, "fetch", mcpURL, "--compare", "./approved:pin.json"); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("./approved:pin.json: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFetchCompareApprovedChecksHash: a pin whose listing does not have the hash the approval
// named (a server whose approved revision grew after the sign-off, or one that answers
// something else) is refused with exit 2, through the API; one that has it is taken, also from
// a server that names no ApprovedHash but lists the approval.
func TestFetchCompareApprovedChecksHash(t *testing.T) {
	mcpURL := mcpServer(t, fetchTestServer(), nil)
	served, errOut, code := fetchCLI(t, nil, "fetch", mcpURL)
	if code != 0 {
		t.Fatalf("fetch: exit %d: %s", code, errOut)
	}
	l, err := listing.Parse([]byte(served), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := review.Hash(l)
	const ws = "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name   string
		status review.Status
		code   int
		want   string
	}{
		{"the approved hash", review.Status{Approved: 0, ApprovedHash: good}, 0, "No changes"},
		{"another hash", review.Status{Approved: 0, ApprovedHash: "sha256:0f\u202e"}, 2,
			"the listing of approved revision 0 of workspace " + ws + " is not the one approved (it hashes " + good + "; the approval named sha256:0f\\u202e)"},
		{"an older server's approval", review.Status{Approved: 0, Signoffs: []review.Approval{{Signoff: store.Signoff{Verdict: store.Approved, Hash: good}}}}, 0, "No changes"},
		{"an older server's approval of another listing", review.Status{Approved: 0, Signoffs: []review.Approval{{Signoff: store.Signoff{Verdict: store.Approved, Hash: "sha256:1"}}}}, 2,
			"the approval named sha256:1)"},
		{"an older server's change request", review.Status{Approved: 0, Signoffs: []review.Approval{{Signoff: store.Signoff{Verdict: store.ChangesRequested, Hash: good}}}}, 2,
			"the approval named no hash)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.status.Workspace = ws
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/api/v1/workspaces/" + ws + "/review":
					_ = json.NewEncoder(w).Encode(map[string]any{"status": tc.status, "threads": []any{}})
				case "/api/v1/workspaces/" + ws + "/listing":
					_, _ = w.Write(export.JSON(l, export.JSONOptions{}))
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			out, errOut, code := fetchCLI(t, nil, "fetch", mcpURL, "--compare", "approved:"+srv.URL+"/w/"+ws)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
