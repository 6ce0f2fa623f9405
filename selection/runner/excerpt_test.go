package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// A server may pad what it echoes so that the key straddles the point where the workbench cuts
// the text short (the 300 bytes of a server's error message, the 200 of a body that is not a
// completion, the 4096 of a non-JSON body kept for the recording). Wherever the key starts
// around each cut, the error and the exchange hold no part of it: the text is redacted before
// it is cut, so the cut can only shorten "[redacted]".
func TestExcerptKeyAtEveryCut(t *testing.T) {
	const key = "sk-cut-0123456789abcdefXYZ"
	cases := []struct {
		name   string
		cut    int
		status int
		body   func(pad string) []byte // the answer, key after pad
	}{
		{"server's error message (300)", 300, http.StatusBadRequest, func(pad string) []byte {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": pad + key + " is your key"}})
			return b
		}},
		{"a 2xx body that is no completion (200)", 200, http.StatusOK, func(pad string) []byte {
			return []byte(pad + key + " <html>")
		}},
		{"a non-JSON body kept for the recording (4096)", 4096, http.StatusBadGateway, func(pad string) []byte {
			return []byte(pad + key + "</html>")
		}},
	}
	for _, tc := range cases {
		for start := tc.cut - len(key) - 2; start <= tc.cut+2; start++ {
			pad := strings.Repeat("<", start)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tc.status)
				w.Write(tc.body(pad))
			})
			c, err := NewClient(Endpoint{Name: "pad", BaseURL: "http://pad.invalid/v1", Model: "m", APIKeyEnv: "K"},
				ClientOptions{Getenv: func(string) string { return key }, HTTP: HandlerDoer{h}, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := c.Complete(context.Background(), openai.ChatCompletionRequest{Model: "m",
				Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}, 0, true)
			if err == nil {
				t.Fatalf("%s, key at %d: the call succeeded", tc.name, start)
			}
			seen := err.Error()
			if rep != nil {
				seen += " " + rep.Exchange.Body + " " + string(rep.Exchange.Response)
			}
			// Any 8 bytes of the key, wherever in it, are a leak.
			for i := 0; i+8 <= len(key); i++ {
				if strings.Contains(seen, key[i:i+8]) {
					t.Errorf("%s, key at byte %d: %q of the key survives: %s", tc.name, start, key[i:i+8], excerptAround(seen, key[i:i+8]))
					break
				}
			}
		}
	}
}

func excerptAround(s, sub string) string {
	i := strings.Index(s, sub)
	return fmt.Sprintf("…%s…", s[max(0, i-20):min(len(s), i+len(sub)+20)])
}
