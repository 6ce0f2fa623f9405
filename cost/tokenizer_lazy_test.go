package cost

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestTokenizerLoadsOnFirstCount: opening a built-in encoding builds no vocabulary (a map of
// hundreds of thousands of entries, tens of milliseconds); the first count does. A command
// that counts nothing (fix, check --tokenizer approx) so does not pay for one at start. The
// vocabulary is built once per process, so each encoding is opened in a process of its own.
func TestTokenizerLoadsOnFirstCount(t *testing.T) {
	if name := os.Getenv("WORKBENCH_LAZY_TOKENIZER"); name != "" {
		lazyChild(t, name)
		return
	}
	for _, name := range Encodings {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTokenizerLoadsOnFirstCount$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WORKBENCH_LAZY_TOKENIZER="+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
}

func lazyChild(t *testing.T, name string) {
	var m0, m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m0)
	tk, err := NewTokenizer(name)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	n := tk.Count("hello world")
	runtime.ReadMemStats(&m2)
	if open := m1.TotalAlloc - m0.TotalAlloc; open > 1<<20 {
		t.Errorf("NewTokenizer(%q) allocated %d bytes; want the vocabulary left for the first count", name, open)
	}
	if first := m2.TotalAlloc - m1.TotalAlloc; first < 1<<20 {
		t.Errorf("the first count allocated %d bytes; want the vocabulary built then", first)
	}
	if n != 2 {
		t.Errorf("Count(hello world) = %d, want 2", n)
	}
}
