package cost

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
	Estimate bool   `json:"estimate"`
	Source   string `json:"source"`
	// Model is the model whose constants an estimate used, if any.
	Model string     `json:"model,omitempty"`
	Total Measure    `json:"total"`
	Tools []ToolCost `json:"tools"`
	// Overhead is the rendering's frame: the envelope, brackets and separators, headings, fixed
	// tokens such as the cookbook's func_end or Anthropic's tool-use system prompt.
	Overhead Measure  `json:"overhead"`
	Cheapest []Ranked `json:"cheapest"`
	Dearest  []Ranked `json:"dearest"`
	// Context is the context window the shares are of, in tokens (0: none chosen).
	Context      int     `json:"context,omitempty"`
	ContextShare float64 `json:"context_share,omitempty"`
	Baseline     *Delta  `json:"baseline,omitempty"`
	// Whole is the rendering tokenized as one text, when Options.Whole is set and the rendering
	// is one text (wire, compact, harmony, anthropic). It differs from Total because tokens form
	// across the boundaries between tools; Total adds up tools counted one by one.
	Whole *Measure `json:"whole,omitempty"`
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
	// Ranked is how many cheapest and dearest tools a report lists (default 3).
	Ranked int
	// Whole also tokenizes the complete rendering at once (Report.Whole), as a host's tokenizer
	// sees it. It costs a full count, so a per-keystroke caller leaves it off.
	Whole bool
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
	whole  bool
	source string

	mu     sync.RWMutex
	byHash map[listing.Hash]toolEntry
	// byPtr remembers the hashes of the tools of the last listing counted. Listings share
	// unedited tool values between revisions, so after an edit only the edited tool is hashed.
	byPtr map[*listing.Value]listing.Hash
	texts map[string]int
}

type toolEntry struct {
	name  string
	m     Measure
	parts []Part
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
	c := &Counter{tok: tok, r: r, limit: opts.CacheSize, ranked: opts.Ranked, whole: opts.Whole, source: r.source,
		byHash: map[listing.Hash]toolEntry{}, texts: map[string]int{}}
	if c.limit <= 0 {
		c.limit = 8192
	}
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
	return c, nil
}

// Tokenizer returns the Counter's tokenizer.
func (c *Counter) Tokenizer() Tokenizer { return c.tok }

func (c *Counter) count(r rendered) int {
	n := r.fixed
	for _, s := range r.texts {
		for _, piece := range splitLong(s) {
			n += c.tok.Count(piece)
		}
	}
	return n
}

// Limits on the texts handed to the tokenizer at once. The regular-expression splitter of the
// tiktoken encodings takes time quadratic in some runs of whitespace (16 KiB of " \n" repeated
// takes 0.17 s, 64 KiB several seconds), so a hostile description could stall a server that
// re-counts on every keystroke. No tool of the real listings renders to more than 16 KiB.
const (
	// longText is the size above which a text is cut into pieces.
	longText = 32 << 10
	// blindCut is the size of the pieces cut where no exact boundary is found.
	blindCut = 4 << 10
)

// splitLong cuts a text longer than longText into pieces at places where the o200k and cl100k
// pre-tokenizers always end a piece, so that the count is unchanged: before a space that stands
// between two ASCII letters (a letter run ends at the space, and the space starts the next
// word's piece), or after a newline followed by a character other than whitespace or "/". Where
// a window of longText bytes has no such place, it cuts blindly at a character boundary every
// blindCut bytes, which may change the count by a token or two at each cut: that only happens
// to text made to be slow, never to a real tool.
func splitLong(s string) []string {
	if len(s) <= longText {
		return []string{s}
	}
	letter := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	var out []string
	for len(s) > longText {
		cut := -1
		for i := longText; i > 1; i-- {
			c := s[i]
			if c == ' ' && letter(s[i-1]) && letter(s[i+1]) ||
				s[i-1] == '\n' && c != '/' && c > ' ' && c < 0x80 {
				cut = i
				break
			}
		}
		if cut < 0 {
			cut = blindCut
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			if cut == 0 {
				cut = blindCut
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

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
	return e
}

// Tool returns the cost of one tool, from the cache when its content was counted before.
func (c *Counter) Tool(t *listing.Value) ToolCost {
	h := listing.HashOf(t)
	c.mu.RLock()
	e, ok := c.byHash[h]
	c.mu.RUnlock()
	if !ok {
		e = c.measureTool(t)
		c.mu.Lock()
		c.store(h, e)
		c.mu.Unlock()
	}
	return ToolCost{Name: e.name, Measure: e.m, Parts: e.parts}
}

// store adds an entry, dropping arbitrary others when the cache is full. Call with mu held.
func (c *Counter) store(h listing.Hash, e toolEntry) {
	for k := range c.byHash {
		if len(c.byHash) < c.limit {
			break
		}
		delete(c.byHash, k)
	}
	c.byHash[h] = e
}

// frameTokens counts the frame, caching its texts (separators repeat, headings never change).
func (c *Counter) frameTokens(r rendered) int {
	n := r.fixed
	var missing []string
	c.mu.RLock()
	for _, s := range r.texts {
		if k, ok := c.texts[s]; ok {
			n += k
		} else {
			missing = append(missing, s)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return n
	}
	counted := make(map[string]int, len(missing))
	for _, s := range missing {
		k, ok := counted[s]
		if !ok {
			k = c.tok.Count(s)
			counted[s] = k
		}
		n += k
	}
	c.mu.Lock()
	if len(c.texts) > c.limit {
		clear(c.texts)
	}
	for s, k := range counted {
		c.texts[s] = k
	}
	c.mu.Unlock()
	return n
}

// Listing measures every tool of l and the rendering's frame. Only tools whose content the
// Counter has not seen are rendered and tokenized.
func (c *Counter) Listing(l *listing.Listing) Report {
	rep := Report{Tokenizer: c.tok.Name(), Render: c.r.name, Estimate: c.r.estimate, Source: c.source, Model: c.model,
		Tools: make([]ToolCost, len(l.Tools))}
	hashes := make([]listing.Hash, len(l.Tools))
	hashed := make([]bool, len(l.Tools))
	entries := make([]toolEntry, len(l.Tools))
	var miss []int
	c.mu.RLock()
	for i, t := range l.Tools {
		h, ok := c.byPtr[t]
		if ok {
			hashes[i], hashed[i] = h, true
			if e, ok := c.byHash[h]; ok {
				entries[i] = e
				continue
			}
		}
		miss = append(miss, i)
	}
	c.mu.RUnlock()
	if len(miss) > 0 {
		fresh := map[listing.Hash]toolEntry{}
		for _, i := range miss {
			if !hashed[i] {
				hashes[i] = listing.HashOf(l.Tools[i])
			}
			c.mu.RLock()
			e, ok := c.byHash[hashes[i]]
			c.mu.RUnlock()
			if !ok {
				if e, ok = fresh[hashes[i]]; !ok {
					e = c.measureTool(l.Tools[i])
					fresh[hashes[i]] = e
				}
			}
			entries[i] = e
		}
		c.mu.Lock()
		for h, e := range fresh {
			c.store(h, e)
		}
		c.mu.Unlock()
	}
	// Kept across listings (one counter serves every workspace of a server), bounded like the
	// other caches.
	c.mu.Lock()
	if c.byPtr == nil || len(c.byPtr)+len(l.Tools) > c.limit {
		c.byPtr = make(map[*listing.Value]listing.Hash, len(l.Tools))
	}
	for i, t := range l.Tools {
		c.byPtr[t] = hashes[i]
	}
	c.mu.Unlock()

	for i, e := range entries {
		rep.Tools[i] = ToolCost{Index: i, Name: e.name, Measure: e.m, Parts: e.parts}
		rep.Total.Tokens += e.m.Tokens
		rep.Total.Bytes += e.m.Bytes
	}
	f := c.r.frame(&c.o, l)
	rep.Overhead = Measure{Tokens: c.frameTokens(f), Bytes: f.bytes}
	rep.Total.Tokens += rep.Overhead.Tokens
	rep.Total.Bytes += rep.Overhead.Bytes
	rep.Cheapest, rep.Dearest = rank(rep.Tools, c.ranked)
	if c.whole {
		if text, fixed, ok := c.wholeText(l); ok {
			rep.Whole = &Measure{Tokens: fixed, Bytes: rep.Total.Bytes}
			for _, piece := range splitLong(text) {
				rep.Whole.Tokens += c.tok.Count(piece)
			}
		}
	}
	return rep
}

// wholeText joins the rendering's frame and tools into the one text a host would tokenize, and
// returns the tokens the frame adds outside that text.
func (c *Counter) wholeText(l *listing.Listing) (string, int, bool) {
	var b strings.Builder
	f := c.r.frame(&c.o, l)
	switch c.r.name {
	case "wire", "compact", "anthropic":
		// The frame's texts are the prefix, the separators and the suffix.
		b.WriteString(f.texts[0])
		for i, t := range l.Tools {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(c.r.tool(&c.o, t).texts[0])
		}
		if len(f.texts) > 1 {
			b.WriteString(f.texts[len(f.texts)-1])
		}
		return b.String(), f.fixed, true
	case "harmony":
		if len(l.Tools) == 0 {
			return "", 0, true
		}
		b.WriteString(harmonyPrefix)
		for _, t := range l.Tools {
			b.WriteString(c.r.tool(&c.o, t).texts[0])
		}
		b.WriteString(harmonySuffix)
		return b.String(), f.fixed + c.tok.Count("developer"), true
	}
	return "", 0, false
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

// ToolDelta is one tool's change against the baseline.
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
			before[t.Name] = t.Measure
		}
	}
	seen := map[string]bool{}
	for _, t := range r.Tools {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		b, ok := before[t.Name]
		switch {
		case !ok:
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "added", After: t.Measure, Change: t.Measure})
		case b != t.Measure:
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "changed", Before: b, After: t.Measure, Change: sub(t.Measure, b)})
		}
	}
	for _, t := range base.Tools {
		if !seen[t.Name] {
			seen[t.Name] = true
			d.Tools = append(d.Tools, ToolDelta{Name: t.Name, Status: "removed", Before: t.Measure, Change: sub(Measure{}, t.Measure)})
		}
	}
	r.Baseline = d
	return nil
}

func sub(a, b Measure) Measure { return Measure{Tokens: a.Tokens - b.Tokens, Bytes: a.Bytes - b.Bytes} }
