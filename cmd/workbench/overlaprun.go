package main

import (
	"fmt"
	"io"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// overlapRun is what workbench overlap --run read from a run file.
type overlapRun struct {
	// Scored counts the run's calls that got an answer; Matched the listing's tools its
	// confusion matrix names.
	Scored  int `json:"scored"`
	Matched int `json:"matched"`
}

// addRun adds the confusion matrix of the run file at path (as workbench run --out writes it)
// to m: each pair's model part. A run that names none of the listing's tools is refused: it
// was made on another listing.
func addRun(m *selection.OverlapMap, path string) (*overlapRun, error) {
	if path == "" {
		return nil, nil
	}
	rf, err := runner.OpenRunFile(path)
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	s := runner.ScoreRun(rf.Run)
	matched, err := m.AddModel(s.Confusion.Labels, s.Confusion.Counts)
	if err != nil {
		return nil, fmt.Errorf("--run %s: %w", path, err)
	}
	if matched == 0 {
		return nil, fmt.Errorf("--run %s: the run's tools are none of the listing's (%d tools, matched by name): give a run of this listing", path, len(rf.Run.Header.Tools))
	}
	return &overlapRun{Scored: s.Scored, Matched: matched}, nil
}

// writeRunNote says in the text output what the model part came from.
func writeRunNote(w io.Writer, r *overlapRun, tools int) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "model run: %d scored calls; %d of the %d tools matched by name; model = calls expecting either tool that chose the other, over all calls expecting either\n",
		r.Scored, r.Matched, tools)
}

// modelPart is a pair's model part for the text output, "" without a run.
func modelPart(p selection.Pair) string {
	if p.Model == nil {
		return ""
	}
	return fmt.Sprintf(", model %.2f (%d of %d calls)", *p.Model, p.ModelConfused, p.ModelCalls)
}
