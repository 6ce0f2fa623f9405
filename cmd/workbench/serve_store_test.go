package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServe runs serve in the background on a free loopback port and returns its URL and a
// function that stops it (and reports how it ended).
func startServe(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	}()
	addr := regexp.MustCompile(`Tool Workbench on (http://\S+)`)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			return m[1], func() error { cancel(); return <-done }
		}
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
}

// TestServeKeepsWorkspacesInTheDatabase creates a workspace through the JSON API of one serve
// process, stops it, and reads the workspace through a second process on the same --db file:
// the pages and the API share the store, and the store outlives the process.
func TestServeKeepsWorkspacesInTheDatabase(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "wb.db")
	base, stop := startServe(t, "--db", db)
	body := `{"title": "kept", "listing": {"tools": [{"name": "find_book", "description": "Finds a book.", "inputSchema": {"type": "object"}}]}}`
	resp, err := http.Post(base+"/api/v1/workspaces", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	var ws struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &ws); err != nil || ws.ID == "" {
		t.Fatalf("create answered %s (%v)", b, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}

	base, stop = startServe(t, "--db", db)
	defer stop()
	resp, err = http.Get(base + "/w/" + ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "find_book") {
		t.Errorf("after a restart the workspace page: %d %.300s", resp.StatusCode, page)
	}
}

// TestServeRefusesABadDB: a --db the workbench does not know stops serve with a usage error.
func TestServeRefusesABadDB(t *testing.T) {
	var out, errOut syncBuffer
	err := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--db", "mysql://x"}, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "sqlite:PATH") {
		t.Fatalf("err = %v, want a usage error naming sqlite:PATH", err)
	}
}
