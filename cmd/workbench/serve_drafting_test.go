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

// TestServeRecordsThenReplays is the workshop's preparation as a new user does it: serve with an
// endpoint that records, ask for rewrites through the API, stop the server (which writes the
// recording); serve again with the model gone, no key, and an endpoint that replays the file:
// the same ask gets the same candidates.
func TestServeRecordsThenReplays(t *testing.T) {
	const key = "sk-serve-record-0123456789"
	model := httptest.NewServer(&fakemodel.Server{Key: key})
	dir := t.TempDir()
	tape := filepath.Join(dir, "workshop.json")
	live, replay := filepath.Join(dir, "live.json"), filepath.Join(dir, "replay.json")
	os.WriteFile(live, []byte(`{"endpoints": [{"name": "fake", "baseURL": "`+model.URL+`/v1", "model": "fake-model", "apiKeyEnv": "FAKE_KEY", "record": "`+tape+`"}]}`), 0o600)
	os.WriteFile(replay, []byte(`{"endpoints": [{"name": "fake", "model": "fake-model", "replay": "`+tape+`"}]}`), 0o600)
	body := `{"listing": {"tools": [{"name": "get_forecast", "description": "Weather forecast for a city.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}, "tool": 0}`
	ask := func(endpoints string, getenv func(string) string) string {
		var out, errOut syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		args := []string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db", "--cache-dir", "off", "--endpoints", endpoints}
		go func() { done <- run(ctx, args, getenv, strings.NewReader(""), &out, &errOut) }()
		addr := waitListening(t, &out, &errOut, done)
		resp, err := http.Post("http://"+addr+"/api/v1/suggest", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("suggest: %d %.500s", resp.StatusCode, b)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
		_, cands, _ := strings.Cut(string(b), `"candidates"`)
		cands, _, _ = strings.Cut(cands, `"plan"`)
		return cands
	}
	rehearsed := ask(live, func(k string) string {
		if k == "FAKE_KEY" {
			return key
		}
		return ""
	})
	model.Close()
	b, err := os.ReadFile(tape)
	if err != nil || strings.Contains(string(b), key) {
		t.Fatalf("the recording after the server stopped: %v (holds the key: %v)", err, strings.Contains(string(b), key))
	}
	if shown := ask(replay, func(string) string { return "" }); shown != rehearsed || !strings.Contains(shown, `"description"`) {
		t.Errorf("the replay's candidates:\n%.600s\nwant the rehearsal's:\n%.600s", shown, rehearsed)
	}
}
