package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A RecordFile is an endpoint's recording on disk that grows as the endpoint is used: "record"
// in the endpoints file. Every final exchange (a drafting ask's, a run's), key scrubbed and
// bounded as a run's are, is added, so that an endpoint with "replay" set to the same file
// answers the same asks later with no key and no network: a workshop rehearsed once with a
// model, then shown offline. An existing recording is continued, not replaced.
//
// The file is written whole (a temporary file beside it, then a rename, so a reader never sees
// half of it) recordFlushDelay after the first exchange not yet written, and on Close. It stops
// growing at MaxRecordFileBytes. Safe for concurrent use.
type RecordFile struct {
	path string
	max  int64 // MaxRecordFileBytes; tests lower it

	mu    sync.Mutex
	rec   Recording
	size  int64
	dirty bool
	timer *time.Timer
	full  bool
	err   error // the last write's, until one succeeds

	write sync.Mutex // one write at a time, outside mu
}

// MaxRecordFileBytes bounds a recording a server keeps growing: well under MaxRecordingBytes,
// which a replay reads back.
const MaxRecordFileBytes = 64 << 20

// recordFlushDelay gathers the exchanges of an ask (or of a run's burst) into one write.
const recordFlushDelay = 500 * time.Millisecond

// OpenRecordFile continues the recording at path, or starts one there for the endpoint's model.
// It fails at once, saying why, when path holds something else or its folder cannot be written.
func OpenRecordFile(path string, ep Endpoint) (*RecordFile, error) {
	f := &RecordFile{path: path, max: MaxRecordFileBytes, rec: Recording{Format: RecordingFormat, Spec: Spec{Endpoint: ep.Name, Model: ep.Model}, Exchanges: []Exchange{}}}
	old, err := OpenRecording(path)
	switch {
	case err == nil:
		f.rec.Exchanges = old.Exchanges
		for _, x := range old.Exchanges {
			f.size += exchangeSize(x)
		}
		f.full = f.size >= f.max
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("record: %w (name a new file, or a recording to continue)", err)
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".recording-*")
	if err != nil {
		return nil, fmt.Errorf("record: cannot write beside %s: %w", path, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return f, nil
}

func exchangeSize(x Exchange) int64 {
	return int64(len(x.Request)+len(x.Response)+len(x.Body)) + 64
}

// Add keeps one exchange (one without a request or a status is not a call that was made). It
// says false when the recording is full and the exchange was not kept.
func (f *RecordFile) Add(x Exchange) bool {
	if f == nil || len(x.Request) == 0 || x.Status == 0 {
		return true
	}
	x = BoundExchange(x)
	f.mu.Lock()
	defer f.mu.Unlock()
	n := exchangeSize(x)
	if f.size+n > f.max {
		f.full = true
		return false
	}
	f.size += n
	f.rec.Exchanges = append(f.rec.Exchanges, x)
	f.dirty = true
	if f.timer == nil {
		f.timer = time.AfterFunc(recordFlushDelay, func() { _ = f.Flush() })
	}
	return true
}

// Full says whether the recording reached MaxRecordFileBytes (later exchanges are not kept).
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
	rec := f.rec
	f.dirty = false
	f.mu.Unlock()
	err := writeRecording(f.path, &rec)
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
	if f.Full() {
		err = errors.Join(err, fmt.Errorf("record %s: the recording reached %d bytes, so later calls were not kept; start a new file for them", f.path, f.max))
	}
	return err
}

// writeRecording replaces path with rec: a temporary file in its folder, then a rename.
func writeRecording(path string, rec *Recording) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".recording-*")
	if err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a rename, nothing is there
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("record %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	return nil
}
