package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// postProfile posts the findings panel's form.
func postProfile(t *testing.T, s *Server, id, name string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/profile", strings.NewReader(url.Values{"profile": {name}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, s, req)
}

// TestSetProfile: the workspace's profile is kept, shown selected and followed by the findings;
// a fork keeps it; an unknown name is refused with the valid ones, and the workspace keeps its
// profile.
func TestSetProfile(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	selected := func(page string) string {
		for _, n := range find(t, page, "findings-profile") {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && hasAttr(c, "selected") {
					return attr(c, "value")
				}
			}
		}
		return "?"
	}
	page := getPage(t, s, "/w/"+id)
	if got := selected(page); got != "" || strings.Contains(page, `data-rule="profile-`) {
		t.Fatalf("a new workspace has profile %q or profile findings", got)
	}
	tests := []struct {
		name, profile string
		code          int
		want          string // the profile the page then shows
		rule          string // a rule whose findings it then shows ("" none)
	}{
		{"claude", "claude-connectors", http.StatusNoContent, "claude-connectors", "profile-title-missing"},
		{"unknown", "claude", http.StatusBadRequest, "claude-connectors", "profile-title-missing"},
		{"chatgpt", "chatgpt-apps", http.StatusNoContent, "chatgpt-apps", "profile-hints-explicit"},
		{"none", "", http.StatusNoContent, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := postProfile(t, s, id, tt.profile)
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code == http.StatusBadRequest && !strings.Contains(rec.Body.String(), "openai-functions, claude-connectors, chatgpt-apps") {
				t.Errorf("the refusal does not name the valid profiles: %s", rec.Body)
			}
			page := getPage(t, s, "/w/"+id)
			if got := selected(page); got != tt.want {
				t.Errorf("the selector shows %q, want %q", got, tt.want)
			}
			if has := strings.Contains(page, `data-rule="profile-`); has != (tt.rule != "") || tt.rule != "" && !strings.Contains(page, `data-rule="`+tt.rule+`"`) {
				t.Errorf("profile findings shown: %v; want %q", has, tt.rule)
			}
		})
	}
	postProfile(t, s, id, "openai-functions")
	rec := do(t, s, httptest.NewRequest(http.MethodPost, "/w/"+id+"/fork", nil))
	fid := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
	if got := selected(getPage(t, s, "/w/"+fid)); got != "openai-functions" {
		t.Errorf("the fork's profile is %q, want the original's", got)
	}
}

// TestFixUnderProfile: a profile's own repairs are offered and applied from the page (the
// engine that makes them is the workspace profile's, as its findings are): claude-connectors
// asks every tool for a title, and its Fix adds one.
func TestFixUnderProfile(t *testing.T) {
	s := newServer(t)
	id := workspaceFrom(t, s, fixDraft("get_weather"))
	if rec := postProfile(t, s, id, "claude-connectors"); rec.Code >= 400 {
		t.Fatalf("set the profile: %d %s", rec.Code, rec.Body)
	}
	page := getPage(t, s, "/w/"+id)
	buttons := fixButtonsOf(t, page, "profile-title-missing")
	if len(buttons) == 0 {
		t.Fatal("under claude-connectors the missing title has no Fix button")
	}
	post(t, s, "/w/"+id+"/fix/apply?"+buttons[0], sig(0, nil))
	if msgs := revisionMessages(t, s, id); len(msgs) != 2 || msgs[0] != "fix: profile-title-missing" {
		t.Fatalf("after Apply the revisions are %q; want fix: profile-title-missing on top", msgs)
	}
	if title := headListing(t, s, id).Tools[0].Get("title"); title == nil || title.Str != "Get weather" {
		t.Errorf("the fixed tool's title is %v; want \"Get weather\"", title)
	}
}
