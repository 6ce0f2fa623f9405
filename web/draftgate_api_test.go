package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection/runner"
)

// apiDraftServer is a server with the JSON API mounted behind the pages' middleware, wired as
// `workbench serve` wires it: the API's drafting asks pass the pages' drafting gate and give
// back their request slot while they wait on the model.
func apiDraftServer(t *testing.T, m *fakemodel.Server, maxInFlight int) *Server {
	t.Helper()
	t.Setenv(keyEnv, testKey)
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	var srv *Server
	a := api.New(api.Options{
		Models:    func(name string) (drafting.Model, string) { return srv.DraftingModel(name) },
		DraftGate: func(r *http.Request) (func(), string) { return srv.APIDraftGate(r) },
		Release:   func(r *http.Request) { srv.ReleaseSlot(r) },
	})
	srv, err = New(Config{Store: newTestStore(t), Engine: eng, DatastarJS: []byte("//"), MaxInFlight: maxInFlight, QueueWait: -1,
		Runs:  RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1},
		Mount: func(ec *echo.Echo) { a.Register(ec.Group(api.Prefix)) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

const apiSuggestBody = `{"listing": {"tools": [{"name": "get_forecast", "description": "Weather forecast for a city.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}, "tool": 0, "endpoint": "fake", "k": 1}`

func apiSuggest(srv *Server) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/suggest", strings.NewReader(apiSuggestBody))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	return rec
}

// TestAPIDraftingHoldsNoSlot: two API suggestions waiting on a slow model on a server of two
// request slots leave the slots to the pages, as the pages' own asks do (draftgate.go).
func TestAPIDraftingHoldsNoSlot(t *testing.T) {
	srv := apiDraftServer(t, &fakemodel.Server{Key: testKey, Delay: 2 * time.Second}, 2)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = apiSuggest(srv).Code
		}()
	}
	time.Sleep(500 * time.Millisecond)
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	wg.Wait()
	if rec.Code != http.StatusOK {
		t.Errorf("a page while two API asks waited on the model: %d %.200s", rec.Code, rec.Body.String())
	}
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("API suggest %d answered %d", i, c)
		}
	}
}

// TestAPIDraftingGateBusy: an API ask past the drafting gate's bound (the caller's asks in
// flight, here "api", the local caller's key) is answered 429 at once, with Retry-After and the
// words the dialog shows, and calls no model.
func TestAPIDraftingGateBusy(t *testing.T) {
	m := &fakemodel.Server{Key: testKey}
	srv := apiDraftServer(t, m, 8)
	for range maxDraftsPerWorkspace {
		leave, busy := srv.APIDraftGate(httptest.NewRequest(http.MethodPost, "/api/v1/suggest", nil))
		if busy != "" {
			t.Fatalf("the gate refused an ask under its bound: %s", busy)
		}
		defer leave()
	}
	rec := apiSuggest(srv)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "The model is busy") {
		t.Errorf("an API ask past the gate: %d Retry-After %q %.300s", rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
	}
	if n := m.Requests(); n != 0 {
		t.Errorf("a refused ask called the model %d times", n)
	}
}
