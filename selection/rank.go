package selection

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
	"weak"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

// Ambiguous is the reference's threshold: a runner-up scoring at least this share of the winner
// means the definitions do not separate the two.
const Ambiguous = 0.8

// Status is the ranker's verdict on one task.
type Status string

// The verdicts.
const (
	Clear     Status = "clear"     // the expected tool wins, clearly ahead of the next
	Close     Status = "ambiguous" // the expected tool wins, but the next (or a rejected tool) is within Ambiguous
	Wrong     Status = "wrong"     // another tool wins
	Rejected  Status = "rejected"  // a tool the task rejects wins: worse than wrong
	Missing   Status = "missing"   // the expected tool is not in the listing
	NoWords   Status = "no-words"  // no word of the task appears in any definition
	NoneClear Status = "none"      // no tool should be called, and no definition shares a word with the task
	NoneRisk  Status = "none-risk" // no tool should be called, but a tool shares words with the task
)

// Ranker ranks the tools of one listing for any number of tasks. Build it once per listing.
type Ranker struct {
	names []string
	nameT []map[string]bool
	body  []map[string]bool
	words map[string]*wordEntry
	cache *Cache
	// order is each tool's place in the listing sorted by name, then position: how the
	// reference breaks a tie, and most tools tie at zero for any task.
	order []int32
	// byName lists the tools in that order; firstNamed is the first tool of each name in it.
	byName     []int
	firstNamed map[string]int
}

// wordEntry is what the ranker knows of one word: how many tools have it, its weight, and the
// tools that have it in their name (counted three times) or only in their body (once).
type wordEntry struct {
	df         int
	weight     float64
	name, body []int
}

// toolWords are the words the ranker reads in one tool.
type toolWords struct {
	name        string
	nameT, body map[string]bool
	bytes       int64 // an estimate of what the sets keep reachable
}

func wordsOf(t *listing.Value) *toolWords {
	name := t.Get("name").Str
	tw := &toolWords{name: name, nameT: words.Content(name), body: bodyWords(t)}
	tw.bytes = int64(len(name) + 128)
	for w := range tw.nameT {
		tw.bytes += int64(len(w) + 48)
	}
	for w := range tw.body {
		tw.bytes += int64(len(w) + 48)
	}
	return tw
}

// Cache keeps the word sets of tools and tasks between rankings, so that after an edit only the
// edited tool is read again. Tool values are never modified once parsed (an edit builds new
// ones), so a tool's identity is its pointer (held weakly: the cache keeps no listing alive).
// One cache can serve many listings; it forgets the least recently used entries past its limit
// of entries or its budget of bytes. It is safe for concurrent use.
type Cache struct {
	tools *lru.Cache[weak.Pointer[listing.Value], *toolWords]
	tasks *lru.Cache[string, []string]

	mu sync.Mutex
	// memos are the latest rankings (most recent first), from which Rank re-judges only the
	// tasks that an edit can have changed; memoBytes are their sizes, summed.
	memos     []*rankMemo
	memoBytes int64
}

const (
	// maxMemos bounds the rankings a Cache remembers: about one per workspace being edited at
	// once.
	maxMemos = 16
	// maxMemoBytes bounds their bytes: 16 MiB.
	maxMemoBytes = 16 << 20
)

// rankMemo is one ranking: the word sets it read and its verdicts. It is never modified once
// stored.
type rankMemo struct {
	tools     []*toolWords
	tasks     []Task
	taskWords [][]string // each task's content words (sorted), whether or not any tool has them
	explain   bool
	verdicts  []Verdict
	size      int64
}

// memoSize estimates the bytes a ranking keeps reachable, its tools' word sets included (the
// tools cache may have dropped them).
func memoSize(m *rankMemo) int64 {
	n := int64(8*len(m.tools) + 256)
	seen := make(map[*toolWords]bool, len(m.tools))
	for _, t := range m.tools {
		if !seen[t] {
			seen[t] = true
			n += t.size()
		}
	}
	for i, t := range m.tasks {
		n += int64(len(t.Task) + len(t.Expected()) + 128)
		for _, w := range m.taskWords[i] {
			n += int64(len(w) + 16)
		}
	}
	for _, v := range m.verdicts {
		n += int64(len(v.Detail) + 256)
		for _, sc := range v.Top {
			n += int64(len(sc.Name) + 64 + 48*len(sc.Words))
		}
	}
	return n
}

// size estimates the bytes of a tool's word sets.
func (t *toolWords) size() int64 { return t.bytes }

// NewCache returns an empty cache that holds up to limit tools and limit tasks (0: 16384), in
// a budget of its own of lru.DefaultBytes (64 MiB).
func NewCache(limit int) *Cache { return NewCacheBudget(limit, nil) }

// NewCacheBudget is NewCache with the byte budget b, which other caches may share (nil: one of
// its own). The remembered rankings are bounded apart, by maxMemos and maxMemoBytes.
func NewCacheBudget(limit int, b *lru.Budget) *Cache {
	if limit <= 0 {
		limit = 16384
	}
	if b == nil {
		b = lru.NewBudget(0)
	}
	return &Cache{tools: lru.New[weak.Pointer[listing.Value], *toolWords](b, limit), tasks: lru.New[string, []string](b, limit)}
}

// toolWords returns the word sets of tools, reading only the tools it has not seen.
func (c *Cache) toolWords(tools []*listing.Value) []*toolWords {
	tw := make([]*toolWords, len(tools))
	for i, t := range tools {
		wp := weak.Make(t)
		w, ok := c.tools.Get(wp)
		if !ok {
			w = wordsOf(t)
			c.tools.Add(wp, w, w.size())
		}
		tw[i] = w
	}
	return tw
}

// Rank is selection.Rank with the cache's word sets. After an edit it judges again only the
// tasks the edit can have changed, and copies the other verdicts from the previous ranking of
// the same tasks: a task's scores read only the weights and postings of its own words, and a
// word's weight and postings change only when some tool gains or loses it. The shortcut is
// taken only when the tools keep their number and names (names order tied scores), so every
// verdict equals what Rank would return; the verdicts share their Scored values with earlier
// results and are to be read, not modified.
//
// It stops between tasks when ctx is done, and returns ctx's error, wrapped.
func (c *Cache) Rank(ctx context.Context, l *listing.Listing, tasks []Task, explain bool) ([]Verdict, error) {
	tw := c.toolWords(l.Tools)
	out := make([]Verdict, len(tasks))
	taskWords := make([][]string, len(tasks))
	memo := c.memo(tw, tasks, explain)
	base := memo // the ranking this one replaces
	var changed map[string]bool
	if memo != nil {
		var ok bool
		if changed, ok = changedWords(memo.tools, tw); !ok {
			memo = nil
		}
	}
	var r *Ranker
	var sc *scratch
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("ranking: %w", err)
		}
		if memo != nil {
			taskWords[i] = memo.taskWords[i]
			if !touches(taskWords[i], changed) {
				out[i] = memo.verdicts[i]
				out[i].Task = t
				continue
			}
		} else {
			taskWords[i] = c.taskContent(t.Task)
		}
		if r == nil {
			r = newRanker(tw)
			r.cache = c
		}
		if sc == nil {
			sc = r.newScratch()
		}
		out[i] = r.judge(i+1, t, r.filter(taskWords[i]), explain, sc)
	}
	c.remember(base, &rankMemo{tools: tw, tasks: append([]Task(nil), tasks...), taskWords: taskWords, explain: explain,
		verdicts: append([]Verdict(nil), out...)})
	return out, nil
}

// memo returns the remembered ranking of the same tasks over as many tools that shares the
// most word sets with tw, or nil.
func (c *Cache) memo(tw []*toolWords, tasks []Task, explain bool) *rankMemo {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *rankMemo
	bestSame := -1
	for _, m := range c.memos {
		if m.explain != explain || len(m.tools) != len(tw) || !sameTasks(m.tasks, tasks) {
			continue
		}
		same := 0
		for i, w := range m.tools {
			if w == tw[i] {
				same++
			}
		}
		if same > bestSame {
			best, bestSame = m, same
		}
	}
	return best
}

// remember stores m as the latest ranking, in place of base (the ranking it started from, or
// nil), so that listings edited side by side with the same tasks each keep theirs. A ranking
// larger than maxMemoBytes is not kept.
func (c *Cache) remember(base, m *rankMemo) {
	m.size = memoSize(m)
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := make([]*rankMemo, 0, maxMemos)
	total := int64(0)
	if m.size <= maxMemoBytes {
		keep, total = append(keep, m), m.size
	}
	for _, o := range c.memos {
		if o != base && len(keep) < maxMemos && total+o.size <= maxMemoBytes {
			keep = append(keep, o)
			total += o.size
		}
	}
	c.memos, c.memoBytes = keep, total
}

// Bytes returns the bytes the cache is accounted at: its word sets and its rankings.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools.Bytes() + c.tasks.Bytes() + c.memoBytes
}

// sameTasks reports whether two task lists ask the same of the ranker: the same texts expecting
// the same tools and rejecting the same, in the same order.
func sameTasks(a, b []Task) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Task != b[i].Task || (a[i].Expect == nil) != (b[i].Expect == nil) || a[i].Expected() != b[i].Expected() ||
			!slices.Equal(a[i].AnyOf, b[i].AnyOf) || !slices.Equal(a[i].Reject, b[i].Reject) {
			return false
		}
	}
	return true
}

// changedWords returns the words that some tool has gained or lost between two word sets of the
// same tools, or false when a tool's name changed (then every verdict may change).
func changedWords(old, cur []*toolWords) (map[string]bool, bool) {
	changed := map[string]bool{}
	for i, o := range old {
		w := cur[i]
		if o == w {
			continue
		}
		if o.name != w.name {
			return nil, false
		}
		for x := range o.body {
			if !w.body[x] {
				changed[x] = true
			}
		}
		for x := range w.body {
			if !o.body[x] {
				changed[x] = true
			}
		}
	}
	return changed, true
}

func touches(ws []string, changed map[string]bool) bool {
	if len(changed) == 0 {
		return false
	}
	for _, w := range ws {
		if changed[w] {
			return true
		}
	}
	return false
}

func (c *Cache) taskContent(task string) []string {
	ws, ok := c.tasks.Get(task)
	if !ok {
		ws = sortedContent(task)
		size := int64(2 * len(task)) // the key, and the words (slices of it or copies)
		for range ws {
			size += 16
		}
		c.tasks.Add(task, ws, size)
	}
	return ws
}

func sortedContent(task string) []string {
	c := words.Content(task)
	ws := make([]string, 0, len(c))
	for w := range c {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	return ws
}

// NewRanker indexes the words of tools: name words count three times, then the title,
// description, parameter names, parameter descriptions and string enum values.
func NewRanker(tools []*listing.Value) *Ranker {
	tw := make([]*toolWords, len(tools))
	for i, t := range tools {
		tw[i] = wordsOf(t)
	}
	return newRanker(tw)
}

func newRanker(tw []*toolWords) *Ranker {
	n := len(tw)
	r := &Ranker{names: make([]string, n), nameT: make([]map[string]bool, n), body: make([]map[string]bool, n),
		words: map[string]*wordEntry{}}
	entry := func(w string) *wordEntry {
		e := r.words[w]
		if e == nil {
			e = &wordEntry{}
			r.words[w] = e
		}
		e.df++
		return e
	}
	for i, t := range tw {
		r.names[i], r.nameT[i], r.body[i] = t.name, t.nameT, t.body
		for w := range r.nameT[i] {
			e := entry(w)
			e.name = append(e.name, i)
		}
		for w := range r.body[i] {
			if !r.nameT[i][w] {
				e := entry(w)
				e.body = append(e.body, i)
			}
		}
	}
	for _, e := range r.words {
		e.weight = log(1 + float64(n)/float64(e.df))
	}
	r.byName = make([]int, n)
	for i := range r.byName {
		r.byName[i] = i
	}
	slices.SortFunc(r.byName, func(a, b int) int {
		if c := strings.Compare(r.names[a], r.names[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	r.order = make([]int32, n)
	r.firstNamed = make(map[string]int, n)
	for k, i := range r.byName {
		r.order[i] = int32(k)
		if _, ok := r.firstNamed[r.names[i]]; !ok {
			r.firstNamed[r.names[i]] = i
		}
	}
	return r
}

func text(v *listing.Value) string {
	if v.IsString() {
		return v.Str
	}
	return ""
}

// addWords adds the content words of s (words.Content) to dst, without building a set for s.
func addWords(dst map[string]bool, s string) {
	words.Each(s, func(w string) {
		if !words.Stop[w] {
			dst[w] = true
		}
	})
}

// bodyWords follows the reference's select(): it reads what Python's iteration would read, so
// an enum given as a string contributes its characters and one given as an object its keys.
func bodyWords(t *listing.Value) map[string]bool { return bodyWordsDesc(t, text(t.Get("description"))) }

// bodyWordsDesc is bodyWords with desc in place of the tool's description: the damage test
// reads a tool again with its description blanked, made generic or cut short.
func bodyWordsDesc(t *listing.Value, desc string) map[string]bool {
	body := map[string]bool{}
	addWords(body, text(t.Get("title")))
	addWords(body, desc)
	props := t.Get("inputSchema").Get("properties")
	if !props.IsObject() {
		return body
	}
	for _, m := range props.Fields() {
		addWords(body, m.Key)
		v := m.Value
		if !v.IsObject() {
			continue
		}
		addWords(body, text(v.Get("description")))
		enum := v.Get("enum")
		if !enum.Truthy() {
			continue
		}
		switch enum.Kind {
		case listing.Array:
			for _, c := range enum.Items {
				addWords(body, text(c))
			}
		case listing.String:
			for _, c := range enum.Str {
				addWords(body, string(c))
			}
		case listing.Object:
			for _, f := range enum.Fields() {
				addWords(body, f.Key)
			}
		}
	}
	return body
}

// Scored is one tool's score for a task.
type Scored struct {
	Tool  int     `json:"tool"`
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	// Words are the task's words that scored for this tool, in the order summed.
	Words []WordScore `json:"words,omitempty"`
}

// WordScore is one word's part of a score.
type WordScore struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
	InName bool    `json:"inName"`
}

// Scores returns every tool's score for task, in listing order.
//
// Floating-point addition is not associative, so the order of the terms can move a sum by one
// unit in the last place, and the reference's order follows Python's set iteration (see
// ../shared/reference/README.md). Here every tool's terms are added in ascending order of value,
// so two tools whose words weigh the same get exactly equal scores and an exact tie stays a tie:
// the task's (word, name-or-body) terms are sorted by value once, and each tool takes its terms
// in that order.
func (r *Ranker) Scores(task string) []float64 { return r.scores(r.taskWords(task)) }

// term is one word's part of a task's scores: its value for each tool in tools.
type term struct {
	tools []int
	value float64
}

func (r *Ranker) scores(ws []string) []float64 {
	sc := r.newScratch()
	r.scoresInto(ws, sc)
	return sc.s
}

// scratch is what judging a task needs besides the ranker: a score per tool (all zero between
// tasks), the tools the task's words reached, and room for the terms. One ranking reuses it
// for all its tasks.
type scratch struct {
	s       []float64
	touched []int
	terms   []term
}

func (r *Ranker) newScratch() *scratch { return &scratch{s: make([]float64, len(r.names))} }

// scoresInto adds the task's terms into sc.s and lists in sc.touched the tools they reach, which
// are exactly the tools with a score above zero (every weight is positive).
func (r *Ranker) scoresInto(ws []string, sc *scratch) {
	s, touched := sc.s, sc.touched[:0]
	terms := sc.terms[:0]
	for _, w := range ws {
		e := r.words[w]
		terms = append(terms, term{e.body, e.weight}, term{e.name, 3 * e.weight})
	}
	// Terms of equal value may come in either order: the sums see the same sequence of values.
	slices.SortFunc(terms, func(a, b term) int { return cmp.Compare(a.value, b.value) })
	for _, t := range terms {
		for _, i := range t.tools {
			if s[i] == 0 {
				touched = append(touched, i)
			}
			s[i] += t.value
		}
	}
	sc.touched, sc.terms = touched, terms
}

// reset zeroes the scores of the last task.
func (sc *scratch) reset() {
	for _, i := range sc.touched {
		sc.s[i] = 0
	}
	sc.touched = sc.touched[:0]
}

func (r *Ranker) taskWords(task string) []string {
	if r.cache != nil {
		return r.filter(r.cache.taskContent(task))
	}
	return r.filter(sortedContent(task))
}

// filter keeps the words of a task (sorted content words) that some tool has.
func (r *Ranker) filter(all []string) []string {
	ws := make([]string, 0, len(all))
	for _, w := range all {
		if _, ok := r.words[w]; ok {
			ws = append(ws, w)
		}
	}
	return ws
}

func (r *Ranker) explain(ws []string, i int) []WordScore {
	var out []WordScore
	for _, w := range ws {
		switch {
		case r.nameT[i][w]:
			out = append(out, WordScore{w, 3 * r.words[w].weight, true})
		case r.body[i][w]:
			out = append(out, WordScore{w, r.words[w].weight, false})
		}
	}
	return out
}

// before orders scores as the reference sorts them: higher score first, then name, then listing
// order.
func (r *Ranker) before(s []float64, a, b int) bool {
	if s[a] != s[b] {
		return s[a] > s[b]
	}
	return r.order[a] < r.order[b]
}

// Verdict is the ranker's answer for one task.
type Verdict struct {
	N        int     `json:"n"` // 1-based position in the task file
	Task     Task    `json:"task"`
	Status   Status  `json:"status"`
	Winner   *Scored `json:"winner,omitempty"`
	Expected *Scored `json:"expected,omitempty"`
	Runner   *Scored `json:"runner,omitempty"` // the best tool other than the expected one(s)
	// Absent are the answers of a set task that are not in the listing, when others are.
	Absent []string `json:"absent,omitempty"`
	// Top are the two best tools with the words that scored for them: why a tool won.
	Top []Scored `json:"top"`
	// Level and Detail are the reference's line for the task (Level is PASS, WARN or FAIL).
	Level  string `json:"level"`
	Detail string `json:"detail"`
}

// Margin is the winner's lead over the runner-up as a share of the winner's score (0 when
// there is no winner).
func (v Verdict) Margin() float64 {
	if v.Winner == nil || v.Winner.Score == 0 {
		return 0
	}
	next := 0.0
	if (v.Status == Wrong || v.Status == Rejected) && v.Expected != nil {
		next = v.Expected.Score
	} else if v.Runner != nil {
		next = v.Runner.Score
	}
	return (v.Winner.Score - next) / v.Winner.Score
}

// Line formats the reference's report line for the verdict.
func (v Verdict) Line() string { return fmt.Sprintf("%s select-%d: %s", v.Level, v.N, v.Detail) }

func (r *Ranker) scored(s []float64, ws []string, i int, explain bool) *Scored {
	if i < 0 {
		return nil
	}
	sc := &Scored{Tool: i, Name: r.names[i], Score: s[i]}
	if explain {
		sc.Words = r.explain(ws, i)
	}
	return sc
}

// Judge ranks the tools for one task (n is its 1-based position) and gives the verdict; with
// explain, the scored tools carry the words that scored for them.
func (r *Ranker) Judge(n int, t Task, explain bool) Verdict {
	return r.judge(n, t, r.taskWords(t.Task), explain, nil)
}

// judge is Judge with the task's words that some tool has (sorted).
// sc may be nil; when given, its scores are zero and stay so.
func (r *Ranker) judge(n int, t Task, ws []string, explain bool, sc *scratch) Verdict {
	if sc == nil {
		sc = r.newScratch()
	}
	r.scoresInto(ws, sc)
	defer sc.reset()
	s := sc.s
	v := Verdict{N: n, Task: t}
	if len(s) == 0 {
		v.Status, v.Level, v.Detail = Missing, "FAIL", missingDetail(t.Answers())
		return v
	}
	at := r.find(s, sc.touched, t)
	v.Winner = r.scored(s, ws, at.top, explain)
	v.Top = []Scored{*v.Winner}
	if at.second >= 0 {
		v.Top = append(v.Top, *r.scored(s, ws, at.second, explain))
	}
	shown := t.Task
	if utf8.RuneCountInString(shown) > 50 {
		shown = string([]rune(shown)[:47]) + "..."
	}
	topScore := s[at.top]
	if t.Expect == nil {
		if topScore == 0 {
			v.Status, v.Level = NoneClear, "PASS"
			v.Detail = `"` + shown + `": no tool shares a word with the task, as expected`
		} else {
			v.Status, v.Level = NoneRisk, "WARN"
			v.Detail = fmt.Sprintf(`"%s": no tool should be called, but %s scores %.1f`, shown, r.names[at.top], topScore)
			if t.Rejects(r.names[at.top]) {
				v.Detail += ", a tool the task rejects"
			}
		}
		return v
	}
	v.Expected = r.scored(s, ws, at.mine, explain)
	v.Runner = r.scored(s, ws, at.runner, false)
	r.grade(&v, s, at, shown, t)
	return v
}

// places are the tools a verdict names, by index (-1: none): the winner, the runner-up, the
// best tool with an expected name, the best with another name, and the best rejected tool
// that scores.
type places struct{ top, second, mine, runner, rej int }

// find finds the places in the reference's order (before, a total order). Every tool with a
// score comes before every tool without, and those follow in name order (byName), so the tools
// the task reached (touched) are read and then only as many unscored ones as are still missing.
func (r *Ranker) find(s []float64, touched []int, t Task) places {
	top, second, mine, runner, rej := -1, -1, -1, -1, -1
	expect := t.Expect != nil
	accepts, rejects := nameSet(t.Answers()), nameSet(t.Reject)
	for _, i := range touched {
		if top < 0 || r.before(s, i, top) {
			top, second = i, top
		} else if second < 0 || r.before(s, i, second) {
			second = i
		}
		if expect && accepts(r.names[i]) {
			if mine < 0 || r.before(s, i, mine) {
				mine = i
			}
		} else if runner < 0 || r.before(s, i, runner) {
			runner = i
		}
		if len(t.Reject) > 0 && rejects(r.names[i]) && (rej < 0 || r.before(s, i, rej)) {
			rej = i
		}
	}
	for _, i := range r.byName {
		if second >= 0 {
			break
		}
		if s[i] != 0 {
			continue
		}
		if top < 0 {
			top = i
		} else {
			second = i
		}
	}
	if expect && mine < 0 {
		// No answer the task reached: the first listed answer in name order.
		for _, a := range t.Answers() {
			if i, ok := r.firstNamed[a]; ok && (mine < 0 || r.order[i] < r.order[mine]) {
				mine = i
			}
		}
	}
	if runner < 0 {
		// No tool the task reached counts: the first unscored one in name order that does.
		for _, i := range r.byName {
			if !expect || !accepts(r.names[i]) {
				runner = i
				break
			}
		}
	}
	return places{top, second, mine, runner, rej}
}

// Rank judges every task against the listing's tools; with explain, each verdict's top tools
// carry the words that scored.
func Rank(l *listing.Listing, tasks []Task, explain bool) []Verdict {
	out, _ := RankContext(context.Background(), l, tasks, explain)
	return out
}

// RankContext is Rank that stops between tasks when ctx is done, and returns ctx's error,
// wrapped.
func RankContext(ctx context.Context, l *listing.Listing, tasks []Task, explain bool) ([]Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ranking: %w", err)
	}
	r := NewRanker(l.Tools)
	out := make([]Verdict, len(tasks))
	sc := r.newScratch()
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("ranking: %w", err)
		}
		out[i] = r.judge(i+1, t, r.taskWords(t.Task), explain, sc)
	}
	return out, nil
}

// Summary is the reference's closing selection line.
func Summary(vs []Verdict) string {
	var good, close, wrong int
	for _, v := range vs {
		switch v.Status {
		case Clear:
			good++
		case Close:
			close++
		case Wrong, Rejected, Missing, NoWords:
			wrong++
		}
	}
	return fmt.Sprintf("INFO selection: %d tasks, %d clear, %d ambiguous, %d wrong or not found", len(vs), good, close, wrong)
}
