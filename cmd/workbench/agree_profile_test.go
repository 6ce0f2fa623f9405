package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
)

// TestCLIAPIAndBrowserAgreeUnderProfiles: under each profile, `workbench check --profile`,
// POST /api/v1/check with "profile" and a workspace page whose profile was chosen in its
// findings panel report the same findings, on the seeds' fixtures, two real listings and a
// listing past OpenAI's 128 tools; every profile rule fires somewhere.
func TestCLIAPIAndBrowserAgreeUnderProfiles(t *testing.T) {
	shared := testutil.Shared(t)
	paths, _ := filepath.Glob(filepath.Join(shared, "reference", "fixtures", "*-tools.json"))
	for _, f := range []string{"github-mcp-server", "mongodb-mcp-server"} {
		paths = append(paths, filepath.Join(shared, "listings", "real", f+".json"))
	}
	many := filepath.Join(t.TempDir(), "many.json")
	var tools []string
	for i := range 129 {
		tools = append(tools, `{"name": "admin.item_`+strconv.Itoa(i)+`", "description": "Show one stored item by its numeric id, when the id is known.", "inputSchema": {"type": "object", "properties": {"id": {"type": "array"}}}}`)
	}
	// A name past 64 characters, and a catch-all request tool that reads and writes.
	tools[0] = strings.Replace(tools[0], "admin.item_0", strings.Repeat("admin_items_", 6), 1)
	tools[1] = `{"name": "api_request", "description": "Send one request to the items API, given its method and path.", "inputSchema": {"type": "object", "properties": {"method": {"type": "string", "enum": ["GET", "DELETE"]}}}}`
	if err := os.WriteFile(many, []byte(`{"tools": [`+strings.Join(tools, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, many)
	jsonAPI := newAgreementAPI()
	page := newAgreementPage(t)
	fired := map[string]bool{}
	for _, p := range lint.ProfileNames() {
		for _, path := range paths {
			t.Run(p+"/"+strings.TrimSuffix(filepath.Base(path), ".json"), func(t *testing.T) {
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				out, stderr, code := runCLI(t, "", "check", path, "--format", "json", "--profile", p)
				if code > 1 {
					t.Fatalf("workbench check exited %d: %s", code, stderr)
				}
				cli := reportOutcome(t, []byte(out))
				for _, f := range cli.findings {
					fired[f.Rule] = true
				}
				sameOutcome(t, "the API", apiProfileOutcome(t, jsonAPI, path, src, p), "the CLI", cli)
				sameOutcome(t, "the browser", pageProfileOutcome(t, page, src, p), "the CLI", cli)
			})
		}
	}
	for _, r := range lint.Rules() {
		if lint.ProfileOnly(r.ID) && !fired[r.ID] {
			t.Errorf("no listing trips %s under its profile", r.ID)
		}
	}
}

func apiProfileOutcome(t *testing.T, e *echo.Echo, path string, src []byte, profile string) outcome {
	t.Helper()
	body, err := json.Marshal(map[string]string{"listing": string(src), "name": path, "profile": profile})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, api.Prefix+"/check", strings.NewReader(string(body)))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /check: status %d: %s", rec.Code, rec.Body)
	}
	return reportOutcome(t, rec.Body.Bytes())
}

// pageProfileOutcome imports src as the paste form does, chooses profile in the findings
// panel's form, and reads the workspace page's findings panel.
func pageProfileOutcome(t *testing.T, h http.Handler, src []byte, profile string) outcome {
	t.Helper()
	send := func(method, target, form string, want int) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(form))
		if form != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Host = "127.0.0.1" // local mode answers to loopback names only
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Fatalf("%s %s: status %d: %.500s", method, target, rec.Code, rec.Body)
		}
		return rec
	}
	loc := send(http.MethodPost, "/workspaces", url.Values{"listing": {string(src)}}.Encode(), http.StatusSeeOther).Header().Get("Location")
	send(http.MethodPost, loc+"/profile", url.Values{"profile": {profile}}.Encode(), http.StatusNoContent)
	return panelOutcome(t, send(http.MethodGet, loc, "", http.StatusOK).Body.String())
}
