package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// FuzzDecodeRequest feeds arbitrary bodies to the request decoder. It must never panic; what it
// accepts is one JSON object with known, unrepeated members; every error is located inside the
// body; and a listing member sent as a JSON value is cut out exactly (the blanked source parses
// to the same value, at the same line and column as in the body).
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"listing": {"tools": []}}`,
		`{"listing": [{"name": "a", "description": "]}\"["}], "name": "x"}`,
		"{\"name\": \"\u00e9\",\n \"listing\": {\"tools\": [{\"name\": \"b\"}]}}",
		`{"listing": "data: {\"result\": {\"tools\": []}}"}`,
		`{"listing": {}, "listing": {}}`,
		`{"listing": [1, 2`,
		`{"tokeniser": 1}`,
		`[]`, ``, `{"listing": NaN}`, "{\"listing\": \"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	fields := []string{"listing", "name", "tasks"}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body, fields)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("decodeRequest returned %T, not *Error: %v", err, err)
			}
			if e.Code.Status() >= 500 || e.Message == "" {
				t.Fatalf("error %+v", e)
			}
			if e.Line < 0 || e.Column < 0 || e.Line > bytes.Count(body, []byte("\n"))+1 {
				t.Fatalf("error located at %d:%d outside the body", e.Line, e.Column)
			}
			return
		}
		if req.root.Kind != listing.Object {
			t.Fatalf("accepted a %s", req.root.Kind)
		}
		seen := map[string]bool{}
		for _, m := range req.root.Members {
			if seen[m.Key] || !strings.Contains(strings.Join(fields, ","), m.Key) {
				t.Fatalf("accepted member %q (seen %v)", m.Key, seen[m.Key])
			}
			seen[m.Key] = true
		}
		v := req.get("listing")
		if v == nil {
			return
		}
		d, err := req.doc("listing", v)
		if err != nil {
			if v.Kind == listing.Object || v.Kind == listing.Array || v.Kind == listing.String {
				t.Fatalf("doc refused a %s: %v", v.Kind, err)
			}
			return
		}
		if d.text {
			if string(d.src) != v.Str {
				t.Fatal("text listing altered")
			}
			return
		}
		got, err := listing.ParseJSON(d.src)
		if err != nil {
			t.Fatalf("the cut-out value does not parse: %v\n%q", err, d.src)
		}
		if !listing.Equal(got, v) {
			t.Fatalf("the cut-out value differs from the member\n%q", d.src)
		}
		l1, c1, _ := listing.Position(body, v.Pos)
		l2, c2, _ := listing.Position(d.src, got.Pos)
		if l1 != l2 || c1 != c2 {
			t.Fatalf("value at %d:%d in the body but %d:%d in the cut-out source", l1, c1, l2, c2)
		}
		// Parsing as a listing never panics, and fails only with a listing error.
		if _, err := req.parseListing("listing", v, "listing", listing.Limits{}, false); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("parseListing returned %T", err)
			}
		}
	})
}

// FuzzEndpoints sends arbitrary bodies to the engine endpoints through the router. Every answer
// is a 200 with a JSON body or an error in the one shape, with a documented 4xx status: no
// panic, no 500, nothing escaping to the server's error handler.
func FuzzEndpoints(f *testing.F) {
	f.Add(uint8(0), []byte(`{"listing": {"tools": [{"name": "a", "description": "Read a thing."}]}, "tasks": [{"task": "read", "expect": "a"}]}`))
	f.Add(uint8(1), []byte(`{"listing": [{"name": "a"}], "render": "anthropic", "context": 1000}`))
	f.Add(uint8(2), []byte(`{"listing": [{"name": "a.b", "description": "*/ `+"`"+`x`+"`"+`"}], "format": "go", "main": true}`))
	f.Add(uint8(2), []byte(`{"listing": [{"name": "a"}], "format": "review", "baseline": "[]"}`))
	f.Add(uint8(0), []byte(`{"listing": "[{\"name\": 1}]", "merge": [{"name": "b", "listing": []}]}`))
	e := newRouter(f, Options{MaxBodyBytes: 1 << 16})
	f.Add(uint8(3), []byte(`{"listing": "[{\"name\": \"getA\", \"description\": \" Get a. \"}, {\"name\": \"list_b\"}]", "tasks": [{"task": "a", "expect": "getA"}], "suggested": true, "rules": ["name-style"]}`))
	paths := []string{"/check", "/cost", "/export", "/fix"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		path := Prefix + paths[int(which)%len(paths)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch {
		case rec.Code == http.StatusOK:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("200 with a body that is not JSON: %.200s", rec.Body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			var eb struct{ Error *Error }
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == nil || eb.Error.Code.Status() != rec.Code {
				t.Fatalf("%d without the error shape: %.300s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d for %q: %.300s", rec.Code, body, rec.Body)
		}
	})
}

// FuzzRevisionPage: any query gives a page within the store's bounds, or an invalid_field error
// that names the parameter and says what would work; never a panic.
func FuzzRevisionPage(f *testing.F) {
	for _, q := range []string{"", "before=10", "limit=5&before=3", "before=0", "limit=100000", "before=x", "before=1&before=2", "limit=%00", "before=9999999999999"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		e := echo.New()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.RawQuery = query
		page, err := revisionPage(e.NewContext(req, httptest.NewRecorder()))
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != CodeInvalidField || ae.Field == "" || ae.Hint == "" {
				t.Fatalf("query %q: %v, want an invalid_field error with a field and a hint", query, err)
			}
			return
		}
		if page.Before < 0 || page.Limit < 0 || page.Limit > store.MaxRevisionLimit {
			t.Fatalf("query %q: page %+v out of the store's bounds", query, page)
		}
	})
}
