package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// defaultDamageCalls bounds the calls run --damage sends beyond the intact run, unless
// --max-calls says otherwise.
const defaultDamageCalls = 1000

// modelDamage is one tool's damage test with a model: its tasks' calls intact (the run) and
// with its description removed.
type modelDamage struct {
	Tool  string `json:"tool"`
	Tasks int    `json:"tasks"`
	// IntactCorrect of IntactScored calls chose it in the run; BlankCorrect of BlankScored with
	// its description removed. Fall is the intact share less the blanked one.
	IntactCorrect int     `json:"intactCorrect"`
	IntactScored  int     `json:"intactScored"`
	BlankCorrect  int     `json:"blankCorrect"`
	BlankScored   int     `json:"blankScored"`
	Fall          float64 `json:"fall"`
}

// modelDamageReport is run --damage's member of the report.
type modelDamageReport struct {
	MaxCalls int           `json:"maxCalls"`
	Calls    int           `json:"calls"` // calls the damage runs made
	Tools    []modelDamage `json:"tools"`
	// Skipped are the tools left out to keep within MaxCalls, and those with no description
	// to remove.
	Skipped []string `json:"skipped"`
}

// damageTasks groups the tasks by the tool they expect, in listing order of the tools. With
// several right answers, task.Expected() becomes each of task.Answers().
func damageTasks(l *listing.Listing, tasks []selection.Task) (tools []int, byTool map[int][]int) {
	first := map[string]int{}
	for i, n := range l.Names() {
		if _, ok := first[n]; !ok {
			first[n] = i
		}
	}
	byTool = map[int][]int{}
	for k, t := range tasks {
		// A task with several right answers counts for each of them.
		for _, a := range t.Answers() {
			if i, ok := first[a]; ok {
				byTool[i] = append(byTool[i], k)
			}
		}
	}
	for i := range l.Tools {
		if len(byTool[i]) > 0 {
			tools = append(tools, i)
		}
	}
	return tools, byTool
}

// runDamage removes each expected tool's description in turn, runs that tool's tasks through
// the model again (answers the response cache holds are not asked again) and sets beside them
// the same tasks of the intact run res. Tools whose calls would pass maxCalls are skipped.
func runDamage(ctx context.Context, client *runner.Client, l *listing.Listing, tasks []selection.Task, res *runner.Run, spec runner.Spec, maxCalls int) (*modelDamageReport, error) {
	intact := runner.ScoreRun(res)
	rep := &modelDamageReport{MaxCalls: maxCalls, Tools: []modelDamage{}, Skipped: []string{}}
	tools, byTool := damageTasks(l, tasks)
	for _, i := range tools {
		name := l.Tools[i].Get("name").Str
		ks := byTool[i]
		if l.Tools[i].Get("description") == nil || rep.Calls+len(ks)*spec.Samples > maxCalls {
			rep.Skipped = append(rep.Skipped, name)
			continue
		}
		blanked, err := l.ApplyAll([]listing.Op{{Kind: listing.OpRemove, Path: listing.JoinPointer("tools", strconv.Itoa(i), "description")}})
		if err != nil {
			return nil, fmt.Errorf("removing %s's description: %w", name, err)
		}
		sub := make([]selection.Task, len(ks))
		d := modelDamage{Tool: name, Tasks: len(ks)}
		for j, k := range ks {
			sub[j] = tasks[k]
			d.IntactCorrect += intact.PerTask[k].Correct
			d.IntactScored += intact.PerTask[k].Scored
		}
		run, err := runner.Execute(ctx, client, blanked, sub, runner.Options{Spec: spec})
		if err != nil {
			return nil, fmt.Errorf("running %s's tasks without its description: %w", name, err)
		}
		s := runner.ScoreRun(run)
		rep.Calls += len(run.Calls)
		for _, tr := range s.PerTask {
			d.BlankCorrect += tr.Correct
			d.BlankScored += tr.Scored
		}
		d.Fall = share(d.IntactCorrect, d.IntactScored) - share(d.BlankCorrect, d.BlankScored)
		rep.Tools = append(rep.Tools, d)
	}
	return rep, nil
}

func share(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// writeRunDamageText prints run --damage's table: each tool's tasks intact and without its
// description, and the fall.
func writeRunDamageText(w io.Writer, r *modelDamageReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "damage test with the model: each expected tool's description removed and its tasks run again (%d calls, --max-calls %d)\n", r.Calls, r.MaxCalls)
	for _, d := range r.Tools {
		carried := "its description carries it"
		switch {
		case d.IntactCorrect == 0:
			carried = "the model chooses it for none of its tasks intact"
		case d.Fall <= 0:
			carried = "its name alone carries it"
		}
		fmt.Fprintf(w, "  %s: %d tasks, right %d/%d intact, %d/%d without its description, fall %.0f%%: %s\n",
			termsafe.Escape(d.Tool), d.Tasks, d.IntactCorrect, d.IntactScored, d.BlankCorrect, d.BlankScored, 100*d.Fall, carried)
	}
	if len(r.Skipped) > 0 {
		names := make([]string, len(r.Skipped))
		for k, n := range r.Skipped {
			names[k] = termsafe.Escape(n)
		}
		fmt.Fprintf(w, "  not tested (no description, or over --max-calls): %s\n", strings.Join(names, ", "))
	}
}
