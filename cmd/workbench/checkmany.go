package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// checkSources refuses what cannot be given with several SOURCEs (pre-commit passes every
// staged listing at once): standard input twice, and a findings baseline, which belongs to one
// listing.
func checkSources(sources []string, tasks, baseline string) error {
	if len(sources) == 0 {
		return usageError{"check takes a SOURCE (a file, or - for standard input), or several"}
	}
	stdin := 0
	for _, s := range sources {
		if s == "-" {
			stdin++
		}
	}
	switch {
	case stdin > 1:
		return usageError{"standard input (-) can be only one of the SOURCEs"}
	case stdin == 1 && tasks == "-":
		return usageError{"SOURCE and --tasks cannot both be standard input"}
	case len(sources) > 1 && tasks == "-":
		return usageError{"--tasks - reads standard input once: with several SOURCEs give the task file's path"}
	case len(sources) > 1 && baseline != "":
		return usageError{"--baseline is a report of one listing: give it with one SOURCE"}
	}
	return nil
}

// quotePath keeps a file name to one line in the text format's heading.
var quotePath = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// checkEach checks each source with one and returns the worst exit (2 unreadable, over 1
// findings fail, over 0). One source prints as it always has. With several, text heads each
// report with its file's name, github and markdown follow one another (each names its file),
// json is an array of the reports and sarif one log with a run per listing.
func checkEach(ctx context.Context, out *bufio.Writer, format string, sources []string, one func(*bufio.Writer, string) error) error {
	if len(sources) == 1 {
		return one(out, sources[0])
	}
	worst := 0
	var docs [][]byte
	for i, src := range sources {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		switch format {
		case "json", "sarif":
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			err = one(w, src)
			if ferr := w.Flush(); ferr != nil {
				return ferr
			}
			if buf.Len() > 0 {
				docs = append(docs, buf.Bytes())
			}
		default:
			if i > 0 {
				out.WriteByte('\n')
			}
			if format == "text" {
				fmt.Fprintf(out, "==> %s <==\n", quotePath.Replace(src))
			}
			err = one(out, src)
		}
		var ee exitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			worst = max(worst, ee.code)
		default:
			return err
		}
	}
	if err := joinReports(out, format, docs); err != nil {
		return err
	}
	if worst > 0 {
		return exitError{worst}
	}
	return nil
}

// joinReports writes several json reports as one array, or several SARIF logs as one log.
func joinReports(out *bufio.Writer, format string, docs [][]byte) error {
	switch format {
	case "json":
		raws := make([]json.RawMessage, len(docs))
		for i, d := range docs {
			raws[i] = d
		}
		return writeIndented(out, raws)
	case "sarif":
		var log map[string]json.RawMessage
		var runs []json.RawMessage
		for _, d := range docs {
			var l map[string]json.RawMessage
			var r struct{ Runs []json.RawMessage }
			if err := json.Unmarshal(d, &l); err != nil {
				return fmt.Errorf("check: joining SARIF logs: %w", err)
			}
			if err := json.Unmarshal(d, &r); err != nil {
				return fmt.Errorf("check: joining SARIF logs: %w", err)
			}
			if log == nil {
				log = l
			}
			runs = append(runs, r.Runs...)
		}
		if log == nil {
			return nil // no listing could be read: each said why on standard error
		}
		b, err := json.Marshal(runs)
		if err != nil {
			return fmt.Errorf("check: joining SARIF logs: %w", err)
		}
		log["runs"] = b
		return writeIndented(out, log)
	}
	return nil
}

func writeIndented(out *bufio.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	out.Write(b)
	return out.WriteByte('\n')
}
