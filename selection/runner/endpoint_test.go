package runner

import (
	"strings"
	"testing"
)

func TestParseEndpoints(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"object", `{"endpoints": [{"name": "a", "baseURL": "https://api.openai.com/v1", "model": "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY", "concurrency": 8, "headers": {"OpenAI-Project": "p"}}]}`, ""},
		{"array", `[{"name": "local", "baseURL": "http://127.0.0.1:8080/v1", "model": "qwen3"}]`, ""},
		{"azure", `[{"name": "az", "baseURL": "https://x.openai.azure.com", "model": "dep", "apiKeyEnv": "AZ", "apiType": "azure", "apiVersion": "2024-10-21"}]`, ""},
		{"empty", ``, "is empty"},
		{"unknown field", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "apiKey": "sk-x"}]`, `unknown field "apiKey"`},
		{"key as env name", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "apiKeyEnv": "sk-abc-123"}]`, "NAME of an environment variable"},
		{"bad url", `[{"name": "a", "baseURL": "ftp://h", "model": "m"}]`, "not an http(s) URL"},
		{"creds in url", `[{"name": "a", "baseURL": "https://u:p@h/v1", "model": "m"}]`, "must not carry credentials"},
		{"no model", `[{"name": "a", "baseURL": "http://h/v1", "model": " "}]`, "model is empty"},
		{"bad name", `[{"name": "a b", "baseURL": "http://h/v1", "model": "m"}]`, "name must be"},
		{"duplicate", `[{"name": "a", "baseURL": "http://h/v1", "model": "m"}, {"name": "a", "baseURL": "http://h/v1", "model": "m"}]`, "used twice"},
		{"concurrency", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "concurrency": 1000}]`, "concurrency 1000 is out of range"},
		{"auth header", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "headers": {"authorization": "Bearer x"}}]`, "credential in the configuration"},
		{"header newline", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "headers": {"X-A": "a\nb"}}]`, "line break"},
		{"azure version", `[{"name": "a", "baseURL": "http://h", "model": "m", "apiType": "azure"}]`, "needs apiVersion"},
		{"api type", `[{"name": "a", "baseURL": "http://h", "model": "m", "apiType": "anthropic"}]`, "unknown"},
		{"timeout", `[{"name": "a", "baseURL": "http://h", "model": "m", "timeout": "soon"}]`, "not a positive Go duration"},
		{"trailing", `[] []`, "text follows"},
		{"trailing bracket", `[{"name": "a", "baseURL": "http://h/v1", "model": "m"}]]`, "text follows"},
		{"trailing brace", `{"endpoints": [{"name": "a", "baseURL": "http://h/v1", "model": "m"}]}}`, "text follows"},
		{"no endpoints", `{"endpoints": []}`, "lists no endpoints"},
		{"null", `null`, "lists no endpoints"},
		{"record", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "record": "tape.json"}]`, ""},
		{"record and replay", `[{"name": "a", "model": "m", "record": "a.json", "replay": "b.json"}]`, "not both"},
		{"one recording, two endpoints", `[{"name": "a", "baseURL": "http://h/v1", "model": "m", "record": "tape.json"}, {"name": "b", "baseURL": "http://h/v1", "model": "n", "record": "./tape.json"}]`, "records to the same file as"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eps, err := ParseEndpoints([]byte(tt.src))
			if tt.want == "" {
				if err != nil || len(eps) != 1 {
					t.Fatalf("got %v, %v", eps, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFindAndInfo(t *testing.T) {
	eps, err := ParseEndpoints([]byte(`[{"name": "a", "baseURL": "https://api.example.com/v1", "model": "m", "apiKeyEnv": "K", "headers": {"X-Secretish": "v"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Find(eps, "b"); err == nil || !strings.Contains(err.Error(), "configured: a") {
		t.Errorf("Find(b) error = %v", err)
	}
	e, err := Find(eps, "a")
	if err != nil {
		t.Fatal(err)
	}
	if in := e.Info(); in.Host != "api.example.com" || !in.NeedsKey || in.Concurrency != DefaultConcurrency {
		t.Errorf("info = %+v", in)
	}
	if _, err := NewClient(e, ClientOptions{Getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "K is unset or empty") {
		t.Errorf("missing key error = %v", err)
	}
}

func FuzzParseEndpoints(f *testing.F) {
	f.Add([]byte(`{"endpoints": [{"name": "a", "baseURL": "https://api.openai.com/v1", "model": "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY"}]}`))
	f.Add([]byte(`[{"name": "a", "baseURL": "http://h", "model": "m", "headers": {"X": "y"}, "timeout": "5s"}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		eps, err := ParseEndpoints(src)
		if err != nil {
			return
		}
		for _, e := range eps {
			if err := e.Validate(); err != nil {
				t.Fatalf("accepted an endpoint that does not validate: %v", err)
			}
		}
	})
}
