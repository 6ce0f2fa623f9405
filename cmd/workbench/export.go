package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/internal/atomicfile"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a listing as JSON, as Go code that registers it, or a review report",
		usage:   "SOURCE [--format json|go|review] [--package NAME] [--main] [--baseline FILE] [--tasks FILE] [--tokenizer NAME] [--profile NAME] [--compact] [--bare] [--out FILE]",
		run:     runExport,
	})
}

func runExport(ctx context.Context, e *env, args []string) error {
	c := commands["export"]
	fs := newFlags(c, e.stderr)
	format := fs.String("format", "json", "what to write: json (the listing), go (code for github.com/modelcontextprotocol/go-sdk), review (Markdown report against --baseline)")
	pkg := fs.String("package", "", "package name of the Go code (default tools; main with --main)")
	mainFn := fs.Bool("main", false, "with --format go: add a main function that serves the tools on stdio")
	baseline := fs.String("baseline", "", "with --format review: the listing to compare against (a file, or - for stdin)")
	tasksPath := fs.String("tasks", "", "with --format review: task file whose ranking the report compares")
	tokName := fs.String("tokenizer", "o200k_base", "with --format review: how tokens are counted (o200k_base, cl100k_base, or the path of a tokenizer.json)")
	compact := fs.Bool("compact", false, "with --format json: no indentation")
	bare := fs.Bool("bare", false, "with --format json: a bare array of tools instead of the tools/list result")
	out := fs.String("out", "", "write to this file instead of stdout")
	profile := profileFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("export takes one SOURCE (a listing file, or - for stdin), got %d arguments; usage: workbench export %s", len(pos), c.usage)}
	}
	switch *format {
	case "json", "go", "review":
	default:
		return usageError{fmt.Sprintf("unknown --format %q; use json, go or review", *format)}
	}
	if *format != "go" && (*pkg != "" || *mainFn) {
		return usageError{"--package and --main apply to --format go only"}
	}
	if *format != "json" && (*compact || *bare) {
		return usageError{"--compact and --bare apply to --format json only"}
	}
	if *format == "review" && *baseline == "" {
		return usageError{"--format review needs --baseline FILE: the listing to compare against"}
	}
	if *format != "review" && (*baseline != "" || *tasksPath != "") {
		return usageError{"--baseline and --tasks apply to --format review only"}
	}
	if *format != "review" && *profile != "" {
		return usageError{"--profile applies to --format review only: json and go write the listing as it is"}
	}
	if err := checkProfile(*profile); err != nil {
		return err
	}
	stdin := 0
	for _, p := range []string{pos[0], *baseline, *tasksPath} {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageError{"only one of SOURCE, --baseline and --tasks can be read from stdin (-)"}
	}

	l, err := exportReadListing(e, pos[0])
	if err != nil {
		return unreadable(e, err)
	}
	// Writing is linear in the listing; reading it was the long part. Nothing is written after
	// the command's time limit or a signal.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("export %s: %w", pos[0], err)
	}
	var data []byte
	switch *format {
	case "json":
		data = export.JSON(l, export.JSONOptions{Bare: *bare, Compact: *compact})
	case "go":
		var warns []export.Warning
		data, warns, err = export.Go(l, export.GoOptions{Package: *pkg, Main: *mainFn, Source: sourceName(pos[0])})
		printExportWarnings(e.stderr, warns)
		if err != nil {
			return fmt.Errorf("export %s: %w", pos[0], err)
		}
	case "review":
		base, err := exportReadListing(e, *baseline)
		if err != nil {
			return unreadable(e, err)
		}
		opts, err := reviewEngines(ctx, e, *tokName, *tasksPath, *profile)
		if err != nil {
			return err
		}
		opts.BaselineName, opts.CurrentName = sourceName(*baseline), sourceName(pos[0])
		data, err = export.Review(base, l, opts)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("export %s: %w", pos[0], err)
	}
	if *out == "" {
		_, err := e.stdout.Write(data)
		return err
	}
	return writeFileAtomic(*out, data)
}

// reviewEngines wires the workbench's engines into a review (analysis.ReviewEngines, shared with
// the browser): findings (with --profile's rules), tokens counted with --tokenizer, and the
// ranking when a task file is given.
func reviewEngines(ctx context.Context, e *env, tokName, tasksPath, profile string) (export.ReviewOptions, error) {
	tok, err := cost.OpenTokenizer(tokName)
	if err != nil {
		return export.ReviewOptions{}, usageError{"--tokenizer: " + err.Error()}
	}
	var tasks []selection.Task
	if tasksPath != "" {
		if tasks, err = loadTasks(e, tasksPath, false); err != nil {
			return export.ReviewOptions{}, fmt.Errorf("export: %s: %w", tasksPath, err)
		}
		if tasks == nil {
			tasks = []selection.Task{} // a task file with no tasks still ranks (nothing)
		}
	}
	opts, err := analysis.ReviewWith(ctx, tok, lint.New(lint.Config{Tokens: tok.Count, Profile: profile}), tasks)
	if err != nil {
		return opts, fmt.Errorf("export: %w", err)
	}
	if tasksPath == "" {
		opts.RankingNote = "no --tasks file given"
	}
	return opts, nil
}

// unreadable reports an input that cannot be read and exits 2, as every command does.
func unreadable(e *env, err error) error {
	fmt.Fprintln(e.stderr, "workbench "+err.Error())
	return exitError{2}
}

// exportReadListing reads and parses a listing from a file or stdin ("-"), refusing input over
// the listing size limit before reading all of it.
func exportReadListing(e *env, path string) (*listing.Listing, error) {
	var r io.Reader
	if path == "-" {
		r = e.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		r = f
	}
	limit := listing.DefaultLimits.Bytes
	src, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("export: reading %s: %w", sourceName(path), err)
	}
	l, err := listing.Parse(src, listing.Options{Name: sourceName(path)})
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", sourceName(path), describe(err))
	}
	return l, nil
}

func sourceName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// printExportWarnings says, one line per kind, what go-sdk's tools/list answer will differ in
// and for which tools; the generated file's comments name every case.
func printExportWarnings(w io.Writer, warns []export.Warning) {
	type group struct {
		n     int
		tools []string
		first export.Warning
	}
	groups := map[export.Difference]*group{}
	var kinds []export.Difference
	for _, x := range warns {
		g := groups[x.Kind]
		if g == nil {
			g = &group{first: x}
			groups[x.Kind] = g
			kinds = append(kinds, x.Kind)
		}
		g.n++
		if x.Tool != "" && !slices.Contains(g.tools, x.Tool) {
			g.tools = append(g.tools, x.Tool)
		}
	}
	for _, k := range kinds {
		g := groups[k]
		switch {
		case k == export.DiffOrder:
			fmt.Fprintf(w, "workbench export: warning: %s\n", k.Summary())
			continue
		case len(g.tools) == 0:
			fmt.Fprintf(w, "workbench export: warning: %d %s (%s); e.g. %s\n", g.n, k.Summary(), k, lint.Clip(g.first.String()))
			continue
		}
		names := make([]string, 0, 3)
		for _, t := range g.tools[:min(3, len(g.tools))] {
			names = append(names, strconv.Quote(lint.Clip(t))) // a name may be megabytes long
		}
		more := ""
		if len(g.tools) > len(names) {
			more = fmt.Sprintf(" and %d more", len(g.tools)-len(names))
		}
		fmt.Fprintf(w, "workbench export: warning: %d %s (%s): tools %s%s; e.g. %s\n",
			g.n, k.Summary(), k, strings.Join(names, ", "), more, lint.Clip(g.first.String()))
	}
}

// writeFileAtomic writes data to path whole or not at all (atomicfile.Write).
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
