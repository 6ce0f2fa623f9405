package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tool-workbench/workbench/cost"
)

func init() {
	register(command{
		name:    "cost",
		summary: "bytes and tokens of a listing, per tool, as a host renders it (exit 2 unreadable)",
		usage:   "SOURCE [--tokenizer o200k_base|cl100k_base|PATH] [--render NAME] [--context N] [--baseline FILE] [--format text|json]",
		run:     runCost,
	})
}

func runCost(ctx context.Context, e *env, args []string) error {
	c := commands["cost"]
	fs := newFlags(c, e.stderr)
	tokName := fs.String("tokenizer", "o200k_base", "encoding (o200k_base, cl100k_base) or the path of a Hugging Face tokenizer.json")
	render := fs.String("render", "compact", "rendering: "+strings.Join(cost.RenderingNames(), ", "))
	contextN := fs.Int("context", 0, "context window in tokens, to report each tool's share of it (0: none)")
	baseline := fs.String("baseline", "", "listing to compare against (a file, or - for standard input)")
	format := fs.String("format", "text", "output format: text or json")
	model := fs.String("model", "", "model for an estimate's constants: openai gpt-4o|gpt-4o-mini|gpt-4|gpt-3.5-turbo, anthropic a Claude model id")
	choice := fs.String("tool-choice", "", "anthropic tool_choice: auto, none, any or tool (the system prompt's size depends on it)")
	parts := fs.Bool("parts", false, "text format: show what each part of a tool costs")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"cost takes one SOURCE (a file, or - for standard input)"}
	}
	if *format != "text" && *format != "json" {
		return usageError{fmt.Sprintf("unknown format %q; use text or json", *format)}
	}
	if *contextN < 0 {
		return usageError{fmt.Sprintf("--context %d: give a context window in tokens, or 0 for none", *contextN)}
	}
	if *baseline == "-" && pos[0] == "-" {
		return usageError{"SOURCE and --baseline cannot both be standard input"}
	}
	fail := func(err error) error {
		fmt.Fprintln(e.stderr, "workbench cost:", err)
		return exitError{2}
	}
	tok, err := cost.OpenTokenizer(*tokName)
	if err != nil {
		return fail(err)
	}
	// One-shot: also count the rendering as one text, as the host's tokenizer would.
	counter, err := cost.NewCounter(tok, *render, cost.Options{Model: *model, ToolChoice: *choice, Whole: true})
	if err != nil {
		return fail(err)
	}
	l, err := loadListing(e, pos[0])
	if err != nil {
		return fail(fmt.Errorf("%s: %w", pos[0], err))
	}
	rep, err := counter.ListingContext(ctx, l)
	if err != nil {
		return err
	}
	rep.SetContext(*contextN)
	if *baseline != "" {
		bl, err := loadListing(e, *baseline)
		if err != nil {
			return fail(fmt.Errorf("baseline %s: %w", *baseline, err))
		}
		brep, err := counter.ListingContext(ctx, bl)
		if err != nil {
			return err
		}
		if err := rep.Compare(brep); err != nil {
			return fail(err)
		}
	}
	e.log.Debug("costed listing", "source", pos[0], "tools", len(rep.Tools), "tokens", rep.Total.Tokens)
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	if *format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	writeCostText(out, rep, *parts)
	return nil
}

func writeCostText(w io.Writer, r cost.Report, parts bool) {
	fmt.Fprintf(w, "%d tools, rendered %s, tokenizer %s\n", len(r.Tools), r.Render, r.Tokenizer)
	if r.Estimate {
		m := ""
		if r.Model != "" {
			m = " for " + r.Model
		}
		fmt.Fprintf(w, "ESTIMATE%s: %s\n", m, r.Source)
	}
	fmt.Fprintf(w, "total %d tokens, %d bytes", r.Total.Tokens, r.Total.Bytes)
	if r.Context > 0 {
		fmt.Fprintf(w, ", %.1f%% of a %d-token context", 100*r.ContextShare, r.Context)
	}
	fmt.Fprintf(w, " (frame and overhead %d tokens, %d bytes)\n", r.Overhead.Tokens, r.Overhead.Bytes)
	if r.Whole != nil {
		fmt.Fprintf(w, "as one text %d tokens (tools counted one by one add up to %+d more)\n", r.Whole.Tokens, r.Total.Tokens-r.Whole.Tokens)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%8s %8s", "tokens", "bytes")
	if r.Context > 0 {
		fmt.Fprintf(w, " %7s", "share")
	}
	fmt.Fprintln(w, "  tool")
	for _, t := range r.Tools {
		fmt.Fprintf(w, "%8d %8d", t.Tokens, t.Bytes)
		if r.Context > 0 {
			fmt.Fprintf(w, " %6.2f%%", 100*t.Share)
		}
		fmt.Fprintf(w, "  %s\n", t.Name)
		if parts {
			for _, p := range t.Parts {
				fmt.Fprintf(w, "%8d %8d      %s\n", p.Tokens, p.Bytes, p.Name)
			}
		}
	}
	ranked := func(label string, rs []cost.Ranked) {
		names := make([]string, len(rs))
		for i, x := range rs {
			names[i] = fmt.Sprintf("%s (%d)", x.Name, x.Tokens)
		}
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(names, ", "))
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w)
		ranked("cheapest", r.Cheapest)
		ranked("dearest", r.Dearest)
	}
	if d := r.Baseline; d != nil {
		fmt.Fprintf(w, "\nagainst the baseline (%d tokens, %d bytes): %+d tokens, %+d bytes\n", d.Before.Tokens, d.Before.Bytes, d.Change.Tokens, d.Change.Bytes)
		for _, t := range d.Tools {
			fmt.Fprintf(w, "  %-8s %+6d tokens %+7d bytes  %s\n", t.Status, t.Change.Tokens, t.Change.Bytes, t.Name)
		}
	}
}
