package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// profileAcross: a profile set through one replica is the profile of every page another
// replica serves, at its next load when it has no page open, and at once on its open pages.
func profileAcross(t *testing.T, st1, st2 store.Store) {
	s1, s2 := serverOn(t, st1), serverOn(t, st2)
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	id := openExample(t, s1, "library-2-draft")
	has := func(page, rule string) bool { return strings.Contains(page, `data-rule="`+rule+`"`) }
	if page := getPage(t, s2, "/w/"+id); has(page, "profile-title-missing") {
		t.Fatal("a new workspace shows profile findings on the second replica")
	}
	if rec := postProfile(t, s1, id, "claude-connectors"); rec.Code != http.StatusNoContent {
		t.Fatalf("set the profile on the first replica: status %d: %s", rec.Code, rec.Body)
	}
	// No page open on the second replica: its next load shows the profile.
	if page := getPage(t, s2, "/w/"+id); !has(page, "profile-title-missing") {
		t.Error("the second replica's next page load does not show the profile set on the first")
	}

	// A page open on the second replica gets the other profile's findings without a reload.
	sb := openStream(t, ts2.URL, id, bo, strings.Repeat("b", 32), 0)
	sb.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	sb.reset()
	if rec := postProfile(t, s1, id, "chatgpt-apps"); rec.Code != http.StatusNoContent {
		t.Fatalf("set the profile on the first replica: status %d: %s", rec.Code, rec.Body)
	}
	body := sb.waitFor(t, "the chatgpt-apps findings", func(s string) bool { return has(s, "profile-hints-explicit") })
	if has(body, "profile-title-missing") {
		t.Error("the open page still shows the claude-connectors findings after the switch")
	}
	if page := getPage(t, s2, "/w/"+id); !has(page, "profile-hints-explicit") || has(page, "profile-title-missing") {
		t.Error("the second replica's page load does not show the chatgpt-apps profile")
	}
}

// TestProfileAcrossServers: two servers on one SQLite store (its events are in-process only,
// so both share the store value) stand for two replicas.
func TestProfileAcrossServers(t *testing.T) {
	st := newTestStore(t)
	profileAcross(t, st, st)
}

// TestProfileAcrossReplicasPostgres: two servers on two PostgreSQL store instances, where the
// profile's event crosses by LISTEN/NOTIFY.
func TestProfileAcrossReplicasPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	profileAcross(t, sts[0], sts[1])
}
