package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
)

// docURL is where the compiler keeps the document; $refs inside it resolve against it.
const docURL = "https://workbench.invalid/api/v1/openapi.json"

var (
	specOnce sync.Once
	spec     map[string]any
	specComp *jsonschema.Compiler
	specErr  error
	specMu   sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

// loadSpec parses the embedded document and registers it with a JSON Schema compiler, so that
// its schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12) validate requests and responses.
func loadSpec(t testing.TB) map[string]any {
	t.Helper()
	specOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapiDoc))
		if err != nil {
			specErr = err
			return
		}
		spec, _ = doc.(map[string]any)
		specComp = jsonschema.NewCompiler()
		specComp.AssertFormat()
		specErr = specComp.AddResource(docURL, doc)
	})
	if specErr != nil {
		t.Fatalf("openapi.json: %v", specErr)
	}
	return spec
}

// schemaAt compiles the schema at a JSON pointer of the document.
func schemaAt(t testing.TB, ptr string) *jsonschema.Schema {
	t.Helper()
	loadSpec(t)
	specMu.Lock()
	defer specMu.Unlock()
	if s, ok := compiled[ptr]; ok {
		return s
	}
	s, err := specComp.Compile(docURL + "#" + ptr)
	if err != nil {
		t.Fatalf("compiling the schema at %s: %v", ptr, err)
	}
	compiled[ptr] = s
	return s
}

func validateJSON(t testing.TB, ptr string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", ptr, err, data)
	}
	if err := schemaAt(t, ptr).Validate(v); err != nil {
		t.Errorf("does not validate against %s: %v\n%.2000s", ptr, err, data)
	}
}

func ptrEscape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// routeOf turns a request path into the document's path template.
var idSegment = regexp.MustCompile(`/workspaces/[^/]+(/|$)`)

func routeOf(path string) string {
	path = strings.TrimPrefix(path, Prefix)
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return idSegment.ReplaceAllString(path, "/workspaces/{id}$1")
}

// checkRequest validates a request body against the operation's request schema.
func checkRequest(t testing.TB, method, path, body string) {
	t.Helper()
	op := "/paths/" + ptrEscape(routeOf(path)) + "/" + strings.ToLower(method)
	validateJSON(t, op+"/requestBody/content/application~1json/schema", []byte(body))
}

// requestSchemaError validates a request body against the operation's request schema and
// returns the validation error (nil if it is valid or not JSON at all).
func requestSchemaError(t testing.TB, method, path, body string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		return errors.New("not JSON")
	}
	op := "/paths/" + ptrEscape(routeOf(path)) + "/" + strings.ToLower(method)
	return schemaAt(t, op+"/requestBody/content/application~1json/schema").Validate(v)
}

// checkResponse fails unless the document lists the response's status for the operation, and
// validates the body against that response's schema.
func checkResponse(t testing.TB, method, path string, rec *httptest.ResponseRecorder) {
	t.Helper()
	doc := loadSpec(t)
	route := routeOf(path)
	item, _ := doc["paths"].(map[string]any)[route].(map[string]any)
	if item == nil {
		t.Fatalf("%s %s: no path %s in openapi.json", method, path, route)
	}
	m := strings.ToLower(method)
	op, _ := item[m].(map[string]any)
	if op == nil {
		if rec.Code == http.StatusMethodNotAllowed {
			validateJSON(t, "/components/schemas/Error", rec.Body.Bytes())
			return
		}
		t.Fatalf("%s %s: no operation in openapi.json", method, route)
	}
	code := strconv.Itoa(rec.Code)
	resp, _ := op["responses"].(map[string]any)[code].(map[string]any)
	if resp == nil {
		t.Fatalf("%s %s answered %d, which openapi.json does not list: %s", method, route, rec.Code, rec.Body)
	}
	ptr := "/paths/" + ptrEscape(route) + "/" + m + "/responses/" + code
	if ref, ok := resp["$ref"].(string); ok {
		ptr = strings.TrimPrefix(ref, "#")
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q, want application/json", method, route, ct)
	}
	validateJSON(t, ptr+"/content/application~1json/schema", rec.Body.Bytes())
}

// TestOpenAPIMatchesRouter walks every path and method of the document and checks that the
// router has it under the same name, and every route under /api/v1 is in the document.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadSpec(t)
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi is %q, want 3.1.x", v)
	}
	type op struct{ method, path, id string }
	var documented []op
	for p, item := range doc["paths"].(map[string]any) {
		for m, o := range item.(map[string]any) {
			if m == "parameters" {
				continue
			}
			id, _ := o.(map[string]any)["operationId"].(string)
			documented = append(documented, op{strings.ToUpper(m), Prefix + strings.ReplaceAll(p, "{id}", ":id"), id})
		}
	}
	e := newRouter(t, Options{})
	var routed []op
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, Prefix) || r.Method == echoRouteNotFound || r.Name == methodNotAllowedName {
			continue
		}
		routed = append(routed, op{r.Method, r.Path, r.Name})
	}
	less := func(s []op) func(i, j int) bool {
		return func(i, j int) bool { return s[i].path+s[i].method < s[j].path+s[j].method }
	}
	sort.Slice(documented, less(documented))
	sort.Slice(routed, less(routed))
	if !slices.Equal(documented, routed) {
		t.Errorf("the document and the router differ:\ndocument: %v\nrouter:   %v", documented, routed)
	}
	if len(routed) < 8 {
		t.Errorf("only %d routes: %v", len(routed), routed)
	}
}

// echoRouteNotFound is the method Echo files a group's catch-all routes under.
const echoRouteNotFound = "echo_route_not_found"

// TestOpenAPISchemas compiles every schema of the document (the compiler checks each against
// the JSON Schema 2020-12 meta-schema and resolves every $ref), and validates each request
// example against its operation's schema.
func TestOpenAPISchemas(t *testing.T) {
	doc := loadSpec(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name := range schemas {
		schemaAt(t, "/components/schemas/"+name)
	}
	for name := range doc["components"].(map[string]any)["responses"].(map[string]any) {
		schemaAt(t, "/components/responses/"+name+"/content/application~1json/schema")
	}
	examples := 0
	for p, item := range doc["paths"].(map[string]any) {
		for m, o := range item.(map[string]any) {
			if m == "parameters" {
				continue
			}
			op := o.(map[string]any)
			if _, ok := op["operationId"].(string); !ok {
				t.Errorf("%s %s has no operationId", m, p)
			}
			responses, _ := op["responses"].(map[string]any)
			if len(responses) == 0 {
				t.Errorf("%s %s documents no responses", m, p)
			}
			for code, r := range responses {
				ptr := "/paths/" + ptrEscape(p) + "/" + m + "/responses/" + code
				if ref, ok := r.(map[string]any)["$ref"].(string); ok {
					ptr = strings.TrimPrefix(ref, "#")
				}
				schemaAt(t, ptr+"/content/application~1json/schema")
				if code[0] == '4' || code[0] == '5' {
					if !strings.HasPrefix(ptr, "/components/responses/") {
						t.Errorf("%s %s: error response %s does not use a shared error response", m, p, code)
					}
				}
			}
			rb, _ := op["requestBody"].(map[string]any)
			if rb == nil {
				continue
			}
			media := rb["content"].(map[string]any)["application/json"].(map[string]any)
			ex, ok := media["example"]
			if !ok {
				t.Errorf("%s %s: request body has no example", m, p)
				continue
			}
			b, _ := json.Marshal(ex)
			validateJSON(t, "/paths/"+ptrEscape(p)+"/"+m+"/requestBody/content/application~1json/schema", b)
			examples++
		}
	}
	if examples < 5 {
		t.Errorf("only %d request examples validated", examples)
	}
}

// TestOpenAPIExamplesAnswer sends every request example of the document to its endpoint and
// validates the answer: the examples are real requests, not decoration.
func TestOpenAPIExamplesAnswer(t *testing.T) {
	doc := loadSpec(t)
	// The drafting examples are answered by the fake model, the server's one endpoint.
	e := newRouter(t, Options{Workspaces: newFakeStore(), Models: fakeModels(t, &fakemodel.Server{})})
	created := call(e, http.MethodPost, Prefix+"/workspaces", body("listing", small))
	var w struct{ ID string }
	if err := json.Unmarshal(created.Body.Bytes(), &w); err != nil || w.ID == "" {
		t.Fatalf("create: %d %s", created.Code, created.Body)
	}
	reviewE, _, _, reviewWS := reviewRouter(t, Options{}, nil)
	for p, item := range doc["paths"].(map[string]any) {
		for m, o := range item.(map[string]any) {
			if m == "parameters" {
				continue
			}
			rb, _ := o.(map[string]any)["requestBody"].(map[string]any)
			if rb == nil {
				continue
			}
			ex := rb["content"].(map[string]any)["application/json"].(map[string]any)["example"]
			b, _ := json.Marshal(ex)
			router, id := e, w.ID
			if strings.Contains(p, "/review/") { // the review needs a store with reviews
				router, id = reviewE, reviewWS
			}
			path := Prefix + strings.ReplaceAll(p, "{id}", id)
			rec := call(router, strings.ToUpper(m), path, string(b))
			if rec.Code >= 300 {
				t.Errorf("%s %s example: %d %s", m, p, rec.Code, rec.Body)
				continue
			}
			checkResponse(t, strings.ToUpper(m), path, rec)
		}
	}
}

// TestErrorCodesDocumented holds the code table and the document's enum of codes together.
func TestErrorCodesDocumented(t *testing.T) {
	doc := loadSpec(t)
	detail := doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorDetail"].(map[string]any)
	var documented []string
	for _, c := range detail["properties"].(map[string]any)["code"].(map[string]any)["enum"].([]any) {
		documented = append(documented, c.(string))
	}
	var coded []string
	for c := range statusOf {
		coded = append(coded, string(c))
	}
	sort.Strings(documented)
	sort.Strings(coded)
	if !slices.Equal(documented, coded) {
		t.Errorf("error codes differ:\ndocument: %v\nstatusOf: %v", documented, coded)
	}
	desc, _ := detail["properties"].(map[string]any)["code"].(map[string]any)["description"].(string)
	for c, status := range statusOf {
		// The description lists the codes by status: "... 422 invalid_listing, ...".
		idx := strings.Index(desc, string(c))
		head := desc[:max(idx, 0)]
		last := strings.LastIndexAny(head, ";:")
		if idx < 0 || !strings.HasPrefix(strings.TrimSpace(head[last+1:]), strconv.Itoa(status)) {
			t.Errorf("the code description does not list %s under %d", c, status)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	e := newRouter(t, Options{})
	rec := call(e, http.MethodGet, Prefix+"/openapi.json", "")
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), openapiDoc) {
		t.Fatalf("GET openapi.json: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	checkResponse(t, http.MethodGet, Prefix+"/openapi.json", rec)
}
