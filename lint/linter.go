package lint

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"weak"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/schema"
)

// Config tunes the extended rules. The zero value means the defaults below.
type Config struct {
	// Tokens counts the tokens of a text. nil means ApproxTokens; the CLI passes a real
	// tokenizer (package cost) when one is available.
	Tokens func(string) int
	// MaxDescriptionTokens bounds one tool's description (description-too-long).
	MaxDescriptionTokens int
	// MaxTools and MaxListingTokens bound the listing (listing-too-many-tools, listing-token-budget).
	MaxTools         int
	MaxListingTokens int
	// Revision is the protocol revision the listing targets (output-schema-root).
	Revision string
	// MaxSchemaDepth bounds the nesting of a schema the linter compiles.
	MaxSchemaDepth int
	// Cache is the byte budget the linter's caches count against; a server shares one between
	// its linters. nil gives the linter a budget of its own of lru.DefaultBytes (64 MiB).
	Cache *lru.Budget
	// Profile names the directory or platform profile (Profiles) whose rules, severities and
	// revision apply; "" for none. New panics on an unknown name: check it with LookupProfile.
	Profile string
	prof    *Profile
}

// The defaults, and why: see the docs of the rules that use them.
const (
	DefaultMaxDescriptionTokens = 300
	DefaultMaxTools             = 40
	DefaultMaxListingTokens     = 20000
	DefaultRevision             = "2026-07-28"
)

// ApproxTokens estimates tokens as one per four bytes, rounded up: close to what the common BPE
// tokenizers give for English prose and JSON, and cheap enough for every keystroke.
func ApproxTokens(s string) int { return (len(s) + 3) / 4 }

func (c Config) withDefaults() Config {
	if c.Tokens == nil {
		c.Tokens = ApproxTokens
	}
	if c.MaxDescriptionTokens == 0 {
		c.MaxDescriptionTokens = DefaultMaxDescriptionTokens
	}
	if c.MaxTools == 0 {
		c.MaxTools = DefaultMaxTools
	}
	if c.MaxListingTokens == 0 {
		c.MaxListingTokens = DefaultMaxListingTokens
	}
	if p, err := LookupProfile(c.Profile); err != nil {
		panic("lint: " + err.Error())
	} else if p != nil {
		c.prof = p
		if c.Revision == "" {
			c.Revision = p.Revision
		}
	}
	if c.Revision == "" {
		c.Revision = DefaultRevision
	}
	if c.MaxSchemaDepth == 0 {
		c.MaxSchemaDepth = DefaultMaxSchemaDepth
	}
	return c
}

// Linter runs the extended rules with caches. It is safe for concurrent use: one Linter can
// serve every open workspace of a server. Its caches hold at most maxCache entries each and,
// together, at most the bytes of cfg.Cache, dropping the least recently used entries first.
type Linter struct {
	cfg Config
	// approx is set when cfg.Tokens is the default ApproxTokens, which needs only lengths.
	approx bool

	tools   *lru.Cache[listing.Hash, *toolFacts]
	schemas *lru.Cache[schemaKey, *schemaFacts]
	// byPtr remembers the hash of each tool value seen: values are immutable and edits share
	// the unedited tools, so an edit re-hashes only the edited tool. The keys are weak: the
	// cache never keeps a listing alive.
	byPtr *lru.Cache[weak.Pointer[listing.Value], listing.Hash]
	// schemaPtr does the same for schemas: an edit outside a schema keeps its value, so the
	// schema cache is reached without hashing the schema again.
	schemaPtr *lru.Cache[weak.Pointer[listing.Value], listing.Hash]
	// lines maps the sources findings are located in to their line starts.
	lines *lru.Cache[*byte, *lineIndex]
	// onCompute, when set (by tests), is called for every tool whose facts are computed.
	onCompute func()
}

type schemaKey struct {
	hash  listing.Hash
	which string
}

const (
	maxCache = 1 << 14
	// hashEntry is the accounted size of a pointer-to-hash entry: the hash and the weak
	// pointer's handle.
	hashEntry = 64
)

// New returns a Linter with cfg.
func New(cfg Config) *Linter {
	b := cfg.Cache
	if b == nil {
		b = lru.NewBudget(0)
	}
	return &Linter{cfg: cfg.withDefaults(), approx: cfg.Tokens == nil,
		tools:     lru.New[listing.Hash, *toolFacts](b, maxCache),
		schemas:   lru.New[schemaKey, *schemaFacts](b, maxCache),
		byPtr:     lru.New[weak.Pointer[listing.Value], listing.Hash](b, maxCache),
		schemaPtr: lru.New[weak.Pointer[listing.Value], listing.Hash](b, maxCache),
		lines:     lru.New[*byte, *lineIndex](b, 2)}
}

// CacheBytes returns the bytes the linter's caches are accounted at.
func (lt *Linter) CacheBytes() int64 {
	return lt.tools.Bytes() + lt.schemas.Bytes() + lt.byPtr.Bytes() + lt.schemaPtr.Bytes() + lt.lines.Bytes()
}

// toolFacts is everything the per-tool rules computed for one tool's content.
type toolFacts struct {
	findings  []Finding // pointers relative to the tool
	tokens    int       // tokens of the tool's definition as compact JSON
	descWords []string  // sorted content words of the description
	desc      string
	mentions  []mention // identifiers in the description that may name another tool
	signature string    // see signature: tools with equal signatures may be confused
	// requestLimited: the lint call's schema budget cut a schema of this tool short.
	requestLimited bool
}

// size estimates the bytes f keeps reachable: the description (which the words and mentions
// are mostly slices of), the slices' headers and the findings.
func (f *toolFacts) size() int64 {
	n := int64(len(f.desc) + len(f.signature) + 16*len(f.descWords) + 48*len(f.mentions) + 96)
	for _, w := range f.descWords {
		n += int64(len(w))
	}
	return n + findingsSize(f.findings)
}

// findingsSize estimates the bytes of findings: their strings and the struct each.
func findingsSize(fs []Finding) int64 {
	n := int64(0)
	for _, f := range fs {
		n += int64(len(f.Rule) + len(f.Tool) + len(f.Pointer) + len(f.Message) + len(f.Source) + 160)
	}
	return n
}

// Lint runs every extended rule on l and returns the findings, listing-wide ones first, then by
// tool. The reference's rules are not included: see ReferenceFindings.
func (lt *Linter) Lint(l *listing.Listing) []Finding {
	fs, _ := lt.LintContext(context.Background(), l)
	return fs
}

// LintContext is Lint that stops between tools and between rules when ctx is done, and then
// returns ctx's error, wrapped.
func (lt *Linter) LintContext(ctx context.Context, l *listing.Listing) ([]Finding, error) {
	facts, err := lt.factsFor(ctx, l.Tools)
	if err != nil {
		return nil, err
	}
	names := l.Names()
	var out []Finding
	lc := &listCtx{ctx: ctx, cfg: &lt.cfg, l: l, facts: facts, names: names}
	for _, f := range listingChecks {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
		f(lc)
	}
	out = append(out, lc.out...)
	n := len(out)
	for i, f := range facts {
		for _, fd := range f.findings {
			fd.ToolIndex = i
			fd.Tool = clip(names[i]) // a name of megabytes is not repeated in every finding
			fd.Pointer = "/tools/" + strconv.Itoa(i) + fd.Pointer
			out = append(out, fd)
		}
	}
	sort.SliceStable(out[:n], func(a, b int) bool { return out[a].ToolIndex < out[b].ToolIndex })
	lt.locate(l, out)
	return out, nil
}

// Tokens returns the token count of each tool's definition (compact JSON), as the budget rules
// count them. It stops when ctx is done and then returns ctx's error, wrapped.
func (lt *Linter) Tokens(ctx context.Context, l *listing.Listing) ([]int, error) {
	facts, err := lt.factsFor(ctx, l.Tools)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(facts))
	for i, f := range facts {
		out[i] = f.tokens
	}
	return out, nil
}

// factsFor returns each tool's facts, computing the ones not cached (in parallel when many).
func (lt *Linter) factsFor(ctx context.Context, tools []*listing.Value) ([]*toolFacts, error) {
	// One budget for every schema this call compiles and validates: each schema is bounded by
	// its own budgets, and the call by this one, however many tools carry costly schemas.
	guard := schema.NewGuard()
	out := make([]*toolFacts, len(tools))
	hashes := make([]listing.Hash, len(tools))
	var miss []int
	for i, t := range tools {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("lint: %w", err)
			}
		}
		wp := weak.Make(t)
		h, ok := lt.byPtr.Get(wp)
		if !ok {
			h = listing.HashOf(t)
			lt.byPtr.Add(wp, h, hashEntry)
		}
		hashes[i] = h
		if f, ok := lt.tools.Get(h); ok {
			out[i] = f
		} else {
			miss = append(miss, i)
		}
	}
	if len(miss) == 0 {
		return out, nil
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > len(miss)/8 {
		workers = len(miss)/8 + 1
	}
	var wg sync.WaitGroup
	next := make(chan int, len(miss))
	for _, i := range miss {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					return // the others see it too; the caller reports it
				}
				out[i] = lt.computeFacts(ctx, tools[i], guard)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	for _, i := range miss {
		if out[i].requestLimited {
			continue // what this call's budget cut short is not what the tool alone deserves
		}
		lt.tools.Add(hashes[i], out[i], out[i].size())
	}
	return out, nil
}

func (lt *Linter) computeFacts(ctx context.Context, t *listing.Value, guard *schema.Guard) *toolFacts {
	if lt.onCompute != nil {
		lt.onCompute()
	}
	tc := &toolCtx{ctx: ctx, cfg: &lt.cfg, lt: lt, tool: t, name: t.Get("name").String(), guard: guard}
	for _, f := range toolChecks {
		f(tc)
	}
	desc := t.Get("description").String()
	cw := map[string]bool{}
	for w := range contentWords(desc) {
		cw[w] = true
	}
	ws := make([]string, 0, len(cw))
	for w := range cw {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	var tokens int
	if n := compactLen(t); lt.approx || n > maxCounted {
		tokens = (n + 3) / 4 // ApproxTokens of the compact JSON, without writing it
	} else {
		tokens = lt.cfg.Tokens(string(listing.Marshal(t, "")))
	}
	return &toolFacts{findings: tc.out, tokens: tokens, requestLimited: tc.requestLimited,
		descWords: ws, desc: desc, mentions: findMentions(desc), signature: signature(tc.name, ws)}
}

// maxCounted bounds the texts the budget rules hand to the tokenizer: 1 MiB, 64 times the
// largest tool of the real listings. A longer text is estimated at four bytes a token
// (ApproxTokens), which says as much about a budget of a few hundred tokens, and a tokenizer
// takes seconds on megabytes of text made to be slow.
const maxCounted = 1 << 20

// countTokens counts the tokens of s as the budget rules do, and reports whether the count is
// an estimate of a text too long to count (maxCounted).
func (c *toolCtx) countTokens(s string) (n int, estimated bool) {
	if len(s) > maxCounted {
		return ApproxTokens(s), true
	}
	return c.cfg.Tokens(s), false
}

// schema returns the cached findings of compiling schema (pointers relative to it), compiled
// and validated within guard, the lint call's budget. Findings the call's budget cut short are
// not cached, and mark the tool (limited) so that its facts are not either.
func (lt *Linter) schema(schema *listing.Value, which string, guard *schema.Guard, limited *bool) []Finding {
	wp := weak.Make(schema)
	h, known := lt.schemaPtr.Get(wp)
	if !known {
		h = listing.HashOf(schema)
		lt.schemaPtr.Add(wp, h, hashEntry)
	}
	k := schemaKey{h, which}
	if f, ok := lt.schemas.Get(k); ok {
		return f.findings
	}
	fs, request := compileSchemaIn(schema, which, lt.cfg.MaxSchemaDepth, guard)
	if request {
		*limited = true
		return fs
	}
	f := &schemaFacts{findings: fs}
	lt.schemas.Add(k, f, findingsSize(f.findings)+int64(len(which)))
	return f.findings
}

// toolCtx is what a per-tool rule sees.
type toolCtx struct {
	ctx  context.Context // done: the rules may stop early (Lint then reports the context's error)
	cfg  *Config
	lt   *Linter
	tool *listing.Value
	name string
	out  []Finding
	// guard is the lint call's schema budget; requestLimited says it cut a schema short.
	guard          *schema.Guard
	requestLimited bool
	// descs caches descriptions(tool), which several rules read.
	descs     []textAt
	descsDone bool
}

func (c *toolCtx) descriptions() []textAt {
	if !c.descsDone {
		c.descs, c.descsDone = descriptions(c.tool), true
	}
	return c.descs
}

func (c *toolCtx) report(rule, ptr, msg string) {
	r := registry[rule]
	if r == nil {
		panic("lint: unregistered rule " + rule)
	}
	c.out = append(c.out, Finding{Rule: rule, Severity: c.cfg.prof.severity(r), Pointer: ptr, Message: msg})
}

// listCtx is what a listing-wide rule sees.
type listCtx struct {
	ctx   context.Context // a rule whose work grows faster than the listing checks it
	cfg   *Config
	l     *listing.Listing
	facts []*toolFacts
	names []string
	out   []Finding
}

func (c *listCtx) report(rule string, tool int, ptr, msg string) {
	r := registry[rule]
	if r == nil {
		panic("lint: unregistered rule " + rule)
	}
	f := Finding{Rule: rule, Severity: c.cfg.prof.severity(r), ToolIndex: tool, Pointer: ptr, Message: msg}
	if tool >= 0 {
		f.Tool = clip(c.names[tool])
	}
	c.out = append(c.out, f)
}

var (
	toolChecks    []func(*toolCtx)
	listingChecks []func(*listCtx)
)

// locate fills in Line and Column from the source positions of the values the pointers name.
func (lt *Linter) locate(l *listing.Listing, fs []Finding) {
	if len(l.Source) == 0 || len(fs) == 0 {
		return
	}
	idx, ok := lt.lines.Get(&l.Source[0])
	if !ok || !idx.same(l.Source) {
		idx = newLineIndex(l.Source)
		// The index keeps the source: account both.
		lt.lines.Add(&l.Source[0], idx, int64(len(l.Source)+8*len(idx.starts)))
	}
	idx.locate(l, fs)
}

// locate sets the line and column of each finding in one sweep over the source in offset order,
// so that many findings on one long line (a minified listing) cost one pass, not one each.
func (x *lineIndex) locate(l *listing.Listing, fs []Finding) {
	type at struct{ i, pos int }
	var ats []at
	for i := range fs {
		if pos := valuePos(l, fs[i].Pointer); pos >= 0 && pos <= len(x.src) {
			ats = append(ats, at{i, pos})
		}
	}
	sort.Slice(ats, func(a, b int) bool { return ats[a].pos < ats[b].pos })
	line, lineStart, col, colAt := 0, 0, 1, 0
	for _, a := range ats {
		for line+1 < len(x.starts) && x.starts[line+1] <= a.pos {
			line++
		}
		if x.starts[line] != lineStart || colAt > a.pos {
			lineStart, col, colAt = x.starts[line], 1, x.starts[line]
		}
		col += utf8.RuneCount(x.src[colAt:a.pos])
		colAt = a.pos
		fs[a.i].Line, fs[a.i].Column = line+1, col
	}
}

// valuePos returns the source offset of the value at ptr in l's result, or -1.
func valuePos(l *listing.Listing, ptr string) int {
	var v *listing.Value
	if strings.HasPrefix(ptr, "/tools/") {
		rest := ptr[len("/tools/"):]
		j := strings.IndexByte(rest, '/')
		num, tail := rest, ""
		if j >= 0 {
			num, tail = rest[:j], rest[j:]
		}
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 || i >= len(l.Tools) {
			return -1
		}
		v = listing.Resolve(l.Tools[i], tail)
		// A pointer to a member that is absent (a missing key) falls back to its parent.
		for v == nil && tail != "" {
			tail = tail[:strings.LastIndexByte(tail, '/')]
			v = listing.Resolve(l.Tools[i], tail)
		}
	} else if l.Envelope != nil {
		v = listing.Resolve(l.Envelope, ptr)
		if v == nil {
			v = l.Envelope
		}
	} else if l.Doc != nil {
		v = l.Doc
	}
	if v == nil {
		return -1
	}
	return v.Pos
}

// lineIndex maps byte offsets to 1-based lines and character columns, as listing.Position
// does, without rescanning the source for every finding.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of each line's start
}

func newLineIndex(src []byte) *lineIndex {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &lineIndex{src: src, starts: starts}
}

func (x *lineIndex) same(src []byte) bool {
	return len(src) == len(x.src) && (len(src) == 0 || &src[0] == &x.src[0])
}

func itoa(i int) string { return strconv.Itoa(i) }

// ptrTok is one escaped JSON pointer token with its slash ("/a~1b" for "a/b"): the common case
// without ~ or / allocates only the concatenation.
func ptrTok(k string) string {
	if strings.ContainsAny(k, "~/") {
		return listing.JoinPointer(k)
	}
	return "/" + k
}

// path is a JSON pointer under construction: a walk pushes and pops raw tokens, and a rule joins
// them (String) only when it reports, so that walking a schema allocates no pointer per node.
// A callback must not keep a *path after it returns.
type path struct {
	base string
	toks []string
}

// newPath returns an empty path under base, with room for the depth of a typical schema, so
// that a walk does not grow it step by step.
func newPath(base string) *path { return &path{base: base, toks: make([]string, 0, 8)} }

func (p *path) push(t string) { p.toks = append(p.toks, t) }
func (p *path) pop()          { p.toks = p.toks[:len(p.toks)-1] }

// String returns the pointer: base followed by the escaped tokens.
func (p *path) String() string {
	var b strings.Builder
	b.WriteString(p.base)
	for _, t := range p.toks {
		b.WriteString(ptrTok(t))
	}
	return b.String()
}
