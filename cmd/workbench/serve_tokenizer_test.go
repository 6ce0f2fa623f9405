package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestServeTokenizerFile starts a server with --tokenizer-file and counts with it by name
// through the mounted API; a request naming the file is refused.
func TestServeTokenizerFile(t *testing.T) {
	path := testutil.HFTokenizer(t, "qwen3")
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db", "--tokenizer-file", "qwen3=" + path},
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	}()
	addr := waitListening(t, &out, &errOut, done)
	for _, tc := range []struct {
		tok  string
		code int
		want string
	}{
		{"qwen3", http.StatusOK, `"tokenizer": "qwen3"`},
		{path, http.StatusBadRequest, "use one of o200k_base, cl100k_base, qwen3"},
	} {
		body := `{"listing": [{"name": "a", "description": "Adds two numbers."}], "tokenizer": "` + tc.tok + `"}`
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v1/cost", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.want) {
			t.Errorf("tokenizer %s: %d %.300s; want %d with %q", tc.tok, resp.StatusCode, b, tc.code, tc.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServeTokenizerFileRefused checks that a bad --tokenizer-file stops the server at start.
func TestServeTokenizerFileRefused(t *testing.T) {
	for _, spec := range []string{"no-name.json", "o200k_base=x/tokenizer.json", "x=" + t.TempDir() + "/missing.json"} {
		var out, errOut syncBuffer
		err := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--db", "sqlite:" + t.TempDir() + "/wb.db", "--tokenizer-file", spec},
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		if err == nil || !strings.Contains(err.Error()+errOut.String(), "--tokenizer-file") {
			t.Errorf("%s: error %v, stderr %q; want one about --tokenizer-file", spec, err, errOut.String())
		}
	}
}
