package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// readSource reads a file, or standard input for "-". Its errors are worded as Python words an
// OSError ("[Errno 2] No such file or directory: 'x.json'"), as the reference checker prints them.
func readSource(e *env, path string) ([]byte, error) {
	if path == "-" {
		b, err := io.ReadAll(io.LimitReader(e.stdin, int64(listing.DefaultLimits.Bytes)+1))
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return b, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, osError(path, err)
	}
	defer f.Close()
	// Read one byte past the limit so that Parse can say the input is too large.
	b, err := io.ReadAll(io.LimitReader(f, int64(listing.DefaultLimits.Bytes)+1))
	if err != nil {
		return nil, osError(path, err)
	}
	return b, nil
}

func osError(path string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	msg := errno.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return fmt.Errorf("[Errno %d] %s: %s", int(errno), msg, listing.PythonRepr(path))
}

// loadListing reads and parses a listing; name is how messages call it.
func loadListing(e *env, path string) (*listing.Listing, error) {
	src, err := readSource(e, path)
	if err != nil {
		return nil, err
	}
	l, err := listing.Parse(src, listing.Options{Name: path})
	return l, describe(err)
}

// describe words a listing's parse error whole: what was wrong, where (the JSON pointer; the
// line and column of broken JSON are in the hint), and what would work.
func describe(err error) error {
	var le *listing.Error
	if !errors.As(err, &le) {
		return err
	}
	msg := le.Msg
	if le.Pointer != "" {
		msg += " (at " + le.Pointer + ")"
	}
	if le.Hint != "" {
		msg += "; " + le.Hint
	}
	return &describedError{msg: msg, err: err}
}

type describedError struct {
	msg string
	err error
}

func (d *describedError) Error() string { return d.msg }
func (d *describedError) Unwrap() error { return d.err }

// loadTasks reads a task file; strict accepts only the reference's format.
func loadTasks(e *env, path string, strict bool) ([]selection.Task, error) {
	src, err := readSource(e, path)
	if err != nil {
		return nil, err
	}
	if err := listing.CheckUTF8(src); err != nil {
		return nil, err
	}
	return selection.ParseTasks(listing.UniversalNewlines(src), strict)
}
