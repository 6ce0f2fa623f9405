package main

import (
	"errors"
	"strings"
	"testing"
)

func TestServeFetchConfig(t *testing.T) {
	tests := []struct {
		name      string
		listen    string
		allows    []string
		stdio     bool
		auth      string
		wantLocal bool
		wantStdio bool
		wantErr   string
	}{
		{name: "loopback is local mode", listen: "127.0.0.1:8080", wantLocal: true},
		{name: "localhost is local mode", listen: "localhost:8080", wantLocal: true},
		{name: "IPv6 loopback", listen: "[::1]:8080", wantLocal: true},
		{name: "all interfaces is strict", listen: ":8080"},
		{name: "a LAN address is strict", listen: "192.168.1.5:8080"},
		{name: "allow an address and a host", listen: "0.0.0.0:8080", allows: []string{"10.0.0.0/8", "mcp.internal"}},
		{name: "bad allowance", listen: "0.0.0.0:8080", allows: []string{"http://x"}, wantErr: "--fetch-allow"},
		{name: "stdio on loopback", listen: "127.0.0.1:8080", stdio: true, wantLocal: true, wantStdio: true},
		{name: "stdio beyond loopback", listen: "0.0.0.0:8080", stdio: true, wantErr: "loopback --listen"},
		{name: "stdio with an auth mode", listen: "127.0.0.1:8080", stdio: true, auth: "team", wantErr: "auth mode"},
		{name: "auth mode is strict even on loopback", listen: "127.0.0.1:8080", auth: "team"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := serveFetchConfig(tt.listen, tt.allows, tt.stdio, tt.auth)
			if tt.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Policy.AllowLoopback != tt.wantLocal || cfg.Policy.AllowPrivate != tt.wantLocal {
				t.Errorf("policy %+v, want local mode = %v", cfg.Policy, tt.wantLocal)
			}
			if cfg.AllowStdio != tt.wantStdio {
				t.Errorf("AllowStdio = %v, want %v", cfg.AllowStdio, tt.wantStdio)
			}
			if n := len(cfg.Policy.Allow) + len(cfg.Policy.AllowHosts); n != len(tt.allows) {
				t.Errorf("%d allowances, want %d", n, len(tt.allows))
			}
		})
	}
}
