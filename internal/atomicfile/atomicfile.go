// Package atomicfile writes a file whole or not at all: a temporary file beside it, then a
// rename over the path, so that a reader never sees half of it and a failed write leaves the
// old file as it was. The CLI's outputs, the response cache and endpoints' recordings use it.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm. Its errors are the file system's, for the
// caller to say what was being written.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), perm)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
