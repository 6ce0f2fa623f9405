package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Doer sends HTTP requests; *http.Client is one, and so is HandlerDoer.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// ClientOptions tune a Client. The zero value is usable.
type ClientOptions struct {
	// Getenv reads the key's environment variable (os.Getenv in the command).
	Getenv func(string) string
	// HTTP sends the requests; nil means an http.Client whose idle pool fits the endpoint's
	// concurrency.
	HTTP Doer
	// Cache answers identical requests from earlier runs; nil disables it.
	Cache Cache
	// Retries is how many times a call is retried after a 429, a 5xx, a timeout or a broken
	// connection (default 4; negative means none).
	Retries int
	// Concurrency overrides the endpoint's bound when positive.
	Concurrency int
	// Timeout overrides the endpoint's per-call timeout when positive.
	Timeout time.Duration
	// MaxRetryAfter caps how long a Retry-After may make a call wait (default 2 minutes); a
	// server asking for longer fails the call instead of stalling the run.
	MaxRetryAfter time.Duration
	// Recording, for an endpoint with Replay set, is its recording already read (else the
	// client reads the file).
	Recording *Recording
	// RecordTo, for an endpoint with Record set, is its recording already open (else the
	// client opens the file). Close writes it.
	RecordTo *RecordFile
	// Sleep waits between attempts; tests replace it to observe the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client calls one endpoint. Share one Client among all runs on an endpoint: it holds the
// endpoint's concurrency bound.
type Client struct {
	ep       Endpoint
	oa       *openai.Client
	key      string
	sem      chan struct{}
	cache    Cache
	retries  int
	timeout  time.Duration
	maxAfter time.Duration
	sleep    func(context.Context, time.Duration) error
	rec      *Recording
	tape     *RecordFile // Endpoint.Record's; nil keeps nothing
}

// MaxResponseBytes bounds one response body.
const MaxResponseBytes = 16 << 20

// NewClient checks the endpoint and reads its key from the environment.
func NewClient(ep Endpoint, opts ClientOptions) (*Client, error) {
	if err := ep.Validate(); err != nil {
		return nil, err
	}
	rec := opts.Recording
	if ep.Replay != "" {
		if rec == nil {
			var err error
			if rec, err = OpenRecording(ep.Replay); err != nil {
				return nil, fmt.Errorf("endpoint %q: %w", ep.Name, err)
			}
		}
		if ep.BaseURL == "" {
			ep.BaseURL = replayURL
		}
		if ep.Model == "" {
			ep.Model = rec.Spec.Model
		}
		opts.HTTP = HandlerDoer{ReplayHandler(rec)}
		opts.Cache = nil
	}
	tape := opts.RecordTo
	if ep.Record != "" && tape == nil {
		var err error
		if tape, err = OpenRecordFile(ep.Record, ep); err != nil {
			return nil, fmt.Errorf("endpoint %q: %w", ep.Name, err)
		}
	}
	key := ""
	if ep.APIKeyEnv != "" {
		if opts.Getenv != nil {
			key = opts.Getenv(ep.APIKeyEnv)
		}
		if key == "" {
			return nil, fmt.Errorf("endpoint %q: the environment variable %s is unset or empty; set it to the endpoint's API key", ep.Name, ep.APIKeyEnv)
		}
	}
	c := &Client{ep: ep, key: key, cache: opts.Cache, retries: 4, timeout: ep.timeout(), rec: rec, tape: tape,
		maxAfter: 2 * time.Minute, sleep: sleepCtx}
	n := ep.concurrency()
	if opts.Concurrency > 0 {
		n = min(opts.Concurrency, MaxConcurrency)
	}
	c.sem = make(chan struct{}, n)
	if opts.Retries != 0 {
		c.retries = max(opts.Retries, 0)
	}
	if opts.Timeout > 0 {
		c.timeout = opts.Timeout
	}
	if opts.MaxRetryAfter > 0 {
		c.maxAfter = opts.MaxRetryAfter
	}
	if opts.Sleep != nil {
		c.sleep = opts.Sleep
	}
	httpc := opts.HTTP
	if httpc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// Keep a connection per concurrent call: the default of 2 idle connections per host
		// would make every other call open a new one.
		tr.MaxIdleConnsPerHost = n
		httpc = &http.Client{Transport: tr}
	}
	var cfg openai.ClientConfig
	if ep.APIType == "azure" {
		cfg = openai.DefaultAzureConfig(key, ep.BaseURL)
		cfg.APIVersion = ep.APIVersion
		cfg.AzureModelMapperFunc = func(m string) string { return m }
	} else {
		cfg = openai.DefaultConfig(key)
		cfg.BaseURL = ep.BaseURL
	}
	cfg.HTTPClient = &doer{next: httpc, headers: ep.Headers}
	c.oa = openai.NewClientWithConfig(cfg)
	return c, nil
}

// Endpoint returns the client's endpoint.
func (c *Client) Endpoint() Endpoint { return c.ep }

// Recording is the recording a replay endpoint answers from (nil for a live endpoint). Its Spec
// holds the settings the recorded requests were made with; other settings find no answers.
func (c *Client) Recording() *Recording { return c.rec }

// Close writes the endpoint's recording (Endpoint.Record), if it keeps one. The client may
// still be used; its later calls are written by a later Close.
func (c *Client) Close() error { return c.tape.Close() }

// Concurrency is the client's bound on calls in flight.
func (c *Client) Concurrency() int { return cap(c.sem) }

// redact replaces the key wherever a server may have echoed it.
func (c *Client) redact(b []byte) []byte {
	if len(c.key) < 4 || !bytes.Contains(b, []byte(c.key)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(c.key), []byte("[redacted]"))
}

func (c *Client) redactString(s string) string { return string(c.redact([]byte(s))) }

// redactJSON is redact for a JSON body, which may also spell the key with escapes
// ("\u0073k-…", or "\/" for a slash), hide it in a member a later duplicate overrides, or hold
// JSON text inside a string one escape deeper (a tool call's arguments: "\\u0073k-…"). A body
// whose decoded strings (names, values, duplicates and nested JSON included) hold no key is
// returned as it came; otherwise it is decoded, the key replaced in every string, and encoded
// again, so that the redaction never breaks the JSON (a key after a backslash, "\fw_…", would).
// When even that leaves the key in the text, as bytes or in a string read token by token, the
// answer is replaced by a note.
func (c *Client) redactJSON(b []byte) []byte {
	if !c.mayHoldKey(b) {
		return b
	}
	v, ok := decodeJSON(b)
	if !ok {
		return c.redact(b)
	}
	if !bytes.Contains(b, []byte(c.key)) && !c.tokensHoldKey(b, 0) {
		return b
	}
	plain, ok := encodeJSON(c.redactValue(v, 0))
	if !ok || bytes.Contains(plain, []byte(c.key)) || c.tokensHoldKey(plain, 0) {
		return keyNote
	}
	return plain
}

// mayHoldKey says whether b could hold the key as bytes or decoded, at any depth of JSON text
// nested in strings: as bytes, or through an escape that can spell one of its characters. Only
// \uXXXX (and \/ for a slash) can, when the key holds no quote, backslash or control character,
// and a nested escape is written with its backslash escaped ("\\u…"), which holds "\u" too. Most
// answers hold neither, and are left as they came without being decoded.
func (c *Client) mayHoldKey(b []byte) bool {
	switch {
	case len(c.key) < 4:
		return false
	case bytes.Contains(b, []byte(c.key)):
		return true
	case !bytes.ContainsRune(b, '\\'):
		return false
	case strings.IndexFunc(c.key, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 }) >= 0:
		return true
	}
	return bytes.Contains(b, []byte(`\u`)) || bytes.Contains(b, []byte(`\/`))
}

// keyNote stands for an answer that held the key where it could not be taken out.
var keyNote = []byte(`{"error":{"message":"the answer held the endpoint's key in a form that could not be redacted, so it was left out","type":"redacted"}}`)

// tokensHoldKey says whether any string of the JSON text b, read token by token (so a member a
// later one overrides is seen too), holds the key once decoded, here or in JSON text nested in it
// (deeper than maxNestedJSON, JSON text that may hold it counts as holding it).
func (c *Client) tokensHoldKey(b []byte, depth int) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return false // the end, or text decodeJSON would have refused
		}
		s, ok := tok.(string)
		if !ok {
			continue
		}
		if strings.Contains(s, c.key) {
			return true
		}
		if strings.ContainsRune(s, '\\') && c.mayHoldKey([]byte(s)) {
			if depth < maxNestedJSON {
				if c.tokensHoldKey([]byte(s), depth+1) {
					return true
				}
			} else if _, ok := decodeJSON([]byte(s)); ok {
				return true // too deep to read: it may hold the key (redactText drops it)
			}
		}
	}
}

// redactValue is v with the key replaced in every string and member name, and in JSON text
// nested in a string (re-encoded, escapes resolved). A string that would still hold the key once
// decoded becomes "[redacted]" whole, so the answer keeps its shape; so does JSON text nested
// deeper than maxNestedJSON that could hold it, and a string whose key's bytes return when it is
// written ("\fw_…": a form feed, then the rest of a key that starts with f).
func (c *Client) redactValue(v any, depth int) any {
	switch x := v.(type) {
	case string:
		return c.redactText(x, depth)
	case []any:
		for i, it := range x {
			x[i] = c.redactValue(it, depth)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[c.redactText(k, maxNestedJSON)] = c.redactValue(it, depth)
		}
		return out
	}
	return v
}

// redactText is redactValue for one string.
func (c *Client) redactText(s string, depth int) string {
	nested := strings.ContainsRune(s, '\\') && c.mayHoldKey([]byte(s))
	if nested {
		if inner, ok := decodeJSON([]byte(s)); ok {
			if depth >= maxNestedJSON {
				return "[redacted]" // too deep to read for the key: it may hold one
			}
			if plain, ok := encodeJSON(c.redactValue(inner, depth+1)); ok {
				s = string(plain)
			}
		}
	}
	s = strings.ReplaceAll(s, c.key, "[redacted]")
	if nested && c.tokensHoldKey([]byte(s), depth) {
		return "[redacted]"
	}
	// Only a character JSON escapes can put a backslash sequence before the rest of the key.
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' || r == 0x2028 || r == 0x2029 }) >= 0 {
		if enc, ok := encodeJSON(s); !ok || bytes.Contains(enc, []byte(c.key)) {
			return "[redacted]"
		}
	}
	return s
}

// maxNestedJSON bounds how many JSON texts deep redactJSON looks: arguments inside a body is
// one; a model that nests further gains nothing but work.
const maxNestedJSON = 3

// decodeJSON reads one JSON value, numbers as written.
func decodeJSON(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

// encodeJSON writes v with no HTML escapes (which would hide a key holding < > or &).
func encodeJSON(v any) ([]byte, bool) {
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), true
}

// Redact returns s with the key replaced wherever it appears as written. Text that is JSON
// and may spell the key with escapes is for the caller to re-encode first (see drafting's Ask).
func (c *Client) Redact(s string) string { return c.redactString(s) }

// scrub is the completion with the key redacted from every text in it: a server that echoes
// the key (in a message, a tool's arguments) must not hand it to whoever reads the answer.
// The decoded struct is re-encoded first, so a key the server spelt with JSON escapes is
// caught in its plain form.
func (c *Client) scrub(resp openai.ChatCompletionResponse) openai.ChatCompletionResponse {
	if len(c.key) < 4 {
		return resp
	}
	b, err := json.Marshal(resp)
	if err != nil || !bytes.Contains(b, []byte(c.key)) {
		return resp
	}
	var clean openai.ChatCompletionResponse
	if json.Unmarshal(c.redact(b), &clean) != nil {
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "[redacted]"}}}}
	}
	return clean
}

// Exchange is one call's final request and response as sent and received, key scrubbed.
type Exchange struct {
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response,omitempty"`
	// Body is a non-JSON response body, as text.
	Body string `json:"body,omitempty"`
}

// Reply is the outcome of one call after retries.
type Reply struct {
	Completion openai.ChatCompletionResponse
	Exchange   Exchange
	Hash       string // hash of the request (with the sample number): the cache key
	Attempts   int
	Cached     bool
	Latency    time.Duration // of the last attempt
	header     http.Header
}

// CallError is a call that failed for good. Its message never holds the key.
type CallError struct {
	Status    int    // HTTP status, 0 if none arrived
	Msg       string // what went wrong, with the server's own words when it gave any
	Retryable bool   // the kind of failure a later attempt may fix
}

func (e *CallError) Error() string { return e.Msg }

// exchange collects what the doer saw of one attempt; it travels in the request's context.
type exchange struct {
	sample   int
	noCache  bool
	cache    Cache
	key      string // cache key, set by the doer
	cached   bool
	sent     bool // the doer saw the request: go-openai did not refuse it first
	request  []byte
	status   int
	header   http.Header
	response []byte
}

type exchangeKey struct{}

// doer sits under go-openai's client: it adds the endpoint's headers, answers from the cache,
// and keeps the raw bodies and headers that go-openai does not expose on errors.
type doer struct {
	next    Doer
	headers map[string]string
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	x, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if x == nil {
		x = &exchange{}
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request body: %w", err)
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	x.request, x.sent = body, true
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	// The sample number is part of the key: k samples of one request are k answers, not one.
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n", req.URL.String(), x.sample)
	h.Write(body)
	x.key = hex.EncodeToString(h.Sum(nil))
	if x.cache != nil && !x.noCache {
		if b, ok := x.cache.Get(x.key); ok {
			x.cached, x.status, x.response, x.header = true, http.StatusOK, b, http.Header{}
			return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(bytes.NewReader(b)), Request: req, ContentLength: int64(len(b))}, nil
		}
	}
	resp, err := d.next.Do(req)
	if err != nil {
		return nil, err
	}
	rb, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the response body: %w", err)
	}
	if len(rb) > MaxResponseBytes {
		return nil, fmt.Errorf("the response body exceeds %d bytes", MaxResponseBytes)
	}
	x.status, x.header, x.response = resp.StatusCode, resp.Header, rb
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	return resp, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Complete sends one chat completion request, retrying what may succeed later. sample is the
// sample number, part of the cache key; noCache skips the cache for this call (the answer is
// still stored).
func (c *Client) Complete(ctx context.Context, req openai.ChatCompletionRequest, sample int, noCache bool) (*Reply, error) {
	req.Model = c.ep.Model
	for attempt := 1; ; attempt++ {
		reply, cerr := c.attempt(ctx, req, sample, noCache)
		if cerr == nil {
			// An answer that arrived is kept even if the run was cancelled meanwhile.
			reply.Attempts = attempt
			c.tape.Add(reply.Exchange)
			return reply, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reply.Attempts = attempt
		if !cerr.Retryable || attempt > c.retries {
			if cerr.Retryable {
				cerr.Msg = fmt.Sprintf("%s (gave up after %s)", cerr.Msg, plural(attempt, "attempt"))
			}
			c.tape.Add(reply.Exchange) // a replay fails it the same way
			return reply, cerr
		}
		wait := backoff(attempt)
		if ra, ok := retryAfter(reply.header); ok {
			if ra > c.maxAfter {
				c.tape.Add(reply.Exchange)
				return reply, &CallError{Status: cerr.Status, Msg: fmt.Sprintf("%s; the server asks to retry after %s, longer than the %s the workbench waits", cerr.Msg, ra, c.maxAfter)}
			}
			wait = ra
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) attempt(ctx context.Context, req openai.ChatCompletionRequest, sample int, noCache bool) (r *Reply, cerr *CallError) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return &Reply{}, &CallError{Msg: ctx.Err().Error()}
	}
	defer func() { <-c.sem }()
	if ctx.Err() != nil {
		// Cancelled while waiting for a slot: send nothing.
		return &Reply{}, &CallError{Msg: ctx.Err().Error()}
	}
	x := &exchange{sample: sample, noCache: noCache, cache: c.cache}
	actx, cancel := context.WithTimeout(context.WithValue(ctx, exchangeKey{}, x), c.timeout)
	defer cancel()
	start := time.Now()
	resp, err := c.oa.CreateChatCompletion(actx, req)
	r = &Reply{Hash: x.key, Cached: x.cached, Latency: time.Since(start), header: x.header,
		Exchange: Exchange{Request: c.redact(x.request), Status: x.status}}
	if json.Valid(x.response) {
		r.Exchange.Response = c.redactJSON(x.response)
	} else if len(x.response) > 0 {
		r.Exchange.Body = c.excerpt(x.response, 4096)
	}
	if err == nil {
		if len(resp.Choices) == 0 {
			return r, &CallError{Status: x.status, Msg: fmt.Sprintf("endpoint %q answered with no choices", c.ep.Name)}
		}
		r.Completion = c.scrub(resp)
		if x.cache != nil && !x.cached && !bytes.Equal(r.Exchange.Response, keyNote) {
			// A failed store costs only a repeat call later.
			_ = x.cache.Put(x.key, r.Exchange.Response)
		}
		return r, nil
	}
	return r, c.classify(err, x, actx)
}

// classify turns go-openai's error into a CallError in the workbench's words. go-openai's own
// errors quote the response body, which a server may have filled with the request's headers, so
// only redacted text leaves here.
func (c *Client) classify(err error, x *exchange, actx context.Context) *CallError {
	name := c.ep.Name
	switch {
	case !x.sent && actx.Err() == nil:
		// go-openai checks some models' parameters before sending (reasoning models take no
		// temperature but 1, for one); no retry can change its verdict.
		return &CallError{Msg: fmt.Sprintf("endpoint %q: the request was not sent: %s", name, c.redactString(err.Error()))}
	case x.status == http.StatusTooManyRequests:
		return &CallError{Status: x.status, Retryable: true, Msg: fmt.Sprintf("endpoint %q: rate limited (HTTP 429)%s", name, serverSays(c, x.response))}
	case x.status >= 500:
		return &CallError{Status: x.status, Retryable: true, Msg: fmt.Sprintf("endpoint %q: server error (HTTP %d)%s", name, x.status, serverSays(c, x.response))}
	case x.status == http.StatusUnauthorized || x.status == http.StatusForbidden:
		hint := "check the key in " + c.ep.APIKeyEnv
		if c.ep.APIKeyEnv == "" {
			hint = "the endpoint wants a key: name its environment variable in apiKeyEnv (or --api-key-env)"
		}
		return &CallError{Status: x.status, Msg: fmt.Sprintf("endpoint %q refused the credentials (HTTP %d): %s%s", name, x.status, hint, serverSays(c, x.response))}
	case x.status == http.StatusNotFound:
		return &CallError{Status: x.status, Msg: fmt.Sprintf("endpoint %q: not found (HTTP 404) at %s/chat/completions; check baseURL and model %q%s", name, strings.TrimRight(c.ep.BaseURL, "/"), c.ep.Model, serverSays(c, x.response))}
	case x.status >= 400:
		return &CallError{Status: x.status, Msg: fmt.Sprintf("endpoint %q rejected the request (HTTP %d)%s", name, x.status, serverSays(c, x.response))}
	case x.status >= 200 && x.status < 300:
		return &CallError{Status: x.status, Msg: fmt.Sprintf("endpoint %q answered HTTP %d with a body that is not a chat completion: %s", name, x.status, c.excerpt(x.response, 200))}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return &CallError{Retryable: true, Msg: fmt.Sprintf("endpoint %q did not answer within %s", name, c.timeout)}
	case errors.Is(err, openai.ErrChatCompletionInvalidModel):
		return &CallError{Msg: fmt.Sprintf("endpoint %q: model %q cannot serve chat completions", name, c.ep.Model)}
	default:
		// A transport error: connection refused, reset, DNS. Its text names the URL, not the key;
		// redact anyway.
		return &CallError{Retryable: true, Msg: fmt.Sprintf("endpoint %q: %s", name, c.redactString(err.Error()))}
	}
}

// serverSays quotes the server's error message, if its body has one.
func serverSays(c *Client, body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	} else if len(body) > 0 {
		msg = string(body)
	}
	if msg == "" {
		return ""
	}
	return ": " + c.excerpt([]byte(msg), 300)
}

// excerpt is at most n bytes of b for a message or a recording, key redacted. The key is
// replaced before the text is cut: cut first, a key that straddles the cut would keep all of
// itself but its last bytes, which no longer match the key and so would not be redacted.
func (c *Client) excerpt(b []byte, n int) string { return snippet(c.redact(b), n) }

// snippet cuts b to n bytes (plus "…") on a rune boundary. It knows nothing of the key: text
// that may hold it goes through excerpt instead.
func snippet(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "�")
	if len(s) > n {
		s = s[:n]
		s = strings.ToValidUTF8(s, "") + "…"
	}
	return s
}

// backoff is exponential with full jitter: 0.5 s, 1 s, 2 s … capped at 30 s, each drawn
// uniformly below its cap so that calls rate limited together do not retry together.
func backoff(attempt int) time.Duration {
	cap := 500 * time.Millisecond << min(attempt-1, 6)
	cap = min(cap, 30*time.Second)
	return cap/2 + rand.N(cap/2+1)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		// A huge or infinite value would overflow a Duration into a negative wait: cap it at a
		// day, which is past any maximum the client honours.
		if n > (24 * time.Hour).Seconds() {
			return 24 * time.Hour, true
		}
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
