package api

import (
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzPutRoundTrip sends arbitrary bodies to PUT /workspaces/{id}/listing and /tasks. Every
// answer is a 200 or an error in the one shape with a 4xx status; and whatever a PUT accepted,
// GET gives back in a form that PUT takes again, unchanged: the round trip is a fixed point.
func FuzzPutRoundTrip(f *testing.F) {
	f.Add(uint8(0), []byte(`{"tools": [{"name": "a", "description": "Read a thing.", "inputSchema": {"type": "object"}}]}`))
	f.Add(uint8(0), []byte(`{"listing": [{"name": "a"}], "message": "wrapped"}`))
	f.Add(uint8(0), []byte(`{"tools": [{"name": "a", "listing": 1}], "listing": {"tools": []}}`))
	f.Add(uint8(0), []byte(`{"name": "a", "listing": "x", "message": "a tool"}`))
	f.Add(uint8(0), []byte(`{"message": "no listing"}`))
	f.Add(uint8(0), []byte(`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "b"}]}}`))
	f.Add(uint8(1), []byte(`[{"task": "Find a book", "expect": "a", "tags": ["x"]}, {"task": "hi", "expect": null}]`))
	f.Add(uint8(1), []byte(`{"tasks": [{"task": "t", "expect": null, "args": {"n": 1.50}}], "message": "m"}`))
	f.Add(uint8(1), []byte(`{}`))
	f.Add(uint8(1), []byte(`{"tasks": "[{\"task\": \"t\", \"expect\": \"a\"}]"}`))
	docs := []string{"listing", "tasks"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		e := newRouter(t, Options{Workspaces: newFakeStore(), MaxBodyBytes: 1 << 16})
		created := call(e, http.MethodPost, Prefix+"/workspaces", `{"listing": [{"name": "seed"}]}`)
		var w workspaceResponse
		if err := json.Unmarshal(created.Body.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		u := Prefix + "/workspaces/" + w.ID + "/" + docs[int(which)%len(docs)]
		put := call(e, http.MethodPut, u, string(body))
		switch {
		case put.Code == http.StatusOK:
		case put.Code >= 400 && put.Code < 500:
			var eb struct{ Error *Error }
			if err := json.Unmarshal(put.Body.Bytes(), &eb); err != nil || eb.Error == nil || eb.Error.Code.Status() != put.Code {
				t.Fatalf("%d without the error shape: %.300s", put.Code, put.Body)
			}
			return
		default:
			t.Fatalf("status %d for %q: %.300s", put.Code, body, put.Body)
		}
		got := call(e, http.MethodGet, u, "")
		if got.Code != http.StatusOK {
			t.Fatalf("GET after an accepted PUT: %d %.300s", got.Code, got.Body)
		}
		again := call(e, http.MethodPut, u, got.Body.String())
		if again.Code != http.StatusOK {
			t.Fatalf("PUT of what GET gave: %d %.300s\nGET gave:\n%.500s", again.Code, again.Body, got.Body)
		}
		if back := call(e, http.MethodGet, u, ""); back.Body.String() != got.Body.String() {
			t.Fatalf("GET, PUT, GET changed the document:\n%.500s\nthen:\n%.500s", got.Body, back.Body)
		}
	})
}
