package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/cost"
)

func init() {
	register(command{
		name:    "cost",
		summary: "bytes and tokens of a listing, per tool, as a host renders it, and the change against a baseline (exit 1 past --max-increase, 2 unreadable)",
		usage:   "SOURCE [--tokenizer o200k_base|cl100k_base|[NAME=]PATH] [--render NAME] [--context N] [--baseline FILE] [--format text|json|github|markdown] [--max-increase N|P%]",
		run:     runCost,
	})
}

func runCost(ctx context.Context, e *env, args []string) error {
	c := commands["cost"]
	fs := newFlags(c, e.stderr)
	tokName := fs.String("tokenizer", "o200k_base", "encoding (o200k_base, cl100k_base), or a Hugging Face tokenizer.json as PATH or NAME=PATH (byte-level BPE: Qwen3, Llama 3, Mistral Nemo)")
	render := fs.String("render", "compact", "rendering: "+strings.Join(cost.RenderingNames(), ", "))
	contextN := fs.Int("context", 0, "context window in tokens, to report each tool's share of it (0: none)")
	baseline := fs.String("baseline", "", "listing to compare against (a file, or - for standard input)")
	format := fs.String("format", "text", "output format: text, json, or with --baseline github (workflow commands) or markdown (a table of the change)")
	maxIncrease := fs.String("max-increase", "", "with --baseline: exit 1 when the listing grows by more than N tokens or P% of the baseline's total")
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
	gate, err := costGateFlags(*format, *baseline, *maxIncrease)
	if err != nil {
		return err
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
	counter, err := cost.NewCounter(tok, *render, cost.Options{Model: *model, ToolChoice: *choice})
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
	switch *format {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	case "text":
		cost.WriteText(out, rep, *parts)
	}
	if *baseline == "" {
		return nil
	}
	return gate.write(out, e, &rep, pos[0], l)
}
