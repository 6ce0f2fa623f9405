package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/internal/hostile"
)

// TestHostileCorpus sends every hostile listing to every endpoint that takes a listing. Each
// answers a success or an error in the API's shape, never an internal error, and with a body
// bounded by its input: the near-duplicate rule once answered 103 MB for 3,000 tools.
func TestHostileCorpus(t *testing.T) {
	fs := newFakeStore()
	e := newRouter(t, Options{Workspaces: fs, Now: fixedClock})
	for _, c := range hostile.Corpus() {
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Large {
				t.Skip("skipped in -short: a large case")
			}
			lj := string(c.Listing)
			for _, r := range []struct{ method, path, body string }{
				{http.MethodPost, "/check", `{"listing": ` + lj + `}`},
				{http.MethodPost, "/check", `{"listing": ` + lj + `, "tasks": [{"task": "find a book by its title", "expect": null}], "merge": [{"name": "same", "listing": ` + lj + `}]}`},
				{http.MethodPost, "/cost", `{"listing": ` + lj + `}`},
				{http.MethodPost, "/fix", `{"listing": ` + lj + `, "suggested": true}`},
				{http.MethodPost, "/export", `{"listing": ` + lj + `, "format": "go"}`},
				{http.MethodPost, "/export", `{"listing": ` + lj + `, "format": "report"}`},
				{http.MethodPost, "/workspaces", `{"title": "hostile", "listing": ` + lj + `}`},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard, not a timing
				rec := callCtx(ctx, e, r.method, Prefix+r.path, r.body)
				cancel()
				what := r.method + " " + r.path
				if rec.Code >= 500 || rec.Code == http.StatusTeapot {
					t.Fatalf("%s: status %d: %.300s", what, rec.Code, rec.Body)
				}
				if rec.Code >= 400 {
					apiError(t, rec)
				}
				// Linear in the input: a report repeats a tool's name or text a few times; Go code
				// writes each several times over (a name as a string, an identifier, a comment).
				factor := 8
				if r.path == "/export" {
					factor = 12
				}
				if limit := c.OutputBound(factor) + len(r.body); rec.Body.Len() > limit {
					t.Errorf("%s: the answer is %d bytes for a %d-byte request (bound %d)", what, rec.Body.Len(), len(r.body), limit)
				}
				if rec.Code == http.StatusCreated && r.path == "/workspaces" {
					var ws struct {
						ID string `json:"id"`
					}
					if err := json.Unmarshal(rec.Body.Bytes(), &ws); err != nil || ws.ID == "" {
						t.Fatalf("create: no id in %.200s", rec.Body)
					}
					put := callCtx(context.Background(), e, http.MethodPut, Prefix+"/workspaces/"+ws.ID+"/listing", `{"listing": `+lj+`}`)
					if put.Code >= 500 {
						t.Fatalf("put: status %d: %.300s", put.Code, put.Body)
					}
				}
			}
		})
	}
}

// callCtx sends a JSON request with ctx through the router.
func callCtx(ctx context.Context, e *echo.Echo, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	req.Header.Set(echo.HeaderContentType, "application/json")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}
