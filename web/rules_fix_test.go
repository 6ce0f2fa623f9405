package web

import (
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/lint"
)

// TestRulesPageShowsFix checks that /rules says, for every rule, the repair it offers.
func TestRulesPageShowsFix(t *testing.T) {
	s := newServer(t)
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/rules", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	page := html.UnescapeString(rec.Body.String())
	for _, r := range lint.Rules() {
		if want := "Fix (" + string(r.Fix) + "): " + r.FixNote; !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
