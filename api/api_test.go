package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
)

// small is a valid listing of two tools.
const small = `{"tools": [
  {"name": "search_books", "description": "Search the catalogue by title or author. Use when the user names a book but not its id.",
   "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Title or author, e.g. Le Guin."}}, "required": ["q"]},
   "annotations": {"readOnlyHint": true}},
  {"name": "get_book", "description": "Return one book by its id. Use search_books first when you only know the title.",
   "inputSchema": {"type": "object", "properties": {"id": {"type": "integer", "description": "Book id, e.g. 42."}}, "required": ["id"]},
   "annotations": {"readOnlyHint": true}}
]}`

// TestBadRequests sends malformed, hostile and mistaken requests to every engine endpoint and
// checks the error: its code (and so its status), where it points, and that it is documented.
func TestBadRequests(t *testing.T) {
	e := newRouter(t, Options{MaxBodyBytes: 4096})
	big := body("listing", quote(strings.Repeat("x", 5000)))
	type tc struct {
		name, path, body string
		headers          []string
		code             Code
		field, pointer   string
		line, column     int
		inMessage        string
		// serverOnly: the server's flags decide it (--tokenizer-file names), so the document's
		// schema cannot refuse it.
		serverOnly bool
	}
	cases := []tc{
		{name: "malformed JSON", path: "/check", body: "{\"listing\": {\"tools\": []},\n  \"name\" \"x\"}", code: CodeMalformedJSON, line: 2, column: 10, inMessage: "Expecting ':' delimiter"},
		{name: "trailing comma", path: "/cost", body: "{\"listing\": [],\n}", code: CodeMalformedJSON, line: 2, column: 1},
		{name: "empty body", path: "/export", body: " ", code: CodeMalformedJSON, inMessage: "empty"},
		{name: "not UTF-8", path: "/check", body: "{\"name\": \"\xff\"}", code: CodeMalformedJSON, line: 1, column: 11, inMessage: "UTF-8"},
		{name: "body an array", path: "/check", body: `[1]`, code: CodeInvalidField, line: 1, column: 1},
		{name: "unknown member", path: "/cost", body: "{\"listing\": [],\n \"tokeniser\": \"o200k_base\"}", code: CodeUnknownField, pointer: "/tokeniser", line: 2, column: 2},
		{name: "duplicate member", path: "/check", body: `{"listing": [], "listing": []}`, code: CodeDuplicateField, pointer: "/listing", line: 1, column: 17},
		{name: "missing listing", path: "/check", body: `{"name": "x"}`, code: CodeMissingField, field: "listing"},
		{name: "null listing", path: "/cost", body: `{"listing": null}`, code: CodeMissingField, field: "listing"},
		{name: "listing a number", path: "/export", body: `{"listing": 42}`, code: CodeInvalidField, field: "listing", line: 1, column: 13},
		{name: "listing text not JSON", path: "/check", body: body("listing", quote("{\"tools\": [\n  {\"name\": \"a\",}\n]}")), code: CodeMalformedListing, field: "listing"},
		{name: "listing without tools", path: "/cost", body: "{\"listing\":\n  {\"result\": {}}}", code: CodeInvalidListing, field: "listing", line: 2, column: 14},
		{name: "tool without name", path: "/export", body: "{\"listing\": {\"tools\": [{\"name\": \"a\"},\n  {\"title\": \"b\"}]}}", code: CodeInvalidListing, field: "listing", pointer: "/tools/1", line: 2, column: 3},
		{name: "JSON-RPC error", path: "/check", body: `{"listing": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}}`, code: CodeInvalidListing, pointer: "/error"},
		{name: "unknown format", path: "/export", body: body("listing", small, "format", `"yaml"`), code: CodeInvalidField, field: "format", pointer: "/format", inMessage: `"yaml"`},
		{name: "unknown tokenizer", path: "/cost", body: body("listing", small, "tokenizer", `"p50k"`), code: CodeInvalidField, pointer: "/tokenizer", serverOnly: true},
		{name: "tokenizer file path", path: "/cost", body: body("listing", small, "tokenizer", `"/etc/passwd"`), code: CodeInvalidField, pointer: "/tokenizer"},
		{name: "unknown rendering", path: "/cost", body: body("listing", small, "render", `"xml"`), code: CodeInvalidField, pointer: "/render"},
		{name: "model for compact", path: "/cost", body: body("listing", small, "model", `"gpt-4o"`), code: CodeInvalidField, pointer: "/model"},
		{name: "negative context", path: "/cost", body: body("listing", small, "context", `-1`), code: CodeInvalidField, pointer: "/context"},
		{name: "fractional limit", path: "/check", body: body("listing", small, "maxTools", `2.5`), code: CodeInvalidField, pointer: "/maxTools"},
		{name: "failOn unknown", path: "/check", body: body("listing", small, "failOn", `"fatal"`), code: CodeInvalidField, pointer: "/failOn"},
		{name: "bool as string", path: "/export", body: body("listing", small, "format", `"go"`, "main", `"yes"`), code: CodeInvalidField, pointer: "/main"},
		{name: "option of another format", path: "/export", body: body("listing", small, "package", `"tools"`), code: CodeInvalidField, pointer: "/package"},
		{name: "review without baseline", path: "/export", body: body("listing", small, "format", `"review"`), code: CodeMissingField, field: "baseline"},
		{name: "tasks malformed", path: "/check", body: body("listing", small, "tasks", `[{"task": "x"}]`), code: CodeInvalidTasks, field: "tasks", pointer: "/0"},
		{name: "tasks text not JSON", path: "/check", body: body("listing", small, "tasks", quote("[\n{\"task\" \"x\"}]")), code: CodeInvalidTasks, line: 2, column: 9},
		{name: "tasks and no tools", path: "/check", body: body("listing", `[]`, "tasks", `[{"task": "x", "expect": "a"}]`), code: CodeInvalidTasks},
		{name: "ignore without reason", path: "/check", body: body("listing", small, "ignore", `[{"rule": "*"}]`), code: CodeInvalidIgnore, field: "ignore"},
		{name: "baseline not a report", path: "/check", body: body("listing", small, "baseline", `{"tools": []}`), code: CodeInvalidBaseline, field: "baseline"},
		{name: "merge entry without name", path: "/check", body: body("listing", small, "merge", `[{"listing": []}]`), code: CodeInvalidField, field: "merge/0"},
		{name: "merge entry unknown member", path: "/check", body: body("listing", small, "merge", `[{"name": "b", "listing": [], "url": "x"}]`), code: CodeUnknownField, pointer: "/merge/0/url"},
		{name: "merge listing broken", path: "/check", body: body("listing", small, "merge", `[{"name": "b", "listing": {"tools": [1]}}]`), code: CodeInvalidListing, field: "merge/0/listing", pointer: "/tools/0"},
		{name: "too large", path: "/check", body: big, code: CodeTooLarge, inMessage: "the request body is 5015 bytes"},
		{name: "too deep", path: "/export", body: body("listing", `[{"name": "a", "x": `+strings.Repeat("[", 70)+strings.Repeat("]", 70)+`}]`), code: CodeTooLarge, field: "listing", pointer: "/0/x" + strings.Repeat("/0", 62), line: 1, column: 95},
		{name: "too large, no length", path: "/check", body: big, headers: []string{"Content-Length", ""}, code: CodeTooLarge, inMessage: "the request body is over the limit of 4096 bytes"},
		{name: "text/plain", path: "/check", body: small, headers: []string{"Content-Type", "text/plain"}, code: CodeUnsupportedMediaType},
		{name: "form", path: "/cost", body: "listing=x", headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, code: CodeUnsupportedMediaType},
		{name: "latin-1", path: "/export", body: `{"listing": []}`, headers: []string{"Content-Type", "application/json; charset=iso-8859-1"}, code: CodeUnsupportedMediaType},
		{name: "no content type", path: "/export", body: `{"listing": []}`, headers: []string{"Content-Type", ""}, code: CodeUnsupportedMediaType},
		{name: "cross origin", path: "/check", body: body("listing", small), headers: []string{"Origin", "https://evil.example"}, code: CodeCrossOrigin},
		{name: "null origin", path: "/check", body: body("listing", small), headers: []string{"Origin", "null"}, code: CodeCrossOrigin},
		{name: "cross site", path: "/export", body: body("listing", small), headers: []string{"Sec-Fetch-Site", "cross-site"}, code: CodeCrossOrigin},
		{name: "unexportable", path: "/export", body: body("listing", `[{"name": "a", "inputSchema": {"type": "string"}}]`, "format", `"go"`), code: CodeUnexportable, field: "listing", inMessage: "go-sdk"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+c.path, c.body, c.headers...)
			got := apiError(t, rec)
			if got.Code != c.code {
				t.Fatalf("code %s (%s), want %s", got.Code, got.Message, c.code)
			}
			checkResponse(t, http.MethodPost, Prefix+c.path, rec)
			// What the handler refuses for its shape, the document's request schema refuses too.
			switch c.code {
			case CodeUnknownField, CodeMissingField, CodeInvalidField:
				if err := requestSchemaError(t, http.MethodPost, Prefix+c.path, c.body); err == nil && !c.serverOnly {
					t.Errorf("the request schema accepts a request the handler refuses with %s", c.code)
				}
			}
			if c.field != "" && got.Field != c.field {
				t.Errorf("field %q, want %q", got.Field, c.field)
			}
			if c.pointer != "" && got.Pointer != c.pointer {
				t.Errorf("pointer %q, want %q", got.Pointer, c.pointer)
			}
			if c.line != 0 && (got.Line != c.line || got.Column != c.column) {
				t.Errorf("at %d:%d, want %d:%d (%s)", got.Line, got.Column, c.line, c.column, got.Message)
			}
			if c.inMessage != "" && !strings.Contains(got.Message, c.inMessage) {
				t.Errorf("message %q does not say %q", got.Message, c.inMessage)
			}
			if got.Code == CodeUnexportable && (len(got.Details) != 1 || !strings.Contains(got.Details[0].Message, `must have type "object"`)) {
				t.Errorf("details %+v do not name the problem", got.Details)
			}
			if got.Code != CodeInternal && got.Hint == "" && got.Code != CodeInvalidListing {
				t.Errorf("%s error has no hint: %s", got.Code, got.Message)
			}
		})
	}
}

// TestListingTextErrorPosition: a listing sent as text is located in that text.
func TestListingTextErrorPosition(t *testing.T) {
	e := newRouter(t, Options{})
	text := "{\"tools\": [\n  {\"name\": \"a\",}\n]}"
	got := apiError(t, call(e, http.MethodPost, Prefix+"/check", body("listing", quote(text))))
	if got.Code != CodeMalformedListing || got.Line != 2 || got.Column != 16 {
		t.Errorf("got %s at %d:%d (%s), want malformed_listing at 2:16", got.Code, got.Line, got.Column, got.Message)
	}
}

// TestRoutingErrors: unknown paths and methods under the API answer in the error shape.
func TestRoutingErrors(t *testing.T) {
	e := newRouter(t, Options{})
	for _, c := range []struct {
		method, path string
		code         Code
		allow        string
	}{
		{http.MethodGet, Prefix + "/nope", CodeNotFound, ""},
		{http.MethodPost, Prefix + "/check/extra", CodeNotFound, ""},
		{http.MethodGet, Prefix + "/check", CodeMethodNotAllowed, "POST"},
		{http.MethodDelete, Prefix + "/workspaces/0123456789abcdef0123456789abcdef/listing", CodeMethodNotAllowed, "GET, PUT"},
		{http.MethodPost, Prefix + "/openapi.json", CodeMethodNotAllowed, "GET"},
		{http.MethodOptions, Prefix + "/check", CodeMethodNotAllowed, "POST"},
	} {
		rec := call(e, c.method, c.path, "")
		got := apiError(t, rec)
		if got.Code != c.code {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, got.Code, c.code)
		}
		if a := rec.Header().Get("Allow"); a != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, a, c.allow)
		}
	}
}

// TestSameOrigin: browser requests from the server's own origin and API clients without
// Origin pass; reads pass from anywhere.
func TestSameOrigin(t *testing.T) {
	e := newRouter(t, Options{AllowedOrigins: []string{"https://workbench.example.com"}})
	req := body("listing", small)
	for _, h := range [][]string{
		nil,
		{"Origin", "http://example.com"}, // httptest's Host is example.com
		{"Origin", "https://workbench.example.com"},
		{"Sec-Fetch-Site", "same-origin"},
		{"Sec-Fetch-Site", "none"},
	} {
		if rec := call(e, http.MethodPost, Prefix+"/cost", req, h...); rec.Code != http.StatusOK {
			t.Errorf("headers %v: %d %s", h, rec.Code, rec.Body)
		}
	}
	if rec := call(e, http.MethodGet, Prefix+"/openapi.json", "", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusOK {
		t.Errorf("a cross-site read was refused: %d", rec.Code)
	}
}

func TestContentTypes(t *testing.T) {
	e := newRouter(t, Options{})
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8", "application/vnd.workbench+json"} {
		if rec := call(e, http.MethodPost, Prefix+"/cost", body("listing", small), "Content-Type", ct); rec.Code != http.StatusOK {
			t.Errorf("%s: %d %s", ct, rec.Code, rec.Body)
		}
	}
}

// TestListingForms: a listing as a JSON value and as its text give the same report.
func TestListingForms(t *testing.T) {
	e := newRouter(t, Options{})
	asValue := call(e, http.MethodPost, Prefix+"/cost", body("listing", small))
	asText := call(e, http.MethodPost, Prefix+"/cost", body("listing", quote(small)))
	if asValue.Code != 200 || !bytes.Equal(asValue.Body.Bytes(), asText.Body.Bytes()) {
		t.Errorf("value and text differ:\n%s\n%s", asValue.Body, asText.Body)
	}
	sse := "event: message\ndata: " + `{"jsonrpc": "2.0", "id": 1, "result": ` + strings.ReplaceAll(small, "\n", "") + "}\n\n"
	asSSE := call(e, http.MethodPost, Prefix+"/cost", body("listing", quote(sse)))
	var a, b struct{ Tools []struct{ Name string } }
	json.Unmarshal(asValue.Body.Bytes(), &a)
	json.Unmarshal(asSSE.Body.Bytes(), &b)
	if asSSE.Code != 200 || len(b.Tools) != 2 || b.Tools[1].Name != a.Tools[1].Name {
		t.Errorf("SSE text: %d %s", asSSE.Code, asSSE.Body)
	}
}

// TestFindingPositionsInBody: findings of a listing sent as a JSON value are located by line
// and column in the request body.
func TestFindingPositionsInBody(t *testing.T) {
	e := newRouter(t, Options{})
	req := "{\"name\": \"x\",\n \"listing\": [\n  {\"name\": \"a\", \"description\": \"\"}\n]}"
	rec := call(e, http.MethodPost, Prefix+"/check", req)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var r struct {
		Findings []struct {
			Pointer      string
			Line, Column int
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		if f.Pointer == "/tools/0/description" {
			found = true
			// The description's value starts at line 3, column 32 of the body.
			if f.Line != 3 || f.Column != 32 {
				t.Errorf("finding at %d:%d, want 3:32", f.Line, f.Column)
			}
		}
	}
	if !found {
		t.Errorf("no finding about the empty description: %s", rec.Body)
	}
}

func TestToErrorMapsUnknownErrorsToInternal(t *testing.T) {
	e := toError(errors.New("disk on fire"))
	if e.Code != CodeInternal || e.Message != "internal error" {
		t.Errorf("got %+v: internal errors must not leak their cause", e)
	}
	if e.Code.Status() != 500 || Code("no-such-code").Status() != 500 {
		t.Error("unknown codes must be 500")
	}
}

// TestValueEnd: the end of an object or array is found past brackets and quotes in strings.
func TestValueEnd(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `{"a": "}"}`, `["\"]", "\\"]`, `{"a": [{"b": "]["}]}`, "[\"\u00e9}\"]"} {
		src := []byte(s + ` , "tail"]`)
		if end := valueEnd(src, 0); end != len(s) {
			t.Errorf("valueEnd(%s) = %d, want %d", s, end, len(s))
		}
	}
	// Positions given by ParseJSON agree.
	v, err := listing.ParseJSON([]byte(`{"x": {"y": "}"}, "z": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if end := valueEnd([]byte(`{"x": {"y": "}"}, "z": 1}`), v.Get("x").Pos); end != 16 {
		t.Errorf("nested end %d, want 16", end)
	}
}

// TestConcurrentRequests shares the API's engines between parallel requests (run with -race).
func TestConcurrentRequests(t *testing.T) {
	e := newRouter(t, Options{})
	reqs := []struct{ path, body string }{
		{"/check", body("listing", small, "tokenizer", `"cl100k_base"`)},
		{"/cost", body("listing", small)},
		{"/export", body("listing", small, "format", `"review"`, "baseline", `[{"name": "get_book"}]`)},
		{"/check", body("listing", small)},
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = call(e, http.MethodPost, Prefix+r.path, r.body).Body.String()
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range reqs {
				r := reqs[(i+g)%len(reqs)]
				if got := call(e, http.MethodPost, Prefix+r.path, r.body).Body.String(); got != want[(i+g)%len(reqs)] {
					t.Errorf("%s answered differently under concurrency", r.path)
				}
			}
		}()
	}
	wg.Wait()
}

// TestPanicAnswersInShape: a panicking handler answers a bare 500 in the error shape, and the
// panic goes to the log, not to the client.
func TestPanicAnswersInShape(t *testing.T) {
	var logged bytes.Buffer
	a := New(Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodPost, Prefix+"/check", nil), rec)
	err := a.answerErrors(func(echo.Context) error { panic("engine bug at /secret/path") })(c)
	if err != nil {
		t.Fatalf("the middleware returned %v; it must answer itself", err)
	}
	got := apiError(t, rec)
	if got.Code != CodeInternal || strings.Contains(rec.Body.String(), "secret") {
		t.Errorf("answer: %s", rec.Body)
	}
	if !strings.Contains(logged.String(), "engine bug") {
		t.Errorf("the panic was not logged: %q", logged.String())
	}
}
