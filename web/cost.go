package web

// The Cost tab: what the listing costs with the tokenizer, rendering and context window the
// page chose, the figures `workbench cost` prints for the same options. The choice is the
// page's (its signals, sent with each of its requests, and kept on its hub entry for the live
// stream): the shared patches carry the server's default, and a page that chose otherwise gets
// its own Cost region and tab counts in their place.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/views"
)

// costTopTools is how many of the dearest tools the tab breaks down part by part.
const costTopTools = 10

// costWindows are the context window presets the tab offers.
var costWindows = []int{8192, 32768, 128000, 200000, 1000000}

// costChoice is a page's choice in the Cost tab, as its signals carry it. The zero value is the
// server's default.
type costChoice struct {
	Tok    string  `json:"costtok"`
	Render string  `json:"costrender"`
	Window winSize `json:"costwin"`
	// Model and ToolChoice are the CLI's --model and --tool-choice: the openai and anthropic
	// estimates' constants ("" is the rendering's default).
	Model      string `json:"costmodel"`
	ToolChoice string `json:"costchoice"`
}

// winSize is the context window a page sends: a number, or the text of its number field (""
// is no window). Set tells a window sent from one left out (the server's default).
type winSize struct {
	N   int
	Set bool
}

func (w *winSize) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		if n != math.Trunc(n) || math.Abs(n) > 1e12 {
			return fmt.Errorf("context window %v: give a whole number of tokens", n)
		}
		*w = winSize{N: int(n), Set: true}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("context window: %w", err)
	}
	if s == "" {
		*w = winSize{Set: true}
		return nil
	}
	n2, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("context window %q: give a whole number of tokens", s)
	}
	*w = winSize{N: n2, Set: true}
	return nil
}

// costDefault is what a page counts with until it chooses: the server's engine.
func (s *Server) costDefault(st *state) costChoice {
	return costChoice{Tok: st.res.Cost.Tokenizer, Render: st.res.Cost.Render, Window: winSize{N: s.engine.Context(), Set: true}}
}

// resolve fills what the page left out with def and checks the rest: the choice is the zero
// value when it is the default.
func (ch costChoice) resolve(def costChoice, toks *cost.Tokenizers) (costChoice, error) {
	if ch.Tok == "" {
		ch.Tok = def.Tok
	}
	if ch.Render == "" {
		ch.Render = def.Render
	}
	if !ch.Window.Set {
		ch.Window = def.Window
	}
	if !slices.Contains(toks.Names(), ch.Tok) {
		return costChoice{}, failf(BadRequest, "unknown tokenizer %q: choose one of the list", ch.Tok)
	}
	if !slices.Contains(cost.RenderingNames(), ch.Render) {
		return costChoice{}, failf(BadRequest, "unknown rendering %q: choose one of the list", ch.Render)
	}
	if ch.Model != "" && !slices.Contains(cost.Models(ch.Render), ch.Model) {
		return costChoice{}, failf(BadRequest, "the %s rendering has no constants for model %q: choose one of the list", ch.Render, ch.Model)
	}
	if ch.ToolChoice != "" && (ch.Render != "anthropic" || !slices.Contains(cost.ToolChoices, ch.ToolChoice)) {
		return costChoice{}, failf(BadRequest, "tool choice %q: only the anthropic rendering takes one, of %v", ch.ToolChoice, cost.ToolChoices)
	}
	if ch.Window.N < 0 || ch.Window.N > views.MaxCostWindow {
		return costChoice{}, failf(BadRequest, "a context window of %d tokens: give 0 (none) to %d", ch.Window.N, views.MaxCostWindow)
	}
	if ch == def {
		return costChoice{}, nil
	}
	return ch, nil
}

// pageCost is a page's choice and what its Cost region and tab were last sent as, so that a
// live change re-sends them only when they differ.
type pageCost struct {
	choice costChoice
	region uint64 // hash of the region's HTML
	tokens int    // the tab's count
}

func (p *page) costChoice() costChoice {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cost.choice
}

func (p *page) setCostChoice(ch costChoice) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cost.choice != ch {
		p.cost = pageCost{choice: ch}
	}
}

// costSent records what the page was sent; it reports whether the region and the tab's count
// differ from what it had.
func (p *page) costSent(region uint64, tokens int) (newRegion, newTokens bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	newRegion, newTokens = p.cost.region != region, p.cost.tokens != tokens
	p.cost.region, p.cost.tokens = region, tokens
	return newRegion, newTokens
}

// costCounters are the counters of the choices pages made, one per tokenizer, rendering, model
// and tool choice, made when first chosen; they share one cache budget, the server's (Config
// CacheBytes).
type costCounters struct {
	mu     sync.Mutex
	budget *lru.Budget
	byKey  map[costChoice]*cost.Counter
	// toks are the tokenizers pages may choose by name (Config.Tokenizers).
	toks *cost.Tokenizers
}

func (cc *costCounters) get(ch costChoice) (*cost.Counter, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	k := ch
	k.Window = winSize{}
	if c := cc.byKey[k]; c != nil {
		return c, nil
	}
	if cc.byKey == nil {
		cc.byKey = map[costChoice]*cost.Counter{}
	}
	t, err := cc.toks.Get(ch.Tok)
	if err != nil {
		return nil, fmt.Errorf("cost tab: %w", err)
	}
	c, err := cost.NewCounter(t, ch.Render, cost.Options{Model: ch.Model, ToolChoice: ch.ToolChoice, Cache: cc.budget})
	if err != nil {
		return nil, fmt.Errorf("cost tab: %w", err)
	}
	cc.byKey[k] = c
	return c, nil
}

// costModel is the Cost region with the server's default choice, as every page's shared
// patches carry it.
func (s *Server) costModel(res, base *analysis.Result) views.Cost {
	c := s.costView(res.Cost, base.Cost.Total, s.engine.Context())
	c.Options.Tokenizer, c.Options.Render, c.Options.Window = res.Cost.Tokenizer, res.Cost.Render, s.engine.Context()
	return c
}

// costFor is the Cost region of st counted with the page's choice (resolved; zero: the default).
func (s *Server) costFor(st *state, ch costChoice) (views.Cost, error) {
	if ch == (costChoice{}) {
		return st.cost, nil
	}
	def := s.costDefault(st)
	if ch.Tok == def.Tok && ch.Render == def.Render && ch.Model == "" && ch.ToolChoice == "" {
		// Only the window differs: the engine's counts serve.
		return s.costView(st.res.Cost, cost.Measure{Tokens: st.cost.BaselineTokens, Bytes: st.cost.BaselineBytes}, ch.Window.N), nil
	}
	c, err := s.costs.get(ch)
	if err != nil {
		return views.Cost{}, err
	}
	// Each tool is counted once per content; after an edit only the edited tool is new.
	rep, base := c.Listing(st.ws.Listing), c.Listing(st.ws.Baseline)
	return s.costView(rep, base.Total, ch.Window.N), nil
}

// costView is the package's costView offering the server's tokenizers (Config.Tokenizers).
func (s *Server) costView(rep cost.Report, base cost.Measure, window int) views.Cost {
	c := costView(rep, base, window)
	c.Options.Tokenizers = s.costs.toks.Names()
	return c
}

// costView makes the region's model of a report: the totals and frame, each part summed over
// the tools, the dearest tools part by part, and a bar per tool (the first maxCostBars; the
// rest summed up in one line) stacked by part, widths relative to the largest tool.
func costView(rep cost.Report, base cost.Measure, window int) views.Cost {
	c := views.Cost{Tokenizer: rep.Tokenizer, Render: rep.Render, Estimate: rep.Estimate, Source: rep.Source, Model: rep.Model,
		TotalTokens: rep.Total.Tokens, TotalBytes: rep.Total.Bytes, BaselineTokens: base.Tokens, BaselineBytes: base.Bytes,
		OverheadTokens: rep.Overhead.Tokens, OverheadBytes: rep.Overhead.Bytes, OneText: rep.OneText, Boundary: rep.Boundary,
		Window: window, Options: costOptions()}
	if window > 0 {
		// The fraction first, as cost.Report.SetContext computes it, so that a share on a
		// rounding boundary (31,010 of 200,000) shows as the CLI prints it.
		c.Share = 100 * (float64(c.TotalTokens) / float64(window))
	}
	sums := map[string]*views.CostPart{}
	top := 1
	for _, t := range rep.Tools {
		top = max(top, t.Tokens)
		for _, p := range t.Parts {
			if sums[p.Name] == nil {
				sums[p.Name] = &views.CostPart{Name: p.Name}
			}
			sums[p.Name].Tokens += p.Tokens
			sums[p.Name].Bytes += p.Bytes
		}
	}
	var names []string
	for _, n := range cost.PartNames() {
		if p := sums[n]; p != nil {
			names = append(names, n)
			c.Parts = append(c.Parts, *p)
		}
	}
	c.Parts = append(c.Parts, views.CostPart{Name: "frame", Tokens: rep.Overhead.Tokens, Bytes: rep.Overhead.Bytes})
	for i := range c.Parts {
		if c.TotalTokens > 0 {
			c.Parts[i].Share = 100 * float64(c.Parts[i].Tokens) / float64(c.TotalTokens)
		}
	}
	n := min(len(rep.Tools), maxCostBars)
	c.Bars = make([]views.CostBar, n)
	for i, t := range rep.Tools[:n] {
		c.Bars[i] = costBar(i, t, top, window, nil)
	}
	for _, t := range rep.Tools[n:] {
		c.MoreTools++
		c.MoreTokens += t.Tokens
	}
	for _, r := range rep.Cheapest {
		c.Cheapest = append(c.Cheapest, views.CostBar{Index: r.Index, Name: r.Name, Tokens: r.Tokens})
	}
	idx := make([]int, len(rep.Tools))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rep.Tools[b].Tokens - rep.Tools[a].Tokens })
	for _, i := range idx[:min(len(idx), costTopTools)] {
		c.Top = append(c.Top, costBar(i, rep.Tools[i], top, window, names))
	}
	return c
}

// costBar is one tool's bar: a segment per part that costs tokens (syntax can be negative when
// parts merge across their boundaries; the segments are scaled to the tool's width), and with
// columns, its parts in that order for the table of the dearest tools.
func costBar(i int, t cost.ToolCost, top, window int, columns []string) views.CostBar {
	b := views.CostBar{Index: i, Name: t.Name, Tokens: t.Tokens, Bytes: t.Bytes,
		Width: math.Round(1000*float64(max(t.Tokens, 0))/float64(top)) / 10}
	if window > 0 {
		b.Share = 100 * (float64(t.Tokens) / float64(window))
	}
	if columns != nil {
		for _, n := range columns {
			p := views.CostPart{Name: n}
			for _, q := range t.Parts {
				if q.Name == n {
					p.Tokens, p.Bytes = q.Tokens, q.Bytes
				}
			}
			b.Parts = append(b.Parts, p)
		}
		return b
	}
	pos := 0
	for _, p := range t.Parts {
		pos += max(p.Tokens, 0)
	}
	x := 0.0
	for _, p := range t.Parts {
		if p.Tokens <= 0 || pos == 0 {
			continue
		}
		w := b.Width * float64(p.Tokens) / float64(pos)
		b.Segs = append(b.Segs, views.CostSeg{Part: p.Name, X: x, W: w})
		x += w
	}
	return b
}

// costOptions are the choices of `workbench cost` the tab offers (defaults are the signals').
func costOptions() views.CostOptions {
	o := views.CostOptions{Tokenizers: cost.Encodings, Windows: costWindows, OpenAIModels: cost.Models("openai"),
		AnthropicModels: cost.Models("anthropic"), ToolChoices: cost.ToolChoices}
	for _, r := range cost.Renderings() {
		o.Renders = append(o.Renders, views.CostRendering{Name: r.Name, Summary: r.Summary})
	}
	return o
}

// costRoutes are the Cost tab's: its region with the page's choice, and the report to download.
func (s *Server) costRoutes(w *echo.Group) {
	w.GET("/cost", s.costPanel)
	w.GET("/cost/report", s.costReport)
}

// costPanel answers a change of the page's choice: the page's hub entry keeps it for the live
// stream, and the page gets its Cost region and tab counted with it.
func (s *Server) costPanel(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	st, err := s.currentCtx(c.Request().Context(), ws)
	if err != nil {
		return err
	}
	ch, err := sg.costChoice.resolve(s.costDefault(st), s.costs.toks)
	if err != nil {
		return err
	}
	p := s.hub.lookup(ws.ID, sg.PID)
	if p != nil {
		p.setCostChoice(ch)
	}
	return s.sendCost(newSSE(c), p, st, ch, true)
}

// sendCost sends a page its Cost region and its tab row counted with ch, each when it differs
// from what the page was sent (always when force).
func (s *Server) sendCost(sse *datastar.ServerSentEventGenerator, p *page, st *state, ch costChoice, force bool) error {
	m, err := s.costFor(st, ch)
	if err != nil {
		return err
	}
	html := render(sse.Context(), views.CostRegion(m))
	h := fnv.New64a()
	h.Write([]byte(html))
	region, tokens := true, true
	if p != nil {
		region, tokens = p.costSent(h.Sum64(), m.TotalTokens)
	}
	if force || region {
		if err := sse.PatchElements(html); err != nil {
			return fmt.Errorf("send the cost region: %w", err)
		}
	}
	if force || tokens {
		f := st.findings
		return sse.PatchElementTempl(views.PanelTabs(f.Errors, f.Warnings, m.TotalTokens, st.tasks.Clear, st.tasks.Total))
	}
	return nil
}

// sendShared sends a page the shared patches of a change. A page that chose its own counting
// (ch not zero) gets its own Cost region and tab row instead of the shared ones; st gives the
// state the change left (called only then).
func (s *Server) sendShared(sse *datastar.ServerSentEventGenerator, p *page, ch costChoice, ps []Patch, changed bool, st func() (*state, error)) error {
	if ch == (costChoice{}) {
		return sendPatches(sse, ps)
	}
	tabs := false
	kept := make([]Patch, 0, len(ps))
	for _, x := range ps {
		switch r := patchRoot(x); {
		case r == "cost" || r == "cost-head" || strings.HasPrefix(r, "cost-bar-"):
			changed = true
			continue
		case r == "panel-tabs":
			tabs = true
			continue
		}
		kept = append(kept, x)
	}
	if err := sendPatches(sse, kept); err != nil {
		return err
	}
	if !changed && !tabs {
		return nil
	}
	now, err := st()
	if err != nil {
		return err
	}
	return s.sendCost(sse, p, now, ch, false)
}

// costAfterFull sends a page that chose its own counting its Cost region and tab again, after
// sendFull sent every region as counted by default.
func (s *Server) costAfterFull(sse *datastar.ServerSentEventGenerator, p *page, ch costChoice, ws Workspace) error {
	if ch == (costChoice{}) {
		return nil
	}
	st, err := s.currentCtx(sse.Context(), ws)
	if err != nil {
		return err
	}
	return s.sendCost(sse, p, st, ch, true)
}

// costAfterAnswerFull is costAfterFull for an answer that sent every region to the page that
// asked (its signals carry its choice).
func (s *Server) costAfterAnswerFull(sse *datastar.ServerSentEventGenerator, sg signals, ws Workspace) error {
	st, err := s.currentCtx(sse.Context(), ws)
	if err != nil {
		return err
	}
	p, ch := s.answerCost(ws.ID, sg, st)
	return s.costAfterFull(sse, p, ch, ws)
}

// answerCost is the choice of the page that made a change, from the signals it sent with it
// (a choice the server does not know counts as the default); its hub entry keeps it.
func (s *Server) answerCost(id string, sg signals, st *state) (*page, costChoice) {
	ch, err := sg.costChoice.resolve(s.costDefault(st), s.costs.toks)
	if err != nil {
		ch = costChoice{}
	}
	p := s.hub.lookup(id, sg.PID)
	if p != nil {
		p.setCostChoice(ch)
	}
	return p, ch
}

var patchRootRe = regexp.MustCompile(`^<[a-z]+ id="([^"]+)"`)

// patchRoot is the id of a patch's root element ("" when it has none, or a selector).
func patchRoot(p Patch) string {
	if p.Selector != "" {
		return ""
	}
	if m := patchRootRe.FindStringSubmatch(p.HTML); m != nil {
		return m[1]
	}
	return ""
}

// costReport downloads what `workbench cost` prints for the workspace's listing, with its
// baseline the listing as imported: --format json, or text with --parts.
func (s *Server) costReport(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	q := c.QueryParam
	tok, render, model, choice := q("tokenizer"), q("render"), q("model"), q("tool-choice")
	if tok == "" {
		tok = "o200k_base"
	}
	if render == "" {
		render = "compact"
	}
	window := 0
	if v := q("context"); v != "" {
		if window, err = strconv.Atoi(v); err != nil || window < 0 || window > views.MaxCostWindow {
			return failf(BadRequest, "context=%q: give a context window of 0 (none) to %d tokens", v, views.MaxCostWindow)
		}
	}
	format := q("format")
	if format != "json" && format != "text" {
		return failf(BadRequest, "format=%q: use json or text", format)
	}
	// A name of the server's tokenizers: a tokenizer.json path would name a file of the server's.
	t, err := s.costs.toks.Get(tok)
	if err != nil {
		return fail(BadRequest, err.Error())
	}
	counter, err := cost.NewCounter(t, render, cost.Options{Model: model, ToolChoice: choice})
	if err != nil {
		return fail(BadRequest, err.Error())
	}
	ctx := c.Request().Context()
	rep, err := counter.ListingContext(ctx, ws.Listing)
	if err != nil {
		return fmt.Errorf("cost report: %w", err)
	}
	rep.SetContext(window)
	brep, err := counter.ListingContext(ctx, ws.Baseline)
	if err != nil {
		return fmt.Errorf("cost report: %w", err)
	}
	if err := rep.Compare(brep); err != nil {
		return fmt.Errorf("cost report: %w", err)
	}
	var b bytes.Buffer
	name, ctype := "cost.txt", "text/plain; charset=utf-8"
	if format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("cost report: %w", err)
		}
		name, ctype = "cost.json", "application/json"
	} else {
		cost.WriteText(&b, rep, true)
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, ctype, b.Bytes())
}
