package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/tool-workbench/workbench/internal/atomicfile"
)

// Cache keeps successful responses by a hash of the request, so that running the same
// listing, tasks and settings again does not pay twice.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, response []byte) error
}

// DirCache stores one file per response in a directory. Writes go through a temporary file
// and a rename, so a crash never leaves half an answer behind.
type DirCache struct{ dir string }

// NewDirCache creates the directory if needed.
func NewDirCache(dir string) (*DirCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the response cache: %w", err)
	}
	return &DirCache{dir: dir}, nil
}

var hexKey = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (c *DirCache) path(key string) (string, bool) {
	if !hexKey.MatchString(key) {
		return "", false
	}
	return filepath.Join(c.dir, key[:2], key+".json"), true
}

// Get returns the stored response for key; a corrupt file reads as a miss.
func (c *DirCache) Get(key string) ([]byte, bool) {
	p, ok := c.path(key)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(p)
	if err != nil || !json.Valid(b) {
		return nil, false
	}
	return b, true
}

// Put stores a response.
func (c *DirCache) Put(key string, response []byte) error {
	p, ok := c.path(key)
	if !ok {
		return fmt.Errorf("cache key %q is not a SHA-256 hex digest", key)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	if err := atomicfile.Write(p, response, 0o600); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	return nil
}

// MemCache is a Cache in memory, for a server's lifetime or a test.
type MemCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Get returns the stored response for key.
func (c *MemCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	return b, ok
}

// Put stores a response.
func (c *MemCache) Put(key string, response []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = append([]byte(nil), response...)
	return nil
}
