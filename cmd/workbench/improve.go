package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

func init() {
	register(command{
		name: "improve",
		summary: "rewrite the tools that lose training tasks with a model, keep a rewrite only when held-out tasks lose nothing, " +
			"and report held-out accuracy before and after (exit 0 improved: a rewrite was kept and held-out accuracy rose, significant or not, " +
			"which the verdict and the --out line say; 1 not improved; 2 on bad input or a failed run)",
		usage: "SOURCE --tasks FILE (--endpoint NAME [--endpoints FILE] | --base-url URL --model NAME [--api-key-env NAME] | --replay RECORDING)\n" +
			"       [--rounds N] [--max-calls N] [--samples K] [--held-out SHARE] [--max-tokens N] [--out FILE] [--record FILE]\n" +
			"       [--format text|json] [--concurrency N] [--retries N] [--timeout D] [--yes]",
		run: runImprove,
	})
}

// defaultImproveCalls is the budget of an improvement loop unless --max-calls gives another.
const defaultImproveCalls = 200

type improveOptions struct {
	run       runOptions // the endpoint, tasks and model-run flags, as workbench run reads them
	rounds    int
	heldOut   float64
	maxCalls  int
	maxTokens int
	yes       bool
}

func runImprove(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["improve"], e.stderr)
	var o improveOptions
	r := &o.run
	fs.StringVar(&r.tasks, "tasks", "", "task file: a JSON array of {\"task\", \"expect\": tool name or null}; split into training and held-out tasks")
	fs.StringVar(&r.endpoint, "endpoint", "", "name of a configured endpoint (see --endpoints)")
	fs.StringVar(&r.endpoints, "endpoints", "", "endpoint configuration file (default: $WORKBENCH_ENDPOINTS)")
	fs.StringVar(&r.baseURL, "base-url", "", "an OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1 (instead of --endpoint)")
	fs.StringVar(&r.model, "model", "", "model name, with --base-url")
	fs.StringVar(&r.keyEnv, "api-key-env", "", "NAME of the environment variable holding the key, with --base-url")
	fs.StringVar(&r.replay, "replay", "", "answer from this recording (written with --record) instead of an endpoint: no key, no network")
	fs.StringVar(&r.record, "record", "", "write a recording of every exchange here (replay it with --replay)")
	fs.StringVar(&r.out, "out", "", "write the revised listing here, only when a kept rewrite raised held-out accuracy (significant or not: the report says which)")
	fs.StringVar(&r.format, "format", "text", "output: text or json")
	fs.IntVar(&r.samples, "samples", 1, "samples per task of each model run")
	fs.IntVar(&o.rounds, "rounds", drafting.DefaultRounds, fmt.Sprintf("rounds of rewrites (1 to %d)", drafting.MaxRounds))
	fs.Float64Var(&o.heldOut, "held-out", drafting.DefaultHeldOut, "share of the tasks held out to judge the rewrites (between 0 and 1)")
	fs.IntVar(&o.maxCalls, "max-calls", defaultImproveCalls, "the most model calls the loop makes; steps past it are skipped")
	fs.IntVar(&o.maxTokens, "max-tokens", 0, "the most tokens the revised listing may take (default: the listing-token-budget rule's bound)")
	fs.IntVar(&r.concurrency, "concurrency", 0, "calls in flight (default: the endpoint's, else 4)")
	fs.IntVar(&r.retries, "retries", 4, "retries of a call after 429, 5xx, timeouts and broken connections")
	fs.DurationVar(&r.timeout, "timeout", 0, "timeout of one call (default: the endpoint's, else 60s)")
	fs.BoolVar(&o.yes, "yes", false, "start without asking (on a terminal, improve shows the plan and asks before its first call)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	r.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { r.set[f.Name] = true })
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"improve takes one SOURCE (a listing file, or - for standard input)"}
	}
	r.source = pos[0]
	if err := o.check(); err != nil {
		return err
	}
	// The loop's runs are as repeatable as the endpoint allows: temperature 0, a fixed seed,
	// the default system prompt, the tools in listing order.
	r.system = runner.DefaultSystemPrompt
	r.seed = optionalInt{v: drafting.DefaultImproveSeed, set: true}
	return doImprove(ctx, e, o)
}

func (o *improveOptions) check() error {
	r := &o.run
	switch {
	case r.tasks == "":
		return usageError{"improve needs --tasks FILE"}
	case r.format != "text" && r.format != "json":
		return usageError{fmt.Sprintf("unknown format %q; use text or json", r.format)}
	case r.samples < 1 || r.samples > runner.MaxSamples:
		return usageError{fmt.Sprintf("--samples %d is out of range; give 1 to %d", r.samples, runner.MaxSamples)}
	case o.rounds < 1 || o.rounds > drafting.MaxRounds:
		return usageError{fmt.Sprintf("--rounds %d is out of range; give 1 to %d", o.rounds, drafting.MaxRounds)}
	case math.IsNaN(o.heldOut) || o.heldOut <= 0 || o.heldOut >= 1:
		return usageError{fmt.Sprintf("--held-out %v is out of range; give a share between 0 and 1, such as 0.5", o.heldOut)}
	case o.maxCalls < 1:
		return usageError{"--max-calls takes a positive number"}
	case o.maxTokens < 0:
		return usageError{"--max-tokens must not be negative"}
	case r.concurrency < 0 || r.concurrency > runner.MaxConcurrency:
		return usageError{fmt.Sprintf("--concurrency %d is out of range; give 1 to %d", r.concurrency, runner.MaxConcurrency)}
	case r.timeout < 0 || r.retries < 0:
		return usageError{"--timeout and --retries must not be negative"}
	}
	ways := 0
	for _, s := range []string{r.endpoint, r.baseURL, r.replay} {
		if s != "" {
			ways++
		}
	}
	if ways != 1 {
		return usageError{"give exactly one of --endpoint NAME, --base-url URL --model NAME, or --replay RECORDING"}
	}
	if r.baseURL != "" && r.model == "" {
		return usageError{"--base-url needs --model"}
	}
	if r.baseURL == "" && (r.model != "" || r.keyEnv != "") {
		return usageError{"--model and --api-key-env go with --base-url; a configured --endpoint names its own"}
	}
	return checkImproveFiles(r)
}

// improveFail prints why improve cannot go on and exits 2.
func improveFail(e *env, err error) error {
	fmt.Fprintf(e.stderr, "workbench improve: %s\n", termsafe.Escape(err.Error()))
	return exitError{2}
}

func doImprove(ctx context.Context, e *env, o improveOptions) error {
	l, err := loadListing(e, o.run.source)
	if err != nil {
		return improveFail(e, err)
	}
	tasks, err := loadTasks(e, o.run.tasks, false)
	if err != nil {
		return improveFail(e, fmt.Errorf("%s: %w", o.run.tasks, err))
	}
	opts := drafting.ImproveOptions{Rounds: o.rounds, Samples: o.run.samples, HeldOut: o.heldOut, MaxTokens: o.maxTokens}
	client, ep, spec, err := runClient(e, o.run)
	if err != nil {
		return improveFail(e, err)
	}
	defer closeClient(e, client)
	// A replayed recording's samples hold unless --samples says otherwise.
	spec.Endpoint, spec.Model = ep.Name, ep.Model
	opts.Spec, opts.Samples = spec, spec.Samples
	if err := improvePlan(e, o, l, tasks, opts); err != nil {
		return err
	}
	opts.Progress = func(s string) { fmt.Fprintf(e.stderr, "workbench improve: %s\n", termsafe.Escape(s)) }
	eng, err := serveEngine()
	if err != nil {
		return improveFail(e, err)
	}
	rec := improveRecorder(o)
	caller := drafting.Caller{Model: client, Budget: drafting.NewBudget(o.maxCalls), Record: rec}
	rep, runErr := drafting.Improve(ctx, caller, eng, l, tasks, opts)
	if o.run.record != "" {
		if err := writeJSONFile(o.run.record, rec.Recording(spec)); err != nil {
			return improveFail(e, fmt.Errorf("writing the recording: %w", err))
		}
	}
	if rep == nil {
		return improveFail(e, runErr)
	}
	if err := writeImproveReport(e, o, rep); err != nil {
		return err
	}
	if runErr != nil {
		return improveFail(e, runErr)
	}
	return improveOut(e, o, rep)
}

// improvePlan prints the most calls the loop makes against its budget, and refuses before any
// call when the budget cannot pay for the baseline and final runs. On a terminal it asks
// before it starts, unless --yes.
func improvePlan(e *env, o improveOptions, l *listing.Listing, tasks []selection.Task, opts drafting.ImproveOptions) error {
	plan := drafting.PlanImprove(l, tasks, opts)
	base, final := drafting.ImproveFloor(tasks, opts)
	fmt.Fprintf(e.stderr, "workbench improve: at most %d model calls (budget %d): %s\n", plan.Calls, o.maxCalls, plan.What)
	if base+final > o.maxCalls {
		fmt.Fprintf(e.stderr, "workbench improve: not started: the budget of %d calls cannot pay for the baseline run of every task (%d calls) and the final run of the held-out tasks (%d calls); give --max-calls %d or more, or fewer --samples\n",
			o.maxCalls, base, final, base+final)
		return exitError{2}
	}
	if plan.Calls > o.maxCalls {
		per := 1 + len(tasks)*opts.Samples*max(opts.K, drafting.DefaultK)
		left := o.maxCalls - base - final
		fmt.Fprintf(e.stderr, "workbench improve: the plan is over the budget: after the baseline and final runs, %d calls pay for about %d %s of a tool (%d calls each, fewer when candidates are refused before a run); the rewrites past them, and later rounds, are skipped and the report says so\n",
			left, left/per, plural(left/per, "rewrite", "rewrites"), per)
	}
	// Standard input that held the listing or the tasks cannot answer.
	if o.yes || o.run.source == "-" || o.run.tasks == "-" || !isTerminal(e.stdin) {
		return nil
	}
	fmt.Fprint(e.stderr, "workbench improve: start? [y/N] ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(e.stderr, "workbench improve: not started (answer y, or give --yes)")
		return exitError{2}
	}
	return nil
}

// isTerminal says whether r is a terminal a person can answer from: a character device other
// than the null device (which CI jobs and 'cmd < /dev/null' give as standard input).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

func writeImproveReport(e *env, o improveOptions, rep *drafting.ImproveReport) error {
	var err error
	if o.run.format == "json" {
		err = rep.WriteJSON(e.stdout)
	} else {
		err = rep.WriteText(e.stdout)
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// improveOut writes the revised listing when held-out accuracy rose, and ends with the exit
// code: 0 improved, 1 not.
func improveOut(e *env, o improveOptions, rep *drafting.ImproveReport) error {
	if !rep.Improved {
		if o.run.out != "" {
			fmt.Fprintf(e.stderr, "workbench improve: %s not written: no improvement on held-out tasks\n", o.run.out)
		}
		return exitError{1}
	}
	if o.run.out == "" {
		return nil
	}
	b := rep.Revised.Marshal("  ")
	if err := os.WriteFile(o.run.out, append(b, '\n'), 0o644); err != nil {
		return improveFail(e, fmt.Errorf("writing the revised listing: %w", err))
	}
	sig := "significant"
	if ns := rep.NotSignificant(); ns != "" {
		sig = ns
	}
	fmt.Fprintf(e.stderr, "workbench improve: wrote the revised listing to %s (%s; changed: %s)\n", o.run.out, sig, strings.Join(rep.Changed, ", "))
	return nil
}
