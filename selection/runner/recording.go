package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
)

// RecordingFormat names the recording format and its version.
const RecordingFormat = "workbench-recording/1"

// Recording is a run's raw exchanges: each request exactly as sent (headers left out, so no
// key) and the response that answered it.
type Recording struct {
	Format    string     `json:"format"`
	Spec      Spec       `json:"spec"`
	Header    Header     `json:"header"`
	Exchanges []Exchange `json:"exchanges"`
}

// NewRecording gathers a run's exchanges, in task and sample order. Failed calls are kept with
// their status, so a replay fails them the same way.
func NewRecording(r *Run) *Recording {
	rec := &Recording{Format: RecordingFormat, Spec: r.Header.Spec, Header: r.Header, Exchanges: []Exchange{}}
	for _, c := range r.Calls {
		if c.Exchange != nil && len(c.Exchange.Request) > 0 && c.Exchange.Status != 0 {
			rec.Exchanges = append(rec.Exchanges, *c.Exchange)
		}
	}
	return rec
}

// MaxRecordedBytes bounds the response a run or a recording keeps of one call: a chat answer
// is a few kilobytes, and an endpoint may send up to MaxResponseBytes for every call of a run.
const MaxRecordedBytes = 256 << 10

// notRecordedStatus is the status a recording gives a response it left out for its size, so
// that a replay fails that call with the note's words rather than retrying it.
const notRecordedStatus = http.StatusUnprocessableEntity

// BoundExchange is x with a response over MaxRecordedBytes compacted, or, when that is still
// over, replaced by an error that says what was left out (a replay answers it as that error).
func BoundExchange(x Exchange) Exchange {
	if len(x.Response) <= MaxRecordedBytes {
		return x
	}
	var b bytes.Buffer
	if json.Compact(&b, x.Response) == nil && b.Len() <= MaxRecordedBytes {
		x.Response = b.Bytes()
		return x
	}
	msg := fmt.Sprintf("the recording left out this answer: it was %d bytes (HTTP %d), more than the %d a recording keeps of one answer; ask the live endpoint again",
		len(x.Response), x.Status, MaxRecordedBytes)
	note, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "not_recorded"}})
	x.Response, x.Status = note, notRecordedStatus
	return x
}

// MaxRecordingBytes bounds a recording read back.
const MaxRecordingBytes = 1 << 30

// ReadRecording reads a recording written by NewRecording's JSON.
func ReadRecording(r io.Reader) (*Recording, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxRecordingBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the recording: %w", err)
	}
	if len(b) > MaxRecordingBytes {
		return nil, fmt.Errorf("the recording is over %d bytes", MaxRecordingBytes)
	}
	var rec Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("the recording is not valid JSON: %w", err)
	}
	if rec.Format != RecordingFormat {
		return nil, fmt.Errorf("this is not a workbench recording (format %q, want %q); write one with 'workbench run --record FILE'", rec.Format, RecordingFormat)
	}
	for i, x := range rec.Exchanges {
		if t := bytes.TrimSpace(x.Request); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return nil, fmt.Errorf("recording exchange %d has no JSON request", i+1)
		}
		if x.Status < 100 || x.Status > 599 {
			return nil, fmt.Errorf("recording exchange %d has HTTP status %d", i+1, x.Status)
		}
	}
	return &rec, nil
}

// OpenRecording reads the recording at path.
func OpenRecording(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the recording: %w", err)
	}
	defer f.Close()
	rec, err := ReadRecording(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// canonicalKey identifies a request by its content: its JSON compacted, so whitespace does not
// matter but every member, order and value does.
func canonicalKey(body []byte) [32]byte {
	var b bytes.Buffer
	if json.Compact(&b, body) != nil {
		return sha256.Sum256(body)
	}
	return sha256.Sum256(b.Bytes())
}

// ReplayHandler serves a recording as an OpenAI-compatible chat completions endpoint: a request
// identical to a recorded one gets the recorded answer. Identical requests recorded several times
// (samples without a seed) are answered in turn. Any path ending in /chat/completions is served,
// and no key is needed.
func ReplayHandler(rec *Recording) http.Handler {
	answers := map[[32]byte][]Exchange{}
	for _, x := range rec.Exchanges {
		k := canonicalKey(x.Request)
		answers[k] = append(answers[k], x)
	}
	var mu sync.Mutex
	next := map[[32]byte]int{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"message":"a replay serves only POST .../chat/completions","type":"not_found"}}`)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"could not read the request","type":"invalid_request_error"}}`)
			return
		}
		k := canonicalKey(body)
		mu.Lock()
		xs := answers[k]
		var x Exchange
		if len(xs) > 0 {
			x = xs[next[k]%len(xs)]
			next[k]++
		}
		mu.Unlock()
		if len(xs) == 0 {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"message":"the recording holds no answer to this request: the listing, the task, the tool order, the model or a setting (temperature, seed, system prompt) differs from the recorded run","type":"not_recorded"}}`)
			return
		}
		w.WriteHeader(x.Status)
		if len(x.Response) > 0 {
			w.Write(x.Response)
		} else {
			io.WriteString(w, x.Body)
		}
	})
}

// HandlerDoer sends requests to an http.Handler in process, with no network: a replay, or a
// fake server in tests.
type HandlerDoer struct{ Handler http.Handler }

// Do serves the request.
func (d HandlerDoer) Do(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	d.Handler.ServeHTTP(rec, req)
	if err := req.Context().Err(); err != nil {
		// A handler that gave up on a cancelled request answered nothing; over HTTP the
		// connection would have been cut, so report the context's error as a transport would.
		return nil, err
	}
	return rec.Result(), nil
}
