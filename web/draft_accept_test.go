package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
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
