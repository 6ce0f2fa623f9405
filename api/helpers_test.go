package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// newRouter mounts the API on a fresh Echo whose own error handler answers in plain text, as
// the web server's does for pages: a test that sees that text caught an error escaping the API.
func newRouter(t testing.TB, opts Options) *echo.Echo {
	t.Helper()
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		_ = c.String(http.StatusTeapot, "ESCAPED: "+err.Error())
	}
	New(opts).Register(e.Group(Prefix))
	return e
}

// call sends a request through the router. A JSON content type is set unless headers name one.
func call(e *echo.Echo, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set(echo.HeaderContentType, "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			if headers[i] == "Content-Length" {
				req.ContentLength = -1 // as a chunked request: the limit must hold while reading
			}
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

// apiError decodes an error response, failing unless it has the one error shape.
func apiError(t testing.TB, rec *httptest.ResponseRecorder) Error {
	t.Helper()
	var body struct {
		Error *Error `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil {
		t.Fatalf("status %d: body is not an error object (%v): %s", rec.Code, err, rec.Body)
	}
	if body.Error.Code.Status() != rec.Code {
		t.Errorf("code %s has status %d, the response %d", body.Error.Code, body.Error.Code.Status(), rec.Code)
	}
	if body.Error.Message == "" {
		t.Errorf("error %s has no message", body.Error.Code)
	}
	return *body.Error
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t testing.TB, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// body builds a request body from members given as key, raw JSON pairs, in order.
func body(kv ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(kv[i])
		b.Write(k)
		b.WriteString(": ")
		b.WriteString(kv[i+1])
	}
	b.WriteString("}")
	return b.String()
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
