// Package analysis is the one engine that turns a listing and a task file into what the
// workbench shows: lint findings, prompt cost and the ranker's verdicts. The browser, the CLI
// and the API all call it; they differ only in how they present the Result.
//
// It is built for the edit loop. Listings share unedited tool values between revisions
// (listing.Apply copies only the edited path), so the engine remembers each tool value it has
// seen; a tool it knows by pointer costs nothing, one it knows by content hash (listing.HashOf)
// costs a hash, and only a new tool is linted and counted again. The listing-wide work is
// incremental too: the reference's near-duplicate check keeps the shared-word counts of every
// pair of a listing of up to 512 tools and counts again only the pairs of edited tools (a larger
// listing is searched anew, in linear time, see reference.FindNearDuplicates), its name checks
// are remembered by the names, and the ranker (selection.Cache) judges again only the tasks that
// share a word an edit added or removed. Each of these returns exactly what the full computation
// would. Every cache is bounded by entries and by bytes (Options.CacheBytes), and AnalyzeContext
// stops when its context is done.
//
// Engine.Check is `workbench check` and POST /api/v1/check: the same AnalyzeContext call, with
// merge collisions, ignores and a baseline, as a Report in the formats of report.go (text, JSON,
// SARIF 2.1.0, GitHub workflow commands, Markdown).
//
// Engine.Repairs and Engine.Fix (fix.go) are `workbench fix`, POST /api/v1/fix and the page's
// Fix buttons: the repairs package lint offers for the findings Check reports, applied in
// rounds that never let a finding appear that was not there.
package analysis

import (
	"context"
	"fmt"
	"weak"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/words"
)

// Severities of findings.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// Finding is one problem a rule found. Its fields match lint.Finding, so the extended rule set
// plugs in by conversion.
type Finding struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	Tool      string `json:"tool,omitempty"`
	ToolIndex int    `json:"toolIndex"` // -1 for the listing as a whole
	// Pointer is a JSON pointer into the tools/list result (/tools/3/description).
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Linter is the seam for a rule set. Tool must be a pure function of the tool's JSON (the engine
// caches it by content) and returns pointers relative to the tool ("/description"); Listing
// returns the findings that need the whole listing, with absolute pointers.
type Linter interface {
	Tool(t *listing.Value) []Finding
	Listing(l *listing.Listing) []Finding
}

// ToolResult is everything the engine knows about one tool.
type ToolResult struct {
	Index    int
	Name     string
	Findings []Finding // absolute pointers, in rule order
	Errors   int
	Warnings int
	Infos    int
	Cost     cost.ToolCost
	// DescWords counts the description's words as the reference counts them; DescTokens its
	// tokens with the engine's tokenizer.
	DescWords  int
	DescTokens int
	// nRef counts the Findings, at the front, that are the reference's: Check tells them
	// from the extended rules' findings by it.
	nRef int
}

// Result is the analysis of one listing revision with one task file.
type Result struct {
	Tools    []ToolResult
	Listing  []Finding // listing-wide findings
	Errors   int
	Warnings int
	Infos    int
	Cost     cost.Report
	Verdicts []selection.Verdict
	// Damage is the damage test of the tools the tasks expect (AnalyzeKeyed only; nil without
	// tasks).
	Damage []selection.ToolDamage
	// Clear, Ambiguous and Wrong count the verdicts (Wrong includes missing and no-words; the
	// "no tool" tasks count as clear when no tool scores and ambiguous otherwise).
	Clear, Ambiguous, Wrong int

	// nRefListing counts the Listing findings, at the front, that are the reference's; ext
	// holds the extended rules' findings as package lint gives them (with line and column),
	// for Check's report.
	nRefListing int
	ext         []lint.Finding
}

// Options configure an Engine. The zero value counts o200k_base tokens on compact JSON and
// measures shares of a 128k-token context window.
type Options struct {
	Tokenizer string
	Render    string
	Context   int
	Linter    Linter // nil: the reference checker's rules (ReferenceLinter)
	// Extended, when set, adds the extended rule set (package lint), which caches per tool
	// itself; its findings are merged into the same per-tool and listing-wide lists.
	Extended *lint.Linter
	// PlainVerdicts leaves out of the verdicts the words that scored for each tool: check's
	// reports do not show them.
	PlainVerdicts bool
	// NoCost skips the token counts of tools and descriptions (Result.Cost and DescTokens stay
	// zero): check's reports do not show them, and counting is most of a large listing's work.
	NoCost bool
	// CacheSize bounds the per-tool caches (default 8192 tools).
	CacheSize int
	// CacheBytes bounds the bytes of the engine's caches together: its per-tool facts, the
	// cost counter's and the ranker's caches (default lru.DefaultBytes, 64 MiB). The
	// near-duplicate and name-check states have a bound of their own (16 MiB each), and
	// Extended linter caches against its own Config.Cache.
	CacheBytes int64
	// Tok, when set, is the tokenizer itself, which the caller opened (a Hugging Face
	// tokenizer.json's, or one of a server's cost.Tokenizers); Tokenizer is then unused.
	Tok cost.Tokenizer
}

// Engine computes Results, caching per-tool work. It is safe for concurrent use; one Engine can
// serve every workspace of a server.
type Engine struct {
	counter *cost.Counter
	tok     cost.Tokenizer
	linter  Linter
	ext     *lint.Linter
	context int
	explain bool
	noCost  bool

	ranks     *selection.Cache
	nearDups  nearDups
	nameLines nameLines
	maps      mapCaches // each workspace's overlap and damage caches (maps.go)

	budget *lru.Budget
	// byPtr knows the content hash of tools by identity (weakly: it keeps no listing alive),
	// byHash their facts by content.
	byPtr  *lru.Cache[weak.Pointer[listing.Value], listing.Hash]
	byHash *lru.Cache[listing.Hash, *toolFacts]
}

// toolFacts is what a tool's content alone decides.
type toolFacts struct {
	findings   []Finding // pointers relative to the tool
	cost       cost.ToolCost
	descWords  int
	descTokens int
	// content is reference.DescriptionWords of the tool, for the listing-wide near-duplicate
	// check.
	content []string
	bytes   int64 // what the facts keep reachable, estimated
}

// size estimates the bytes f keeps reachable. The content words are slices of the description
// or copies of its words, so the description's length bounds them, and each has a header.
func (f *toolFacts) size(desc int) int64 {
	n := int64(desc + 16*len(f.content) + 64*len(f.cost.Parts) + len(f.cost.Name) + 160)
	for _, fd := range f.findings {
		n += int64(len(fd.Rule) + len(fd.Tool) + len(fd.Pointer) + len(fd.Message) + 96)
	}
	return n
}

// wordsLinter is a Linter whose listing-wide rules read only the names and each description's
// content words, which the engine then passes from its per-tool cache.
type wordsLinter interface {
	listingWords(ctx context.Context, l *listing.Listing, names []string, descs [][]string, parts referenceParts) ([]Finding, error)
}

// New returns an Engine.
func New(opts Options) (*Engine, error) {
	if opts.Tok != nil {
		return newEngine(opts.Tok, opts)
	}
	if opts.Tokenizer == "" {
		opts.Tokenizer = "o200k_base"
	}
	tok, err := cost.NewTokenizer(opts.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("analysis: tokenizer: %w", err)
	}
	return newEngine(tok, opts)
}

// newEngine is New with a tokenizer the caller opened (a tokenizer.json's too).
func newEngine(tok cost.Tokenizer, opts Options) (*Engine, error) {
	if opts.Render == "" {
		opts.Render = "compact"
	}
	if opts.Context == 0 {
		opts.Context = 128000
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 8192
	}
	budget := lru.NewBudget(opts.CacheBytes)
	counter, err := cost.NewCounter(tok, opts.Render, cost.Options{CacheSize: opts.CacheSize, Cache: budget})
	if err != nil {
		return nil, fmt.Errorf("analysis: cost counter: %w", err)
	}
	lin := opts.Linter
	if lin == nil {
		lin = ReferenceLinter{}
	}
	return &Engine{counter: counter, tok: tok, linter: lin, ext: opts.Extended, context: opts.Context,
		explain: !opts.PlainVerdicts, noCost: opts.NoCost,
		ranks: selection.NewCacheBudget(opts.CacheSize, budget), budget: budget,
		byPtr:  lru.New[weak.Pointer[listing.Value], listing.Hash](budget, opts.CacheSize),
		byHash: lru.New[listing.Hash, *toolFacts](budget, opts.CacheSize)}, nil
}

// CacheBytes returns the bytes the engine's caches are accounted at: those that share its
// budget (CacheBytes) and the near-duplicate and name-check states.
func (e *Engine) CacheBytes() int64 {
	return e.budget.Used() + e.nearDups.stateBytes() + e.nameLines.size()
}

// Context is the context window, in tokens, that cost shares refer to.
func (e *Engine) Context() int { return e.context }

// facts returns the cached facts of every tool of l, computing those of new tools. The caches
// are bounded by entries and bytes; the pointer cache's keys are weak, so it keeps no listing
// alive.
func (e *Engine) facts(ctx context.Context, l *listing.Listing) ([]*toolFacts, error) {
	out := make([]*toolFacts, len(l.Tools))
	for i, t := range l.Tools {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("analysis: %w", err)
			}
		}
		// A tool known by identity costs a lookup, one known by content a hash, and only a
		// new one is computed. The pointer cache holds hashes, not facts, so that the facts
		// are kept (and accounted) once, under their hash.
		wp := weak.Make(t)
		h, ok := e.byPtr.Get(wp)
		if !ok {
			h = listing.HashOf(t)
			e.byPtr.Add(wp, h, 64)
		}
		f, ok := e.byHash.Get(h)
		if !ok {
			f = e.compute(t)
			e.byHash.Add(h, f, f.bytes)
		}
		out[i] = f
	}
	return out, nil
}

func (e *Engine) compute(t *listing.Value) *toolFacts {
	f := &toolFacts{findings: e.linter.Tool(t)}
	if !e.noCost {
		f.cost = e.counter.Tool(t)
	}
	if _, ok := e.linter.(wordsLinter); ok {
		f.content = reference.DescriptionWords(t)
	}
	desc := 0
	if d := t.Get("description"); d.IsString() {
		words.Each(d.Str, func(string) { f.descWords++ }) // a count: the words need not be kept
		if !e.noCost {
			f.descTokens = e.tok.Count(d.Str)
		}
		desc = len(d.Str)
	}
	f.bytes = f.size(desc)
	return f
}

// Analyze lints, counts and ranks l against tasks.
func (e *Engine) Analyze(l *listing.Listing, tasks []selection.Task) *Result {
	r, _ := e.AnalyzeContext(context.Background(), l, tasks)
	return r
}

// AnalyzeContext is Analyze that stops when ctx is done (between tools, rules and tasks, and in
// the near-duplicate search) and then returns ctx's error, wrapped.
func (e *Engine) AnalyzeContext(ctx context.Context, l *listing.Listing, tasks []selection.Task) (*Result, error) {
	// The ranking reads every tool's words and is the largest single part of the work: it runs
	// beside the lint and cost work, which share nothing with it.
	type ranked struct {
		vs  []selection.Verdict
		err error
	}
	var verdicts chan ranked
	if len(tasks) > 0 {
		verdicts = make(chan ranked, 1)
		go func() {
			vs, err := e.ranks.Rank(ctx, l, tasks, e.explain)
			verdicts <- ranked{vs, err}
		}()
	}
	// The extended rules share nothing with the reference's either: on a new listing they
	// compile every schema, while the reference's facts keep one core busy.
	type linted struct {
		fs  []lint.Finding
		err error
	}
	var extended chan linted
	if e.ext != nil {
		extended = make(chan linted, 1)
		go func() {
			fs, err := e.ext.LintContext(ctx, l)
			extended <- linted{fs, err}
		}()
	}
	wait := func(err error) (*Result, error) {
		if verdicts != nil {
			<-verdicts // the ranking sees the same context and stops soon
		}
		if extended != nil {
			<-extended // so do the extended rules
		}
		return nil, err
	}
	facts, err := e.facts(ctx, l)
	if err != nil {
		return wait(err)
	}
	r := &Result{}
	names := l.Names()
	r.addTools(facts, names)
	if wl, ok := e.linter.(wordsLinter); ok {
		descs := make([][]string, len(facts))
		for i, f := range facts {
			descs[i] = f.content
		}
		if r.Listing, err = wl.listingWords(ctx, l, names, descs, referenceParts{e.nameLines.lines, e.nearDups.line}); err != nil {
			return wait(fmt.Errorf("analysis: %w", err))
		}
	} else {
		r.Listing = e.linter.Listing(l)
	}
	r.nRefListing = len(r.Listing)
	if extended != nil {
		x := <-extended
		extended = nil
		if x.err != nil {
			return wait(fmt.Errorf("analysis: %w", x.err))
		}
		r.addExtended(x.fs)
	}
	// The per-tool findings are tallied above; the listing-wide ones, of both rule sets, once
	// here.
	for _, fd := range r.Listing {
		tally(fd.Severity, &r.Errors, &r.Warnings, &r.Infos)
	}
	if !e.noCost {
		r.Cost = e.costReport(l, facts)
		// The report charges each tool with the tokens that form at its boundaries, so that
		// the tools add up to the total: the tool rows show the same figures.
		for i := range r.Tools {
			c := r.Cost.Tools[i]
			c.Index, c.Name = r.Tools[i].Cost.Index, r.Tools[i].Cost.Name
			r.Tools[i].Cost = c
		}
	}
	if verdicts != nil {
		rv := <-verdicts
		if rv.err != nil {
			return nil, fmt.Errorf("analysis: %w", rv.err)
		}
		r.setVerdicts(rv.vs)
	}
	return r, nil
}

// addTools fills in r.Tools from each tool's facts: findings with absolute pointers, counts,
// cost.
func (r *Result) addTools(facts []*toolFacts, names []string) {
	r.Tools = make([]ToolResult, len(facts))
	for i, f := range facts {
		tr := ToolResult{Index: i, Name: names[i], Cost: f.cost, DescWords: f.descWords, DescTokens: f.descTokens,
			nRef: len(f.findings)}
		tr.Cost.Index, tr.Cost.Name = i, names[i]
		if len(f.findings) > 0 {
			base := fmt.Sprintf("/tools/%d", i)
			tr.Findings = make([]Finding, len(f.findings))
			for j, fd := range f.findings {
				fd.Pointer = base + fd.Pointer
				fd.ToolIndex, fd.Tool = i, names[i]
				tr.Findings[j] = fd
				tally(fd.Severity, &tr.Errors, &tr.Warnings, &tr.Infos)
			}
		}
		r.Errors += tr.Errors
		r.Warnings += tr.Warnings
		r.Infos += tr.Infos
		r.Tools[i] = tr
	}
}

// addExtended merges the extended rules' findings into the tools' and the listing-wide lists.
// It counts the per-tool ones in the result's totals; the listing-wide ones are counted with
// the rest of r.Listing, once.
func (r *Result) addExtended(ext []lint.Finding) {
	r.ext = ext
	for _, lf := range ext {
		fd := Finding{Rule: lf.Rule, Severity: string(lf.Severity), Tool: lf.Tool, ToolIndex: lf.ToolIndex,
			Pointer: lf.Pointer, Message: lf.Message}
		if fd.ToolIndex >= 0 && fd.ToolIndex < len(r.Tools) {
			tr := &r.Tools[fd.ToolIndex]
			tr.Findings = append(tr.Findings, fd)
			tally(fd.Severity, &tr.Errors, &tr.Warnings, &tr.Infos)
			tally(fd.Severity, &r.Errors, &r.Warnings, &r.Infos)
		} else {
			fd.ToolIndex = -1
			r.Listing = append(r.Listing, fd)
		}
	}
}

// setVerdicts keeps the ranker's verdicts and counts them.
func (r *Result) setVerdicts(vs []selection.Verdict) {
	r.Verdicts = vs
	for _, v := range vs {
		switch v.Status {
		case selection.Clear, selection.NoneClear:
			r.Clear++
		case selection.Close, selection.NoneRisk:
			r.Ambiguous++
		default:
			r.Wrong++
		}
	}
}

// costReport is the listing's cost, from the tools' costs in facts and the rendering's frame.
func (e *Engine) costReport(l *listing.Listing, facts []*toolFacts) cost.Report {
	// The facts hold each tool's cost already: a listing larger than the caches would
	// otherwise be measured twice.
	tools := make([]cost.ToolCost, len(facts))
	for i, f := range facts {
		tools[i] = f.cost
	}
	rep := e.counter.ReportOf(l, tools)
	rep.SetContext(e.context)
	return rep
}

func tally(sev string, errs, warns, infos *int) {
	switch sev {
	case Error:
		*errs++
	case Warning:
		*warns++
	default:
		*infos++
	}
}

// AllFindings returns every finding, listing-wide ones first, then by tool.
func (r *Result) AllFindings() []Finding {
	out := append([]Finding(nil), r.Listing...)
	for _, t := range r.Tools {
		out = append(out, t.Findings...)
	}
	return out
}
