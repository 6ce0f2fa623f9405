package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name: "fix",
		summary: "repair what the rules can repair: print the change as a unified diff (exit 1 when there is one), " +
			"or write it (--write, --out)",
		usage: "SOURCE [--tasks FILE] [--rule ID]... [--suggested] [--diff | --write | --out FILE] [--tokenizer approx|o200k_base|cl100k_base|[NAME=]PATH] [--profile NAME]",
		run:   runFix,
	})
}

// fixOptions are fix's command line, checked.
type fixOptions struct {
	source, tasks, out, tokenizer, profile string
	write                                  bool
	opt                                    analysis.FixOptions
}

func runFix(ctx context.Context, e *env, args []string) error {
	c := commands["fix"]
	fs := newFlags(c, e.stderr)
	tasksPath := fs.String("tasks", "", "task file: its expects follow renamed tools (and its diff is printed, or it is rewritten with --write)")
	var rules listFlag
	fs.Var(&rules, "rule", "apply only this rule's repairs (repeatable); 'workbench rules' lists each rule's repair")
	suggested := fs.Bool("suggested", false, "apply the suggested repairs too (renames, hints, closing schemas...), not only the safe ones")
	diff := fs.Bool("diff", false, "print a unified diff of the changes (the default)")
	write := fs.Bool("write", false, "rewrite SOURCE (and the task file) in place")
	out := fs.String("out", "", "write the fixed listing to this file (SOURCE is left as it is)")
	profile := profileFlag(fs)
	tokenizer := fs.String("tokenizer", "approx", "how the budget rules count tokens for the findings before and after: approx (4 bytes a token), o200k_base (as check counts), cl100k_base, or a Hugging Face tokenizer.json as PATH or NAME=PATH")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Sprintf("fix takes one SOURCE (a listing file, or - for standard input), got %d arguments; usage: workbench fix %s", len(pos), c.usage)}
	}
	if err := checkProfile(*profile); err != nil {
		return err
	}
	o := fixOptions{source: pos[0], tasks: *tasksPath, out: *out, write: *write, tokenizer: *tokenizer, profile: *profile,
		opt: analysis.FixOptions{Rules: rules, Suggested: *suggested}}
	if err := o.validate(*diff); err != nil {
		return err
	}
	return fixListing(ctx, e, o)
}

// validate refuses a command line that cannot mean anything, saying what would work.
func (o fixOptions) validate(diff bool) error {
	modes := 0
	for _, on := range []bool{diff, o.write, o.out != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return usageError{"--diff, --write and --out are ways to give the result: choose one"}
	case o.source == "-" && o.tasks == "-":
		return usageError{"SOURCE and --tasks cannot both be standard input"}
	case o.write && (o.source == "-" || o.tasks == "-"):
		return usageError{"--write rewrites files in place, and standard input is not a file: give the result with --out FILE, or print the diff (the default)"}
	}
	for _, id := range o.opt.Rules {
		r := lint.Lookup(id)
		if r == nil {
			return usageError{fmt.Sprintf("unknown rule %q; rules with a repair: %s", id, strings.Join(fixableRules(), ", "))}
		}
		if r.Fix == lint.FixNone {
			return usageError{fmt.Sprintf("rule %s offers no repair (%s); rules with a repair: %s", id, r.FixNote, strings.Join(fixableRules(), ", "))}
		}
	}
	return nil
}

// fixableRules are the IDs of the rules that offer a repair.
func fixableRules() []string {
	var ids []string
	for _, r := range lint.Rules() {
		if r.Fix != lint.FixNone {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// fixed is a fix's outcome as files.
type fixed struct {
	res                    analysis.FixResult
	listing, tasks         []byte // the fixed texts (tasks nil when no expect changed)
	listingDiff, tasksDiff string
	left                   []lint.Repair // suggested repairs on offer that were not asked for
}

func fixListing(ctx context.Context, e *env, o fixOptions) error {
	src, err := readSource(e, o.source)
	if err != nil {
		return unreadable(e, fmt.Errorf("fix: %w", err))
	}
	// The raw bytes, not line endings translated as check reads them: the fixed text keeps
	// every byte the repairs do not touch, carriage returns included.
	l, err := listing.Parse(src, listing.Options{Name: sourceName(o.source)})
	if err != nil {
		return unreadable(e, fmt.Errorf("fix: %w", describe(err)))
	}
	var tasksSrc []byte
	var tasks []selection.Task
	if o.tasks != "" {
		if tasksSrc, err = readSource(e, o.tasks); err != nil {
			return unreadable(e, fmt.Errorf("fix: %w", err))
		}
		if tasks, err = selection.ParseTasks(tasksSrc, false); err != nil {
			return unreadable(e, fmt.Errorf("fix: %s: %w", sourceName(o.tasks), err))
		}
	}
	f, err := fixFiles(ctx, l, tasks, tasksSrc, o)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	defer w.Flush()
	switch {
	case o.write:
		if err := rewriteFile(o.source, src, f.listing); err != nil {
			return err
		}
		if f.tasks != nil {
			if err := rewriteFile(o.tasks, tasksSrc, f.tasks); err != nil {
				return err
			}
		}
	case o.out != "":
		if err := writeFileAtomic(o.out, f.listing); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		// The task file is not rewritten: its change is shown, for patch to apply.
		w.WriteString(f.tasksDiff)
	default:
		w.WriteString(f.listingDiff)
		w.WriteString(f.tasksDiff)
	}
	writeFixSummary(e.stderr, o, f)
	if len(f.res.Applied) > 0 && !o.write && o.out == "" {
		return exitError{1}
	}
	return nil
}

// rewriteFile replaces the file at path, which held old, with data, keeping its permissions; a
// file the repairs did not change is left alone.
func rewriteFile(path string, old, data []byte) error {
	if bytes.Equal(old, data) {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	if err := os.Chmod(path, st.Mode().Perm()); err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	return nil
}

// fixFiles runs the engine's fix and writes its outcome as texts and diffs.
func fixFiles(ctx context.Context, l *listing.Listing, tasks []selection.Task, tasksSrc []byte, o fixOptions) (*fixed, error) {
	// No repair depends on a token count, so the budget rules estimate tokens (4 bytes a token)
	// unless --tokenizer asks for a real count: counting with o200k_base is a third of the
	// time fix takes on a large listing. The findings before and after are check's otherwise.
	cfg := lint.Config{Profile: o.profile}
	if o.tokenizer != "approx" {
		tok, err := cost.OpenTokenizer(o.tokenizer)
		if err != nil {
			return nil, usageError{"--tokenizer: " + err.Error() + ", or approx"}
		}
		cfg.Tokens = tok.Count
	}
	eng, err := analysis.New(analysis.Options{Extended: lint.New(cfg), PlainVerdicts: true, NoCost: true})
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	res, err := eng.Fix(ctx, l, tasks, o.opt)
	if err != nil {
		return nil, fmt.Errorf("fix %s: %w", sourceName(o.source), err)
	}
	text, reps := analysis.FixedSource(l, res.Listing)
	f := &fixed{res: res, listing: text}
	if f.listingDiff, err = analysis.UnifiedDiff(l.Source, reps, sourceName(o.source)); err != nil {
		return nil, err
	}
	if tasksSrc != nil {
		t, reps, err := analysis.FixedTasks(tasksSrc, tasks, res.Tasks)
		if err != nil {
			return nil, fmt.Errorf("fix %s: %w", sourceName(o.tasks), err)
		}
		if reps != nil {
			f.tasks = t
			if f.tasksDiff, err = analysis.UnifiedDiff(tasksSrc, reps, sourceName(o.tasks)); err != nil {
				return nil, err
			}
		}
	}
	if !o.opt.Suggested {
		more, err := eng.Repairs(ctx, res.Listing, res.Tasks)
		if err != nil {
			return nil, fmt.Errorf("fix %s: %w", sourceName(o.source), err)
		}
		for _, r := range more {
			if r.Kind == lint.FixSuggested && (len(o.opt.Rules) == 0 || slices.Contains(o.opt.Rules, r.Rule)) {
				f.left = append(f.left, r)
			}
		}
	}
	return f, nil
}

// maxAppliedShown and maxLeftShown bound the repairs the summary names one by one (a generated
// listing may have thousands).
const (
	maxAppliedShown = 100
	maxLeftShown    = 10
)

// writeFixSummary says on stderr what was repaired, what remains, and which suggested repairs
// wait for --suggested.
func writeFixSummary(w io.Writer, o fixOptions, f *fixed) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	for _, r := range f.res.Applied[:min(len(f.res.Applied), maxAppliedShown)] {
		fmt.Fprintf(b, "fix: %s  %s  %s\n", r.Rule, toolLabel(r), r.Title)
	}
	if n := len(f.res.Applied) - maxAppliedShown; n > 0 {
		fmt.Fprintf(b, "fix: and %d more (the diff shows every change)\n", n)
	}
	verb := "would apply"
	switch {
	case o.write:
		verb = "applied"
	case o.out != "":
		verb = "applied (to " + o.out + ")"
	}
	fmt.Fprintf(b, "workbench fix: %s %d %s; findings %d → %d\n", verb, len(f.res.Applied), plural(len(f.res.Applied), "repair", "repairs"),
		len(f.res.Before), len(f.res.After))
	if f.tasks != nil && o.out != "" {
		fmt.Fprintf(b, "workbench fix: renames change %s too: its diff is on standard output (--write rewrites it)\n", o.tasks)
	}
	if len(f.left) == 0 {
		return
	}
	fmt.Fprintf(b, "workbench fix: %d suggested %s not applied (add --suggested to apply them, or --rule ID for one rule's):\n",
		len(f.left), plural(len(f.left), "repair", "repairs"))
	for _, r := range f.left[:min(len(f.left), maxLeftShown)] {
		fmt.Fprintf(b, "  %s  %s  %s\n", r.Rule, toolLabel(r), r.Title)
	}
	if n := len(f.left) - maxLeftShown; n > 0 {
		fmt.Fprintf(b, "  and %d more\n", n)
	}
}

// toolLabel names a repair's tool, clipped (a name may be megabytes long) and quoted when it
// holds characters a terminal would not show (which is what some repairs remove), or the listing.
func toolLabel(r lint.Repair) string {
	if r.ToolIndex < 0 {
		return "(listing)"
	}
	name := lint.Clip(r.Tool)
	if strings.IndexFunc(name, func(c rune) bool { return !unicode.IsGraphic(c) || unicode.Is(unicode.Cf, c) }) >= 0 {
		return strconv.QuoteToASCII(name)
	}
	return name
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
