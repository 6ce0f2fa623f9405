// Package runner runs a task file through a model behind any OpenAI-compatible chat endpoint
// (OpenAI, Azure OpenAI, vLLM, llama.cpp's server, Ollama, …) with the listing's tools, and
// scores what the model picked: accuracy with a Wilson interval, per-tool precision and recall,
// a confusion matrix, argument validity, consistency across samples, and a paired comparison of
// two runs with an exact McNemar test.
//
// Calls are bounded per endpoint, retried with backoff that honours Retry-After, cancelled with
// the context, cached by a hash of the request, and persisted one JSON line per finished call so
// that a killed run resumes where it stopped. A run exports as a recording of its raw exchanges,
// and an endpoint with "record" keeps one of every call made to it (RecordFile); ReplayHandler
// serves either back as an OpenAI-compatible endpoint that needs no key.
//
// The API key is read from the environment variable an endpoint names, sent only in the
// request's headers, and scrubbed from every error, response body and text this package returns.
package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Endpoint is a model behind an OpenAI-compatible chat completions API, as configured on the
// server. It holds the name of the environment variable that holds the key, never the key.
type Endpoint struct {
	// Name is how users pick the endpoint (--endpoint NAME, the browser's list).
	Name string `json:"name"`
	// BaseURL is the API root that /chat/completions is appended to, e.g.
	// https://api.openai.com/v1 or http://127.0.0.1:8080/v1.
	BaseURL string `json:"baseURL"`
	// Model is the model name sent with every request (the deployment name on Azure).
	Model string `json:"model"`
	// APIKeyEnv names the environment variable holding the key; empty for endpoints that need
	// none (a local llama.cpp or Ollama server).
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// Concurrency bounds the calls in flight to this endpoint across all runs (default 4).
	Concurrency int `json:"concurrency,omitempty"`
	// Headers are added to every request (organisation or project headers, gateways).
	Headers map[string]string `json:"headers,omitempty"`
	// APIType is "openai" (default) or "azure" (key in the api-key header, deployment URLs).
	APIType string `json:"apiType,omitempty"`
	// APIVersion is Azure's api-version query parameter.
	APIVersion string `json:"apiVersion,omitempty"`
	// Timeout bounds one call, as a Go duration ("60s"); default DefaultTimeout.
	Timeout string `json:"timeout,omitempty"`
	// Replay, when set, is the path of a recording that answers instead of a server: no key,
	// no network. BaseURL may then be left out, and Model defaults to the recording's.
	Replay string `json:"replay,omitempty"`
	// Record, when set, is the path of a recording every call to this endpoint is added to
	// (RecordFile), for a replay endpoint to answer later.
	Record string `json:"record,omitempty"`
}

// replayURL is the base URL of an endpoint that answers from a recording; nothing is sent there.
const replayURL = "http://replay.invalid/v1"

// Defaults for an endpoint's settings.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 60 * time.Second
	MaxConcurrency     = 256
)

// Info is what may be shown of an endpoint anywhere, a browser included: no header values and
// no key.
type Info struct {
	Name        string `json:"name"`
	Model       string `json:"model"`
	Host        string `json:"host"`
	Concurrency int    `json:"concurrency"`
	NeedsKey    bool   `json:"needsKey"`
	Replay      bool   `json:"replay"`
	Records     bool   `json:"records"` // its calls are added to a recording (the path is not shown)
}

// Info returns the endpoint's displayable summary.
func (e Endpoint) Info() Info {
	host := e.BaseURL
	if u, err := url.Parse(e.BaseURL); err == nil {
		host = u.Host
	}
	if e.Replay != "" {
		host = "recording"
	}
	return Info{Name: e.Name, Model: e.Model, Host: host, Concurrency: e.concurrency(), NeedsKey: e.APIKeyEnv != "", Replay: e.Replay != "",
		Records: e.Record != ""}
}

func (e Endpoint) concurrency() int {
	if e.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return e.Concurrency
}

func (e Endpoint) timeout() time.Duration {
	if d, err := time.ParseDuration(e.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	envRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	headerRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$")
)

// Validate reports the first thing wrong with the endpoint, worded for the person editing the
// configuration.
func (e Endpoint) Validate() error {
	where := "endpoint"
	if e.Name != "" {
		where = fmt.Sprintf("endpoint %q", e.Name)
	}
	if !nameRE.MatchString(e.Name) {
		return fmt.Errorf("%s: name must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit), such as \"openai-mini\"", where)
	}
	if e.Replay != "" && e.Record != "" {
		return fmt.Errorf("%s: an endpoint either replays a recording or records one; give it \"replay\" or \"record\", not both", where)
	}
	if e.Replay != "" {
		if e.APIKeyEnv != "" {
			return fmt.Errorf("%s: a replay endpoint answers from its recording and needs no apiKeyEnv", where)
		}
		if e.BaseURL == "" {
			e.BaseURL = replayURL
		}
		if e.Model == "" {
			e.Model = "from-recording"
		}
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: baseURL %q is not an http(s) URL; give the API root, such as https://api.openai.com/v1", where, e.BaseURL)
	}
	if u.User != nil {
		return fmt.Errorf("%s: baseURL must not carry credentials; name the key's environment variable in apiKeyEnv", where)
	}
	if strings.TrimSpace(e.Model) == "" {
		return fmt.Errorf("%s: model is empty; give the model (or Azure deployment) name, such as \"gpt-4o-mini\"", where)
	}
	if e.APIKeyEnv != "" && !envRE.MatchString(e.APIKeyEnv) {
		return fmt.Errorf("%s: apiKeyEnv must be the NAME of an environment variable (letters, digits, '_'), such as \"OPENAI_API_KEY\", not the key itself", where)
	}
	if e.Concurrency < 0 || e.Concurrency > MaxConcurrency {
		return fmt.Errorf("%s: concurrency %d is out of range; give 1 to %d (0 means %d)", where, e.Concurrency, MaxConcurrency, DefaultConcurrency)
	}
	for k, v := range e.Headers {
		if !headerRE.MatchString(k) {
			return fmt.Errorf("%s: header name %q is not a valid HTTP header name", where, k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("%s: header %q holds a line break or NUL", where, k)
		}
		if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "api-key") {
			return fmt.Errorf("%s: header %q would put a credential in the configuration file; name its environment variable in apiKeyEnv instead", where, k)
		}
	}
	switch e.APIType {
	case "", "openai":
	case "azure":
		if e.APIVersion == "" {
			return fmt.Errorf("%s: apiType azure needs apiVersion, such as \"2024-10-21\"", where)
		}
	default:
		return fmt.Errorf("%s: apiType %q is unknown; use \"openai\" (any OpenAI-compatible server) or \"azure\"", where, e.APIType)
	}
	if e.Timeout != "" {
		if d, err := time.ParseDuration(e.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("%s: timeout %q is not a positive Go duration such as \"60s\"", where, e.Timeout)
		}
	}
	return nil
}

// MaxConfigBytes bounds an endpoint configuration file.
const MaxConfigBytes = 1 << 20

// ParseEndpoints reads an endpoint configuration: {"endpoints": [ENDPOINT, ...]} or a bare
// array of endpoints. Unknown members are errors, so that a misspelt "apiKeyEnv" does not
// silently send requests without a key.
func ParseEndpoints(src []byte) ([]Endpoint, error) {
	if len(src) > MaxConfigBytes {
		return nil, fmt.Errorf("the endpoint configuration is %d bytes; the workbench reads up to %d", len(src), MaxConfigBytes)
	}
	trimmed := bytes.TrimSpace(src)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the endpoint configuration is empty; write {\"endpoints\": [{\"name\": ..., \"baseURL\": ..., \"model\": ..., \"apiKeyEnv\": ...}]}")
	}
	var eps []Endpoint
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var err error
	if trimmed[0] == '[' {
		err = dec.Decode(&eps)
	} else {
		var doc struct {
			Endpoints []Endpoint `json:"endpoints"`
		}
		err = dec.Decode(&doc)
		eps = doc.Endpoints
	}
	if err != nil {
		return nil, fmt.Errorf("reading the endpoint configuration: %w (expected {\"endpoints\": [{\"name\", \"baseURL\", \"model\", \"apiKeyEnv\", \"concurrency\", \"headers\"}]})", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("reading the endpoint configuration: text follows the JSON value")
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf(`reading the endpoint configuration: it lists no endpoints; write {"endpoints": [{"name", "baseURL", "model", "apiKeyEnv"}]}`)
	}
	seen, records := map[string]bool{}, map[string]string{}
	for i, e := range eps {
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("endpoint %d: %w", i+1, err)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("endpoint %d: the name %q is used twice", i+1, e.Name)
		}
		seen[e.Name] = true
		if e.Record != "" {
			// Each recording is rewritten whole by its endpoint: two on one file would each
			// drop the other's calls.
			p, _ := filepath.Abs(e.Record)
			if other, ok := records[p]; ok {
				return nil, fmt.Errorf("endpoint %d: %q records to the same file as %q; give each endpoint a file of its own", i+1, e.Name, other)
			}
			records[p] = e.Name
		}
	}
	return eps, nil
}

// Find returns the endpoint with the given name.
func Find(eps []Endpoint, name string) (Endpoint, error) {
	names := make([]string, 0, len(eps))
	for _, e := range eps {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return Endpoint{}, fmt.Errorf("no endpoint is configured; give --endpoints FILE (or WORKBENCH_ENDPOINTS), or --base-url and --model")
	}
	return Endpoint{}, fmt.Errorf("no endpoint is named %q; configured: %s", name, strings.Join(names, ", "))
}
