package schema

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	regexp2 "github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Budgets for checking values against schemas. A listing may come from an attacker, and the
// validator can be neither interrupted nor told to stop: so the work of checking a value is
// bounded before it starts (schemabound.go), and the regular expressions it runs draw on a
// clock. On the real listings under ../shared/listings/real the most costly schema needs 29,900
// units (GitLab's gitlab_group: 130 enum values, each checked against the 130), the most costly
// value 702 (TestRealSchemaWork prints the figures): MaxWork is 130 and 5,700 times that.
const (
	// MaxWork bounds the work, in units of about 10 ns (schemabound.go), of checking all
	// the values of one schema, and of one Validate call: under 50 ms (BenchmarkWorkUnits).
	MaxWork = 4_000_000
	// MaxRequestWork bounds the work of one Guard (a lint call, a model run), compiling
	// included: about 3 s.
	MaxRequestWork = 300_000_000

	// MaxSubschemas bounds the subschemas of one schema: the library's compiler takes time in
	// proportion to their square (it looks each up in a list), ~45 µs each and 170 ms for
	// 2,000, 23 s for 40,000. The real listings have at most 69.
	MaxSubschemas = 2000
	// subschemaUnits is the work of compiling one subschema (meta-schema validation included),
	// subschemaPairUnits that of looking up one in the compiler's queue.
	subschemaUnits     = 4500
	subschemaPairUnits = 2

	// maxSchemaRegexp and maxRequestRegexp bound the time spent matching (and compiling
	// ECMA-262) regular expressions, per schema and per Guard. Real patterns match in
	// microseconds; one catastrophic one costs matchTimeout per value.
	maxSchemaRegexp  = 200 * time.Millisecond
	maxRequestRegexp = 2 * time.Second
	matchTimeout     = 10 * time.Millisecond

	// maxPatternBytes bounds a pattern's length; maxECMAPatternBytes the length of one compiled
	// as ECMA-262 (regexp2 compiles superlinearly: 4 KB of nested groups take ~10 ms).
	maxPatternBytes     = 32 << 10
	maxECMAPatternBytes = 4 << 10
	// maxPatternInsts bounds one RE2 program, maxSchemaInsts those of one schema together (an
	// instruction takes ~40 bytes).
	maxPatternInsts = 50_000
	maxSchemaInsts  = 1_000_000
	// maxMatchCost bounds instructions × input bytes of one RE2 match, which takes up to ~20 ns
	// per unit and cannot be interrupted: 10⁶ is ~20 ms, as long as an ECMA-262 timeout.
	maxMatchCost = 1_000_000

	// maxInPlace bounds how many subschemas apply to one value in a chain ($ref, allOf, anyOf …):
	// the validator scans that chain at every step. Real chains are under ten long.
	maxInPlace = 100

	// Numbers: big.Rat arithmetic on 1e999999 takes tens of seconds. A float64 reaches
	// 1.8e308 and 4.9e-324, and needs 17 significant digits; 400 and 1,000 leave room for any
	// exact decimal a schema means, and keep one operation under ~50 µs.
	MaxNumberExponent = 400
	MaxNumberDigits   = 1000
)

func init() {
	// regexp2 checks match deadlines against a clock that ticks every 100 ms by default, so a
	// 10 ms timeout really lasts 110–210 ms. A 5 ms tick keeps it at 10–20 ms; the clock's
	// goroutine runs only while timed matches are in flight (and a second after). Set here,
	// before any match starts: the library reads the period without synchronisation.
	regexp2.SetTimeoutCheckPeriod(5 * time.Millisecond)
}

// A Guard bounds the work of checking values against schemas for one request (a lint
// call, a model run): validation work and regular-expression time, over every schema compiled
// with it. It is safe for concurrent use.
type Guard struct {
	work  atomic.Int64 // units of validation work left
	regex atomic.Int64 // nanoseconds of regular-expression time left
}

// NewGuard returns a guard with the per-request budgets (MaxRequestWork units of
// validation work, 2 s of regular-expression time).
func NewGuard() *Guard {
	g := &Guard{}
	g.work.Store(MaxRequestWork)
	g.regex.Store(int64(maxRequestRegexp))
	return g
}

// A LimitError says a value was not validated (or a schema not compiled) because doing
// so could cost more than the budgets allow.
type LimitError struct {
	// Pointer is where the cost arises, relative to the schema document ("" for its root, or
	// when no one place is to blame).
	Pointer string
	// Reason says what was too costly and what would work.
	Reason string
	// Request is set when what ran out is the request's budget (Guard), not the
	// schema's: the same schema may pass in another request.
	Request bool
}

func (e *LimitError) Error() string {
	if e.Pointer == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s (at #%s)", e.Reason, e.Pointer)
}

// Regexps is one schema's regular-expression budget; it also draws on its guard's.
type Regexps struct {
	guard *Guard
	left  atomic.Int64 // nanoseconds left
	insts atomic.Int64 // RE2 instructions left to compile
	// slow is set once a match timed out, was refused, or found the budget spent: from then on
	// every match of the schema answers at once (as a match), so verdicts may be wrong and the
	// values checked after are not trusted. request is set when what ran out was the guard's.
	slow, request atomic.Bool
	// why says why a pattern was refused or the budget ran out, and pat which pattern, for
	// the finding.
	mu       sync.Mutex
	why, pat string
}

// NewRegexps returns a schema's regular-expression budget, drawing on g's too.
func NewRegexps(g *Guard) *Regexps {
	rb := &Regexps{guard: g}
	rb.left.Store(int64(maxSchemaRegexp))
	rb.insts.Store(maxSchemaInsts)
	return rb
}

// refuse marks the budget slow, remembering the first reason and pattern.
func (rb *Regexps) refuse(pat, why string) {
	rb.mu.Lock()
	if rb.why == "" {
		rb.why, rb.pat = why, pat
	}
	rb.mu.Unlock()
	rb.slow.Store(true)
}

// Refused returns the pattern that was refused first, or "".
func (rb *Regexps) Refused() string {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.pat
}

// Reason says why the schema's patterns stopped being trusted ("" when they were not).
func (rb *Regexps) Reason() string {
	if !rb.slow.Load() {
		return ""
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.why
}

// admit reports whether a match (or compile) of pat may run: not once the schema is slow or a
// budget is spent.
func (rb *Regexps) admit(pat string) bool {
	if rb.slow.Load() {
		return false
	}
	if rb.left.Load() <= 0 {
		rb.refuse(pat, fmt.Sprintf("the patterns of this schema took more than %v to match, its budget: simplify them (without nested quantifiers or look-arounds they match in linear time)", maxSchemaRegexp))
		return false
	}
	if rb.guard.regex.Load() <= 0 {
		rb.request.Store(true)
		rb.refuse(pat, fmt.Sprintf("the patterns of this request took more than %v to match, its budget: simplify them (without nested quantifiers or look-arounds they match in linear time)", maxRequestRegexp))
		return false
	}
	return true
}

// Request reports whether what ran out was the guard's budget, not the schema's.
func (rb *Regexps) Request() bool { return rb.request.Load() }

func (rb *Regexps) spend(d time.Duration) {
	rb.left.Add(-int64(d))
	rb.guard.regex.Add(-int64(d))
}

// engine compiles a pattern with Go's regexp when it can (linear time) and otherwise as
// ECMA-262, the dialect JSON Schema specifies (look-arounds, backreferences), with a timeout on
// every match. Every match draws on the budget; a match that times out, or that would cost more
// than maxMatchCost, counts as a match and marks the schema slow.
func (rb *Regexps) engine(s string) (jsonschema.Regexp, error) {
	if len(s) > maxPatternBytes {
		why := fmt.Sprintf("a pattern is %s bytes long (the workbench compiles patterns up to %s bytes): shorten it, or list the values in an enum", printer.Sprint(len(s)), printer.Sprint(maxPatternBytes))
		rb.refuse(s, why)
		return nil, errors.New(why)
	}
	if p, err := syntax.Parse(s, syntax.Perl); err == nil {
		size := progSize(p)
		if size > maxPatternInsts {
			why := fmt.Sprintf("a pattern compiles to more than %s instructions (repetition counts multiply it): simplify it", printer.Sprint(maxPatternInsts))
			rb.refuse(s, why)
			return nil, errors.New(why)
		}
		if rb.insts.Add(-size) < 0 {
			why := fmt.Sprintf("the patterns compile to more than %s instructions together: simplify them", printer.Sprint(maxSchemaInsts))
			rb.refuse(s, why)
			return nil, errors.New(why)
		}
		if re, err := regexp.Compile(s); err == nil {
			return goRegexp{re, size, rb}, nil
		}
	}
	if len(s) > maxECMAPatternBytes {
		why := fmt.Sprintf("a pattern that only ECMA-262 reads is %s bytes long (the workbench compiles those up to %s bytes): shorten it", printer.Sprint(len(s)), printer.Sprint(maxECMAPatternBytes))
		rb.refuse(s, why)
		return nil, errors.New(why)
	}
	if !rb.admit(s) {
		return nil, errors.New(rb.Reason())
	}
	start := time.Now()
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	rb.spend(time.Since(start))
	if err != nil {
		return nil, fmt.Errorf("not an ECMA-262 regular expression: %w", err)
	}
	// Set once, before the schema is shared: the field is read by every match.
	re.MatchTimeout = matchTimeout
	return ecmaRegexp{re, rb}, nil
}

// progSize estimates the instructions of p's RE2 program (an upper bound of what
// syntax.Compile makes of the simplified expression), saturating.
func progSize(p *syntax.Regexp) int64 {
	const most = 1 << 40
	n := int64(2)
	for _, s := range p.Sub {
		n += progSize(s)
	}
	switch p.Op {
	case syntax.OpLiteral:
		n += int64(len(p.Rune))
	case syntax.OpRepeat:
		k := p.Max
		if k < 0 {
			k = p.Min + 1
		}
		n *= int64(k) + 1
	}
	return min(n, most)
}

type goRegexp struct {
	re   *regexp.Regexp
	size int64
	rb   *Regexps
}

func (g goRegexp) String() string { return g.re.String() }

func (g goRegexp) MatchString(s string) bool {
	if !g.rb.admit(g.re.String()) {
		return true
	}
	if g.size*(int64(len(s))+1) > maxMatchCost {
		g.rb.refuse(g.re.String(), fmt.Sprintf("the pattern %s would take too long to match a %s-byte string (it compiles to %s instructions, and matching takes time in proportion to both): shorten the value, or simplify the pattern (repetition counts multiply its size)", Short(strconv.Quote(g.re.String())), printer.Sprint(len(s)), printer.Sprint(g.size)))
		return true
	}
	start := time.Now()
	ok := g.re.MatchString(s)
	g.rb.spend(time.Since(start))
	return ok
}

type ecmaRegexp struct {
	re *regexp2.Regexp
	rb *Regexps
}

func (e ecmaRegexp) String() string { return e.re.String() }

func (e ecmaRegexp) MatchString(s string) bool {
	if !e.rb.admit(e.re.String()) {
		return true
	}
	start := time.Now()
	ok, err := e.re.MatchString(s)
	// regexp2 compares deadlines with a clock that a goroutine ticks: on a loaded machine the
	// tick can lag, and a match time out before its time. Only a timeout that took its time
	// counts; an early one is retried, twice at most.
	for try := 0; err != nil && try < 2 && time.Since(start) < matchTimeout; try++ {
		ok, err = e.re.MatchString(s)
	}
	e.rb.spend(time.Since(start))
	if err != nil {
		e.rb.refuse(e.re.String(), slowPattern(e.re.String()))
		return true
	}
	return ok
}

// slowPattern says that pat took too long to match, and what would work.
func slowPattern(pat string) string {
	return fmt.Sprintf("the pattern %s takes too long to match (catastrophic backtracking, as (a+)+$ on \"aaaa…a!\"): rewrite it without nested or overlapping quantifiers, or in RE2 syntax (no look-arounds or backreferences), which matches in linear time", Short(strconv.Quote(pat)))
}

// NumberTooBig says why a JSON number literal is beyond what the workbench computes with, or "".
func NumberTooBig(lit string) string {
	digits, exp, huge := 0, "", false
	i := 0
	if i < len(lit) && (lit[i] == '-' || lit[i] == '+') {
		i++
	}
	for ; i < len(lit) && lit[i] != 'e' && lit[i] != 'E'; i++ {
		if lit[i] >= '0' && lit[i] <= '9' {
			digits++
		}
	}
	if i < len(lit) {
		exp = strings.TrimLeft(strings.TrimLeft(lit[i+1:], "+-"), "0")
	}
	e := 0
	if len(exp) > 9 {
		huge = true
	} else if exp != "" {
		e, _ = strconv.Atoi(exp)
		huge = e > MaxNumberExponent
	}
	switch {
	case huge:
		return fmt.Sprintf("the number %s, whose exponent is beyond ±%d (a float64 reaches 1.8e308)", Short(lit), MaxNumberExponent)
	case digits > MaxNumberDigits:
		return fmt.Sprintf("a number written with %s digits (more than %s; a float64 holds 17)", printer.Sprint(digits), printer.Sprint(MaxNumberDigits))
	}
	return ""
}

// Bounded is a schema compiled for checking values in bounded time and memory: each
// value's validation work is bounded before it runs, and its patterns draw on a time budget.
// It is safe for concurrent use.
type Bounded struct {
	c     *jsonschema.Compiler
	url   string
	root  *jsonschema.Schema
	guard *Guard
	re    *Regexps
	doc   docInfo

	// mu guards the compiler (candidates of $dynamicRef are compiled on demand) and the caches.
	mu      sync.Mutex
	inPlace map[*jsonschema.Schema]*inPlaceInfo
	info    map[*jsonschema.Schema]*schemaInfo
	dyn     map[string][]*jsonschema.Schema
}

// NewCompiler returns a compiler with the workbench's settings: draft 2020-12 unless $schema
// says otherwise, loader's answer for anything outside the document, rb's patterns. With
// CompileTrusted it is the one place that configures a jsonschema compiler.
func NewCompiler(loader jsonschema.URLLoader, rb *Regexps) *jsonschema.Compiler {
	c := newCompiler(loader)
	c.UseRegexpEngine(rb.engine)
	return c
}

func newCompiler(loader jsonschema.URLLoader) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader)
	return c
}

// CompileTrusted compiles doc, a schema the workbench ships (the task file's), under id with
// NewCompiler's settings but the library's own regexp engine and no budgets: its patterns are
// the workbench's, and it is compiled once and kept.
func CompileTrusted(id string, doc any) (*jsonschema.Schema, error) {
	c := newCompiler(&RefusingLoader{})
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("loading the schema %s: %w", id, err)
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema %s: %w", id, err)
	}
	return s, nil
}

// NewBounded wraps a schema compiled by c (from NewCompiler with re) under u, from doc, for
// checking values in bounded time.
func NewBounded(c *jsonschema.Compiler, u string, doc any, root *jsonschema.Schema, rb *Regexps) *Bounded {
	return &Bounded{c: c, url: u, root: root, guard: rb.guard, re: rb, doc: scanDoc(doc),
		inPlace: map[*jsonschema.Schema]*inPlaceInfo{}, info: map[*jsonschema.Schema]*schemaInfo{}}
}

// Admit draws the work of compiling doc (a schema document as jsonschema.UnmarshalJSON returns
// it) from g, or says why it must not be compiled: more than MaxSubschemas subschemas, or more
// work than the request has left.
func (g *Guard) Admit(doc any) *LimitError {
	n := countSubschemas(doc, 0)
	if n > MaxSubschemas {
		return &LimitError{Reason: fmt.Sprintf("it has %s subschemas, more than %s (compiling takes time in proportion to their square; real tool schemas have tens): split the tool, or describe a map of many keys with additionalProperties rather than listing each",
			printer.Sprint(n), printer.Sprint(MaxSubschemas))}
	}
	units := n*subschemaUnits + n*n*subschemaPairUnits
	if g.work.Add(-units) < 0 {
		return &LimitError{Reason: fmt.Sprintf("the work this request may take (%s units of about 10 ns, compiling included) is spent", printer.Sprint(MaxRequestWork)), Request: true}
	}
	return nil
}

// countSubschemas counts the object subschemas of schema, as EachSubschema visits them.
func countSubschemas(schema any, depth int) int64 {
	obj, ok := schema.(map[string]any)
	if !ok || depth > 4*MaxDepth {
		return 0
	}
	n := int64(1)
	for k, v := range obj {
		arr, isArr := v.([]any)
		switch {
		case SubschemaKeys[k] && isArr && k == "items":
			for _, it := range arr {
				n += countSubschemas(it, depth+2)
			}
		case SubschemaKeys[k]:
			n += countSubschemas(v, depth+1)
		case SubschemaMapKeys[k] && isMap(v):
			for _, s := range v.(map[string]any) {
				n += countSubschemas(s, depth+2)
			}
		case SubschemaArrayKeys[k] && isArr:
			for _, it := range arr {
				n += countSubschemas(it, depth+2)
			}
		}
	}
	return n
}

// Compile compiles doc (a schema document as jsonschema.UnmarshalJSON returns it; draft 2020-12
// unless its $schema names another draft) for checking values, under url, which a relative $ref
// resolves against. Nothing outside the document is loaded. A schema nested deeper than
// MaxDepth, larger than MaxNodes or MaxSubschemas, holding a number beyond MaxNumberExponent or
// MaxNumberDigits or patterns too costly to compile is refused with a *LimitError before the
// schema library parses it.
func (g *Guard) Compile(doc any, url string) (*Bounded, error) {
	w := Walk(doc, MaxDepth)
	switch {
	case w.TooDeepAt != "":
		return nil, &LimitError{Pointer: w.TooDeepAt, Reason: fmt.Sprintf("the schema nests deeper than %d levels", MaxDepth)}
	case w.Nodes > MaxNodes:
		return nil, &LimitError{Reason: fmt.Sprintf("the schema has more than %s values", printer.Sprint(MaxNodes))}
	case w.HugeNumber != "":
		return nil, &LimitError{Pointer: w.HugeNumber, Reason: "the schema holds " + w.HugeWhy + ": write a number a float64 can hold"}
	}
	if lim := g.Admit(doc); lim != nil {
		return nil, lim
	}
	re := NewRegexps(g)
	c := NewCompiler(&RefusingLoader{}, re)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	root, err := c.Compile(url)
	if why := re.Reason(); why != "" {
		return nil, &LimitError{Reason: why, Request: re.request.Load()}
	}
	if err != nil {
		return nil, fmt.Errorf("compiling the schema: %w", err)
	}
	return NewBounded(c, url, doc, root, re), nil
}

// Validate validates v (as jsonschema.UnmarshalJSON returns it) against the schema: nil, a
// *jsonschema.ValidationError, or a *LimitError when checking v could cost more than
// MaxWork or what is left of the guard's budgets (then nothing was validated), or when a
// pattern ran out of time (then the verdict is not to be trusted).
func (s *Bounded) Validate(v any) error {
	_, err := s.ValidateSub(s.root, v, MaxWork)
	return err
}

// ValidateSub checks v against sch (a subschema of s, from Sub) if its bound is within budget
// (and what the guard has left), and returns the work it drew from the guard.
func (s *Bounded) ValidateSub(sch *jsonschema.Schema, v any, budget int64) (int64, error) {
	if why := s.re.Reason(); why != "" {
		return 0, &LimitError{Reason: why, Request: s.re.request.Load()}
	}
	limit, scope, request := budget, "", false
	if left := s.guard.work.Load(); left < budget {
		limit, scope, request = left, fmt.Sprintf(" (what is left of this request's budget of %s)", printer.Sprint(MaxRequestWork)), true
	} else if budget < MaxWork {
		scope = fmt.Sprintf(" (what is left of this schema's budget of %s)", printer.Sprint(MaxWork))
	}
	if limit <= 0 {
		if request {
			return 0, &LimitError{Reason: fmt.Sprintf("the validation work this request may take (%s units) is spent", printer.Sprint(MaxRequestWork)), Request: true}
		}
		return 0, &LimitError{Reason: fmt.Sprintf("the validation work the values of this schema may take together (%s units) is spent", printer.Sprint(MaxWork))}
	}
	s.mu.Lock()
	n, work, lim := s.bound(sch, v, limit, scope)
	s.mu.Unlock()
	used := min(n+work, limit)
	s.guard.work.Add(-used)
	if lim != nil {
		lim.Request = request && n > limit
		return used, lim
	}
	err := sch.Validate(v)
	if why := s.re.Reason(); why != "" {
		return used, &LimitError{Reason: why, Request: s.re.request.Load()}
	}
	return used, err
}

// Sub returns the compiled subschema at ptr (a JSON pointer into the document).
func (s *Bounded) Sub(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ptr == "" {
		return s.root, nil
	}
	return s.c.Compile(s.url + "#" + ptr)
}

// pointer returns the JSON pointer of a compiled schema within the document.
func (s *Bounded) pointer(sch *jsonschema.Schema) string {
	loc := strings.TrimPrefix(sch.Location, s.url)
	loc = strings.TrimPrefix(loc, "#")
	if p, err := url.PathUnescape(loc); err == nil {
		return p
	}
	return loc
}
