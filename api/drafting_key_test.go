package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/runner"
)

// An endpoint that pads its error message so that the key straddles the point where the
// message is cut short leaves no part of the key in the API's answer: wherever it starts
// around the cut, the message is redacted before it is cut.
func TestDraftingKeyAtTheCutNotLeaked(t *testing.T) {
	const key = "sk-draft-api-secret-0123456789abcdefXYZ"
	for start := 300 - len(key); start <= 301; start++ {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": strings.Repeat("x", start) + k + " is your key"}})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(b)
		})
		ep := runner.Endpoint{Name: "evil", BaseURL: "http://evil.invalid/v1", Model: "m", APIKeyEnv: "K"}
		cl, err := runner.NewClient(ep, runner.ClientOptions{Retries: -1, Getenv: func(string) string { return key }, HTTP: runner.HandlerDoer{Handler: h}})
		if err != nil {
			t.Fatal(err)
		}
		e := newRouter(t, Options{Models: func(string) (drafting.Model, string) { return cl, "" }})
		rec := call(e, http.MethodPost, Prefix+"/suggest", body("listing", small, "tool", "0"))
		if strings.Contains(rec.Body.String(), key[:8]) {
			t.Errorf("key at byte %d: the API's answer (HTTP %d) holds the key's start: %s", start, rec.Code, rec.Body.String())
		}
	}
}
