package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// A server that echoes the key in the answer's text, plainly or spelt with JSON escapes, hands
// the caller of Complete no key: the completion is scrubbed as the exchange is.
func TestCompletionScrubbed(t *testing.T) {
	const key = "sk-echo-9f8e7d6c"
	escaped := `\u0073k-echo-9f8e7d6c` // the same key, its first letter escaped
	for _, spelt := range []string{key, escaped} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
				`"message":{"role":"assistant","content":"your key is ` + spelt + `","tool_calls":[{"id":"c","type":"function",` +
				`"function":{"name":"t","arguments":"{\"k\":\"` + spelt + `\"}"}}]}}]}`))
		})
		c, err := NewClient(Endpoint{Name: "echo", BaseURL: "http://echo.invalid/v1", Model: "m", APIKeyEnv: "K"},
			ClientOptions{Getenv: func(string) string { return key }, HTTP: HandlerDoer{h}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := c.Complete(context.Background(), openai.ChatCompletionRequest{Model: "m",
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep.Completion)
		if strings.Contains(string(b), key) {
			t.Errorf("spelt %q: the completion holds the key: %s", spelt, b)
		}
		if !strings.Contains(rep.Completion.Choices[0].Message.Content, "[redacted]") {
			t.Errorf("spelt %q: the content %q was not redacted in place", spelt, rep.Completion.Choices[0].Message.Content)
		}
	}
}

// The exchange kept for a recording holds no key spelt with escapes either, a \u escape or the
// "\/" JSON allows for a slash: a replay would decode it back.
func TestExchangeScrubbedOfEscapedKey(t *testing.T) {
	const key = "sk-echo/9f8e7d6c"
	for _, spelt := range []string{`\u0073k-echo/9f8e7d6c`, `sk-echo\/9f8e7d6c`} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
				`"message":{"role":"assistant","content":"key ` + spelt + `"}}]}`))
		})
		c, err := NewClient(Endpoint{Name: "echo", BaseURL: "http://echo.invalid/v1", Model: "m", APIKeyEnv: "K"},
			ClientOptions{Getenv: func(string) string { return key }, HTTP: HandlerDoer{h}, Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := c.Complete(context.Background(), openai.ChatCompletionRequest{Model: "m",
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(rep.Exchange.Response, &v); err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(v); strings.Contains(string(b), key) {
			t.Errorf("spelt %s: the exchange decodes to the key: %s", spelt, rep.Exchange.Response)
		}
	}
}
