package selection

import (
	"fmt"
	"sort"
	"sync"
	"unicode/utf8"

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
	Close     Status = "ambiguous" // the expected tool wins, but the next is within Ambiguous
	Wrong     Status = "wrong"     // another tool wins
	Missing   Status = "missing"   // the expected tool is not in the listing
	NoWords   Status = "no-words"  // no word of the task appears in any definition
	NoneClear Status = "none"      // no tool should be called, and no definition shares a word with the task
	NoneRisk  Status = "none-risk" // no tool should be called, but a tool shares words with the task
)

// Ranker ranks the tools of one listing for any number of tasks. Build it once per listing.
type Ranker struct {
	names  []string
	nameT  []map[string]bool
	body   []map[string]bool
	df     map[string]int
	index  map[string][]posting
	weight map[string]float64
	cache  *Cache
}

type posting struct {
	tool  int
	times float64 // 3 for a word of the name, 1 for one of the body
}

// toolWords are the words the ranker reads in one tool.
type toolWords struct {
	name        string
	nameT, body map[string]bool
}

func wordsOf(t *listing.Value) *toolWords {
	name := t.Get("name").Str
	return &toolWords{name: name, nameT: words.Content(name), body: bodyWords(t)}
}

// Cache keeps the word sets of tools and tasks between rankings, so that after an edit only the
// edited tool is read again. Tool values are never modified once parsed (an edit builds new
// ones), so a tool's identity is its pointer. One cache can serve many listings; it forgets
// everything when it grows past its limit. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	limit int
	tools map[*listing.Value]*toolWords
	tasks map[string][]string
}

// NewCache returns an empty cache that holds up to limit tools and limit tasks (0: 16384).
func NewCache(limit int) *Cache {
	if limit <= 0 {
		limit = 16384
	}
	return &Cache{limit: limit, tools: map[*listing.Value]*toolWords{}, tasks: map[string][]string{}}
}

// Ranker builds a ranker for tools, reusing the word sets of tools it has seen.
func (c *Cache) Ranker(tools []*listing.Value) *Ranker {
	tw := make([]*toolWords, len(tools))
	var missing []int
	c.mu.Lock()
	for i, t := range tools {
		if w, ok := c.tools[t]; ok {
			tw[i] = w
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	for _, i := range missing {
		tw[i] = wordsOf(tools[i])
	}
	c.mu.Lock()
	if len(c.tools)+len(missing) > c.limit {
		clear(c.tools)
	}
	for _, i := range missing {
		c.tools[tools[i]] = tw[i]
	}
	c.mu.Unlock()
	r := newRanker(tw)
	r.cache = c
	return r
}

// Rank is selection.Rank with the cache's word sets.
func (c *Cache) Rank(l *listing.Listing, tasks []Task, explain bool) []Verdict {
	r := c.Ranker(l.Tools)
	out := make([]Verdict, len(tasks))
	for i, t := range tasks {
		out[i] = r.Judge(i+1, t, explain)
	}
	return out
}

func (c *Cache) taskContent(task string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ws, ok := c.tasks[task]
	if !ok {
		if len(c.tasks) >= c.limit {
			clear(c.tasks)
		}
		ws = sortedContent(task)
		c.tasks[task] = ws
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
		df: map[string]int{}, index: map[string][]posting{}, weight: map[string]float64{}}
	for i, t := range tw {
		r.names[i], r.nameT[i], r.body[i] = t.name, t.nameT, t.body
		for w := range r.nameT[i] {
			r.df[w]++
			r.index[w] = append(r.index[w], posting{i, 3})
		}
		for w := range r.body[i] {
			if !r.nameT[i][w] {
				r.df[w]++
				r.index[w] = append(r.index[w], posting{i, 1})
			}
		}
	}
	for w, d := range r.df {
		r.weight[w] = log(1 + float64(n)/float64(d))
	}
	return r
}

func text(v *listing.Value) string {
	if v.IsString() {
		return v.Str
	}
	return ""
}

func addWords(dst map[string]bool, s string) {
	for w := range words.Content(s) {
		dst[w] = true
	}
}

// bodyWords follows the reference's select(): it reads what Python's iteration would read, so
// an enum given as a string contributes its characters and one given as an object its keys.
func bodyWords(t *listing.Value) map[string]bool {
	body := map[string]bool{}
	addWords(body, text(t.Get("title")))
	addWords(body, text(t.Get("description")))
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

type term struct {
	word  string
	times float64
	value float64
}

func (r *Ranker) scores(ws []string) []float64 {
	s := make([]float64, len(r.names))
	terms := make([]term, 0, 2*len(ws))
	for _, w := range ws {
		wt := r.weight[w]
		terms = append(terms, term{w, 1, wt}, term{w, 3, 3 * wt})
	}
	sort.Slice(terms, func(a, b int) bool { return terms[a].value < terms[b].value })
	for _, t := range terms {
		for _, p := range r.index[t.word] {
			if p.times == t.times {
				s[p.tool] += t.value
			}
		}
	}
	return s
}

func (r *Ranker) taskWords(task string) []string {
	var all []string
	if r.cache != nil {
		all = r.cache.taskContent(task)
	} else {
		all = sortedContent(task)
	}
	ws := make([]string, 0, len(all))
	for _, w := range all {
		if _, ok := r.df[w]; ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// Explain lists the words of task that score for tool i.
func (r *Ranker) Explain(task string, i int) []WordScore { return r.explain(r.taskWords(task), i) }

func (r *Ranker) explain(ws []string, i int) []WordScore {
	var out []WordScore
	for _, w := range ws {
		switch {
		case r.nameT[i][w]:
			out = append(out, WordScore{w, 3 * r.weight[w], true})
		case r.body[i][w]:
			out = append(out, WordScore{w, r.weight[w], false})
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
	if r.names[a] != r.names[b] {
		return r.names[a] < r.names[b]
	}
	return a < b
}

// Verdict is the ranker's answer for one task.
type Verdict struct {
	N        int     `json:"n"` // 1-based position in the task file
	Task     Task    `json:"task"`
	Status   Status  `json:"status"`
	Winner   *Scored `json:"winner,omitempty"`
	Expected *Scored `json:"expected,omitempty"`
	Runner   *Scored `json:"runner,omitempty"` // the best tool other than the expected one
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
	if v.Status == Wrong && v.Expected != nil {
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
	ws := r.taskWords(t.Task)
	s := r.scores(ws)
	v := Verdict{N: n, Task: t}
	if len(s) == 0 {
		v.Status, v.Level, v.Detail = Missing, "FAIL", fmt.Sprintf("expected tool %s is not in the listing", listing.PythonRepr(t.Expected()))
		return v
	}
	// One pass finds the winner, the runner-up, the best tool with the expected name and the
	// best with another name, in the reference's order.
	want := t.Expected()
	top, second, mine, runner := -1, -1, -1, -1
	for i := range s {
		if top < 0 || r.before(s, i, top) {
			top, second = i, top
		} else if second < 0 || r.before(s, i, second) {
			second = i
		}
		if t.Expect != nil && r.names[i] == want {
			if mine < 0 || r.before(s, i, mine) {
				mine = i
			}
		} else if runner < 0 || r.before(s, i, runner) {
			runner = i
		}
	}
	v.Winner = r.scored(s, ws, top, explain)
	v.Top = []Scored{*v.Winner}
	if second >= 0 {
		v.Top = append(v.Top, *r.scored(s, ws, second, explain))
	}
	shown := t.Task
	if utf8.RuneCountInString(shown) > 50 {
		shown = string([]rune(shown)[:47]) + "..."
	}
	topScore := s[top]
	if t.Expect == nil {
		if topScore == 0 {
			v.Status, v.Level = NoneClear, "PASS"
			v.Detail = `"` + shown + `": no tool shares a word with the task, as expected`
		} else {
			v.Status, v.Level = NoneRisk, "WARN"
			v.Detail = fmt.Sprintf(`"%s": no tool should be called, but %s scores %.1f`, shown, r.names[top], topScore)
		}
		return v
	}
	v.Expected = r.scored(s, ws, mine, explain)
	v.Runner = r.scored(s, ws, runner, false)
	switch {
	case mine < 0:
		v.Status, v.Level = Missing, "FAIL"
		v.Detail = fmt.Sprintf("expected tool %s is not in the listing", listing.PythonRepr(want))
	case topScore == 0:
		v.Status, v.Level = NoWords, "FAIL"
		v.Detail = fmt.Sprintf(`"%s": no word of the task appears in any definition`, shown)
	case s[mine] < topScore:
		v.Status, v.Level = Wrong, "FAIL"
		v.Detail = fmt.Sprintf(`"%s": %s wins (%.1f), %s scores %.1f`, shown, r.names[top], topScore, want, s[mine])
	default:
		rName, rScore := "-", 0.0
		if runner >= 0 {
			rName, rScore = r.names[runner], s[runner]
		}
		if rScore >= Ambiguous*topScore {
			v.Status, v.Level = Close, "WARN"
			v.Detail = fmt.Sprintf(`"%s": %s (%.1f) is not clearly ahead of %s (%.1f)`, shown, want, topScore, rName, rScore)
		} else {
			v.Status, v.Level = Clear, "PASS"
			v.Detail = fmt.Sprintf(`"%s": %s (%.1f), next %s %.1f`, shown, want, topScore, rName, rScore)
		}
	}
	return v
}

// Rank judges every task against the listing's tools; with explain, each verdict's top tools
// carry the words that scored.
func Rank(l *listing.Listing, tasks []Task, explain bool) []Verdict {
	r := NewRanker(l.Tools)
	out := make([]Verdict, len(tasks))
	for i, t := range tasks {
		out[i] = r.Judge(i+1, t, explain)
	}
	return out
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
		case Wrong, Missing, NoWords:
			wrong++
		}
	}
	return fmt.Sprintf("INFO selection: %d tasks, %d clear, %d ambiguous, %d wrong or not found", len(vs), good, close, wrong)
}
