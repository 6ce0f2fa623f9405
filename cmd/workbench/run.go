package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

func init() {
	register(command{
		name:    "run",
		summary: "run a task file through a model endpoint and score which tools it picks (exit 1 under --min-accuracy, 2 on bad input)",
		usage: "SOURCE --tasks FILE (--endpoint NAME | --base-url URL --model NAME [--api-key-env NAME] | --replay RECORDING)\n" +
			"       [--samples K] [--temperature T] [--seed N] [--shuffle] [--concurrency N] [--format text|json]\n" +
			"       [--out RUNFILE] [--resume RUNFILE] [--compare RUNFILE] [--record FILE] [--min-accuracy X] [--damage [--max-calls N]]",
		run: runRun,
	})
}

// optionalInt is an integer flag that knows whether it was given.
type optionalInt struct {
	v   int64
	set bool
}

func (o *optionalInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

func (o *optionalInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	o.v, o.set = v, true
	return nil
}

type runOptions struct {
	source, tasks                        string
	endpoint, endpoints                  string
	baseURL, model, keyEnv               string
	samples, concurrency, retries        int
	temperature, minAccuracy             float64
	seed                                 optionalInt
	shuffle, noCache                     bool
	system, format                       string
	out, resume, compare, record, replay string
	cacheDir, estimate                   string
	timeout                              time.Duration
	set                                  map[string]bool
	damage                               bool
	maxCalls                             int
}

func runRun(ctx context.Context, e *env, args []string) error {
	c := commands["run"]
	fs := newFlags(c, e.stderr)
	var o runOptions
	fs.StringVar(&o.tasks, "tasks", "", "task file: a JSON array of {\"task\", \"expect\": tool name or null, \"args\", \"id\", \"tags\"}")
	fs.StringVar(&o.endpoint, "endpoint", "", "name of a configured endpoint (see --endpoints)")
	fs.StringVar(&o.endpoints, "endpoints", "", "endpoint configuration file (default: $WORKBENCH_ENDPOINTS)")
	fs.StringVar(&o.baseURL, "base-url", "", "an OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1 (instead of --endpoint)")
	fs.StringVar(&o.model, "model", "", "model name, with --base-url")
	fs.StringVar(&o.keyEnv, "api-key-env", "", "NAME of the environment variable holding the key, with --base-url")
	fs.IntVar(&o.samples, "samples", 1, "samples per task")
	fs.Float64Var(&o.temperature, "temperature", 0, "sampling temperature (0 to 2)")
	fs.Var(&o.seed, "seed", "seed sent with each request (sample i sends seed+i); also draws the shuffled orders")
	fs.BoolVar(&o.shuffle, "shuffle", false, "send the tools in a different order for each sample, to expose order bias")
	fs.IntVar(&o.concurrency, "concurrency", 0, "calls in flight (default: the endpoint's, else 4)")
	fs.IntVar(&o.retries, "retries", 4, "retries of a call after 429, 5xx, timeouts and broken connections")
	fs.DurationVar(&o.timeout, "timeout", 0, "timeout of one call (default: the endpoint's, else 60s)")
	fs.StringVar(&o.system, "system-prompt", runner.DefaultSystemPrompt, "system prompt sent before each task (\"\" sends none)")
	fs.StringVar(&o.format, "format", "text", "output: text or json")
	fs.StringVar(&o.out, "out", "", "write the run file here, one line per finished call (resume it with --resume)")
	fs.StringVar(&o.resume, "resume", "", "continue the run in this run file: finished calls are kept, the rest are sent")
	fs.StringVar(&o.compare, "compare", "", "compare with this baseline run file (same tasks and endpoint)")
	fs.StringVar(&o.record, "record", "", "write a recording of the run's raw exchanges here (replay it with --replay)")
	fs.StringVar(&o.replay, "replay", "", "answer from this recording instead of an endpoint: no key, no network")
	fs.Float64Var(&o.minAccuracy, "min-accuracy", 0, "exit 1 when accuracy is under this (0 to 1; no check unless given)")
	fs.BoolVar(&o.noCache, "no-cache", false, "send every request even if an identical one was answered before")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "response cache directory (default: $WORKBENCH_CACHE_DIR, else the user cache dir); off disables it")
	fs.StringVar(&o.estimate, "estimate-tokenizer", "o200k_base", "tokenizer of the offline prompt-token estimate (o200k_base, cl100k_base, a Hugging Face tokenizer.json as PATH or NAME=PATH, off)")
	fs.BoolVar(&o.damage, "damage", false, "then remove each expected tool's description in turn, run its tasks again and report how far they fall")
	fs.IntVar(&o.maxCalls, "max-calls", defaultDamageCalls, "with --damage: the most calls the damage runs send (tools past it are not tested)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"run takes one SOURCE (a listing file, or - for standard input)"}
	}
	o.source = pos[0]
	if err := o.check(); err != nil {
		return err
	}
	return doRun(ctx, e, o)
}

func (o *runOptions) check() error {
	switch {
	case o.tasks == "":
		return usageError{"run needs --tasks FILE"}
	case o.format != "text" && o.format != "json":
		return usageError{fmt.Sprintf("unknown format %q; use text or json", o.format)}
	case o.samples < 1 || o.samples > runner.MaxSamples:
		return usageError{fmt.Sprintf("--samples %d is out of range; give 1 to %d", o.samples, runner.MaxSamples)}
	case math.IsNaN(o.temperature) || o.temperature < 0 || o.temperature > 2:
		return usageError{fmt.Sprintf("--temperature %v is out of range; give 0 to 2", o.temperature)}
	case o.concurrency < 0 || o.concurrency > runner.MaxConcurrency:
		return usageError{fmt.Sprintf("--concurrency %d is out of range; give 1 to %d", o.concurrency, runner.MaxConcurrency)}
	case o.set["min-accuracy"] && (math.IsNaN(o.minAccuracy) || o.minAccuracy < 0 || o.minAccuracy > 1):
		return usageError{fmt.Sprintf("--min-accuracy %v is out of range; give 0 to 1", o.minAccuracy)}
	case o.out != "" && o.resume != "":
		return usageError{"give --out for a new run file or --resume for an existing one, not both"}
	case o.timeout < 0:
		return usageError{"--timeout must be positive"}
	case o.set["max-calls"] && (!o.damage || o.maxCalls < 1):
		return usageError{"--max-calls takes a positive number, with --damage"}
	}
	ways := 0
	for _, s := range []string{o.endpoint, o.baseURL, o.replay} {
		if s != "" {
			ways++
		}
	}
	if ways != 1 {
		return usageError{"give exactly one of --endpoint NAME, --base-url URL --model NAME, or --replay RECORDING"}
	}
	if o.baseURL != "" && o.model == "" {
		return usageError{"--base-url needs --model"}
	}
	if o.baseURL == "" && (o.model != "" || o.keyEnv != "") {
		return usageError{"--model and --api-key-env go with --base-url; a configured --endpoint names its own"}
	}
	return nil
}

// badInput prints why an input is unusable and exits 2.
func badInput(e *env, err error) error {
	fmt.Fprintf(e.stderr, "workbench run: %s\n", err)
	return exitError{2}
}

func doRun(ctx context.Context, e *env, o runOptions) error {
	l, err := loadListing(e, o.source)
	if err != nil {
		return badInput(e, err)
	}
	tasks, err := loadTasks(e, o.tasks, false)
	if err != nil {
		return badInput(e, fmt.Errorf("%s: %w", o.tasks, err))
	}
	client, ep, spec, err := runClient(e, o)
	if err != nil {
		return badInput(e, err)
	}
	defer closeClient(e, client)
	var baseline *runner.Run
	if o.compare != "" {
		rf, err := runner.OpenRunFile(o.compare)
		if err != nil {
			return badInput(e, err)
		}
		baseline = rf.Run
	}
	opts := runner.Options{Spec: spec, NoCache: o.noCache, Estimate: estimator(o.estimate)}
	file := &runFile{}
	defer file.close(e)
	if err := file.open(e, o, &opts, func() runner.Header { return resumeHeader(l, tasks, spec, ep) }); err != nil {
		return badInput(e, err)
	}
	total := len(tasks) * spec.Samples
	opts.Progress = logProgress(e, total)
	e.log.Info("run", "endpoint", ep.Name, "model", ep.Model, "tasks", len(tasks), "samples", spec.Samples, "calls", total, "concurrency", client.Concurrency())
	res, runErr := runner.Execute(ctx, client, l, tasks, opts)
	if res == nil {
		return badInput(e, runErr)
	}
	if runErr != nil {
		return stopped(e, o, len(res.Calls), total, runErr)
	}
	if o.record != "" {
		if err := writeJSONFile(o.record, runner.NewRecording(res)); err != nil {
			return fmt.Errorf("writing the recording: %w", err)
		}
	}
	var dmg *modelDamageReport
	if o.damage {
		if dmg, err = runDamage(ctx, client, l, tasks, res, spec, o.maxCalls); err != nil {
			return fmt.Errorf("run --damage: %w", err)
		}
	}
	return runReport(e, o, res, baseline, dmg)
}

// closeClient writes the endpoint's recording ("record" in the endpoints file), saying so on
// stderr when it cannot.
func closeClient(e *env, c *runner.Client) {
	if err := c.Close(); err != nil {
		fmt.Fprintf(e.stderr, "workbench: %s\n", termsafe.Escape(err.Error()))
	}
}

// runClient makes the client of the endpoint the flags name (a configured one, --base-url, or
// a recording to replay) and the spec the run is made with.
func runClient(e *env, o runOptions) (*runner.Client, runner.Endpoint, runner.Spec, error) {
	copts := runner.ClientOptions{Getenv: e.getenv, Concurrency: o.concurrency, Timeout: o.timeout, Retries: o.retries}
	if o.retries == 0 {
		copts.Retries = -1
	}
	spec := runner.Spec{Samples: o.samples, Temperature: o.temperature, SystemPrompt: o.system, Shuffle: o.shuffle}
	if o.seed.set {
		spec.Seed = &o.seed.v
	}
	var ep runner.Endpoint
	switch {
	case o.replay != "":
		rec, err := runner.OpenRecording(o.replay)
		if err != nil {
			return nil, ep, spec, err
		}
		// The recorded endpoint's name and model, so the replayed run compares with the original.
		ep = runner.Endpoint{Name: rec.Spec.Endpoint, Replay: o.replay, Model: rec.Spec.Model}
		if ep.Validate() != nil {
			ep.Name = "replay"
		}
		copts.Recording = rec
	case o.baseURL != "":
		ep = runner.Endpoint{Name: "cli", BaseURL: o.baseURL, Model: o.model, APIKeyEnv: o.keyEnv}
	default:
		eps, err := loadEndpoints(e, o.endpoints)
		if err != nil {
			return nil, ep, spec, err
		}
		if ep, err = runner.Find(eps, o.endpoint); err != nil {
			return nil, ep, spec, err
		}
	}
	if o.replay == "" {
		if cache, where := openCache(e, o.cacheDir); cache != nil {
			copts.Cache = cache
			e.log.Debug("response cache", "dir", where)
		}
	}
	client, err := runner.NewClient(ep, copts)
	if err != nil {
		return nil, ep, spec, err
	}
	if rec := client.Recording(); rec != nil && rec.Spec.Recorded() {
		// The recording's settings made its requests; flags given override them.
		for name, apply := range map[string]func(){
			"samples": func() { spec.Samples = rec.Spec.Samples }, "temperature": func() { spec.Temperature = rec.Spec.Temperature },
			"seed": func() { spec.Seed = rec.Spec.Seed }, "system-prompt": func() { spec.SystemPrompt = rec.Spec.SystemPrompt },
			"shuffle": func() { spec.Shuffle = rec.Spec.Shuffle },
		} {
			if !o.set[name] {
				apply()
			}
		}
	}
	return client, ep, spec, nil
}

// runFile is the run file a run writes its calls to (--out), or appends them to (--resume).
type runFile struct{ w *runner.RunWriter }

// open sets opts to resume the run of --resume, whose calls must belong to the run cur
// describes, and to write the calls to its file; or to write them to a new --out file as the
// run starts.
func (f *runFile) open(e *env, o runOptions, opts *runner.Options, cur func() runner.Header) error {
	switch {
	case o.resume != "":
		rf, err := runner.OpenRunFile(o.resume)
		if err != nil {
			return err
		}
		if err := runner.Resumable(rf.Run.Header, cur()); err != nil {
			return err
		}
		if f.w, err = runner.AppendRunFile(o.resume, rf.Size); err != nil {
			return err
		}
		opts.Resume = rf.Run
		opts.Sink = f.w.Write
		e.log.Info("resuming", "runfile", o.resume, "finished", len(rf.Run.Calls), "tornLine", rf.Torn)
	case o.out != "":
		opts.Start = func(h runner.Header) (err error) {
			f.w, err = runner.CreateRunFile(o.out, h)
			return err
		}
		opts.Sink = func(c runner.Call) error { return f.w.Write(c) }
	}
	return nil
}

// close closes the run file, if one was opened.
func (f *runFile) close(e *env) {
	if f.w != nil {
		if err := f.w.Close(); err != nil {
			e.log.Error("closing the run file", "err", err)
		}
	}
}

// logProgress logs every failed call, and the progress at each tenth of the total calls.
func logProgress(e *env, total int) func(runner.Progress) {
	step := max(total/10, 1)
	return func(p runner.Progress) {
		if p.Call != nil && p.Call.Outcome == runner.OutError {
			e.log.Warn("call failed", "task", p.Call.Task+1, "sample", p.Call.Sample, "err", p.Call.Error)
		}
		if p.Done%step == 0 || p.Done == p.Total {
			e.log.Info("progress", "done", p.Done, "total", p.Total, "errors", p.Errors, "cached", p.Cached)
		}
	}
}

// stopped says how far a run that stopped early got and how to finish it; it exits 130 when
// interrupted, 1 otherwise.
func stopped(e *env, o runOptions, done, total int, runErr error) error {
	where := "give --out FILE next time to keep finished calls"
	if o.out != "" || o.resume != "" {
		where = "resume with --resume " + firstNonEmpty(o.out, o.resume)
	}
	fmt.Fprintf(e.stderr, "workbench run: stopped after %d of %d calls (%v); %s\n", done, total, runErr, where)
	if !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
		return exitError{1}
	}
	return exitError{130}
}

// runReport writes the score of a finished run (and its comparison with baseline) in the
// format asked, and exits 1 when the run measured nothing or is under --min-accuracy.
func runReport(e *env, o runOptions, res, baseline *runner.Run, dmg *modelDamageReport) error {
	score := runner.ScoreRun(res)
	var cmp *runner.Comparison
	if baseline != nil {
		var err error
		if cmp, err = runner.Compare(baseline, res); err != nil {
			return badInput(e, fmt.Errorf("--compare %s: %w", o.compare, err))
		}
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	var err error
	if o.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			*runner.Score
			Comparison *runner.Comparison `json:"comparison,omitempty"`
			Damage     *modelDamageReport `json:"damage,omitempty"`
		}{score, cmp, dmg})
	} else {
		writeRunText(out, score, cmp, o.compare)
		writeRunDamageText(out, dmg)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if score.Scored == 0 {
		fmt.Fprintf(e.stderr, "workbench run: no call got an answer (%d failed); the run measured nothing\n", score.Errors)
		return exitError{1}
	}
	if o.set["min-accuracy"] && score.Accuracy < o.minAccuracy {
		fmt.Fprintf(e.stderr, "workbench run: accuracy %.3f is under --min-accuracy %g\n", score.Accuracy, o.minAccuracy)
		return exitError{1}
	}
	return nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// resumeHeader is the header a run with these inputs would have, to check a run file against
// before opening it for writing.
func resumeHeader(l *listing.Listing, tasks []selection.Task, spec runner.Spec, ep runner.Endpoint) runner.Header {
	spec.Endpoint, spec.Model = ep.Name, ep.Model
	return runner.NewHeader(l, tasks, spec)
}

// loadEndpoints reads the endpoint configuration named by --endpoints or $WORKBENCH_ENDPOINTS.
func loadEndpoints(e *env, path string) ([]runner.Endpoint, error) {
	if path == "" {
		path = e.getenv("WORKBENCH_ENDPOINTS")
	}
	if path == "" {
		return nil, errors.New("--endpoint needs a configuration: give --endpoints FILE or set WORKBENCH_ENDPOINTS to its path, or use --base-url and --model")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the endpoint configuration: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, runner.MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the endpoint configuration: %w", err)
	}
	eps, err := runner.ParseEndpoints(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return eps, nil
}

// openCache opens the response cache: --cache-dir, else $WORKBENCH_CACHE_DIR, else the user's
// cache directory (read from the environment handed in, so tests never touch the real one).
func openCache(e *env, flagDir string) (runner.Cache, string) {
	dir := flagDir
	if dir == "" {
		dir = e.getenv("WORKBENCH_CACHE_DIR")
	}
	if dir == "" {
		if x := e.getenv("XDG_CACHE_HOME"); x != "" {
			dir = filepath.Join(x, "tool-workbench", "responses")
		} else if h := e.getenv("HOME"); h != "" {
			dir = filepath.Join(h, ".cache", "tool-workbench", "responses")
		}
	}
	if dir == "" || dir == "off" {
		return nil, ""
	}
	c, err := runner.NewDirCache(dir)
	if err != nil {
		e.log.Warn("response cache unavailable; every request will be sent", "err", err)
		return nil, ""
	}
	return c, dir
}

// estimator measures the tools as OpenAI's chat API renders them, offline, for comparison with
// the prompt tokens the endpoint reports.
func estimator(tokenizer string) func(*listing.Listing) (int, string, error) {
	if tokenizer == "" || tokenizer == "off" {
		return nil
	}
	return func(l *listing.Listing) (int, string, error) {
		tok, err := cost.OpenTokenizer(tokenizer)
		if err != nil {
			return 0, "", err
		}
		c, err := cost.NewCounter(tok, "openai", cost.Options{})
		if err != nil {
			return 0, "", err
		}
		rep := c.Listing(l)
		return rep.Total.Tokens, tok.Name() + ", openai rendering", nil
	}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// writeRunText prints the report for a person. Task texts and tool names come from files and
// from the model: they are printed quoted, so no control character reaches the terminal.
func writeRunText(w io.Writer, s *runner.Score, cmp *runner.Comparison, baseline string) {
	order := "as listed"
	if s.Spec.Shuffle {
		order = "shuffled per sample"
	}
	seed := "none"
	if s.Spec.Seed != nil {
		seed = strconv.FormatInt(*s.Spec.Seed, 10)
	}
	fmt.Fprintf(w, "run: %d tasks × %d samples on %s (model %q), temperature %g, seed %s, tools %s\n",
		s.Tasks, s.Spec.Samples, s.Spec.Endpoint, s.Spec.Model, s.Spec.Temperature, seed, order)
	fmt.Fprintf(w, "accuracy: %s\n", stats.FormatRate(s.Correct, s.Scored, s.Interval))
	writeRejected(w, s)
	fmt.Fprintf(w, "tasks that expect no tool: %s\n", s.NoTool)
	fmt.Fprintf(w, "arguments: %d calls; JSON objects %s; valid against the schema %s; hold the expected args %s\n",
		s.Args.Calls, s.Args.JSON, s.Args.Valid, s.Args.Matched)
	fmt.Fprintf(w, "consistency: %s (%d of %d tasks unanimous)\n", stats.FormatProportion(s.Consistency), s.Unanimous, s.Tasks)
	if s.Tokens.Calls > 0 {
		fmt.Fprintf(w, "prompt tokens (endpoint): mean %.0f, min %d, max %d per call", s.Tokens.PromptMean, s.Tokens.PromptMin, s.Tokens.PromptMax)
		if s.Tokens.Estimated != nil {
			fmt.Fprintf(w, "; offline estimate of the tools: %d (%s)", *s.Tokens.Estimated, s.Tokens.EstimateFrom)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "calls: %d answered, %d failed, %d from the cache, %d not made\n", s.Scored, s.Errors, s.Cached, s.Missing)
	if len(s.ByPosition) > 0 && s.Spec.Shuffle {
		fmt.Fprintf(w, "calls by position of the chosen tool in the order sent: %v\n", s.ByPosition)
	}
	writeOrderBiasText(w, s)
	fmt.Fprintln(w, "\nper tool:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  tool\texpected\tchosen\tright\tprecision\trecall\t")
	for _, t := range s.PerTool {
		name := strconv.Quote(t.Name)
		if !t.Known {
			name += " (not in the listing)"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\t%s\t\n", name, t.Expected, t.Chosen, t.Correct, stats.FormatOptional(t.Precision), stats.FormatOptional(t.Recall))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nconfusion (rows: expected, columns: chosen):")
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for i := range s.Confusion.Labels {
		fmt.Fprintf(tw, "%d\t", i+1)
	}
	fmt.Fprintln(tw, "\t")
	for i, row := range s.Confusion.Counts {
		fmt.Fprintf(tw, "%d\t", i+1)
		for _, n := range row {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintf(tw, " %s\t\n", strconv.Quote(s.Confusion.Labels[i]))
	}
	tw.Flush()
	fmt.Fprintln(w, "\ntasks:")
	for _, t := range s.PerTask {
		verdict := "PASS"
		switch {
		case t.Scored == 0:
			verdict = "ERR "
		case t.Correct < t.Scored && t.Correct*2 > t.Scored:
			verdict = "WARN"
		case t.Correct*2 <= t.Scored:
			verdict = "FAIL"
		}
		label := strconv.Itoa(t.Index + 1)
		if t.ID != "" {
			label += " " + strconv.Quote(t.ID)
		}
		fmt.Fprintf(w, "  %s %s %s: expect %s, chose %s (%d/%d right%s)\n", verdict, label, strconv.Quote(shorten(t.Task, 60)),
			expectText(t), quoteAll(t.Choices), t.Correct, t.Scored, rejectedText(t))
	}
	if cmp == nil {
		return
	}
	fmt.Fprintf(w, "\ncompared with %s:\n", baseline)
	for _, n := range cmp.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "  accuracy %s → %s, difference %+.3f (paired 95%% CI %s), exact McNemar p = %.4g (%d pairs, %d fixed, %d broken)\n",
		stats.FormatProportion(cmp.BaselineAccuracy), stats.FormatProportion(cmp.CurrentAccuracy), cmp.Difference,
		stats.FormatDifference(cmp.Interval, cmp.Pairs.N()), cmp.McNemarP, cmp.Pairs.N(), cmp.Pairs.CurrentOnly, cmp.Pairs.BaseOnly)
	for _, f := range cmp.Flipped {
		way := "broke"
		if f.Fixed {
			way = "fixed"
		}
		fmt.Fprintf(w, "  %s %d %s: expect %s, was %s, now %s\n", way, f.Index+1, strconv.Quote(shorten(f.Task, 60)),
			strconv.Quote(f.Expected), strconv.Quote(f.Before), strconv.Quote(f.After))
	}
	for _, p := range cmp.Persuasive {
		fmt.Fprintf(w, "  persuasive? %s takes %s of calls (was %s) with precision %s (was %s): it draws more calls without being right more often\n",
			strconv.Quote(p.Tool), stats.FormatProportion(p.ShareAfter), stats.FormatProportion(p.ShareBefore),
			stats.FormatOptional(p.PrecisionAfter), stats.FormatOptional(p.PrecisionBefore))
	}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		if s == "" {
			s = "(not run)"
		}
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
