package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesForeignHost starts a real local-mode server and sends it what a DNS-rebinding
// page sends: its own name in Host (and a matching Origin). Pages and the mounted API refuse it
// with 421; the loopback address is served.
func TestServeRefusesForeignHost(t *testing.T) {
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db"},
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	}()
	addr := waitListening(t, &out, &errOut, done)
	send := func(method, path, host, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		if method != http.MethodGet {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", "http://"+host)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	_, port, _ := strings.Cut(addr, ":")
	evil := "attacker.example:" + port
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, "/", ""},
		{http.MethodPost, "/api/v1/workspaces", `{"listing": {"tools": []}}`},
		{http.MethodGet, "/api/v1/openapi.json", ""},
	} {
		resp := send(tc.method, tc.path, evil, tc.body)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("%s %s with Host %s: status %d, want 421: %.200s", tc.method, tc.path, evil, resp.StatusCode, body)
		}
		if strings.HasPrefix(tc.path, "/api/") && !bytes.Contains(body, []byte(`"wrong_host"`)) {
			t.Errorf("%s %s: the API's refusal is not its error shape: %.200s", tc.method, tc.path, body)
		}
	}
	if resp := send(http.MethodGet, "/", addr, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET / with Host %s: status %d", addr, resp.StatusCode)
	}
	if resp := send(http.MethodGet, "/", "localhost:"+port, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET / with Host localhost: status %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

var listeningRe = regexp.MustCompile(`Tool Workbench on http://(\S+)`)

func waitListening(t *testing.T, out, errOut *syncBuffer, done chan error) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := listeningRe.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeSecurityFlags: the new flags refuse what cannot work, before listening.
func TestServeSecurityFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--allowed-host", "https://workbench.example.com/"}, "--allowed-host"},
		{[]string{"--allowed-host", "bad host"}, "not a host name"},
		{[]string{"--client-ip-header", "X-Real-IP"}, "X-Forwarded-For or Forwarded"},
		{[]string{"--request-timeout", "-1s"}, "positive duration"},
	} {
		var out, errOut bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db"}, tc.args...)
		err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		cancel()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want a usage error containing %q", tc.args, err, tc.want)
		}
		if strings.Contains(out.String(), "Tool Workbench on") {
			t.Errorf("%v: the server started listening", tc.args)
		}
	}
}
