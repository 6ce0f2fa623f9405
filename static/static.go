// Package static holds the workbench's embedded style sheet and scripts and serves them under
// content-hashed URLs (/static/<hash>/<name>), so browsers may cache them forever and a new
// build is never mixed with an old file.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed files
var files embed.FS

// Asset is one file with its hashed URL.
type Asset struct {
	Name string
	Hash string
	Body []byte
	Type string
}

// URL is where the asset is served.
func (a *Asset) URL() string { return "/static/" + a.Hash + "/" + a.Name }

// Set is a collection of assets served by hash.
type Set struct {
	byName map[string]*Asset
}

// Load reads the embedded files.
func Load() (*Set, error) {
	s := &Set{byName: map[string]*Asset{}}
	err := fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read embedded %s: %w", p, err)
		}
		s.Add(strings.TrimPrefix(p, "files/"), b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Add adds (or replaces) an asset, for example a Datastar client read from disk.
func (s *Set) Add(name string, body []byte) *Asset {
	sum := sha256.Sum256(body)
	t := mime.TypeByExtension(path.Ext(name))
	if t == "" {
		t = "application/octet-stream"
	}
	a := &Asset{Name: name, Hash: hex.EncodeToString(sum[:6]), Body: body, Type: t}
	s.byName[name] = a
	return a
}

// URL returns the hashed URL of the named asset, or "" when there is none.
func (s *Set) URL(name string) string {
	if a, ok := s.byName[name]; ok {
		return a.URL()
	}
	return ""
}

// ServeHTTP serves /static/<hash>/<name>. A stale hash is a 404: the page that asked for it is
// older than the server.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/static/")
	hash, name, ok := strings.Cut(rest, "/")
	a, found := s.byName[name]
	if !ok || !found || a.Hash != hash {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.Type)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(a.Body)
}
