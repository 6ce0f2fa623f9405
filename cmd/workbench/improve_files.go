package main

// The files improve reads and writes: it writes only what it was asked to (--out, --record) and
// never over a file it reads.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tool-workbench/workbench/drafting"
)

// improveRecorder keeps the loop's exchanges when --record asks for them, and is nil (keeping
// nothing) otherwise: a loop of hundreds of calls need not hold every answer in memory.
func improveRecorder(o improveOptions) *drafting.Recorder {
	if o.run.record == "" {
		return nil
	}
	return &drafting.Recorder{}
}

// checkImproveFiles refuses an output (--out, --record) that names a file improve reads
// (SOURCE, --tasks, --replay) or the other output: writing it would destroy the input, or one
// output would overwrite the other.
func checkImproveFiles(r *runOptions) error {
	type file struct{ flag, path string }
	var reads []file
	for _, f := range []file{{"SOURCE", r.source}, {"--tasks", r.tasks}, {"--replay", r.replay}} {
		if f.path != "" && f.path != "-" {
			reads = append(reads, f)
		}
	}
	outs := []file{}
	for _, f := range []file{{"--out", r.out}, {"--record", r.record}} {
		if f.path != "" {
			outs = append(outs, f)
		}
	}
	for i, out := range outs {
		for _, in := range append(reads, outs[:i]...) {
			if sameFile(out.path, in.path) {
				return usageError{fmt.Sprintf("%s %s is %s (%s): improve would overwrite it; give %s another file", out.flag, out.path, in.flag, in.path, out.flag)}
			}
		}
	}
	return nil
}

// sameFile says whether a and b name one file: the same file on disk (through links, or paths
// spelt otherwise) when both exist, else the same absolute cleaned path.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
