package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestCostTabTokenizerFile checks that a tokenizer.json the server was started with is offered
// by name in the Cost tab and counts its report, and that a request naming a file is refused.
func TestCostTabTokenizerFile(t *testing.T) {
	path := testutil.HFTokenizer(t, "qwen3")
	toks, err := cost.NewTokenizers([]string{"qwen3=" + path})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, func(c *Config) { c.Tokenizers = toks })
	id := workspaceFrom(t, s, `{"tools": [{"name": "get_weather", "description": "Weather for a city.", "inputSchema": {"type": "object"}}]}`)

	page := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id, nil)).Body.String()
	if !strings.Contains(page, `<option value="qwen3">qwen3</option>`) {
		t.Error("the Cost tab does not offer qwen3")
	}
	cases := []struct {
		tok  string
		code int
		want string
	}{
		{"qwen3", http.StatusOK, `"tokenizer": "qwen3"`},
		{"o200k_base", http.StatusOK, `"tokenizer": "o200k_base"`},
		{path, http.StatusBadRequest, "use one of o200k_base, cl100k_base, qwen3"},
		{"qwen3=" + path, http.StatusBadRequest, "unknown tokenizer"},
		{"../../etc/passwd", http.StatusBadRequest, "unknown tokenizer"},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/cost/report?format=json&tokenizer="+tc.tok, nil)
		rec := do(t, s, req)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("tokenizer=%s: %d %.300s; want %d with %q", tc.tok, rec.Code, rec.Body.String(), tc.code, tc.want)
		}
	}
}
