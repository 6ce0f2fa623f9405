package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name:    "check",
		summary: "lint a listing and rank a task file against it (exit 0 clean, 1 findings fail, 2 unreadable)",
		usage: "SOURCE... [--tasks FILE] [--rules all|reference] [--format text|json|sarif|github|markdown] " +
			"[--ignore FILE] [--fail-on error|warning|info] [--baseline FILE] [--merge FILE]... [--tokenizer approx|o200k_base|cl100k_base|[NAME=]PATH] [--profile NAME] [--damage] [--min-drop SHARE] [--order-bias] [--overlap]",
		run: runCheck,
	})
}

// listFlag collects a flag given several times (--merge a.json --merge b.json).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// checkOptions are the extended rule set's options.
type checkOptions struct {
	source, tasks, format, ignore, baseline, tokenizer string
	failOn                                             lint.Severity
	merge                                              []string
	orderBias                                          bool
	cfg                                                lint.Config
	overlap                                            bool // --overlap: the report's overlap member
	// tok is --tokenizer opened (nil with approx): a tokenizer.json's is named by its file.
	tok cost.Tokenizer
	// damage is --damage or --min-drop (nil without).
	damage *damageOptions
}

// reportTokenizer is the tokenizer the report names: the opened one's name, or approx.
func reportTokenizer(o checkOptions) string {
	if o.tok != nil {
		return o.tok.Name()
	}
	return o.tokenizer
}

func runCheck(ctx context.Context, e *env, args []string) error {
	c := commands["check"]
	fs := newFlags(c, e.stderr)
	tasksPath := fs.String("tasks", "", "task file: a JSON array of {\"task\": ..., \"expect\": tool name}")
	rules := fs.String("rules", "all", "rule set: all (the reference's checks and the extended rules), or reference (byte-identical to the reference checker)")
	format := fs.String("format", "text", "output format: "+strings.Join(analysis.Formats, ", ")+" (all rules only)")
	ignore := fs.String("ignore", "", "ignore file: a JSON array of {\"rule\", \"tool\", \"pointer\", \"reason\"}")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding at or above this severity remains: error, warning or info")
	baseline := fs.String("baseline", "", "a previous --format json report: only findings not in it can fail the check")
	var merge listFlag
	fs.Var(&merge, "merge", "another server's listing a host may connect together with SOURCE (repeatable): report colliding names")
	tokenizer := fs.String("tokenizer", "o200k_base", "how the budget rules count tokens: o200k_base, cl100k_base, approx (4 bytes a token), or a Hugging Face tokenizer.json as PATH or NAME=PATH")
	maxTools := fs.Int("max-tools", lint.DefaultMaxTools, "listing-too-many-tools: the most tools a listing should hold")
	maxTokens := fs.Int("max-tokens", lint.DefaultMaxListingTokens, "listing-token-budget: the most tokens the tools should take")
	maxDesc := fs.Int("max-description-tokens", lint.DefaultMaxDescriptionTokens, "description-too-long: the most tokens one description should take")
	revision := fs.String("revision", lint.DefaultRevision, "protocol revision the listing targets (output-schema-root); a --profile of a revision sets it")
	profile := profileFlag(fs)
	damage := addDamageFlags(fs)
	orderBias := fs.Bool("order-bias", false, "with --tasks, the ranker's verdicts under every rotation of the tool order, exact ties going to the tool listed first (json and text)")
	overlap := fs.Bool("overlap", false, "add the overlap map's strongest pairs to the report as its overlap member (--format json)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
	}
	if err := checkSources(pos, *tasksPath, *baseline); err != nil {
		return err
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	switch *rules {
	case "reference":
		// Every option of the extended rules, given on the command line, is refused rather
		// than silently ignored.
		var given []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "tasks" && f.Name != "rules" {
				given = append(given, f.Name)
			}
		})
		if len(given) > 0 {
			return usageError{fmt.Sprintf("--%s needs --rules all: --rules reference prints exactly what the reference checker prints", given[0])}
		}
		return checkEach(ctx, out, "text", pos, func(out *bufio.Writer, source string) error {
			return checkReference(ctx, out, e, source, *tasksPath)
		})
	case "all":
	default:
		return usageError{fmt.Sprintf("unknown rule set %q; known: all, reference", *rules)}
	}
	if !slices.Contains(analysis.Formats, *format) {
		return usageError{fmt.Sprintf("unknown format %q; use one of %s", *format, strings.Join(analysis.Formats, ", "))}
	}
	if *overlap && *format != "json" {
		return usageError{"--overlap needs --format json (workbench overlap prints the map as text or SVG)"}
	}
	sev, err := lint.ParseSeverity(*failOn)
	if err != nil {
		return usageError{"--fail-on: " + err.Error()}
	}
	if *maxTools < 1 || *maxTokens < 1 || *maxDesc < 1 {
		return usageError{"--max-tools, --max-tokens and --max-description-tokens take a positive number"}
	}
	if _, err := time.Parse("2006-01-02", *revision); err != nil {
		return usageError{fmt.Sprintf("--revision %q: give a protocol revision as a date, such as %s", *revision, lint.DefaultRevision)}
	}
	if err := checkProfile(*profile); err != nil {
		return err
	}
	dmg, err := damage.options(*format, *tasksPath)
	if err != nil {
		return err
	}
	o := checkOptions{tasks: *tasksPath, format: *format, ignore: *ignore, baseline: *baseline,
		tokenizer: *tokenizer, failOn: sev, merge: merge, damage: dmg, orderBias: *orderBias, overlap: *overlap,
		cfg: lint.Config{MaxTools: *maxTools, MaxListingTokens: *maxTokens, MaxDescriptionTokens: *maxDesc, Revision: *revision, Profile: *profile}}
	if err := o.orderBiasUsable(); err != nil {
		return err
	}
	if *profile != "" && !flagGiven(fs, "revision") {
		o.cfg.Revision = "" // the profile's revision, or the default
	}
	if *tokenizer != "approx" {
		tok, err := cost.OpenTokenizer(*tokenizer)
		if err != nil {
			return usageError{"--tokenizer: " + err.Error() + ", or approx"}
		}
		o.cfg.Tokens, o.tok = tok.Count, tok
	}
	return checkEach(ctx, out, o.format, pos, func(out *bufio.Writer, source string) error {
		o.source = source
		return checkAll(ctx, out, e, o)
	})
}

// checkAll runs the reference's checks and the extended rules and writes the report in o.format.
// Text prints the reference's lines unchanged, then the extended findings in the same style.
func checkAll(ctx context.Context, out *bufio.Writer, e *env, o checkOptions) error {
	fail := func(err error) error {
		// Say where and what would work, when the listing package knows.
		var le *listing.Error
		if errors.As(err, &le) && le.Hint != "" {
			err = fmt.Errorf("%w (%s)", err, le.Hint)
		}
		if o.format == "text" {
			fmt.Fprintf(out, "ERROR %s\n", err)
		} else {
			fmt.Fprintf(e.stderr, "workbench check: %s\n", err)
		}
		return exitError{2}
	}
	src, err := readSource(e, o.source)
	if err != nil {
		return fail(err)
	}
	if err := listing.CheckUTF8(src); err != nil {
		return fail(err)
	}
	l, err := listing.Parse(listing.UniversalNewlines(src), listing.Options{Name: o.source})
	if err != nil {
		return fail(err)
	}
	var tasks []selection.Task
	if o.tasks != "" {
		if tasks, err = loadTasks(e, o.tasks, false); err != nil {
			return fail(fmt.Errorf("%s: %w", o.tasks, err))
		}
		if len(l.Tools) == 0 {
			return fail(fmt.Errorf("the listing has no tools to rank the tasks against"))
		}
	}
	var igs []lint.Ignore
	if o.ignore != "" {
		b, err := readSource(e, o.ignore)
		if err != nil {
			return fail(err)
		}
		if igs, err = lint.ParseIgnores(b); err != nil {
			return fail(fmt.Errorf("%s: %w", o.ignore, err))
		}
	}
	var base map[string]int
	if o.baseline != "" {
		b, err := readSource(e, o.baseline)
		if err != nil {
			return fail(err)
		}
		if base, err = lint.ParseBaseline(b); err != nil {
			return fail(fmt.Errorf("%s: %w", o.baseline, err))
		}
	}
	others := []lint.Named{{Name: o.source, Listing: l}}
	for _, m := range o.merge {
		ml, err := loadListing(e, m)
		if err != nil {
			return fail(fmt.Errorf("--merge %s: %w", m, err))
		}
		others = append(others, lint.Named{Name: m, Listing: ml})
	}

	// The engine the browser uses, with the extended rules configured by the flags.
	// It counts the listing as the Cost tab does, unless the tokens are estimated (approx).
	tokName, approx := o.tokenizer, o.tokenizer == "approx"
	if approx {
		tokName = "" // the engine counts no tokens: its default is never used
	}
	eng, err := analysis.New(analysis.Options{Tokenizer: tokName, Tok: o.tok, Extended: lint.New(o.cfg), PlainVerdicts: true, NoCost: approx})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	checked, err := eng.Check(ctx, analysis.CheckInput{Name: o.source, Listing: l, Tasks: tasks, Others: others,
		Ignores: igs, Baseline: base, FailOn: o.failOn, Tokenizer: reportTokenizer(o)})
	if err != nil {
		return err
	}
	r := checked.Report
	if err := addAnalyses(ctx, o, l, tasks, r); err != nil {
		return err
	}
	if o.format == "sarif" {
		if r.Fixes, err = sarifFixes(ctx, eng, src, l, tasks, o.source); err != nil {
			return err
		}
	}
	if o.format != "text" {
		if err := analysis.Write(out, o.format, r); err != nil {
			return err
		}
	} else if err := writeAllText(ctx, out, checked); err != nil {
		return err
	}
	writeCheckOrderBias(out, o, r)
	if r.Failed {
		return exitError{1}
	}
	return nil
}

// writeAllText prints the reference's report unchanged (or why it could not run), then the
// extended findings not ignored in the same style, and the count line.
func writeAllText(ctx context.Context, out *bufio.Writer, checked *analysis.Checked) error {
	r := checked.Report
	shown := checked.Extended
	if r.ReferenceSkipped != "" {
		// No reference report to print: its findings (reference-input on the tools it cannot
		// read, its checks on the others) print in the extended style, as every other format
		// and the page list them.
		fmt.Fprintf(out, "INFO %s; its checks ran on the tools it can read, listed below with the extended rules' findings\n", r.ReferenceSkipped)
		shown = slices.Concat(checked.Reference(), checked.Extended)
	} else {
		lines, err := checked.ReferenceLines(ctx)
		if err != nil {
			return err
		}
		writeReferenceText(out, lines, r.Ranking)
	}
	ignored := map[string]bool{}
	for _, f := range r.Ignored {
		ignored[f.Key()+"\x00"+f.Pointer] = true
	}
	var ext []lint.Finding
	for _, f := range shown {
		if !ignored[f.Key()+"\x00"+f.Pointer] {
			ext = append(ext, f)
		}
	}
	if err := analysis.WriteText(out, ext, r); err != nil {
		return err
	}
	return writeDamageText(out, r)
}

// writeReferenceText prints the reference's report: its lines, then with a ranking the verdicts
// and the selection line, then the count line. It reports whether any line is a FAIL, which is
// the reference's exit 1.
func writeReferenceText(out *bufio.Writer, lines []reference.Line, verdicts []selection.Verdict) (failed bool) {
	for _, ln := range lines {
		out.WriteString(ln.String())
		out.WriteByte('\n')
	}
	p, w, f := reference.Counts(lines)
	if verdicts != nil {
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
			}
		}
		out.WriteString(selection.Summary(verdicts))
		out.WriteByte('\n')
	}
	fmt.Fprintf(out, "%d pass, %d warn, %d fail\n", p, w, f)
	return f > 0
}

// checkReference prints what the reference checker prints for the same arguments, and returns
// the exit code it would return. Where the workbench will not reproduce the reference's bytes
// (a near-duplicate line of more than reference.MaxPairs pairs, like nesting past Python's
// limit) it prints one ERROR line saying why and what would work, and exits 2.
func checkReference(ctx context.Context, out *bufio.Writer, e *env, source, tasksPath string) error {
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
		if tasks, err = loadReferenceTasks(e, tasksPath); err != nil {
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
	type ranking struct {
		vs  []selection.Verdict
		err error
	}
	ranked := make(chan ranking, 1)
	go func() {
		var r ranking
		if len(tasks) > 0 {
			r.vs, r.err = selection.RankContext(ctx, l, tasks, false)
		}
		ranked <- r
	}()
	lines, nd, err := reference.LintContext(ctx, l)
	rk := <-ranked
	switch {
	case err != nil:
		return err
	case rk.err != nil:
		return rk.err
	}
	exact, err := nd.Exact()
	if err != nil {
		return fail(err)
	}
	lines[len(lines)-1] = exact
	verdicts := rk.vs
	if writeReferenceText(out, lines, verdicts) {
		return exitError{1}
	}
	return nil
}

// sarifFixes returns the repairs on offer for the report's findings with their changes to the
// file as read: SARIF gives them as each result's fixes. The listing checked was read with its
// line endings translated; the changes are placed in the file's own bytes.
func sarifFixes(ctx context.Context, eng *analysis.Engine, src []byte, l *listing.Listing, tasks []selection.Task, name string) ([]analysis.ReportFix, error) {
	if !bytes.Equal(l.Source, src) {
		raw, err := listing.Parse(src, listing.Options{Name: name})
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		l = raw
	}
	fixes, err := eng.ReportFixes(ctx, l, tasks)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return fixes, nil
}
