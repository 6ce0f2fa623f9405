package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// improve writes --out and --record; it refuses (exit 2, before any call) when either would
// overwrite a file it reads (SOURCE, --tasks, --replay) or the other, whether named by the same
// path, another spelling of it, or a link to it. Nothing is written and the inputs stay as
// they were.
func TestImproveRefusesToOverwriteItsInputs(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(name, from string) string {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tools := copyTo("tools.json", fixture(t, "confusing-tools.json"))
	tasks := copyTo("tasks.json", fixture(t, "tasks-confusing.json"))
	recording := copyTo("rec.json", filepath.Join(improveTD, "confusing.recording.json"))
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(tools, link); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "new.json")
	other := filepath.Join(dir, "sub", "..", "new.json") // the same file, not yet written, spelt otherwise
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--out is SOURCE", []string{"--replay", recording, "--out", tools}, "--out " + tools + " is SOURCE"},
		{"--out is SOURCE through a link", []string{"--replay", recording, "--out", link}, "is SOURCE"},
		{"--out is --tasks", []string{"--replay", recording, "--out", tasks}, "is --tasks"},
		{"--record is --replay", []string{"--replay", recording, "--record", recording}, "is --replay"},
		{"--record is SOURCE spelt otherwise", []string{"--replay", recording, "--record", filepath.Join(dir, ".", "tools.json")}, "is SOURCE"},
		{"--record is --out, neither written yet", []string{"--replay", recording, "--out", fresh, "--record", other}, "is --out"},
	} {
		before := map[string]string{}
		for _, p := range []string{tools, tasks, recording} {
			b, _ := os.ReadFile(p)
			before[p] = string(b)
		}
		_, errs, code := runWith(t, nil, append([]string{"improve", tools, "--tasks", tasks, "--max-calls", "300"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.name, code, errs, tc.want)
		}
		for p, was := range before {
			if b, _ := os.ReadFile(p); string(b) != was {
				t.Fatalf("%s: %s was written", tc.name, p)
			}
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Fatalf("%s: %s was written", tc.name, fresh)
		}
	}
}

// improve keeps the exchanges it makes only when --record asks for them: a loop of hundreds of
// calls holds none of their answers otherwise.
func TestImproveRecordsOnlyWithRecord(t *testing.T) {
	if r := improveRecorder(improveOptions{}); r != nil {
		t.Errorf("without --record improve keeps a recorder")
	}
	if r := improveRecorder(improveOptions{run: runOptions{record: "r.json"}}); r == nil {
		t.Errorf("with --record improve keeps no recorder")
	}
}
