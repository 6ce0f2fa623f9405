package drafting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Dimension is one thing the rubric scores, 1 (poor) to 5 (excellent).
type Dimension struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Question string `json:"question"` // in our words, sent to the model and shown on the page
}

// Dimensions are the rubric's, in order: purpose, when to use and when not, behaviour and side
// effects, parameter meaning, brevity, completeness against its neighbours.
var Dimensions = []Dimension{
	{"purpose", "Purpose", "Does the description say plainly what the tool does and to what?"},
	{"usage", "When to use", "Does it say when to pick this tool, and when to pick another or none?"},
	{"behaviour", "Behaviour", "Does it say what the tool changes, what it returns, and its side effects and limits?"},
	{"parameters", "Parameters", "Does each parameter say what it means, its format and its allowed values?"},
	{"brevity", "Brevity", "Is every sentence needed, with nothing repeated from the schema and no filler?"},
	{"neighbours", "Against neighbours", "Could a reader tell this tool from the listing's similar tools by the text alone?"},
}

// DimScore is one dimension's score with its reason.
type DimScore struct {
	ID     string `json:"id"`
	Score  int    `json:"score"` // 1–5
	Reason string `json:"reason"`
}

// ToolRubric is one tool's rubric.
type ToolRubric struct {
	Tool string     `json:"tool"`
	Hash string     `json:"hash"` // the tool's content hash the score belongs to
	Dims []DimScore `json:"dimensions"`
	Mean float64    `json:"mean"`
	// Offline: scored from the findings alone, without a model.
	Offline bool `json:"offline"`
	Cached  bool `json:"cached,omitempty"`
	// Problem says why the model's score is missing (a failed or malformed answer); the offline
	// score stands in, labelled.
	Problem string `json:"problem,omitempty"`
}

// Rubric is a listing's rubric.
type Rubric struct {
	Tools []ToolRubric `json:"tools"`
	// Score is the listing's, weighted toward its worst tool: the mean of the tools' means,
	// pulled halfway to the lowest one (so one poor tool shows, as in Glama's TDQS).
	Score   float64 `json:"score"`
	Worst   string  `json:"worst"`   // the tool with the lowest mean
	Offline bool    `json:"offline"` // every tool scored offline
	Label   string  `json:"label"`   // how it was scored, in words ("by gpt-4o on endpoint x"; "offline, from the findings")
	Plan    Plan    `json:"plan"`
	Calls   int     `json:"calls"`
}

// Bounds of a rubric.
const (
	MaxReason          = 300      // characters of one dimension's reason
	rubricWorkers      = 4        // tools scored at once (the client bounds calls in flight too)
	maxRubricFindings  = 20       // findings shown in one rubric brief
	maxRubricNeighbour = 3        // neighbours shown in one rubric brief
	maxRubricDesc      = 8 << 10  // bytes of the tool's description in a brief
	maxRubricSchema    = 32 << 10 // bytes of its input schema in a brief
	maxNeighbourDesc   = 2000     // bytes of a neighbour's description in a brief
)

// RubricCache keeps tool rubrics by model, tool content hash and a hash of the neighbours its
// brief shows (their names and descriptions), so that only edited tools, and the tools whose
// neighbours were edited, are scored again. Bounded; safe for concurrent use.
//
// The neighbours are in the key because the cache is shared by every workspace of a server and
// a model's reasons may name what the brief showed: a tool that two listings share must not
// carry into one listing reasons written about the other's tools.
//
// tools indexes the (model, tool hash) pairs the entries hold, so that PlanRubric works out a
// tool's neighbours (a pass of the ranker over every tool) only for a tool scored before: a
// cold cache costs one hash per tool. It is an LRU of its own, touched with the entries; one it
// dropped first makes a plan count a call the cache would answer, never the other way.
type RubricCache struct {
	entries *rubricLRU
	tools   *lru.Cache[toolKey, struct{}]
}

// toolKey is a model's score of a tool (hash) among any neighbours.
type toolKey struct{ model, hash string }

type rubricLRU struct {
	c *lru.Cache[rubricKey, ToolRubric]
}

// rubricKey is a model's score of a tool (hash) seen among neighbours (near: neighbourHash).
type rubricKey struct{ model, hash, near string }

// rubricCacheBytes bounds the bytes of a rubric cache; n bounds its entries.
const rubricCacheBytes = 16 << 20

// rubricIndexBytes bounds the bytes of a rubric cache's index of tools: a few hundred bytes an
// entry, for the default 4096 entries.
const rubricIndexBytes = 4 << 20

// NewRubricCache keeps at most n tool rubrics (default 4096 when n ≤ 0).
func NewRubricCache(n int) *RubricCache {
	if n <= 0 {
		n = 4096
	}
	return &RubricCache{entries: &rubricLRU{c: lru.New[rubricKey, ToolRubric](lru.NewBudget(rubricCacheBytes), n)},
		tools: lru.New[toolKey, struct{}](lru.NewBudget(rubricIndexBytes), n)}
}

// Len is the number of tool rubrics kept.
func (rc *RubricCache) Len() int {
	if rc == nil {
		return 0
	}
	return rc.entries.c.Len()
}

func (rc *RubricCache) get(model, hash, near string) (ToolRubric, bool) {
	if rc == nil || model == "" {
		return ToolRubric{}, false
	}
	tr, ok := rc.entries.c.Get(rubricKey{model, hash, near})
	if ok {
		rc.tools.Get(toolKey{model, hash}) // keep the index's entry as fresh as the rubric's
	}
	return tr, ok
}

// scored says whether the cache may hold a rubric of the tool (hash) by model, among any
// neighbours.
func (rc *RubricCache) scored(model, hash string) bool {
	if rc == nil || model == "" {
		return false
	}
	_, ok := rc.tools.Get(toolKey{model, hash})
	return ok
}

func (rc *RubricCache) add(model, near string, tr ToolRubric) {
	if rc == nil || model == "" || tr.Offline {
		return
	}
	size := int64(len(tr.Tool) + len(tr.Hash) + 64)
	for _, d := range tr.Dims {
		size += int64(len(d.ID) + len(d.Reason) + 48)
	}
	rc.entries.c.Add(rubricKey{model, tr.Hash, near}, tr, size)
	rc.tools.Add(toolKey{model, tr.Hash}, struct{}{}, int64(len(model)+len(tr.Hash)))
}

// ModelKey is the name a rubric cache keeps a model's scores under: its endpoint's name and
// model ("" for none). PlanRubric takes it.
func ModelKey(m Model) string {
	if m == nil {
		return ""
	}
	ep := m.Endpoint()
	return ep.Name + "/" + ep.Model
}

// PlanRubric is the most calls a rubric makes (one per tool not in the cache). model is
// ModelKey of the model that will score ("": none, so no call).
func PlanRubric(l *listing.Listing, model string, cache *RubricCache) Plan {
	if l == nil || len(l.Tools) == 0 {
		return Plan{What: "no call: the listing has no tools"}
	}
	if model == "" {
		return Plan{What: "no call: scored offline from the findings"}
	}
	n, cached := 0, 0
	hashes := listing.ToolHashes(l)
	// Only a tool scored before has neighbours worth working out.
	near := neighbourHashes(l, nil, cache, func(i int) bool { return cache.scored(model, hashes[i].Hash) })
	for i, h := range hashes {
		if near[i] == "" {
			n++
		} else if _, ok := cache.get(model, h.Hash, near[i]); ok {
			cached++
		} else {
			n++
		}
	}
	what := countOf(n, "call") + " to score " + countOf(n, "tool")
	if cached > 0 {
		what += fmt.Sprintf(" (%d scored before and kept)", cached)
	}
	return Plan{Calls: n, What: what}
}

// ScoreRubric scores every tool with the model (c.Model nil: offline for all, labelled), using
// and filling cache (nil: none). A tool whose call fails or whose answer is malformed gets the
// offline score with Problem set. The error is the engine's, or ctx's when it ends first.
func ScoreRubric(ctx context.Context, c Caller, eng *analysis.Engine, l *listing.Listing, cache *RubricCache) (*Rubric, error) {
	if l == nil {
		return nil, errors.New("no listing to score")
	}
	res, err := eng.AnalyzeContext(ctx, l, nil)
	if err != nil {
		return nil, fmt.Errorf("analysing the listing for its rubric: %w", err)
	}
	model := ModelKey(c.Model)
	out := &Rubric{Tools: make([]ToolRubric, len(l.Tools)), Plan: PlanRubric(l, model, cache)}
	hashes := listing.ToolHashes(l)
	ranker := selection.NewRanker(l.Tools)
	near := neighbourHashes(l, ranker, cache, nil)
	var todo []int
	for i := range l.Tools {
		off := offlineScore(res.Tools[i], toolWide(res.Listing, res.Tools[i].Name))
		off.Hash = hashes[i].Hash
		out.Tools[i] = off
		if model == "" {
			continue
		}
		if tr, ok := cache.get(model, hashes[i].Hash, near[i]); ok {
			tr.Tool, tr.Cached = res.Tools[i].Name, true
			out.Tools[i] = tr
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) > 0 {
		s := &rubricScorer{c: c, l: l, res: res, ranker: ranker}
		calls := s.run(ctx, todo, out.Tools)
		out.Calls = int(calls)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scoring the rubric: %w", err)
		}
		for _, i := range todo {
			cache.add(model, near[i], out.Tools[i])
		}
	}
	out.summarise(c.Model)
	return out, nil
}

// rubricScorer asks the model for the rubric of each tool of a listing.
type rubricScorer struct {
	c      Caller
	l      *listing.Listing
	res    *analysis.Result
	ranker *selection.Ranker
	calls  atomic.Int32
}

// run scores the tools todo into tools (whose entries hold their offline scores), at most
// rubricWorkers at once, and returns the calls made.
func (s *rubricScorer) run(ctx context.Context, todo []int, tools []ToolRubric) int32 {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(rubricWorkers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				tools[i] = s.score(ctx, i, tools[i])
			}
		}()
	}
	for _, i := range todo {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return s.calls.Load()
}

// score asks for tool i's rubric; off is its offline score, which stands in, with the problem,
// when the call fails or the answer is not a full rubric.
func (s *rubricScorer) score(ctx context.Context, i int, off ToolRubric) ToolRubric {
	text, err := s.c.Ask(ctx, s.brief(i))
	if !errors.Is(err, ErrBudget) {
		s.calls.Add(1)
	}
	if err != nil {
		off.Problem = "the model's score is missing (" + clipToRunes(err.Error(), MaxReason) + "); this is the offline score from the findings"
		return off
	}
	dims, problem := readRubric(text)
	if problem != "" {
		off.Problem = "the model's answer is not a rubric (" + problem + "); this is the offline score from the findings"
		return off
	}
	return ToolRubric{Tool: off.Tool, Hash: off.Hash, Dims: dims, Mean: meanOf(dims)}
}

// brief is the rubric brief of tool i: the tool, its findings, its neighbours by the ranker,
// and the dimensions.
func (s *rubricScorer) brief(i int) Brief {
	t := s.l.Tools[i]
	tr := s.res.Tools[i]
	bt := BriefTool{Name: tr.Name, Description: clipToBytes(t.Get("description").String(), maxRubricDesc)}
	var findings []string
	if sc := t.Get("inputSchema"); sc != nil {
		if raw := listing.Marshal(sc, ""); len(raw) <= maxRubricSchema {
			bt.InputSchema = raw
		} else {
			findings = append(findings, fmt.Sprintf("the input schema (%d KB) is too large to show here", len(raw)>>10))
		}
	}
	for _, f := range append(slices.Clip(tr.Findings), toolWide(s.res.Listing, tr.Name)...) {
		if len(findings) == maxRubricFindings {
			break
		}
		findings = append(findings, clipToRunes(f.Rule+": "+f.Message, MaxReason))
	}
	b := Brief{Job: JobRubric, Tool: &bt, Findings: findings, Neighbours: rubricNeighbours(s.l, s.ranker, i)}
	for _, d := range Dimensions {
		b.Dimensions = append(b.Dimensions, BriefDimension{ID: d.ID, Question: d.Question})
	}
	return b
}

// neighbourHashes are the neighbourHash of each tool of l that need says to work out (nil:
// every one), by ranker (nil: one of l's tools, built only when a tool needs it); "" for the
// others, and all "" without a cache to look in.
func neighbourHashes(l *listing.Listing, ranker *selection.Ranker, cache *RubricCache, need func(int) bool) []string {
	near := make([]string, len(l.Tools))
	if cache == nil {
		return near
	}
	for i := range l.Tools {
		if need != nil && !need(i) {
			continue
		}
		if ranker == nil {
			ranker = selection.NewRanker(l.Tools)
		}
		near[i] = neighbourHash(rubricNeighbours(l, ranker, i))
	}
	return near
}

// neighbourHash is a hash of the neighbours a rubric brief shows, names and descriptions as
// sent: part of the rubric cache's key.
func neighbourHash(ns []BriefTool) string {
	h := sha256.New()
	for _, n := range ns {
		// Lengths first, so that no two lists write the same bytes.
		fmt.Fprintf(h, "%d:%s%d:%s", len(n.Name), n.Name, len(n.Description), n.Description)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rubricNeighbours are the tools the ranker scores highest for tool i's own name and
// description: the tools a model could take it for.
func rubricNeighbours(l *listing.Listing, ranker *selection.Ranker, i int) []BriefTool {
	t := l.Tools[i]
	scores := ranker.Scores(t.Get("name").String() + " " + clipToBytes(t.Get("description").String(), maxRubricDesc))
	// The best few by score, ties to the earlier tool: a pass that keeps them in order, since
	// sorting every tool with a score, for every tool of a listing of similar ones, was most
	// of a warm rubric plan.
	idx := make([]int, 0, maxRubricNeighbour+1)
	for j, sc := range scores {
		if j == i || sc <= 0 || (len(idx) == maxRubricNeighbour && sc <= scores[idx[len(idx)-1]]) {
			continue
		}
		at := len(idx)
		for at > 0 && scores[idx[at-1]] < sc {
			at--
		}
		idx = slices.Insert(idx, at, j)
		if len(idx) > maxRubricNeighbour {
			idx = idx[:maxRubricNeighbour]
		}
	}
	var out []BriefTool
	for _, j := range idx {
		n := l.Tools[j]
		out = append(out, BriefTool{Name: n.Get("name").String(), Description: clipToBytes(n.Get("description").String(), maxNeighbourDesc)})
	}
	return out
}

// readRubric reads a rubric answer: every dimension present with a whole score from 1 to 5,
// reasons cut to MaxReason characters. problem says what was wrong, in words.
func readRubric(text string) (dims []DimScore, problem string) {
	var ans RubricAnswer
	if err := Decode(text, &ans); err != nil {
		return nil, err.Error()
	}
	for _, d := range Dimensions {
		s, ok := ans.Scores[d.ID]
		if !ok {
			return nil, fmt.Sprintf("no score for %q", d.ID)
		}
		if s.Score < 1 || s.Score > 5 {
			return nil, fmt.Sprintf("the score for %q is %d, outside 1–5", d.ID, s.Score)
		}
		reason := strings.Join(strings.Fields(s.Reason), " ")
		if reason == "" {
			reason = "(the model gave no reason)"
		}
		dims = append(dims, DimScore{ID: d.ID, Score: s.Score, Reason: clipToRunes(reason, MaxReason)})
	}
	return dims, ""
}

func meanOf(dims []DimScore) float64 {
	if len(dims) == 0 {
		return 0
	}
	sum := 0
	for _, d := range dims {
		sum += d.Score
	}
	return round2(float64(sum) / float64(len(dims)))
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// summarise sets the listing's score, worst tool, offline flag and label. The score is the mean
// of the tools' means pulled halfway toward the worst tool's mean: (mean + worst) / 2. One poor
// tool in a good listing then costs the listing as much as it costs the person whose model
// picks it.
func (r *Rubric) summarise(m Model) {
	offline, cached := 0, 0
	sum, worst := 0.0, math.Inf(1)
	for _, t := range r.Tools {
		sum += t.Mean
		if t.Mean < worst {
			worst, r.Worst = t.Mean, t.Tool
		}
		if t.Offline {
			offline++
		}
		if t.Cached {
			cached++
		}
	}
	if n := len(r.Tools); n > 0 {
		r.Score = round2((sum/float64(n) + worst) / 2)
	}
	r.Offline = offline == len(r.Tools)
	switch {
	case m == nil:
		r.Label = "offline: from the findings, no endpoint configured"
	case offline == 0:
		ep := m.Endpoint()
		r.Label = fmt.Sprintf("scored by %s on endpoint %s", ep.Model, ep.Name)
	default:
		ep := m.Endpoint()
		r.Label = fmt.Sprintf("scored by %s on endpoint %s: %d of %d tools; %s offline from the findings, the model's score missing (see each tool's problem)",
			ep.Model, ep.Name, len(r.Tools)-offline, len(r.Tools), countOf(offline, "tool"))
	}
	if cached > 0 && m != nil {
		r.Label += fmt.Sprintf(" (%d from the cache)", cached)
	}
}
