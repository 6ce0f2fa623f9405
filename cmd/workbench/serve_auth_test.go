package main

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/web"
)

const testToken = "0123456789abcdef-team-token"

func TestServeAuthConfig(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "WORKBENCH_AUTH_TOKEN" || k == "OTHER_TOKEN" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		listen   string
		mode     string
		tokenEnv string
		header   string
		proxies  []string
		token    string
		wantMode web.AuthMode
		wantErr  string
	}{
		{name: "local on loopback", listen: "127.0.0.1:8080", wantMode: web.AuthLocal},
		{name: "no auth on all interfaces", listen: "0.0.0.0:8080", wantErr: "--auth token"},
		{name: "no auth on a bare port", listen: ":8080", wantErr: "no auth mode is set"},
		{name: "no auth on IPv6 any", listen: "[::]:8080", wantErr: "--listen 127.0.0.1:8080"},
		{name: "token on all interfaces", listen: "0.0.0.0:8080", mode: "token", token: testToken, wantMode: web.AuthToken},
		{name: "token from another variable", listen: "0.0.0.0:8080", mode: "token", tokenEnv: "OTHER_TOKEN", token: testToken, wantMode: web.AuthToken},
		{name: "token unset", listen: "0.0.0.0:8080", mode: "token", wantErr: "empty or unset"},
		{name: "token too short", listen: "0.0.0.0:8080", mode: "token", token: "short", wantErr: "at least 16"},
		{name: "header with a proxy", listen: "0.0.0.0:8080", mode: "header", proxies: []string{"10.0.0.1", "fd00::/64"}, wantMode: web.AuthHeader},
		{name: "header without a proxy", listen: "0.0.0.0:8080", mode: "header", wantErr: "--trusted-proxy"},
		{name: "header with a bad proxy", listen: "0.0.0.0:8080", mode: "header", proxies: []string{"proxy.local"}, wantErr: "not an address or CIDR"},
		{name: "header with a bad header name", listen: "0.0.0.0:8080", mode: "header", header: "X User", proxies: []string{"10.0.0.1"}, wantErr: "not a header name"},
		{name: "unknown mode", listen: "0.0.0.0:8080", mode: "oauth", wantErr: "use token or header"},
		{name: "trusted proxy without a mode", listen: "127.0.0.1:8080", proxies: []string{"10.0.0.1"}, wantErr: "needs --auth header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokenEnv := tt.tokenEnv
			if tokenEnv == "" {
				tokenEnv = "WORKBENCH_AUTH_TOKEN"
			}
			header := tt.header
			if header == "" {
				header = "X-Forwarded-User"
			}
			cfg, err := serveAuthConfig(tt.listen, tt.mode, tokenEnv, header, tt.proxies, env(tt.token))
			if tt.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				if tt.token != "" && strings.Contains(err.Error(), tt.token) {
					t.Errorf("the error shows the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Mode != tt.wantMode {
				t.Errorf("mode %q, want %q", cfg.Mode, tt.wantMode)
			}
			if tt.mode == "token" && cfg.Token != tt.token {
				t.Errorf("token not read from $%s", tokenEnv)
			}
			if len(cfg.TrustedProxies) != len(tt.proxies) {
				t.Errorf("%d trusted proxies, want %d", len(cfg.TrustedProxies), len(tt.proxies))
			}
		})
	}
}

func TestParsePrefix(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"10.0.0.1", "10.0.0.1/32", false},
		{"10.0.0.7/24", "10.0.0.0/24", false},
		{"::ffff:10.0.0.1", "10.0.0.1/32", false},
		{"fd00::1", "fd00::1/128", false},
		{"10.0.0.0/33", "", true},
		{"localhost", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		p, err := parsePrefix(tt.in)
		if (err != nil) != tt.err || (!tt.err && p != netip.MustParsePrefix(tt.want)) {
			t.Errorf("parsePrefix(%q) = %v, %v; want %s (error %v)", tt.in, p, err, tt.want, tt.err)
		}
	}
}

// TestServeRefusesOpenListen starts serve on all interfaces without an auth mode: it must stop
// before listening, with a message that says what to do.
func TestServeRefusesOpenListen(t *testing.T) {
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, []string{"serve", "--listen", "0.0.0.0:0", "--db", "sqlite:" + t.TempDir() + "/wb.db"}, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usage error", err)
	}
	for _, want := range []string{"0.0.0.0:0", "--auth token", "--auth header --trusted-proxy", "127.0.0.1:8080"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if strings.Contains(out.String(), "Tool Workbench on") {
		t.Error("the server started listening")
	}
}

// TestServeTokenModeKeepsTokenSecret starts a real token-mode server and checks that neither
// its output nor its log shows the token.
func TestServeTokenModeKeepsTokenSecret(t *testing.T) {
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	getenv := func(k string) string {
		switch k {
		case "WORKBENCH_AUTH_TOKEN":
			return testToken
		case "WORKBENCH_LOG_LEVEL":
			return "debug"
		}
		return ""
	}
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "0.0.0.0:0", "--auth", "token", "--db", "sqlite:" + t.TempDir() + "/wb.db"}, getenv, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Tool Workbench on") {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve ended: %v\n%s", err, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not start:\n%s", errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if !strings.Contains(errOut.String(), "auth=token") {
		t.Errorf("the start log does not name the auth mode:\n%s", errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), testToken) {
		t.Errorf("serve printed the token:\n%s\n%s", out.String(), errOut.String())
	}
}

// syncBuffer is a bytes.Buffer that the server's goroutines and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
