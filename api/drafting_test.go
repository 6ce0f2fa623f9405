package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/internal/hostile"
	"github.com/tool-workbench/workbench/selection/runner"
)

// fakeModels serves srv as the server's one endpoint, "fake", in process: a runner.Client over
// runner.HandlerDoer, as the server's own clients are built.
func fakeModels(t testing.TB, srv *fakemodel.Server) func(string) (drafting.Model, string) {
	t.Helper()
	c, err := fakemodel.NewClient(srv, runner.ClientOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) (drafting.Model, string) {
		if name == "" || name == "fake" {
			return c, ""
		}
		return nil, `No endpoint is named "` + name + `"; this server has fake.`
	}
}

// draftingRouter is an API with the fake model as its endpoint and a rubric cache.
func draftingRouter(t testing.TB, srv *fakemodel.Server) *echo.Echo {
	t.Helper()
	return newRouter(t, Options{Models: fakeModels(t, srv), Rubrics: drafting.NewRubricCache(0), MaxBodyBytes: 1 << 20})
}

// The three operations answer what the document says, with the plan and the calls made.
func TestDraftingOperations(t *testing.T) {
	srv := &fakemodel.Server{}
	e := draftingRouter(t, srv)
	tasks := `[{"task": "Find books by Ursula Le Guin", "expect": "search_books"}, {"task": "What is the weather?", "expect": null}]`
	for _, c := range []struct {
		path, body string
		calls      int
		inBody     string
	}{
		{"/suggest", body("listing", small, "tool", `"get_book"`, "tasks", tasks, "k", "2"), 1, `"candidates"`},
		{"/suggest", body("listing", small, "tool", "1", "tasks", tasks, "k", "1", "run", "true", "maxCalls", "5"), 5, `"run"`},
		{"/tasks/generate", body("listing", small, "tasks", tasks), 1, `"verdict"`},
		{"/tasks/generate", body("listing", small, "tool", `"search_books"`, "perTool", "1"), 1, `"search_books"`},
		{"/rubric", body("listing", small, "endpoint", `"fake"`), 2, `"scored by fake-model on endpoint fake"`},
		{"/rubric", body("listing", small, "endpoint", `"fake"`), 0, `"cached":true`},
		{"/rubric", body("listing", small), 0, `"offline: from the findings, no endpoint configured"`},
	} {
		before := srv.Requests()
		rec := call(e, http.MethodPost, Prefix+c.path, c.body)
		if rec.Code != http.StatusOK {
			t.Errorf("%s %.80s: %d %s", c.path, c.body, rec.Code, rec.Body)
			continue
		}
		checkResponse(t, http.MethodPost, Prefix+c.path, rec)
		if !strings.Contains(rec.Body.String(), c.inBody) {
			t.Errorf("%s: no %s in %.600s", c.path, c.inBody, rec.Body)
		}
		var got struct {
			Plan  drafting.Plan `json:"plan"`
			Calls int           `json:"calls"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &got)
		if c.calls > 0 && (got.Calls == 0 || got.Plan.What == "") {
			t.Errorf("%s: plan %+v, calls %d", c.path, got.Plan, got.Calls)
		}
		if sent := srv.Requests() - before; c.path != "/suggest" && sent != c.calls || sent > c.calls {
			t.Errorf("%s %.60s: %d requests, want %d", c.path, c.body, sent, c.calls)
		}
	}
}

// Requests that cannot be served are refused before any call, with what would work.
func TestDraftingRefusals(t *testing.T) {
	srv := &fakemodel.Server{}
	withModel := draftingRouter(t, srv)
	without := newRouter(t, Options{MaxBodyBytes: 4096})
	for _, c := range []struct {
		name      string
		e         *echo.Echo
		path      string
		body      string
		code      Code
		inMessage string
	}{
		{"no endpoint configured", without, "/suggest", body("listing", small, "tool", "0"), CodeNoEndpoint, "No model endpoint is configured on this server; start it with --endpoints FILE"},
		{"no endpoint for tasks", without, "/tasks/generate", body("listing", small), CodeNoEndpoint, "--endpoints FILE"},
		{"rubric names an endpoint the server lacks", without, "/rubric", body("listing", small, "endpoint", `"gpt"`), CodeNoEndpoint, "No model endpoint is configured"},
		{"unknown endpoint", withModel, "/suggest", body("listing", small, "tool", "0", "endpoint", `"gpt"`), CodeNoEndpoint, `No endpoint is named "gpt"; this server has fake.`},
		{"no tool", withModel, "/suggest", body("listing", small), CodeMissingField, `no "tool"`},
		{"unknown tool", withModel, "/suggest", body("listing", small, "tool", `"nope"`), CodeInvalidField, `no tool named "nope"`},
		{"tool index out of range", withModel, "/suggest", body("listing", small, "tool", "2"), CodeInvalidField, "not an index of the listing's 2 tools"},
		{"tool of the wrong type", withModel, "/tasks/generate", body("listing", small, "tool", "true"), CodeInvalidField, "a tool's name or index"},
		{"k over the bound", withModel, "/suggest", body("listing", small, "tool", "0", "k", "9"), CodeInvalidField, "at most 8"},
		{"run without tasks", withModel, "/suggest", body("listing", small, "tool", "0", "run", "true"), CodeMissingField, `"run" needs tasks`},
		{"plan over budget", withModel, "/suggest", body("listing", small, "tool", "0", "tasks", `[{"task": "find a book", "expect": "search_books"}]`, "run", "true", "samples", "50", "maxCalls", "10"),
			CodeOverBudget, "the plan needs 201 model calls"},
		{"plan over the server's bound", withModel, "/suggest", body("listing", small, "tool", "0", "tasks", `[{"task": "find a book", "expect": "search_books"}]`, "run", "true", "samples", "50"),
			CodeOverBudget, "the budget is 200, so no call was made"},
		{"maxCalls over the bound", withModel, "/rubric", body("listing", small, "endpoint", `"fake"`, "maxCalls", "500"), CodeInvalidField, "at most 200"},
		{"rubric over budget", withModel, "/rubric", body("listing", small, "endpoint", `"fake"`, "maxCalls", "1"), CodeOverBudget, "the plan needs 2 model calls"},
		{"unknown member", withModel, "/rubric", body("listing", small, "k", "3"), CodeUnknownField, `unknown member "k"`},
		{"no tools", withModel, "/rubric", body("listing", `{"tools": []}`), CodeInvalidListing, "no tools"},
		{"body too large", without, "/rubric", body("listing", quote(strings.Repeat("x", 5000))), CodeTooLarge, "over the limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := srv.Requests()
			rec := call(c.e, http.MethodPost, Prefix+c.path, c.body)
			ae := apiError(t, rec)
			if ae.Code != c.code || !strings.Contains(ae.Message, c.inMessage) {
				t.Errorf("%d %s %q, want %s with %q", rec.Code, ae.Code, ae.Message, c.code, c.inMessage)
			}
			if ae.Hint == "" && c.code != CodeTooLarge {
				t.Errorf("%s has no hint", ae.Code)
			}
			checkResponse(t, http.MethodPost, Prefix+c.path, rec)
			if srv.Requests() != before {
				t.Errorf("%d calls were made before the refusal", srv.Requests()-before)
			}
		})
	}
}

// What a model does wrong is said: a malformed answer is a 200 with problems (and the offline
// rubric, labelled), a refused key and a slow model are 502s, and a key that the model quotes
// back, or that a failure would quote, never appears in any answer.
func TestDraftingModelFailures(t *testing.T) {
	const key = "sk-draft-api-secret-0123456789"
	listingTasks := `[{"task": "Find books by Ursula Le Guin", "expect": "search_books"}]`
	for _, c := range []struct {
		name    string
		srv     *fakemodel.Server
		getenv  func(string) string
		timeout time.Duration
		path    string
		body    string
		status  int
		inBody  string
	}{
		{"malformed tasks", &fakemodel.Server{Mode: fakemodel.Malformed, Bad: fakemodel.BadText}, nil, 0, "/tasks/generate", body("listing", small), 200, "the model's answer is not the tasks asked for"},
		{"malformed rubric", &fakemodel.Server{Mode: fakemodel.Malformed, Bad: fakemodel.BadShape}, nil, 0, "/rubric", body("listing", small, "endpoint", `"fake"`), 200, "2 tools offline from the findings"},
		{"malformed rewrites", &fakemodel.Server{Mode: fakemodel.Malformed, Bad: fakemodel.BadText}, nil, 0, "/suggest", body("listing", small, "tool", "0"), 200, `"problems"`},
		{"echoing rubric", &fakemodel.Server{Mode: fakemodel.Echo, Key: key}, nil, 0, "/rubric", body("listing", small, "endpoint", `"fake"`), 200, "[redacted]"},
		{"echoing rewrites", &fakemodel.Server{Mode: fakemodel.Echo, Key: key}, nil, 0, "/suggest", body("listing", small, "tool", "0", "tasks", listingTasks), 200, "[redacted]"},
		{"refused key", &fakemodel.Server{Key: "sk-the-right-key-000000"}, func(string) string { return key }, 0, "/tasks/generate", body("listing", small), 502, "refused the credentials"},
		{"slow model", &fakemodel.Server{Delay: time.Minute}, nil, 50 * time.Millisecond, "/suggest", body("listing", small, "tool", "0"), 502, "did not answer within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := fakemodel.NewClient(c.srv, runner.ClientOptions{Retries: -1, Getenv: c.getenv, Timeout: c.timeout})
			if err != nil {
				t.Fatal(err)
			}
			e := newRouter(t, Options{Models: func(string) (drafting.Model, string) { return cl, "" }})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
			defer cancel()
			rec := callCtx(ctx, e, http.MethodPost, Prefix+c.path, c.body)
			if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.inBody) {
				t.Errorf("%d %.800s; want %d with %q", rec.Code, rec.Body, c.status, c.inBody)
			}
			if strings.Contains(rec.Body.String(), key) || strings.Contains(rec.Body.String(), "0123456789") {
				t.Errorf("the answer holds the key: %.800s", rec.Body)
			}
			checkResponse(t, http.MethodPost, Prefix+c.path, rec)
			if rec.Code >= 400 {
				if ae := apiError(t, rec); ae.Code != CodeModelFailed {
					t.Errorf("code %s", ae.Code)
				}
			}
		})
	}
}

// Every hostile listing gets an answer in the API's shape from the drafting operations, never
// an internal error, bounded by its input; the calls stay within the budget.
func TestDraftingHostileListings(t *testing.T) {
	srv := &fakemodel.Server{}
	e := newRouter(t, Options{Models: fakeModels(t, srv), Rubrics: drafting.NewRubricCache(0)})
	for _, c := range hostile.Corpus() {
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Large {
				t.Skip("skipped in -short: a large case")
			}
			lj := string(c.Listing)
			for _, path := range []string{"/rubric", "/tasks/generate", "/suggest"} {
				b := body("listing", lj, "endpoint", `"fake"`)
				if path == "/suggest" {
					b = body("listing", lj, "tool", "0", "tasks", `[{"task": "find a book by its title", "expect": null}]`)
				}
				before := srv.Requests()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
				rec := callCtx(ctx, e, http.MethodPost, Prefix+path, b)
				cancel()
				if rec.Code >= 500 || rec.Code == http.StatusTeapot {
					t.Fatalf("%s: %d %.300s", path, rec.Code, rec.Body)
				}
				if rec.Code >= 400 {
					apiError(t, rec)
				}
				if limit := c.OutputBound(8) + len(b); rec.Body.Len() > limit {
					t.Errorf("%s: %d bytes for a %d-byte request", path, rec.Body.Len(), len(b))
				}
				if n := srv.Requests() - before; n > MaxCalls {
					t.Errorf("%s: %d calls", path, n)
				}
			}
		})
	}
}
