package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write replaces a file with its new content and mode, and a write that cannot happen leaves
// the old file and no temporary file behind.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "new" {
		t.Errorf("after Write: %q, %v", b, err)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
	// A directory in the way: the rename fails.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(blocked, []byte("new"), 0o644); err == nil {
		t.Error("Write over a directory with files in it succeeded")
	}
	if err := Write(filepath.Join(dir, "missing", "out.json"), []byte("x"), 0o644); err == nil {
		t.Error("Write into a missing folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want out.json and blocked: %v", len(entries), entries)
	}
}
