package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// httptest.NewRequest names Host example.com, and the package's tests build requests with it
// throughout: they run as if the operator had allowed that name (Config.AllowedHosts).
func init() { testHosts = []string{"example.com"} }

// TestCrossOriginUnderServe: with the JSON API mounted as serve mounts it, a browser's
// cross-site request to the API gets the API's own answer (403, code cross_origin), one to the
// pages gets the pages' refusal, and same-origin requests to both go through.
func TestCrossOriginUnderServe(t *testing.T) {
	apiBody := `{"listing": ` + authListing + `}`
	pageBody := url.Values{"listing": {authListing}}.Encode()
	tests := []struct {
		name, path, body string
		headers          []string
		status           int
		apiCode          string // the API error's code; "" for a page or a success
	}{
		{"api cross origin", "/api/v1/workspaces", apiBody, []string{"Origin", "https://evil.example"}, http.StatusForbidden, "cross_origin"},
		{"api cross site", "/api/v1/workspaces", apiBody, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, "cross_origin"},
		{"api unknown path cross origin", "/api/v1/nothing", apiBody, []string{"Origin", "https://evil.example"}, http.StatusForbidden, "cross_origin"},
		{"api same origin", "/api/v1/workspaces", apiBody, []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"}, http.StatusCreated, ""},
		{"page cross origin", "/workspaces", pageBody, []string{"Origin", "https://evil.example"}, http.StatusForbidden, ""},
		{"page cross site", "/workspaces", pageBody, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, ""},
		{"page same origin", "/workspaces", pageBody, []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"}, http.StatusSeeOther, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rig := newAuthRig(t, AuthConfig{})
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			if strings.HasPrefix(tc.path, "/api/") {
				req.Header.Set("Content-Type", "application/json")
			} else {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			for i := 0; i+1 < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			rec := rig.visitor().do(t, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
			isJSON := strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json")
			if !strings.HasPrefix(tc.path, "/api/") {
				if tc.status == http.StatusForbidden && (isJSON || len(find(t, rec.Body.String(), "error-page")) != 1) {
					t.Errorf("the page's refusal is not the error page: %s %q", rec.Header().Get("Content-Type"), rec.Body.String())
				}
				return
			}
			if !isJSON {
				t.Fatalf("API answer is %s, want JSON", rec.Header().Get("Content-Type"))
			}
			var got struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("API answer %q: %v", rec.Body.String(), err)
			}
			if got.Error.Code != tc.apiCode {
				t.Errorf("error code %q, want %q: %s", got.Error.Code, tc.apiCode, rec.Body.String())
			}
		})
	}
}
