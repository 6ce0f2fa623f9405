package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// messyTools has a description with spaces around it and a zero-width space, an unknown field
// and numbers spelled as JSON allows; the answer must keep all but the repaired text.
const messyTools = `{"tools": [{"name": "search_issues", "x-vendor": {"rank": 1.50, "big": 1E+3},
  "description": "  Search issues by text.\u200b Returns up to 50 issues.  ",
  "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Text to search for."}}, "required": ["q"]}}]}`

type fixAnswer struct {
	Listing   json.RawMessage
	Tasks     json.RawMessage
	Changed   bool
	Applied   []struct{ ID, Rule, Kind, Title string }
	Suggested []struct{ ID, Rule, Kind string }
	Findings  struct{ Before, After int }
	Diff      string
}

func TestFix(t *testing.T) {
	e := newRouter(t, Options{})
	tests := []struct {
		name, body string
		check      func(t *testing.T, a fixAnswer)
	}{
		{"a listing value comes back a value, unknown fields and numbers as sent", body("listing", messyTools), func(t *testing.T, a fixAnswer) {
			if !a.Changed || len(a.Applied) == 0 {
				t.Fatalf("nothing applied: %+v", a)
			}
			for _, want := range []string{`"rank":1.50`, `"big":1E+3`, `"description":"Search issues by text. Returns up to 50 issues."`} {
				if !strings.Contains(string(a.Listing), want) {
					t.Errorf("the listing has no %s:\n%s", want, a.Listing)
				}
			}
			if !strings.HasPrefix(a.Diff, "--- listing\n+++ listing\n") || strings.Count(a.Diff, "\n-") != 1 {
				t.Errorf("the diff should change the description's line only:\n%s", a.Diff)
			}
			if a.Findings.After >= a.Findings.Before {
				t.Errorf("findings %d → %d", a.Findings.Before, a.Findings.After)
			}
		}},
		{"a listing's text comes back as text, its layout kept", body("listing", quote(messyTools), "name", `"issues.json"`), func(t *testing.T, a fixAnswer) {
			var text string
			if err := json.Unmarshal(a.Listing, &text); err != nil {
				t.Fatalf("the listing is not text: %s", a.Listing)
			}
			want := strings.Replace(messyTools, `  Search issues by text.\u200b Returns up to 50 issues.  `, "Search issues by text. Returns up to 50 issues.", 1)
			if text != want {
				t.Errorf("got\n%s\nwant\n%s", text, want)
			}
			if !strings.HasPrefix(a.Diff, "--- issues.json\n") {
				t.Errorf("the diff is not labelled with the name:\n%s", a.Diff)
			}
		}},
		{"one rule only", body("listing", messyTools, "rules", `["hidden-unicode"]`), func(t *testing.T, a fixAnswer) {
			for _, r := range a.Applied {
				if r.Rule != "hidden-unicode" {
					t.Errorf("applied a repair of %s", r.Rule)
				}
			}
		}},
		{"a profile's repairs", body("listing", messyTools, "profile", `"claude-connectors"`, "suggested", "true", "rules", `["profile-title-missing"]`), func(t *testing.T, a fixAnswer) {
			if len(a.Applied) != 1 || a.Applied[0].Rule != "profile-title-missing" || !strings.Contains(string(a.Listing), `"title":"Search issues"`) {
				t.Errorf("under claude-connectors the missing title is not added: %+v\n%s", a.Applied, a.Listing)
			}
		}},
		{"nothing to repair", body("listing", `[{"name": "get_weather", "title": "Get weather", "description": "Get the current weather for a city: temperature, wind and conditions.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name, such as Paris."}}, "required": ["city"], "additionalProperties": false}, "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": true}}]`), func(t *testing.T, a fixAnswer) {
			if a.Changed || a.Diff != "" || len(a.Applied) != 0 {
				t.Errorf("changed a clean listing: %+v", a)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+"/fix", tt.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			checkResponse(t, http.MethodPost, Prefix+"/fix", rec)
			var a fixAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			tt.check(t, a)
		})
	}
}

func TestFixBadRequests(t *testing.T) {
	e := newRouter(t, Options{})
	tests := []struct {
		name, body string
		code       Code
		field      string
		says       string // the message or hint says this
	}{
		{"malformed body", `{"listing": [}`, CodeMalformedJSON, "", "line"},
		{"no listing", `{"suggested": true}`, CodeMissingField, "listing", `"listing"`},
		{"listing text not JSON", body("listing", `"{\"tools\": [}"`), CodeMalformedListing, "listing", "JSON"},
		{"unknown rule", body("listing", messyTools, "rules", `["no-such-rule"]`), CodeInvalidField, "rules", "hidden-unicode"},
		{"rules not an array", body("listing", messyTools, "rules", `"hidden-unicode"`), CodeInvalidField, "rules", `["description-whitespace"]`},
		{"an id not a string", body("listing", messyTools, "ids", `[1]`), CodeInvalidField, "ids", "strings"},
		{"suggested not a boolean", body("listing", messyTools, "suggested", `"yes"`), CodeInvalidField, "suggested", "true or false"},
		{"unknown profile", body("listing", messyTools, "profile", `"no-such-profile"`), CodeInvalidField, "profile", "claude-connectors"},
		{"unknown member", body("listing", messyTools, "write", `true`), CodeUnknownField, "", "suggested"},
		{"too many tools", body("listing", manyTools(MaxFixTools+1)), CodeTooLarge, "listing", "workbench fix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+"/fix", tt.body)
			checkResponse(t, http.MethodPost, Prefix+"/fix", rec)
			got := apiError(t, rec)
			if got.Code != tt.code || got.Field != tt.field {
				t.Errorf("code %s field %q, want %s %q: %s", got.Code, got.Field, tt.code, tt.field, rec.Body)
			}
			if !strings.Contains(got.Message+" "+got.Hint, tt.says) {
				t.Errorf("the error does not say %q: %s", tt.says, rec.Body)
			}
		})
	}
}

// manyTools is a listing of n small tools.
func manyTools(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "t%d"}`, i)
	}
	return b.String() + "]"
}
