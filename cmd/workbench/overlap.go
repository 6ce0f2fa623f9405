package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name: "overlap",
		summary: "map which tools compete: every pair scored from each tool's own words against the other, " +
			"the words they share and the tasks lost or close between them, strongest first, with what to do",
		usage: "SOURCE [--tasks FILE] [--run RUNFILE] [--format text|json|svg] [--top N]",
		run:   runOverlap,
	})
}

// overlapFormats are the outputs of workbench overlap.
var overlapFormats = []string{"text", "json", "svg"}

func runOverlap(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["overlap"], e.stderr)
	tasksPath := fs.String("tasks", "", "task file: a JSON array of {\"task\": ..., \"expect\": a tool name or a list of them}; tasks lost or close link their tools")
	format := fs.String("format", "text", "output format: text, json, or svg (a heat map with the tools in clusters)")
	top := fs.Int("top", 10, "how many pairs text and json list (0: every pair)")
	runPath := fs.String("run", "", "a run file of workbench run --out on this listing: its confusion matrix adds each pair's model part")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"overlap takes one SOURCE (a listing file, or - for standard input)"}
	}
	if !strings.Contains(" "+strings.Join(overlapFormats, " ")+" ", " "+*format+" ") {
		return usageError{fmt.Sprintf("unknown format %q; use one of %s", *format, strings.Join(overlapFormats, ", "))}
	}
	if *top < 0 {
		return usageError{"--top takes 0 (every pair) or a positive number"}
	}
	fail := func(err error) error {
		fmt.Fprintf(e.stderr, "workbench overlap: %s\n", termsafe.Escape(err.Error()))
		return exitError{2}
	}
	src, err := readSource(e, pos[0])
	if err != nil {
		return fail(err)
	}
	if err := listing.CheckUTF8(src); err != nil {
		return fail(err)
	}
	l, err := listing.Parse(listing.UniversalNewlines(src), listing.Options{Name: pos[0]})
	if err != nil {
		return fail(describe(err))
	}
	var tasks []selection.Task
	if *tasksPath != "" {
		if tasks, err = loadTasks(e, *tasksPath, false); err != nil {
			return fail(fmt.Errorf("%s: %w", *tasksPath, err))
		}
	}
	m, err := selection.Overlap(ctx, l, tasks)
	if err != nil {
		return err
	}
	ran, err := addRun(m, *runPath)
	if err != nil {
		return fail(err)
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	switch *format {
	case "svg":
		return m.WriteSVG(out)
	case "json":
		return writeOverlapJSON(out, m, len(tasks), *top, ran)
	}
	writeOverlapText(out, m, len(tasks), *top, ran)
	return nil
}

// overlapJSON is workbench overlap --format json: the tools' names and the check report's
// overlap member.
type overlapJSON struct {
	Tools []string    `json:"tools"`
	Tasks int         `json:"tasks"`
	Run   *overlapRun `json:"run,omitempty"`
	*analysis.OverlapReport
}

func listed(m *selection.OverlapMap, top int) []selection.Pair {
	if top == 0 || top > len(m.Pairs) {
		return m.Pairs
	}
	return m.Pairs[:top]
}

func sharedWords(m *selection.OverlapMap, p selection.Pair) []string {
	var ws []string
	for _, w := range m.SharedWords(p.I, p.J, 5) {
		ws = append(ws, w.Word)
	}
	return ws
}

func writeOverlapJSON(w io.Writer, m *selection.OverlapMap, tasks, top int, ran *overlapRun) error {
	doc := overlapJSON{Tools: m.Names, Tasks: tasks, Run: ran, OverlapReport: analysis.NewOverlapReport(m, top)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func writeOverlapText(w io.Writer, m *selection.OverlapMap, tasks, top int, ran *overlapRun) {
	ps := listed(m, top)
	fmt.Fprintf(w, "%d tools, %d tasks: %d competing pairs", len(m.Names), tasks, len(m.Pairs))
	if len(ps) < len(m.Pairs) {
		fmt.Fprintf(w, ", the %d strongest (--top 0 lists all)", len(ps))
	}
	fmt.Fprintln(w)
	writeRunNote(w, ran, len(m.Names))
	for k, p := range ps {
		fmt.Fprintf(w, "\n%2d. %.2f  %s / %s\n", k+1, p.Strength, termsafe.Escape(m.Names[p.I]), termsafe.Escape(m.Names[p.J]))
		fmt.Fprintf(w, "    descriptions %.2f (%.2f, %.2f), shared words %.2f, tasks %.2f%s\n", p.Desc, p.DescI, p.DescJ, p.Shared, p.Tasks, modelPart(p))
		if ws := sharedWords(m, p); len(ws) > 0 {
			fmt.Fprintf(w, "    shared: %s\n", termsafe.Escape(strings.Join(ws, ", ")))
		}
		if len(p.Lost) > 0 {
			fmt.Fprintf(w, "    tasks lost: %s\n", numbers(p.Lost))
		}
		if len(p.Close) > 0 {
			fmt.Fprintf(w, "    tasks close: %s\n", numbers(p.Close))
		}
		fmt.Fprintf(w, "    %s\n", termsafe.Escape(m.Advice(p)))
	}
}

// numbers writes task numbers as select-N, the way check names them.
func numbers(ns []int) string {
	parts := make([]string, len(ns))
	for k, n := range ns {
		parts[k] = fmt.Sprintf("select-%d", n)
	}
	return strings.Join(parts, ", ")
}
