package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// TestFixButtonsHiddenFromViewers: a view link's page offers no Fix button, no "Fix all safe"
// and no tool's "Fix safe" (the server would refuse them), and its style hides those that
// patches rendered for other pages bring; an edit link's page of the same workspace offers them.
func TestFixButtonsHiddenFromViewers(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	pages := map[store.Capability]string{}
	for _, cp := range []store.Capability{store.CanView, store.CanEdit} {
		b := r.visitor()
		b.get(t, "/s/"+r.link(t, cp).Token)
		if rec := b.form(t, "/me/name", url.Values{"name": {"Grace"}, "next": {"/w/" + r.ws}}); cp == store.CanEdit && rec.Code != http.StatusSeeOther {
			t.Fatalf("set name: %d", rec.Code)
		}
		page := b.get(t, "/w/"+r.ws)
		if page.Code != http.StatusOK {
			t.Fatalf("%s link: page %d", cp, page.Code)
		}
		pages[cp] = page.Body.String()
	}
	for _, tc := range []struct {
		cp     store.Capability
		offers bool
	}{{store.CanView, false}, {store.CanEdit, true}} {
		for _, tid := range []string{"fix-button", "fix-all-safe", "fix-tool-safe"} {
			if got := strings.Contains(pages[tc.cp], `data-testid="`+tid+`"`); got != tc.offers {
				t.Errorf("%s link's page offers %s: %v, want %v", tc.cp, tid, got, tc.offers)
			}
		}
	}
	// Live patches are rendered once for every page: the viewer's style hides their buttons.
	if !strings.Contains(pages[store.CanView], `.fix-btn, .fix-safe { display: none !important; }`) {
		t.Error("the view page's style does not hide Fix buttons that patches bring")
	}
}
