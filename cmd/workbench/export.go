package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a listing as JSON, as Go code that registers it, or a review report",
		usage:   "SOURCE [--format json|go|review] [--package NAME] [--main] [--baseline FILE] [--compact] [--bare] [--out FILE]",
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
	compact := fs.Bool("compact", false, "with --format json: no indentation")
	bare := fs.Bool("bare", false, "with --format json: a bare array of tools instead of the tools/list result")
	out := fs.String("out", "", "write to this file instead of stdout")
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
	if *format != "review" && *baseline != "" {
		return usageError{"--baseline applies to --format review only"}
	}
	if pos[0] == "-" && *baseline == "-" {
		return usageError{"SOURCE and --baseline cannot both be read from stdin"}
	}

	l, err := exportReadListing(e, pos[0])
	if err != nil {
		return err
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
			return err
		}
		opts := export.ReviewOptions{
			BaselineName: sourceName(*baseline),
			CurrentName:  sourceName(pos[0]),
			FindingsNote: "the lint engine is not wired into workbench export yet",
			RankingNote:  "the ranker and task files are not wired into workbench export yet",
		}
		if codec, err := tokenizer.Get(tokenizer.O200kBase); err == nil {
			opts.Tokens = func(t *listing.Value) int {
				n, _ := codec.Count(string(listing.Marshal(t, "")))
				return n
			}
			opts.TokenUnit = "o200k_base tokens of each tool's compact JSON"
		} else {
			opts.TokensNote = "the o200k_base tokenizer failed to load: " + err.Error()
		}
		data, err = export.Review(base, l, opts)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if *out == "" {
		_, err := e.stdout.Write(data)
		return err
	}
	return writeFileAtomic(*out, data)
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
		var le *listing.Error
		if errors.As(err, &le) {
			msg := fmt.Sprintf("export: %s: %s", sourceName(path), le.Msg)
			if le.Pointer != "" {
				msg += " (at " + le.Pointer + ")"
			}
			if le.Hint != "" {
				msg += "; " + le.Hint
			}
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("export: %s: %w", sourceName(path), err)
	}
	return l, nil
}

func sourceName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// printExportWarnings tells, one line per kind, what go-sdk's answer will differ in; the
// generated file's comments name every case.
func printExportWarnings(w io.Writer, warns []export.Warning) {
	byKind := map[export.Difference][]string{}
	var kinds []export.Difference
	for _, x := range warns {
		if _, ok := byKind[x.Kind]; !ok {
			kinds = append(kinds, x.Kind)
		}
		byKind[x.Kind] = append(byKind[x.Kind], x.String())
	}
	sort.SliceStable(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	for _, k := range kinds {
		items := byKind[k]
		shown := items
		if len(shown) > 3 {
			shown = shown[:3]
		}
		more := ""
		if len(items) > len(shown) {
			more = fmt.Sprintf("; and %d more", len(items)-len(shown))
		}
		fmt.Fprintf(w, "workbench export: warning (%s, %d): %s%s\n", k, len(items), strings.Join(shown, "; "), more)
	}
}

// writeFileAtomic writes data to path through a temporary file in the same directory, so that
// a failed write leaves no half-written file.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: writing %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("export: writing %s: %w", path, werr)
	}
	return nil
}
