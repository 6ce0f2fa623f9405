package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/tool-workbench/workbench/selection/taskformat"
)

func init() {
	register(command{
		name:    "tasks",
		summary: "convert task files from and to other tools' test formats; list the formats",
		usage: "convert FILE [--from NAME] [--to NAME] [-o FILE] [--strict]\n" +
			"       workbench tasks formats",
		run: runTasks,
	})
}

func runTasks(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "convert":
			return runTasksConvert(e, args[1:])
		case "formats":
			if len(args) > 1 {
				return usageError{"tasks formats takes no arguments"}
			}
			return printFormats(e.stdout)
		}
	}
	fs := newFlags(commands["tasks"], e.stderr)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fs.Usage()
	return usageError{"tasks takes a subcommand: convert or formats"}
}

// runTasksConvert reads a task file of one format and writes it in another. Whatever either
// side cannot carry is printed on standard error, one loss a line; the conversion still
// succeeds (exit 0) unless --strict, which refuses it (exit 1, nothing written).
func runTasksConvert(e *env, args []string) error {
	c := commands["tasks"]
	c.usage = "convert FILE [--from NAME] [--to NAME] [-o FILE] [--strict]"
	c.summary = "convert a task file (- for standard input) between formats: " + strings.Join(taskformat.Names(), ", ") +
		". Losses go to standard error; exit 0 converted, 1 --strict and something was lost, 2 unreadable"
	fs := newFlags(c, e.stderr)
	from := fs.String("from", "", "the file's format (default: detected by its shape)")
	to := fs.String("to", taskformat.Workbench, "the format to write")
	out := fs.String("o", "", "write to this file instead of standard output")
	strict := fs.Bool("strict", false, "refuse a conversion that loses anything: print the losses, write nothing, exit 1")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"tasks convert takes one FILE (or - for standard input)"}
	}
	for _, name := range []string{*from, *to} {
		if name == "" {
			continue
		}
		if _, err := taskformat.Lookup(name); err != nil {
			return usageError{err.Error()}
		}
	}
	src, err := readTaskFile(e, pos[0])
	if err != nil {
		return usageError{err.Error()}
	}
	res, err := taskformat.Convert(src, *from, *to)
	if err != nil {
		return usageError{fmt.Sprintf("%s: %v", pos[0], err)}
	}
	reportLosses(e.stderr, res, *strict)
	if *strict && len(res.Losses) > 0 {
		return exitError{1}
	}
	if *out == "" {
		_, err = e.stdout.Write(res.Out)
		return err
	}
	return os.WriteFile(*out, res.Out, 0o644)
}

// readTaskFile reads FILE or standard input, one byte past the bound so that the converter
// can say the file is too large.
func readTaskFile(e *env, path string) ([]byte, error) {
	r := e.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, osError(path, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, taskformat.MaxSource+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

func reportLosses(w io.Writer, res taskformat.Result, strict bool) {
	switch {
	case len(res.Losses) == 0:
		fmt.Fprintf(w, "workbench: converted %d cases from %s to %s; nothing lost\n", res.Cases, res.From, res.To)
		return
	case strict:
		fmt.Fprintf(w, "workbench: refused to convert %d cases from %s to %s (--strict): %d losses\n", res.Cases, res.From, res.To, len(res.Losses))
	default:
		fmt.Fprintf(w, "workbench: converted %d cases from %s to %s with %d losses (--strict refuses a conversion that loses anything)\n",
			res.Cases, res.From, res.To, len(res.Losses))
	}
	for _, l := range res.Losses {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

func printFormats(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tVERSION")
	for _, n := range taskformat.Names() {
		f, err := taskformat.Lookup(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name(), f.Title(), f.Version())
	}
	return tw.Flush()
}
