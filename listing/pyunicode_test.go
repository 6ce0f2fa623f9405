package listing

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestPythonPrintable: for every code point above ASCII, pythonPrintable agrees with the
// str.isprintable of the python3 that runs the reference, whose repr the reference prints.
func TestPythonPrintable(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the check of Python's printable characters")
	}
	const script = `import unicodedata, sys
print(unicodedata.unidata_version)
print(" ".join("%x" % r for r in range(0x80, 0x110000) if not 0xd800 <= r <= 0xdfff and chr(r).isprintable()))`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	version, list, _ := strings.Cut(string(out), "\n")
	if version != "14.0.0" {
		t.Skipf("python3 has Unicode %s; the reference mode follows Python 3.11's Unicode 14.0 (the machine's python3 that wrote the golden files)", version)
	}
	printable := map[rune]bool{}
	for _, f := range strings.Fields(list) {
		r, err := strconv.ParseInt(f, 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		printable[rune(r)] = true
	}
	bad := 0
	for r := rune(0x80); r <= 0x10ffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if got := pythonPrintable(r); got != printable[r] {
			if bad++; bad <= 10 {
				t.Errorf("U+%04X: printable %v, Python %v", r, got, printable[r])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ", bad)
	}
}
