package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// probe sends a health probe as a proxy would: from its own address, naming the Host it
// dials, with nobody's identity.
func probe(t *testing.T, s *Server, method, host string) (int, healthAnswer, string) {
	t.Helper()
	req := httptest.NewRequest(method, HealthPath, nil)
	req.Host = host
	req.RemoteAddr = "10.9.9.9:41000"
	rec := do(t, s, req)
	var a healthAnswer
	if method == http.MethodGet && rec.Code != http.StatusMethodNotAllowed {
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			t.Fatalf("%s %s: not JSON (%v): %s", method, HealthPath, err, rec.Body)
		}
	}
	return rec.Code, a, rec.Body.String()
}

// TestHealthSQLite probes a server on SQLite in each auth mode, under a Host it does not
// otherwise answer to, then with its store closed.
func TestHealthSQLite(t *testing.T) {
	proxy := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	for _, c := range []struct {
		name string
		auth AuthConfig
	}{
		{"local", AuthConfig{}},
		{"header", AuthConfig{Mode: AuthHeader, TrustedProxies: proxy}},
		{"token", AuthConfig{Mode: AuthToken, Token: strings.Repeat("t", 32)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newTestStore(t)
			s := newServer(t, func(cfg *Config) {
				cfg.Store, cfg.Auth, cfg.AllowedHosts = st, c.auth, []string{"workbench.example.com"}
			})
			// The same request to a page is refused: the probe is let through on purpose.
			page := httptest.NewRequest(http.MethodGet, "/", nil)
			page.Host, page.RemoteAddr = "10.0.0.5:8080", "10.9.9.9:41000"
			if rec := do(t, s, page); rec.Code < 400 {
				t.Fatalf("the home page answered %d to the probe's Host and address; the test proves nothing", rec.Code)
			}
			code, a, body := probe(t, s, http.MethodGet, "10.0.0.5:8080")
			if code != http.StatusOK || a != (healthAnswer{Status: "ok", Store: "sqlite"}) {
				t.Errorf("healthy: %d %s", code, body)
			}
			if code, _, _ := probe(t, s, http.MethodHead, "10.0.0.5:8080"); code != http.StatusOK {
				t.Errorf("HEAD: %d", code)
			}
			if code, _, _ := probe(t, s, http.MethodPost, "10.0.0.5:8080"); code != http.StatusMethodNotAllowed {
				t.Errorf("POST: %d, want 405", code)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			s.health.mu.Lock()
			s.health.at = time.Time{} // the last answer is reused for a second; forget it
			s.health.mu.Unlock()
			code, a, body = probe(t, s, http.MethodGet, "10.0.0.5:8080")
			if code != http.StatusServiceUnavailable || a.Status != "unavailable" || a.Store != "sqlite" || a.Reason == "" {
				t.Errorf("store closed: %d %s", code, body)
			}
			if strings.Contains(body, "workbench.db") || strings.Contains(body, "closed") {
				t.Errorf("the answer tells the store's file or error: %s", body)
			}
		})
	}
}

// TestHealthPostgres probes a server on PostgreSQL: the store answers and its listener listens.
func TestHealthPostgres(t *testing.T) {
	st := postgresStores(t, 1)[0]
	s := newServer(t, func(cfg *Config) { cfg.Store = st })
	code, a, body := probe(t, s, http.MethodGet, "127.0.0.1:8080")
	want := healthAnswer{Status: "ok", Store: "postgres", Listener: "connected"}
	if code != http.StatusOK || a != want {
		t.Errorf("healthy: %d %s", code, body)
	}
	if strings.Contains(body, "127.0.0.1:") || strings.Contains(body, "postgres://") {
		t.Errorf("the answer tells the DSN: %s", body)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	s.health.mu.Lock()
	s.health.at = time.Time{}
	s.health.mu.Unlock()
	if code, a, body := probe(t, s, http.MethodGet, "127.0.0.1:8080"); code != http.StatusServiceUnavailable || a.Status != "unavailable" {
		t.Errorf("store closed: %d %s", code, body)
	}
}

// downListener is a store whose event listener has lost its connection.
type downListener struct{ store.Store }

func (downListener) Health() error {
	return errors.New("listen: connection refused (host=db.internal user=workbench)")
}

// TestHealthListenerDown: a replica that no longer hears the others is taken out of rotation.
func TestHealthListenerDown(t *testing.T) {
	s := newServer(t, func(cfg *Config) { cfg.Store = downListener{newTestStore(t)} })
	code, a, body := probe(t, s, http.MethodGet, "127.0.0.1:8080")
	if code != http.StatusServiceUnavailable || a.Store != "postgres" || a.Listener != "reconnecting" || a.Reason == "" {
		t.Errorf("listener down: %d %s", code, body)
	}
	if strings.Contains(body, "db.internal") || strings.Contains(body, "refused") {
		t.Errorf("the answer tells the listener's error: %s", body)
	}
}
