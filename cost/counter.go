package cost

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
	"weak"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
)

// Measure is a size in tokens and bytes.
type Measure struct {
	Tokens int `json:"tokens"`
	Bytes  int `json:"bytes"`
}

// Part is what one part of a tool costs: its name, description, schema, annotations, other
// fields, or "syntax" (brackets, separators and the tokens that form across part boundaries,
// the tool's total less its parts). Parts are counted on their own, so syntax may be negative
// when a boundary merges into fewer tokens.
type Part struct {
	Name string `json:"name"`
	Measure
}

// ToolCost is what one tool costs in a rendering. Its Parts slice is shared with the cache:
// treat it as read-only.
type ToolCost struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Measure
	Parts []Part `json:"parts"`
	// Share is the tool's tokens as a fraction of the context window, when one is set.
	Share float64 `json:"share,omitempty"`
	// Boundary is the part of Tokens (already in the syntax part) that forms across the
	// boundaries the tool is charged with, when the rendering is one text (see Report.Boundary).
	Boundary int `json:"boundary,omitempty"`
	// edge is the tool's text at its ends, for counting the rendering as one text.
	edge *edges
}

// Ranked names a tool and its tokens, for the cheapest and dearest lists.
type Ranked struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Report is what a listing costs in one rendering with one tokenizer.
type Report struct {
	Tokenizer string `json:"tokenizer"`
	Render    string `json:"render"`
	// Estimate is true when the rendering's tokens are an estimate (openai, anthropic) rather
	// than a count of the rendered text.
	Estimate bool `json:"estimate"`
	// OneText is true when the rendering is one text (all but seed-host and openai): Total
	// is then the exact count of that text, tokenized at once as a host does, plus the frame's
	// tokens outside it (special tokens, Anthropic's system prompt). Otherwise Total adds up
	// texts counted one by one (seed-host's lines) or an estimate (openai).
	OneText bool   `json:"one_text"`
	Source  string `json:"source"`
	// Model is the model whose constants an estimate used, if any.
	Model string `json:"model,omitempty"`
	// Total is the listing's cost; the tools' and the overhead's figures add up to it exactly.
	Total Measure `json:"total"`
	// Tools are the tools' figures: each tool counted on its own, plus, when the rendering is
	// one text, the tokens that form across the boundaries it is charged with (Boundary).
	Tools []ToolCost `json:"tools"`
	// Overhead is the rendering's frame: the envelope, brackets and separators, headings, fixed
	// tokens such as the cookbook's func_end or Anthropic's tool-use system prompt, each text
	// counted on its own.
	Overhead Measure `json:"overhead"`
	// Boundary is the tokens that form across the boundaries between the tools and the frame's
	// texts when the rendering is counted as one text, less those texts counted one by one:
	// usually negative ("}},{" is one token where "}}", "," and "{" are three). Each boundary's
	// tokens are charged to the tool after it (the prefix's to the first tool, the suffix's to
	// the last; where tools have no place to cut, their boundaries join and go to the first of
	// them), in its syntax part; when the tokenizer cannot say where to cut (not a Cutter), all
	// of them to Overhead.
	Boundary int      `json:"boundary"`
	Cheapest []Ranked `json:"cheapest"`
	Dearest  []Ranked `json:"dearest"`
	// Context is the context window the shares are of, in tokens (0: none chosen).
	Context      int     `json:"context,omitempty"`
	ContextShare float64 `json:"context_share,omitempty"`
	Baseline     *Delta  `json:"baseline,omitempty"`
}

// Options tune a Counter.
type Options struct {
	// Model picks an estimate's constants: for openai gpt-4o, gpt-4o-mini, gpt-4 or
	// gpt-3.5-turbo (default: gpt-4o with o200k_base, gpt-4 with cl100k_base); for anthropic a
	// model of the embedded table (default: its default).
	Model string
	// ToolChoice is Anthropic's tool_choice: auto (default), none, any or tool.
	ToolChoice string
	// CacheSize bounds the per-tool cache (default 8192 tools).
	CacheSize int
	// Cache is the byte budget the counter's caches count against; a server shares one between
	// its engines. nil gives the counter a budget of its own of lru.DefaultBytes (64 MiB).
	Cache *lru.Budget
	// Ranked is how many cheapest and dearest tools a report lists (default 3).
	Ranked int
}

// Counter measures listings with one tokenizer and one rendering, caching each tool's cost by
// its content hash. It is safe for concurrent use.
type Counter struct {
	tok    Tokenizer
	r      *renderer
	o      options
	model  string
	limit  int
	ranked int
	source string
	// joined: the rendering is one text (its frame is built by separated).
	joined bool
	// cutter is the tokenizer if it says where a text may be cut (Cutter), else nil.
	cutter Cutter

	byHash *lru.Cache[listing.Hash, toolEntry]
	// byPtr remembers the hashes of the tools counted. Listings share unedited tool values
	// between revisions, so after an edit only the edited tool is hashed. Its keys are weak:
	// it keeps no listing alive.
	byPtr *lru.Cache[weak.Pointer[listing.Value], listing.Hash]
	// texts are the token counts of the frames' texts (separators, headings).
	texts *lru.Cache[string, int]
}

type toolEntry struct {
	name  string
	m     Measure
	parts []Part
	edge  *edges
}

// size estimates the bytes e keeps reachable.
func (e toolEntry) size() int64 {
	n := int64(len(e.name) + 64)
	if e.edge != nil {
		n += int64(len(e.edge.head) + len(e.edge.tail) + 64)
	}
	for _, p := range e.parts {
		n += int64(len(p.Name) + 48)
	}
	return n
}

// NewCounter returns a Counter for a tokenizer and a rendering name (see RenderingNames).
func NewCounter(tok Tokenizer, render string, opts Options) (*Counter, error) {
	if tok == nil {
		return nil, fmt.Errorf("cost: no tokenizer")
	}
	r, err := findRenderer(render)
	if err != nil {
		return nil, err
	}
	c := &Counter{tok: tok, r: r, limit: opts.CacheSize, ranked: opts.Ranked, source: r.source}
	if c.limit <= 0 {
		c.limit = 8192
	}
	b := opts.Cache
	if b == nil {
		b = lru.NewBudget(0)
	}
	c.byHash = lru.New[listing.Hash, toolEntry](b, c.limit)
	c.byPtr = lru.New[weak.Pointer[listing.Value], listing.Hash](b, c.limit)
	c.texts = lru.New[string, int](b, c.limit)
	if c.ranked <= 0 {
		c.ranked = 3
	}
	switch opts.ToolChoice {
	case "", "auto", "none", "any", "tool":
		c.o.choice = opts.ToolChoice
	default:
		return nil, fmt.Errorf("unknown tool choice %q: use auto, none, any or tool", opts.ToolChoice)
	}
	switch render {
	case "openai":
		if c.o.openai, err = openaiFor(opts.Model, tok.Name()); err != nil {
			return nil, err
		}
		c.model = c.o.openai.Family
	case "anthropic":
		if c.o.anthropic, err = anthropicFor(opts.Model); err != nil {
			return nil, err
		}
		c.model = c.o.anthropic.Model
		c.source = fmt.Sprintf("%s, version %s; the tools' tokens are counted with %s because Anthropic's tokenizer is not public", r.source, Anthropic().Version, tok.Name())
	default:
		if opts.Model != "" {
			return nil, fmt.Errorf("the %s rendering takes no model (only openai and anthropic do)", render)
		}
	}
	// Whether the rendering is one text shows in the frame of a listing of one tool.
	c.joined = r.frame(&c.o, &listing.Listing{Tools: []*listing.Value{listing.NewObject()}}).joint != nil
	c.cutter, _ = tok.(Cutter)
	return c, nil
}

// Tokenizer returns the Counter's tokenizer.
func (c *Counter) Tokenizer() Tokenizer { return c.tok }

// Render is the name of the rendering the Counter measures.
func (c *Counter) Render() string { return c.r.name }

func (c *Counter) count(r rendered) int {
	n := r.fixed
	for _, s := range r.texts {
		n += c.countText(s)
	}
	return n
}

// countText counts a text in Pieces: every text the counter tokenizes (tools, their parts and
// ends, frame texts, junctions) is counted this way, so that a hostile run costs linear time
// wherever it lands and the counts add up.
func (c *Counter) countText(s string) int {
	n := 0
	for _, piece := range splitLong(s) {
		n += c.tok.Count(piece)
	}
	return n
}

// Limits on the texts handed to the tokenizer at once. The tiktoken encodings' splitter and
// byte-pair merge take time that grows faster than the length of one pre-token (16 KiB of " \n"
// repeated takes 1.9 s, 4 KiB 0.08 s; a word of 16 KiB letters without spaces 45 ms), so a
// hostile description could stall a server that re-counts on every keystroke. No tool of the
// real listings renders to more than 16 KiB.
const (
	// longText is the size above which a text is cut into pieces.
	longText = 32 << 10
	// blindCut is the most bytes a piece may run without an exact boundary: past it the text is
	// cut where it is (at a character boundary), so that no pre-token is longer.
	blindCut = 256
	// letterCut is blindCut within a run of letters and marks: scripts written without spaces
	// (Thai, Japanese) run for hundreds of bytes with no exact boundary, and a word's cost grows
	// slowly enough (16 KiB of letters: 45 ms) to let a real sentence stay whole.
	letterCut = 4 << 10
)

// inWord reports whether s[i] and the character before it are both letters or marks.
func inWord(s string, i int) bool {
	if p, n := s[i-1], s[i]; p < utf8.RuneSelf && n < utf8.RuneSelf {
		return isASCIILetter(p) && isASCIILetter(n)
	}
	pr, _ := utf8.DecodeLastRuneInString(s[:i])
	nr, _ := utf8.DecodeRuneInString(s[i:])
	return (unicode.IsLetter(pr) || unicode.IsMark(pr)) && (unicode.IsLetter(nr) || unicode.IsMark(nr))
}

// Pieces cuts a text longer than longText into pieces the tokenizers count in time linear in
// their length, such that the counts of the pieces add up to the count of the text. Each piece
// ends at the last place within longText bytes where the o200k and cl100k pre-tokenizers always
// end a piece and that is cheap to recognise (cutPlace: before a space between two ASCII
// letters, or after a newline followed by printable ASCII other than "/"), or failing that at
// the last exact boundary of any kind (exactBoundary). The cost of tokenizing grows faster than
// the length of one pre-token, and no pre-token crosses an exact boundary, so where blindCut
// bytes pass without one (a run of whitespace, punctuation or digits; letterCut in a run of
// letters) the text is cut there anyway, which may change the count by a token or two at each
// such cut: that only happens to text made to be slow, never to a real tool. A text of at most longText bytes is one piece unless
// it has such a run.
func Pieces(s string) []string {
	if len(s) <= blindCut {
		return []string{s}
	}
	var out []string
	start, lastExact, lastCut := 0, 0, 0
	for i := 1; i < len(s); i++ {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if len(s)-start > longText && i-start > longText {
			// The piece is full: end it at the last place to cut, else the last exact boundary.
			end := lastCut
			if end <= start {
				end = lastExact
			}
			if end > start {
				out = append(out, s[start:end])
				start = end
			}
		}
		switch {
		case exactBoundary(s, i):
			lastExact = i
			if i > start+1 && i+1 < len(s) && cutPlace(s, i) {
				lastCut = i
			}
		case i-lastExact >= letterCut || i-lastExact >= blindCut && !inWord(s, i):
			out = append(out, s[start:i])
			start, lastExact, lastCut = i, i, i
		}
	}
	return append(out, s[start:])
}

// cutPlace reports whether i is where the counter has always cut a long text: before a space
// between two ASCII letters, or after a newline followed by printable ASCII other than "/".
// The reference counts of the tests were taken on pieces cut there.
func cutPlace(s string, i int) bool {
	c := s[i]
	return c == ' ' && isASCIILetter(s[i-1]) && isASCIILetter(s[i+1]) || s[i-1] == '\n' && c != '/' && c > ' ' && c < 0x80
}

// exactBoundary reports whether a pre-token of o200k_base and cl100k_base always ends before
// s[i] (a character boundary, i > 0). A letter run ends at a character that is not a letter or
// mark (o200k) and not an apostrophe (which may start a contraction); a number run
// (\p{N}{1,3}) at a character that is not a number, and a cut between numbers would change how
// they group by three; a newline run, and a punctuation run's trailing [\r\n/]*, at a character
// that is neither whitespace nor "/".
func exactBoundary(s string, i int) bool {
	p, n := s[i-1], s[i]
	if p < utf8.RuneSelf && n < utf8.RuneSelf {
		// The ASCII case, on every byte of most texts.
		switch {
		case isASCIILetter(p):
			return !isASCIILetter(n) && n != '\''
		case p >= '0' && p <= '9':
			return n < '0' || n > '9'
		case p == '\n':
			return n > ' ' && n != '/'
		}
		return false
	}
	pr, _ := utf8.DecodeLastRuneInString(s[:i])
	nr, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case unicode.IsLetter(pr):
		return !unicode.IsLetter(nr) && !unicode.IsMark(nr) && nr != '\''
	case unicode.IsNumber(pr):
		return !unicode.IsNumber(nr)
	case pr == '\n':
		return !unicode.IsSpace(nr) && !unicode.Is(unicode.Z, nr) && nr != '/' && nr >= ' ' && nr != 0x7f && nr != 0x85
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// splitLong is Pieces (the name the counter's callers know).
func splitLong(s string) []string { return Pieces(s) }

// measureTool renders and counts one tool (no cache).
func (c *Counter) measureTool(t *listing.Value) toolEntry {
	r := c.r.tool(&c.o, t)
	e := toolEntry{name: toolStr(t, "name"), m: Measure{Tokens: c.count(r), Bytes: r.bytes}}
	restT, restB := e.m.Tokens, e.m.Bytes
	for _, p := range r.parts {
		pm := Measure{Tokens: c.count(rendered{texts: p.texts, fixed: p.fixed}), Bytes: p.bytes}
		e.parts = append(e.parts, Part{Name: p.name, Measure: pm})
		restT -= pm.Tokens
		restB -= pm.Bytes
	}
	e.parts = append(e.parts, Part{Name: PartSyntax, Measure: Measure{Tokens: restT, Bytes: restB}})
	if c.joined {
		e.edge = c.edgesOf(strings.Join(r.texts, ""), e.m.Tokens-r.fixed)
	}
	return e
}

// Tool returns the cost of one tool, from the cache when its content was counted before.
func (c *Counter) Tool(t *listing.Value) ToolCost {
	h := c.hash(t)
	e, ok := c.byHash.Get(h)
	if !ok {
		e = c.measureTool(t)
		c.byHash.Add(h, e, e.size())
	}
	return ToolCost{Name: e.name, Measure: e.m, Parts: e.parts, edge: e.edge}
}

// hash returns the content hash of t, remembered by t's identity.
func (c *Counter) hash(t *listing.Value) listing.Hash {
	wp := weak.Make(t)
	h, ok := c.byPtr.Get(wp)
	if !ok {
		h = listing.HashOf(t)
		c.byPtr.Add(wp, h, 64)
	}
	return h
}

// CacheBytes returns the bytes the counter's caches are accounted at.
func (c *Counter) CacheBytes() int64 { return c.byHash.Bytes() + c.byPtr.Bytes() + c.texts.Bytes() }

// frameTokens counts the frame, caching its texts (separators repeat, headings never change).
func (c *Counter) frameTokens(r rendered) int {
	n := r.fixed
	for _, s := range r.texts {
		n += c.textTokens(s)
	}
	return n
}

// Listing measures every tool of l and the rendering's frame. Only tools whose content the
// Counter has not seen are rendered and tokenized.
func (c *Counter) Listing(l *listing.Listing) Report {
	rep, _ := c.ListingContext(context.Background(), l)
	return rep
}

// ListingContext is Listing that stops between tools when ctx is done, and then returns ctx's
// error, wrapped.
func (c *Counter) ListingContext(ctx context.Context, l *listing.Listing) (Report, error) {
	rep := Report{Tokenizer: c.tok.Name(), Render: c.r.name, Estimate: c.r.estimate, Source: c.source, Model: c.model,
		Tools: make([]ToolCost, len(l.Tools))}
	entries := make([]toolEntry, len(l.Tools))
	// A tool repeated within the listing (by content) is measured once.
	fresh := map[listing.Hash]toolEntry{}
	for i, t := range l.Tools {
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("cost: %w", err)
		}
		h := c.hash(t)
		e, ok := c.byHash.Get(h)
		if !ok {
			if e, ok = fresh[h]; !ok {
				e = c.measureTool(t)
				fresh[h] = e
				c.byHash.Add(h, e, e.size())
			}
		}
		entries[i] = e
	}
	for i, e := range entries {
		rep.Tools[i] = ToolCost{Index: i, Name: e.name, Measure: e.m, Parts: e.parts, edge: e.edge}
	}
	return c.finish(ctx, l, rep)
}

// ReportOf is Listing with each tool's cost given (as Tool returned it, in listing order), for a
// caller that keeps them already: the tools are not looked up or measured again.
func (c *Counter) ReportOf(l *listing.Listing, tools []ToolCost) Report {
	rep := Report{Tokenizer: c.tok.Name(), Render: c.r.name, Estimate: c.r.estimate, Source: c.source, Model: c.model,
		Tools: make([]ToolCost, len(tools))}
	for i, t := range tools {
		rep.Tools[i] = ToolCost{Index: i, Name: t.Name, Measure: t.Measure, Parts: t.Parts, edge: t.edge}
		if c.joined && t.edge == nil {
			// Not a cost this Counter's Tool returned: its ends are needed for the one text.
			rep.Tools[i].edge = c.Tool(l.Tools[i]).edge
		}
	}
	rep, _ = c.finish(context.Background(), l, rep)
	return rep
}

// finish adds the tools' totals, the frame, the tokens that form across the boundaries when
// the rendering is one text, and the cheapest and dearest tools to a report whose Tools are
// set (each counted on its own).
func (c *Counter) finish(ctx context.Context, l *listing.Listing, rep Report) (Report, error) {
	f := c.r.frame(&c.o, l)
	rep.Overhead = Measure{Tokens: c.frameTokens(f), Bytes: f.bytes}
	if f.joint != nil && c.joined {
		rep.OneText = true
		byTool, frame, err := c.boundaries(ctx, f.joint, rep.Tools)
		if err != nil {
			return Report{}, err
		}
		for i, d := range byTool {
			rep.Tools[i].charge(d)
			rep.Boundary += d
		}
		rep.Overhead.Tokens += frame
		rep.Boundary += frame
	}
	for _, t := range rep.Tools {
		rep.Total.Tokens += t.Tokens
		rep.Total.Bytes += t.Bytes
	}
	rep.Total.Tokens += rep.Overhead.Tokens
	rep.Total.Bytes += rep.Overhead.Bytes
	rep.Cheapest, rep.Dearest = rank(rep.Tools, c.ranked)
	return rep, nil
}

// rank returns the n cheapest and n dearest tools by tokens, ties in listing order.
func rank(tools []ToolCost, n int) (cheap, dear []Ranked) {
	idx := make([]int, len(tools))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return tools[idx[a]].Tokens < tools[idx[b]].Tokens })
	n = min(n, len(tools))
	cheap = make([]Ranked, 0, n)
	dear = make([]Ranked, 0, n)
	for k := 0; k < n; k++ {
		t := tools[idx[k]]
		cheap = append(cheap, Ranked{Index: t.Index, Name: t.Name, Tokens: t.Tokens})
	}
	sort.SliceStable(idx, func(a, b int) bool { return tools[idx[a]].Tokens > tools[idx[b]].Tokens })
	for k := 0; k < n; k++ {
		t := tools[idx[k]]
		dear = append(dear, Ranked{Index: t.Index, Name: t.Name, Tokens: t.Tokens})
	}
	return cheap, dear
}

// SetContext sets the context window, in tokens, that shares are reported of.
func (r *Report) SetContext(tokens int) {
	r.Context = tokens
	if tokens <= 0 {
		r.Context, r.ContextShare = 0, 0
		for i := range r.Tools {
			r.Tools[i].Share = 0
		}
		return
	}
	r.ContextShare = float64(r.Total.Tokens) / float64(tokens)
	for i := range r.Tools {
		r.Tools[i].Share = float64(r.Tools[i].Tokens) / float64(tokens)
	}
}

// Delta is the change of a report against a baseline listing's report.
type Delta struct {
	Before Measure `json:"before"`
	Change Measure `json:"change"`
	// Tools lists the tools that were added, removed or changed in cost, matched by name.
	Tools []ToolDelta `json:"tools"`
}

// ToolDelta is one tool's change against the baseline, in its own tokens (counted alone, without
// the boundary tokens charged to it); the total's change includes the boundaries.
type ToolDelta struct {
	Name   string  `json:"name"`
	Status string  `json:"status"` // added, removed or changed
	Before Measure `json:"before"`
	After  Measure `json:"after"`
	Change Measure `json:"change"`
}

// Compare sets r.Baseline to the change from base to r. Both must use the same tokenizer and
// rendering.
func (r *Report) Compare(base Report) error {
	if base.Tokenizer != r.Tokenizer || base.Render != r.Render {
		return fmt.Errorf("cost: baseline counted with %s/%s, report with %s/%s", base.Tokenizer, base.Render, r.Tokenizer, r.Render)
	}
	d := &Delta{Before: base.Total, Change: sub(r.Total, base.Total), Tools: []ToolDelta{}}
	before := map[string]Measure{}
	for _, t := range base.Tools {
		if _, dup := before[t.Name]; !dup {
			before[t.Name] = t.own()
		}
	}
	seen := map[string]bool{}
	for _, t := range r.Tools {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		b, ok := before[t.Name]
		switch a := t.own(); {
		case !ok:
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "added", After: a, Change: a})
		case b != a:
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "changed", Before: b, After: a, Change: sub(a, b)})
		}
	}
	for _, t := range base.Tools {
		if !seen[t.Name] {
			seen[t.Name] = true
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "removed", Before: t.own(), Change: sub(Measure{}, t.own())})
		}
	}
	r.Baseline = d
	return nil
}

// own is the tool's cost counted on its own, without the boundary tokens charged to it: a tool
// whose text did not change keeps it when a neighbour's edit moves a boundary token.
func (t ToolCost) own() Measure { return Measure{Tokens: t.Tokens - t.Boundary, Bytes: t.Bytes} }

func sub(a, b Measure) Measure { return Measure{Tokens: a.Tokens - b.Tokens, Bytes: a.Bytes - b.Bytes} }
