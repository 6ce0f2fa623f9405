package main

import (
	"bufio"
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name:    "check",
		summary: "lint a listing and rank a task file against it (exit 0 clean, 1 findings fail, 2 unreadable)",
		usage:   "SOURCE [--tasks FILE] [--rules reference]",
		run:     runCheck,
	})
}

func runCheck(ctx context.Context, e *env, args []string) error {
	c := commands["check"]
	fs := newFlags(c, e.stderr)
	tasksPath := fs.String("tasks", "", "task file: a JSON array of {\"task\": ..., \"expect\": tool name}")
	rules := fs.String("rules", "reference", "rule set: reference (byte-identical to the reference checker)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"check takes one SOURCE (a file, or - for standard input)"}
	}
	if *rules != "reference" {
		return usageError{fmt.Sprintf("unknown rule set %q; known: reference", *rules)}
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	return checkReference(out, e, pos[0], *tasksPath)
}

// checkReference prints what the reference checker prints for the same arguments, and returns
// the exit code it would return.
func checkReference(out *bufio.Writer, e *env, source, tasksPath string) error {
	fail := func(err error) error {
		fmt.Fprintf(out, "ERROR %s\n", err)
		return exitError{2}
	}
	src, err := readSource(e, source)
	if err != nil {
		return fail(err)
	}
	// Python decodes before it translates newlines, so check the raw bytes first.
	if err := listing.CheckUTF8(src); err != nil {
		return fail(err)
	}
	l, err := listing.Parse(listing.UniversalNewlines(src), listing.Options{Name: source})
	if err != nil {
		return fail(err)
	}
	var tasks []selection.Task
	if tasksPath != "" {
		if tasks, err = loadTasks(e, tasksPath, true); err != nil {
			return fail(err)
		}
	}
	if err := reference.Validate(l, len(tasks) > 0); err != nil {
		return fail(fmt.Errorf("the reference checker cannot read this listing (it would stop with a Python exception): %w", err))
	}
	if len(tasks) > 0 && len(l.Tools) == 0 {
		return fail(fmt.Errorf("the listing has no tools to rank the tasks against"))
	}
	// The ranking does not depend on the lint lines: on a large listing, do both at once.
	ranked := make(chan []selection.Verdict, 1)
	go func() {
		if len(tasks) > 0 {
			ranked <- selection.Rank(l, tasks, false)
		}
		close(ranked)
	}()
	lines := reference.Lint(l)
	for _, ln := range lines {
		out.WriteString(ln.String())
		out.WriteByte('\n')
	}
	failed := reference.Failed(lines)
	p, w, f := reference.Counts(lines)
	if len(tasks) > 0 {
		verdicts := <-ranked
		for _, v := range verdicts {
			out.WriteString(v.Line())
			out.WriteByte('\n')
			switch v.Level {
			case reference.Pass:
				p++
			case reference.Warn:
				w++
			case reference.Fail:
				f++
				failed = true
			}
		}
		out.WriteString(selection.Summary(verdicts))
		out.WriteByte('\n')
	}
	fmt.Fprintf(out, "%d pass, %d warn, %d fail\n", p, w, f)
	if failed {
		return exitError{1}
	}
	return nil
}
