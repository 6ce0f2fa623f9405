package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestTokenizerByName checks that a request counts with a tokenizer.json the server was started
// with, named as configured, in cost, check and the review export, and that a request naming a
// file (even the configured one) or an unknown name is refused with the known names.
func TestTokenizerByName(t *testing.T) {
	path := testutil.HFTokenizer(t, "qwen3")
	toks, err := cost.NewTokenizers([]string{"qwen3=" + path})
	if err != nil {
		t.Fatal(err)
	}
	e := newRouter(t, Options{Tokenizers: toks})
	listing := `[{"name": "get_weather", "description": "Weather for a city.", "inputSchema": {"type": "object"}}]`
	cases := []struct {
		path, tok string
		code      int
		want      string
	}{
		{"/cost", "qwen3", http.StatusOK, `"tokenizer": "qwen3"`},
		{"/check", "qwen3", http.StatusOK, `"tokenizer": "qwen3"`},
		{"/export", "qwen3", http.StatusOK, `"content"`},
		{"/cost", "cl100k_base", http.StatusOK, `"tokenizer": "cl100k_base"`},
		{"/cost", path, http.StatusBadRequest, "use one of o200k_base, cl100k_base, qwen3"},
		{"/check", path, http.StatusBadRequest, "use one of o200k_base, cl100k_base, qwen3, approx"},
		{"/export", path, http.StatusBadRequest, "use one of o200k_base, cl100k_base, qwen3"},
		{"/cost", "qwen3=" + path, http.StatusBadRequest, "unknown tokenizer"},
		{"/cost", "llama3", http.StatusBadRequest, `unknown tokenizer \"llama3\"`},
	}
	for _, tc := range cases {
		body := `{"listing": ` + listing + `, "tokenizer": ` + strconv.Quote(tc.tok)
		if tc.path == "/export" {
			body += `, "format": "review", "baseline": ` + listing
		}
		rec := call(e, http.MethodPost, Prefix+tc.path, body+"}")
		got := rec.Body.String()
		if rec.Code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%s tokenizer %s: %d %.300s; want %d with %q", tc.path, tc.tok, rec.Code, got, tc.code, tc.want)
		}
	}
}
