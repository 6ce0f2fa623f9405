package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// A run file is JSON Lines: the Header first, then one Call per line in the order the calls
// finished. Each line is written whole as its call finishes, so a run that is killed loses at
// most the line being written, and ReadRunFile drops such a torn last line.

// MaxRunFileBytes bounds a run file read back.
const MaxRunFileBytes = 1 << 30

// RunWriter appends calls to a run file. It is safe for concurrent use.
type RunWriter struct {
	mu sync.Mutex
	f  *os.File
}

// CreateRunFile starts a new run file (replacing any file at path) with the header.
func CreateRunFile(path string, h Header) (*RunWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the run file: %w", err)
	}
	w := &RunWriter{f: f}
	if err := w.writeLine(h); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// AppendRunFile opens a run file read by ReadRunFile for more calls; size is the length of its
// whole lines (RunFile.Size), past which a torn line is cut off.
func AppendRunFile(path string, size int64) (*RunWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the run file to resume: %w", err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, fmt.Errorf("dropping the torn last line of the run file: %w", err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("opening the run file to resume: %w", err)
	}
	return &RunWriter{f: f}, nil
}

func (w *RunWriter) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding a run file line: %w", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("writing the run file: %w", err)
	}
	return nil
}

// Write appends one finished call.
func (w *RunWriter) Write(c Call) error { return w.writeLine(c) }

// Close closes the file.
func (w *RunWriter) Close() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("closing the run file: %w", err)
	}
	return nil
}

// RunFile is a run file read back.
type RunFile struct {
	Run *Run
	// Size is the length of the file's whole lines; a torn last line lies past it.
	Size int64
	// Torn says whether the last line was cut off (the run was killed while writing it).
	Torn bool
}

// ReadRunFile reads a run file. Later lines for the same task and sample replace earlier ones
// (a failed call tried again on resume).
func ReadRunFile(r io.Reader) (*RunFile, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxRunFileBytes+1), 1<<16)
	rf := &RunFile{}
	var pos int64
	seen := map[[2]int]int{}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading the run file: %w", err)
		}
		if len(line) == 0 {
			break
		}
		if pos+int64(len(line)) > MaxRunFileBytes {
			return nil, fmt.Errorf("the run file is over %d bytes", MaxRunFileBytes)
		}
		whole := line[len(line)-1] == '\n'
		body := bytes.TrimSpace(line)
		if len(body) == 0 {
			pos += int64(len(line))
			continue
		}
		if !whole && rf.Run != nil {
			// The line being written when the run was killed: its call is done again on resume.
			rf.Torn = true
			break
		}
		if rf.Run == nil {
			var h Header
			if err := json.Unmarshal(body, &h); err != nil || h.Kind != "run" {
				return nil, fmt.Errorf("this is not a workbench run file: its first line is not a run header (write one with 'workbench run --out FILE')")
			}
			if h.Version != 1 {
				return nil, fmt.Errorf("the run file is version %d; this workbench reads version 1", h.Version)
			}
			if len(h.Tasks) == 0 || h.Spec.Samples < 1 || h.Spec.Samples > MaxSamples {
				return nil, fmt.Errorf("the run file's header has no tasks, or samples outside 1 to %d", MaxSamples)
			}
			rf.Run = &Run{Header: h}
		} else {
			var c Call
			if err := json.Unmarshal(body, &c); err != nil {
				return nil, fmt.Errorf("run file line %d is not a call: %w", n, err)
			}
			if c.Task < 0 || c.Task >= len(rf.Run.Header.Tasks) || c.Sample < 0 || c.Sample >= rf.Run.Header.Spec.Samples {
				return nil, fmt.Errorf("run file line %d: task %d sample %d is outside the run (%d tasks, %d samples)", n, c.Task, c.Sample, len(rf.Run.Header.Tasks), rf.Run.Header.Spec.Samples)
			}
			k := [2]int{c.Task, c.Sample}
			if i, ok := seen[k]; ok {
				rf.Run.Calls[i] = c
			} else {
				seen[k] = len(rf.Run.Calls)
				rf.Run.Calls = append(rf.Run.Calls, c)
			}
		}
		pos += int64(len(line))
	}
	if rf.Run == nil {
		return nil, fmt.Errorf("the run file is empty")
	}
	rf.Size = pos
	sortCalls(rf.Run.Calls)
	return rf, nil
}

// OpenRunFile reads the run file at path.
func OpenRunFile(path string) (*RunFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the run file: %w", err)
	}
	defer f.Close()
	rf, err := ReadRunFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rf, nil
}
