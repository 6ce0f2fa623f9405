package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/store"
)

// TestSuggestMarksHiddenCharacters: a candidate that adds invisible characters is marked
// "adds hidden characters", not as persuasive wording.
func TestSuggestMarksHiddenCharacters(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	name := e.toolName(t, ws, 0)
	e = newDraftEnv(t, &fakemodel.Server{Rewrites: map[string][]string{name: {"Finds books in the catalog\u200b\u202e by title or author."}}})
	ws = openExample(t, e.s, "library-2-draft")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm("k", "1"))
	if !strings.Contains(body, "adds hidden characters") || strings.Contains(body, "persuades (hidden-unicode)") {
		t.Errorf("the hidden-character mark:\n%s", body)
	}
}

// TestSuggestAcceptRefusesParamEdit: a parameter description edited by hand after the
// suggestion is not overwritten by Accept: the whole tool must be as it was when the
// candidates were scored, and the refusal says so.
func TestSuggestAcceptRefusesParamEdit(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Params: map[string]string{"book_id": "The catalog id from the model."}})
	ws := openExample(t, e.s, "library-2-draft")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm("params", "on"))
	m := acceptPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no candidates: %s", body)
	}
	req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/edit?t=0&f=param&p=0&k=description",
		strings.NewReader(`{"pid":"`+strings.Repeat("c", 32)+`","tool":0,"ver":0,"val":"MY OWN TEXT"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	e.s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	if got := e.paramDescription(t, ws, "book_id"); got != "MY OWN TEXT" {
		t.Fatalf("the hand edit did not land: book_id reads %q", got)
	}
	_, ans := e.edit(t, "/w/"+ws+"/suggest/"+m[1]+"/0/accept")
	if got := e.paramDescription(t, ws, "book_id"); got != "MY OWN TEXT" {
		t.Errorf("Accept overwrote the hand-edited parameter description with %q", got)
	}
	if !strings.Contains(ans, "changed since the suggestion") {
		t.Errorf("the refusal does not say the tool changed:\n%s", ans)
	}
}

// TestSuggestAcceptTwiceSaysAlreadyAccepted: accepting the candidate the tool already reads as
// says so and stores nothing, rather than blame someone else's edit.
func TestSuggestAcceptTwiceSaysAlreadyAccepted(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm())
	m := acceptPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no candidates: %s", body)
	}
	if code, ans := e.edit(t, "/w/"+ws+"/suggest/"+m[1]+"/0/accept"); code != http.StatusOK || !strings.Contains(ans, `draft-done`) {
		t.Fatalf("first accept: %d %s", code, ans)
	}
	revs := e.revisionCount(t, ws)
	_, ans := e.edit(t, "/w/"+ws+"/suggest/"+m[1]+"/0/accept")
	if !strings.Contains(ans, "Already accepted") || strings.Contains(ans, "someone edited or moved it") {
		t.Errorf("the second accept:\n%s", ans)
	}
	if n := e.revisionCount(t, ws); n != revs {
		t.Errorf("the second accept stored a revision (%d → %d)", revs, n)
	}
}

// TestSuggestCacheChargesWhatItKeeps: a kept suggestion holds only what Accept needs, and the
// cache's byte budget is charged at least its size.
func TestSuggestCacheChargesWhatItKeeps(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm("k", "3", "run", "on", "samples", "5", "params", "on"))
	m := acceptPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no candidate: %s", body)
	}
	en := e.s.drafts.suggestion(ws, m[1])
	held, err := json.Marshal(en.cands)
	if err != nil {
		t.Fatal(err)
	}
	if charged := en.size(); charged < int64(len(held)+len(en.name)) {
		t.Errorf("the entry holds %d bytes of candidates, and is charged %d", len(held), charged)
	}
	if len(held) > 4<<10 {
		t.Errorf("the entry holds %d bytes for 3 candidates: more than Accept needs", len(held))
	}
}

// paramDescription reads parameter p of tool 0 as stored.
func (e *runEnv) paramDescription(t *testing.T, ws, p string) string {
	t.Helper()
	w, err := e.s.store.Get(t.Context(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	return w.Listing.Tools[0].Get("inputSchema").Get("properties").Get(p).Get("description").String()
}

// revisionCount is the number of revisions of ws (up to 1000).
func (e *runEnv) revisionCount(t *testing.T, ws string) int {
	t.Helper()
	revs, err := e.db.Revisions(t.Context(), ws, store.RevisionPage{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(revs)
}
