// Package analysis is the one engine that turns a listing and a task file into what the
// workbench shows: lint findings, prompt cost and the ranker's verdicts. The browser, the CLI
// and the API all call it; they differ only in how they present the Result.
//
// It is built for the edit loop. Listings share unedited tool values between revisions
// (listing.Apply copies only the edited path), so the engine remembers each tool value it has
// seen; a tool it knows by pointer costs nothing, one it knows by content hash (listing.HashOf)
// costs a hash, and only a new tool is linted and counted again. The listing-wide work is
// incremental too: the reference's near-duplicate check keeps the shared-word counts of every
// pair and counts again only the pairs of edited tools, its name checks are remembered by the
// names, and the ranker (selection.Cache) judges again only the tasks that share a word an edit
// added or removed. Each of these returns exactly what the full computation would.
package analysis

import (
	"fmt"
	"sync"

	"github.com/tool-workbench/workbench/cost"
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
	// Clear, Ambiguous and Wrong count the verdicts (Wrong includes missing and no-words; the
	// "no tool" tasks count as clear when no tool scores and ambiguous otherwise).
	Clear, Ambiguous, Wrong int
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
	// CacheSize bounds the per-tool caches (default 8192 tools).
	CacheSize int
}

// Engine computes Results, caching per-tool work. It is safe for concurrent use; one Engine can
// serve every workspace of a server.
type Engine struct {
	counter *cost.Counter
	tok     cost.Tokenizer
	linter  Linter
	ext     *lint.Linter
	context int
	limit   int

	ranks     *selection.Cache
	nearDups  nearDups
	nameLines nameLines

	mu     sync.Mutex
	byPtr  map[*listing.Value]*toolFacts
	byHash map[listing.Hash]*toolFacts
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
}

// wordsLinter is a Linter whose listing-wide rules read only the names and each description's
// content words, which the engine then passes from its per-tool cache.
type wordsLinter interface {
	listingWords(l *listing.Listing, names []string, descs [][]string, parts referenceParts) []Finding
}

// New returns an Engine.
func New(opts Options) (*Engine, error) {
	if opts.Tokenizer == "" {
		opts.Tokenizer = "o200k_base"
	}
	if opts.Render == "" {
		opts.Render = "compact"
	}
	if opts.Context == 0 {
		opts.Context = 128000
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 8192
	}
	tok, err := cost.NewTokenizer(opts.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("analysis: tokenizer: %w", err)
	}
	counter, err := cost.NewCounter(tok, opts.Render, cost.Options{CacheSize: opts.CacheSize})
	if err != nil {
		return nil, fmt.Errorf("analysis: cost counter: %w", err)
	}
	lin := opts.Linter
	if lin == nil {
		lin = ReferenceLinter{}
	}
	return &Engine{counter: counter, tok: tok, linter: lin, ext: opts.Extended, context: opts.Context, limit: opts.CacheSize,
		ranks: selection.NewCache(opts.CacheSize),
		byPtr: map[*listing.Value]*toolFacts{}, byHash: map[listing.Hash]*toolFacts{}}, nil
}

// Context is the context window, in tokens, that cost shares refer to.
func (e *Engine) Context() int { return e.context }

// facts returns the cached facts of every tool of l, computing those of new tools. It keeps the
// pointer cache to the tools of the latest listings so that it does not grow without bound.
func (e *Engine) facts(l *listing.Listing) []*toolFacts {
	out := make([]*toolFacts, len(l.Tools))
	var missing []int
	e.mu.Lock()
	for i, t := range l.Tools {
		if f, ok := e.byPtr[t]; ok {
			out[i] = f
		} else {
			missing = append(missing, i)
		}
	}
	e.mu.Unlock()
	for _, i := range missing {
		t := l.Tools[i]
		h := listing.HashOf(t)
		e.mu.Lock()
		f, ok := e.byHash[h]
		e.mu.Unlock()
		if !ok {
			f = e.compute(t)
			e.mu.Lock()
			if len(e.byHash) >= e.limit {
				clear(e.byHash)
			}
			e.byHash[h] = f
			e.mu.Unlock()
		}
		out[i] = f
		e.mu.Lock()
		if len(e.byPtr) >= e.limit {
			clear(e.byPtr)
		}
		e.byPtr[t] = f
		e.mu.Unlock()
	}
	return out
}

func (e *Engine) compute(t *listing.Value) *toolFacts {
	f := &toolFacts{findings: e.linter.Tool(t), cost: e.counter.Tool(t)}
	if _, ok := e.linter.(wordsLinter); ok {
		f.content = reference.DescriptionWords(t)
	}
	if d := t.Get("description"); d.IsString() {
		f.descWords = len(words.Tokens(d.Str))
		f.descTokens = e.tok.Count(d.Str)
	}
	return f
}

// Analyze lints, counts and ranks l against tasks.
func (e *Engine) Analyze(l *listing.Listing, tasks []selection.Task) *Result {
	// The ranking reads every tool's words and is the largest single part of the work: it runs
	// beside the lint and cost work, which share nothing with it.
	var verdicts chan []selection.Verdict
	if len(tasks) > 0 {
		verdicts = make(chan []selection.Verdict, 1)
		go func() { verdicts <- e.ranks.Rank(l, tasks, true) }()
	}
	facts := e.facts(l)
	r := &Result{Tools: make([]ToolResult, len(l.Tools))}
	names := l.Names()
	for i, f := range facts {
		tr := ToolResult{Index: i, Name: names[i], Cost: f.cost, DescWords: f.descWords, DescTokens: f.descTokens}
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
	if wl, ok := e.linter.(wordsLinter); ok {
		descs := make([][]string, len(facts))
		for i, f := range facts {
			descs[i] = f.content
		}
		r.Listing = wl.listingWords(l, names, descs, referenceParts{e.nameLines.lines, e.nearDups.line})
	} else {
		r.Listing = e.linter.Listing(l)
	}
	if e.ext != nil {
		for _, lf := range e.ext.Lint(l) {
			fd := Finding{Rule: lf.Rule, Severity: string(lf.Severity), Tool: lf.Tool, ToolIndex: lf.ToolIndex,
				Pointer: lf.Pointer, Message: lf.Message}
			if fd.ToolIndex >= 0 && fd.ToolIndex < len(r.Tools) {
				tr := &r.Tools[fd.ToolIndex]
				tr.Findings = append(tr.Findings, fd)
				tally(fd.Severity, &tr.Errors, &tr.Warnings, &tr.Infos)
			} else {
				fd.ToolIndex = -1
				r.Listing = append(r.Listing, fd)
			}
			tally(fd.Severity, &r.Errors, &r.Warnings, &r.Infos)
		}
	}
	for _, fd := range r.Listing {
		tally(fd.Severity, &r.Errors, &r.Warnings, &r.Infos)
	}
	r.Cost = e.costReport(l)
	if verdicts != nil {
		r.Verdicts = <-verdicts
		for _, v := range r.Verdicts {
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
	return r
}

// costReport is the listing's cost; the counter caches each tool by content, like the engine.
func (e *Engine) costReport(l *listing.Listing) cost.Report {
	rep := e.counter.Listing(l)
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
