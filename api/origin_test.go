package api

import (
	"net/http"
	"testing"
)

// TestSecFetchSiteWithMatchingOrigin: a browser's state-changing request whose Sec-Fetch-Site
// says another site made it is refused even when its Origin names this server (a DNS-rebinding
// page, or a proxy that rewrites Host, can make the two match); same-origin, none and no
// Sec-Fetch-Site at all pass, and reads pass whatever the headers.
func TestSecFetchSiteWithMatchingOrigin(t *testing.T) {
	e := newRouter(t, Options{AllowedOrigins: []string{"https://workbench.example.com"}})
	req := body("listing", small)
	tests := []struct {
		origin, site string
		want         int
	}{
		{"http://example.com", "cross-site", http.StatusForbidden},
		{"http://example.com", "same-site", http.StatusForbidden},
		{"http://example.com", "Cross-Site", http.StatusForbidden},
		{"https://workbench.example.com", "cross-site", http.StatusForbidden},
		{"http://example.com", "same-origin", http.StatusOK},
		{"http://example.com", "none", http.StatusOK},
		{"http://example.com", "", http.StatusOK},
		{"https://workbench.example.com", "same-origin", http.StatusOK},
		{"", "same-site", http.StatusForbidden},
	}
	for _, tt := range tests {
		var h []string
		if tt.origin != "" {
			h = append(h, "Origin", tt.origin)
		}
		if tt.site != "" {
			h = append(h, "Sec-Fetch-Site", tt.site)
		}
		rec := call(e, http.MethodPost, Prefix+"/cost", req, h...)
		if rec.Code != tt.want {
			t.Errorf("Origin %q, Sec-Fetch-Site %q: status %d, want %d: %s", tt.origin, tt.site, rec.Code, tt.want, rec.Body)
			continue
		}
		if tt.want == http.StatusForbidden {
			if got := apiError(t, rec); got.Code != CodeCrossOrigin || got.Hint == "" {
				t.Errorf("Origin %q, Sec-Fetch-Site %q: code %s hint %q, want cross_origin with a hint", tt.origin, tt.site, got.Code, got.Hint)
			}
		}
	}
	if rec := call(e, http.MethodGet, Prefix+"/openapi.json", "", "Origin", "http://example.com", "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusOK {
		t.Errorf("a cross-site read was refused: %d", rec.Code)
	}
}
