package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// benchEndpoint posts req to path b.N times through the router. The API's engines are shared
// between requests (as in a server), so after the first request the per-tool caches are warm:
// the figure is what a CI job pays for re-checking a listing the server has seen.
func benchEndpoint(b *testing.B, path, req string) {
	e := newRouter(b, Options{})
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, Prefix+path, strings.NewReader(req))
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %.300s", rec.Code, rec.Body)
		}
	}
}

// The GitHub MCP server's listing (117 tools, about 150 kB), sent as text.
func githubRequest(b *testing.B, kv ...string) string {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	return body(append([]string{"listing", quote(string(src))}, kv...)...)
}

func BenchmarkCheckGitHub(b *testing.B) { benchEndpoint(b, "/check", githubRequest(b)) }
func BenchmarkCostGitHub(b *testing.B)  { benchEndpoint(b, "/cost", githubRequest(b)) }
func BenchmarkExportGoGitHub(b *testing.B) {
	benchEndpoint(b, "/export", githubRequest(b, "format", `"go"`))
}

// BenchmarkDecodeGitHub is the request decoding alone: read, parse, cut out the listing.
func BenchmarkDecodeGitHub(b *testing.B) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	req := []byte(`{"name": "github", "listing": ` + string(src) + `}`)
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := decodeRequest(req, checkFields)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.listingOf("listing", "github", listing.Limits{}, true, false); err != nil {
			b.Fatal(err)
		}
	}
}
