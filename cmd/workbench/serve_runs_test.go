package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRunsConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"endpoints": [{"name": "local", "baseURL": "http://127.0.0.1:8080/v1", "model": "qwen3"},
		{"name": "openai", "baseURL": "https://api.openai.com/v1", "model": "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY"}]}`)
	bad := write("bad.json", `{"endpoints": [{"name": "x", "baseURL": "http://h/v1", "model": "m", "apiKey": "sk-oops"}]}`)
	tests := []struct {
		name      string
		flag      string
		env       map[string]string
		wantNames []string
		wantErr   string
	}{
		{name: "none configured", wantNames: nil},
		{name: "the flag", flag: good, wantNames: []string{"local", "openai"}},
		{name: "the environment", env: map[string]string{"WORKBENCH_ENDPOINTS": good}, wantNames: []string{"local", "openai"}},
		{name: "the flag wins", flag: good, env: map[string]string{"WORKBENCH_ENDPOINTS": bad}, wantNames: []string{"local", "openai"}},
		{name: "a misspelt member", flag: bad, wantErr: `unknown field "apiKey"`},
		{name: "a missing file", flag: filepath.Join(dir, "nope.json"), wantErr: "--endpoints: opening the endpoint configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			vars := map[string]string{"WORKBENCH_CACHE_DIR": "off"}
			for k, v := range tt.env {
				vars[k] = v
			}
			e := &env{getenv: func(k string) string { return vars[k] }, stdout: &log, stderr: &log, log: slog.New(slog.NewTextHandler(&log, nil))}
			cfg, err := serveRunsConfig(context.Background(), e, tt.flag, "")
			if tt.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "sk-oops") {
					t.Error("the error quotes the configuration's secret")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ep := range cfg.Endpoints {
				names = append(names, ep.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.wantNames, ",") {
				t.Errorf("endpoints %v, want %v", names, tt.wantNames)
			}
			if cfg.Estimate == nil || cfg.Getenv == nil || cfg.Context == nil {
				t.Error("the estimate, the environment or the context is not wired")
			}
			if cfg.Cache != nil {
				t.Error("WORKBENCH_CACHE_DIR=off still opened a cache")
			}
		})
	}
}
