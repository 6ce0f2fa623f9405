package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/lint"
)

// POST /check with "profile" reports the profile's rules, and the report names the profile.
func TestCheckProfile(t *testing.T) {
	e := newRouter(t, Options{})
	report := func(extra ...string) (map[string]int, string) {
		t.Helper()
		req := body(append([]string{"listing", small, "tokenizer", `"approx"`}, extra...)...)
		validateJSON(t, "/components/schemas/CheckRequest", []byte(req))
		rec := call(e, http.MethodPost, Prefix+"/check", req)
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		validateJSON(t, "/components/schemas/CheckReport", rec.Body.Bytes()) // the document says "profile"
		var r struct {
			Profile  string         `json:"profile"`
			Findings []lint.Finding `json:"findings"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, f := range r.Findings {
			n[f.Rule]++
		}
		return n, r.Profile
	}
	tests := []struct {
		profile, rule string
		want          int
	}{
		{"", "profile-title-missing", 0},
		{"claude-connectors", "profile-title-missing", 2},
		{"chatgpt-apps", "profile-hints-explicit", 4}, // openWorldHint and destructiveHint of each tool
		{"openai-functions", "profile-schema-openai-strict", 2},
		{"mcp-2026-07-28", "profile-list-result-fields", 3},
		{"mcp-2025-11-25", "profile-list-result-fields", 0},
	}
	for _, tt := range tests {
		var extra []string
		if tt.profile != "" {
			extra = []string{"profile", quote(tt.profile)}
		}
		got, prof := report(extra...)
		if got[tt.rule] != tt.want || prof != tt.profile {
			t.Errorf("profile %q: %d %s findings, want %d; report profile %q", tt.profile, got[tt.rule], tt.rule, tt.want, prof)
		}
	}
}

// An unknown profile is refused on every endpoint that takes one, naming the valid ones; a
// profile on an export that does not lint is refused too.
func TestProfileRefused(t *testing.T) {
	e := newRouter(t, Options{})
	valid := strings.Join(lint.ProfileNames(), ", ")
	tests := []struct {
		name, path, body, want string
	}{
		{"check unknown", "/check", body("listing", small, "profile", `"claude"`), valid},
		{"check not a string", "/check", body("listing", small, "profile", `1`), "must be a string"},
		{"review unknown", "/export", body("listing", small, "format", `"review"`, "baseline", small, "profile", `"OpenAI"`), valid},
		{"json with profile", "/export", body("listing", small, "profile", `"chatgpt-apps"`), "applies to format review only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+tt.path, tt.body)
			er := apiError(t, rec)
			if er.Code != CodeInvalidField || er.Field != "profile" || !strings.Contains(er.Message+" "+er.Hint, tt.want) {
				t.Errorf("got %+v; want invalid_field on profile mentioning %q", er, tt.want)
			}
		})
	}
}

// POST /export with format review and a profile lints with the profile's rules.
func TestExportReviewProfile(t *testing.T) {
	e := newRouter(t, Options{})
	content := func(extra ...string) string {
		t.Helper()
		rec := call(e, http.MethodPost, Prefix+"/export", body(append([]string{"listing", small, "format", `"review"`, "baseline", small}, extra...)...))
		var r exportResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("status %d, %v: %s", rec.Code, err, rec.Body)
		}
		return r.Content
	}
	plain, with := content(), content("profile", `"claude-connectors"`)
	if plain == with {
		t.Errorf("the review does not change with the profile:\n%s", with)
	}
}
