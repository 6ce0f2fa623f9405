package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
)

// TestServeDraftingAPI starts a server with --endpoints naming a fake model served over HTTP
// and drafts through the mounted API: the rubric is the model's, through the Runs tab's client;
// its key, which the model quotes back, never reaches an answer. Without --endpoints the API
// says how to configure one.
func TestServeDraftingAPI(t *testing.T) {
	const key = "sk-serve-drafting-0123456789"
	model := httptest.NewServer(&fakemodel.Server{Mode: fakemodel.Echo, Key: key})
	defer model.Close()
	dir := t.TempDir()
	eps := filepath.Join(dir, "endpoints.json")
	if err := os.WriteFile(eps, []byte(`{"endpoints": [{"name": "fake", "baseURL": "`+model.URL+`/v1", "model": "fake-model", "apiKeyEnv": "FAKE_KEY"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	listingJSON := `{"tools": [{"name": "get_forecast", "description": "Weather forecast for a city.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}`
	for _, tc := range []struct {
		name   string
		flags  []string
		body   string
		status int
		want   string
	}{
		{"with an endpoint", []string{"--endpoints", eps}, `{"listing": ` + listingJSON + `, "endpoint": "fake"}`, http.StatusOK, `"label":"scored by fake-model on endpoint fake"`},
		{"the first endpoint by default", []string{"--endpoints", eps}, `{"listing": ` + listingJSON + `, "tool": 0}`, http.StatusOK, `"candidates"`},
		{"without endpoints", nil, `{"listing": ` + listingJSON + `, "tool": 0}`, http.StatusUnprocessableEntity, "start it with --endpoints FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut syncBuffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db", "--cache-dir", "off"}, tc.flags...)
			getenv := func(k string) string {
				if k == "FAKE_KEY" {
					return key
				}
				return ""
			}
			go func() { done <- run(ctx, args, getenv, strings.NewReader(""), &out, &errOut) }()
			addr := waitListening(t, &out, &errOut, done)
			path := "/api/v1/rubric"
			if strings.Contains(tc.body, `"tool"`) {
				path = "/api/v1/suggest"
			}
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
				t.Errorf("%d %.500s; want %d with %q", resp.StatusCode, b, tc.status, tc.want)
			}
			if strings.Contains(string(b), key) || strings.Contains(out.String()+errOut.String(), key) {
				t.Error("the key reached an answer or the log")
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("serve: %v", err)
			}
		})
	}
}
