package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/internal/atomicfile"
)

// A RecordFile is an endpoint's recording on disk that grows as the endpoint is used: "record"
// in the endpoints file. Every final exchange (a drafting ask's, a run's), key scrubbed and
// bounded as a run's are, is added, so that an endpoint with "replay" set to the same file
// answers the same asks later with no key and no network: a workshop rehearsed once with a
// model, then shown offline. An existing recording is continued, not replaced (a run's, once
// a call is added, without the run's settings: see OpenRecordFile).
//
// Each exchange is encoded once, as it is added, and counted at its encoded size. The file is
// written whole (atomicfile: a reader never sees half of it)
// a while after the first exchange not yet written (flushDelay: longer as the file grows, so a
// long run does not rewrite a big file twice a second), and on Close. It stops growing at
// MaxRecordFileBytes. Safe for concurrent use.
type RecordFile struct {
	path string
	max  int64 // MaxRecordFileBytes; tests lower it

	mu    sync.Mutex
	head  []byte   // the recording's members but its exchanges: {"format":…,"header":…
	mixed []byte   // head once this endpoint adds a call: no settings, no header
	xs    [][]byte // the exchanges, encoded
	size  int64
	dirty bool
	timer *time.Timer
	full  bool  // past the bound: an exchange was refused
	left  int   // exchanges refused for the bound
	err   error // the last write's, until one succeeds

	write sync.Mutex // one write at a time, outside mu
}

// MaxRecordFileBytes bounds a recording a server keeps growing: well under MaxRecordingBytes,
// which a replay reads back.
const MaxRecordFileBytes = 64 << 20

// flushDelay gathers the exchanges of an ask (or of a run's burst) into one write: half a
// second, and a second more for every 4 MiB already recorded.
func flushDelay(size int64) time.Duration {
	return 500*time.Millisecond + time.Duration(size/(4<<20))*time.Second
}

// OpenRecordFile continues the recording at path, or starts one there for the endpoint's model.
// It fails at once, saying why, when path holds something else or its folder cannot be written.
func OpenRecordFile(path string, ep Endpoint) (*RecordFile, error) {
	f := &RecordFile{path: path, max: MaxRecordFileBytes}
	rec := &Recording{Format: RecordingFormat, Spec: Spec{Endpoint: ep.Name, Model: ep.Model}}
	old, err := readRecordFile(path)
	switch {
	case err == nil:
		rec = old
		for _, x := range old.Exchanges {
			b, err := encodeExchange(x)
			if err != nil {
				return nil, fmt.Errorf("record: %s: %w", filepath.Base(path), err)
			}
			f.xs = append(f.xs, b)
			f.size += int64(len(b)) + 1
		}
		f.full = f.size >= f.max
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("record: %s: %w (name a new file, or a recording to continue)", filepath.Base(path), pathless(err))
	}
	// The recording's members but its exchanges. Once this endpoint adds a call, a run's
	// recording (Spec.Recorded) holds calls made with other settings: its settings and header
	// no longer describe it, and a replay must not force them on a run.
	f.head = recordHead(rec.Spec, rec.Header)
	f.mixed = recordHead(Spec{Endpoint: rec.Spec.Endpoint, Model: rec.Spec.Model}, Header{})
	f.size += int64(len(f.head)) + 20
	probe, err := os.CreateTemp(filepath.Dir(path), ".recording-*")
	if err != nil {
		return nil, fmt.Errorf("record: cannot write a file beside %s: %w", filepath.Base(path), pathless(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return f, nil
}

// recordHead is the start of a recording with spec and header, before its exchanges.
func recordHead(spec Spec, h Header) []byte {
	head, _ := json.Marshal(struct { // only strings, numbers and lists: it cannot fail
		Format string `json:"format"`
		Spec   Spec   `json:"spec"`
		Header Header `json:"header"`
	}{RecordingFormat, spec, h})
	return head[:len(head)-1] // the closing brace comes after the exchanges
}

// readRecordFile reads the recording at path; its errors name no path.
func readRecordFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecording(f)
}

// pathless is err without the paths an *fs.PathError or an *os.LinkError (a rename) names: the
// message may reach a page.
func pathless(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// encodeExchange is x as the recording holds it, with no HTML escapes: the size counted is
// the size written.
func encodeExchange(x Exchange) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Add keeps one exchange (one without a request or a status is not a call that was made). It
// says false when the exchange was not kept: the recording is full, or the exchange cannot be
// encoded (a response that is not JSON after all), which is left out rather than stopping
// every later write.
func (f *RecordFile) Add(x Exchange) bool {
	if f == nil || len(x.Request) == 0 || x.Status == 0 {
		return true
	}
	b, err := encodeExchange(BoundExchange(x))
	if err != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := int64(len(b)) + 1
	if f.size+n > f.max {
		f.full = true
		f.left++
		return false
	}
	f.size += n
	f.xs = append(f.xs, b)
	f.head = f.mixed
	f.dirty = true
	if f.timer == nil {
		f.timer = time.AfterFunc(flushDelay(f.size), func() { _ = f.Flush() })
	}
	return true
}

// Full says whether the recording reached its bound (later exchanges are not kept).
func (f *RecordFile) Full() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.full
}

// Flush writes what was added since the last write, if anything.
func (f *RecordFile) Flush() error {
	f.write.Lock()
	defer f.write.Unlock()
	f.mu.Lock()
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	if !f.dirty {
		err := f.err
		f.mu.Unlock()
		return err
	}
	// Exchanges are only appended: this slice stays as it is while it is written.
	head, xs := f.head, f.xs
	f.dirty = false
	f.mu.Unlock()
	err := writeRecording(f.path, head, xs)
	f.mu.Lock()
	if f.err = err; err != nil {
		f.dirty = true // the next flush tries again
	}
	f.mu.Unlock()
	return err
}

// Close writes what is left, and says so when the recording filled up and left calls out.
func (f *RecordFile) Close() error {
	if f == nil {
		return nil
	}
	err := f.Flush()
	f.mu.Lock()
	left := f.left
	f.mu.Unlock()
	if left > 0 {
		err = errors.Join(err, fmt.Errorf("record %s: %d calls were not kept, over the recording's bound of %d bytes; start a new file for them", filepath.Base(f.path), left, f.max))
	}
	return err
}

// writeRecording replaces path with the recording of head and the exchanges xs, whole.
func writeRecording(path string, head []byte, xs [][]byte) error {
	var b bytes.Buffer
	b.Write(head)
	b.WriteString(`,"exchanges":[`)
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(x)
	}
	b.WriteString("]}")
	if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("record %s: %w", filepath.Base(path), pathless(err))
	}
	return nil
}
