package analysis

import (
	"fmt"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// FixedSource returns the text of fixed, made from orig by repairs: orig's source with only the
// repaired values rewritten (listing.Replacements), so that key order, unknown fields, number
// spelling and the layout of every untouched line stay as they were. When the repairs cannot be
// placed in the source (a listing built rather than parsed), the listing is written whole with
// two-space indentation.
func FixedSource(orig, fixed *listing.Listing) []byte {
	if fixed == orig {
		return orig.Source
	}
	reps, err := listing.Replacements(orig, fixed)
	if err != nil || orig.Source == nil {
		return append(fixed.Marshal("  "), '\n')
	}
	return listing.ApplyReplacements(orig.Source, reps)
}

// FixedTasks returns the task file src with the expects that changed from before to after
// (renamed tools) rewritten in place, and whether any did. before are the tasks read from src,
// one for each element of its array, as selection.ParseTasks reads them.
func FixedTasks(src []byte, before, after []selection.Task) ([]byte, bool, error) {
	if len(before) != len(after) {
		return nil, false, fmt.Errorf("the fix returned %d tasks for %d", len(after), len(before))
	}
	var doc *listing.Value
	var reps []listing.Replacement
	for i := range before {
		if before[i].Expected() == after[i].Expected() {
			continue
		}
		if doc == nil {
			var err error
			if doc, err = listing.ParseJSON(src); err != nil {
				return nil, false, fmt.Errorf("rereading the task file: %w", err)
			}
			if doc.Kind != listing.Array || len(doc.Items) != len(before) {
				return nil, false, fmt.Errorf("the task file holds %d tasks, not the %d read", len(doc.Items), len(before))
			}
		}
		old := doc.Items[i].Get("expect")
		if old == nil {
			return nil, false, fmt.Errorf("task %d has no expect to rename", i+1)
		}
		reps = append(reps, listing.ValueReplacement(src, old, listing.NewString(after[i].Expected())))
	}
	if reps == nil {
		return src, false, nil
	}
	return listing.ApplyReplacements(src, reps), true, nil
}

// UnifiedDiff returns a unified diff (three lines of context) from a to b, both labelled name so
// that `patch -p0` applies it to the file; "" when they are the same.
func UnifiedDiff(a, b []byte, name string) (string, error) {
	if string(a) == string(b) {
		return "", nil
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: name, ToFile: name, Context: 3,
	})
	if err != nil {
		return "", fmt.Errorf("diffing %s: %w", name, err)
	}
	return d, nil
}
