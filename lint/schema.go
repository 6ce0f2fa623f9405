package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	regexp2 "github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tool-workbench/workbench/listing"
)

// Limits on the schemas the linter compiles. Real schemas nest a handful of levels and hold a
// few hundred nodes; the limits keep a hostile schema from costing more than a finding.
const (
	DefaultMaxSchemaDepth = 64
	MaxSchemaNodes        = 100000
)

// schemaBase is the URL a schema is compiled under. A relative $ref resolves against it and
// reaches the loader, which refuses it: only references inside the document resolve. The
// .invalid top-level domain is reserved: the name can never resolve, should anything try.
const schemaBase = "https://workbench.invalid/schema.json"

var printer = message.NewPrinter(language.English)

// schemaFacts is what compiling one schema found; pointers are relative to the schema.
type schemaFacts struct {
	findings []Finding
}

// refusingLoader is the compiler's URL loader: it loads nothing, and records what was asked
// for. Meta-schemas of the known drafts are embedded in the library and never reach it.
type refusingLoader struct{ asked []string }

func (r *refusingLoader) Load(url string) (any, error) {
	r.asked = append(r.asked, url)
	return nil, errRefused
}

var errRefused = errors.New("the workbench never fetches a schema from outside the document")

// regexpEngine returns a pattern compiler for one schema. It compiles with Go's regexp when it
// can (linear time) and otherwise as ECMA-262, the dialect JSON Schema specifies (look-arounds,
// backreferences), with a timeout on every match so that a pathological pattern cannot hang the
// linter. A match that times out counts as a match and sets *slow, which stops the value checks.
// SchemaRegexpEngine is the regular-expression engine schemas are compiled with, for other
// packages that compile the same schemas (model runs check arguments against them): Go's RE2
// when it can, else ECMA-262 (what JSON Schema specifies) with a 10 ms match timeout, after which
// a value counts as matching.
func SchemaRegexpEngine() jsonschema.RegexpEngine { return regexpEngine(new(atomic.Bool)) }

func regexpEngine(slow *atomic.Bool) jsonschema.RegexpEngine {
	return func(s string) (jsonschema.Regexp, error) {
		if re, err := regexp.Compile(s); err == nil {
			return re, nil
		}
		re, err := regexp2.Compile(s, regexp2.ECMAScript)
		if err != nil {
			return nil, fmt.Errorf("not an ECMA-262 regular expression: %w", err)
		}
		re.MatchTimeout = 10 * time.Millisecond
		return ecmaRegexp{re, slow}, nil
	}
}

type ecmaRegexp struct {
	re   *regexp2.Regexp
	slow *atomic.Bool
}

func (e ecmaRegexp) String() string { return e.re.String() }

func (e ecmaRegexp) MatchString(s string) bool {
	ok, err := e.re.MatchString(s)
	if err != nil {
		e.slow.Store(true)
		return true
	}
	return ok
}

// schemaWalk holds what a pre-compile walk of a schema found.
type schemaWalk struct {
	depth, nodes int
	badNumber    string // pointer of a NaN or Infinity literal
	tooDeepAt    string
}

func walkSchema(v *listing.Value, p *path, depth, max int, w *schemaWalk) {
	w.nodes++
	if depth > w.depth {
		w.depth = depth
	}
	if depth > max {
		if w.tooDeepAt == "" {
			w.tooDeepAt = p.String()
		}
		return
	}
	if w.nodes > MaxSchemaNodes {
		return
	}
	switch v.Kind {
	case listing.Number:
		if w.badNumber == "" && (v.Str == "NaN" || strings.HasSuffix(v.Str, "Infinity")) {
			w.badNumber = p.String()
		}
	case listing.Array:
		for i, it := range v.Items {
			p.push(itoa(i))
			walkSchema(it, p, depth+1, max, w)
			p.pop()
		}
	case listing.Object:
		for _, m := range v.Fields() {
			p.push(m.Key)
			walkSchema(m.Value, p, depth+1, max, w)
			p.pop()
		}
	}
}

// toAny converts a value to what the schema library reads: maps, slices, json.Number.
func toAny(v *listing.Value) any {
	switch v.Kind {
	case listing.Null:
		return nil
	case listing.Bool:
		return v.Bool
	case listing.Number:
		return json.Number(v.Str)
	case listing.String:
		return v.Str
	case listing.Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = toAny(it)
		}
		return out
	default:
		fs := v.Fields()
		out := make(map[string]any, len(fs))
		for _, m := range fs {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
}

// compileSchema compiles one schema and checks the values in it against their own schemas.
// which is "inputSchema" or "outputSchema"; the findings' pointers are relative to the schema.
func compileSchema(schema *listing.Value, which string, maxDepth int) []Finding {
	var out []Finding
	add := func(rule, ptr, msg string) {
		out = append(out, Finding{Rule: rule, Severity: registry[rule].Severity, Pointer: ptr, Message: msg})
	}
	var w schemaWalk
	walkSchema(schema, newPath(""), 0, maxDepth, &w)
	switch {
	case w.tooDeepAt != "":
		add("schema-limit", w.tooDeepAt, fmt.Sprintf("%s nests deeper than %d levels; it was not compiled (real schemas nest a few levels: flatten it, or move shared parts into $defs)", which, maxDepth))
		return out
	case w.nodes > MaxSchemaNodes:
		add("schema-limit", "", fmt.Sprintf("%s has more than %d values; it was not compiled", which, MaxSchemaNodes))
		return out
	case w.badNumber != "":
		add("schema-invalid", w.badNumber, fmt.Sprintf("%s holds NaN or Infinity, which JSON does not allow: write a number or remove the keyword", which))
		return out
	}
	doc := toAny(schema)
	loader := &refusingLoader{}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader)
	var slow atomic.Bool
	c.UseRegexpEngine(regexpEngine(&slow))
	if err := c.AddResource(schemaBase, doc); err != nil {
		add("schema-invalid", "", fmt.Sprintf("%s cannot be read as a schema: %s", which, cleanErr(err)))
		return out
	}
	_, err := c.Compile(schemaBase)
	if len(loader.asked) > 0 {
		for _, u := range uniq(loader.asked) {
			ptr := refPointer(schema, u)
			shown := u
			if v := listing.Resolve(schema, ptr); v.IsString() {
				shown = v.Str
			}
			add("schema-ref-external", ptr, fmt.Sprintf("%s refers to %q, outside the document; it was not fetched (a host must not follow a $ref to the network either): inline the definition under $defs and refer to it as #/$defs/…", which, shown))
		}
		return out
	}
	if err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			var ve *jsonschema.ValidationError
			if errors.As(sve.Err, &ve) {
				leaves := firstPerLocation(leafErrors(ve, nil))
				for i, l := range leaves {
					if i == 3 {
						add("schema-invalid", "", fmt.Sprintf("%s: %d more problems against the meta-schema", which, len(leaves)-3))
						break
					}
					add("schema-invalid", listing.JoinPointer(l.InstanceLocation...),
						fmt.Sprintf("%s is not a valid JSON Schema: %s", which, l.ErrorKind.LocalizedString(printer)))
				}
				return out
			}
		}
		ptr := errPointer(err)
		if listing.Resolve(schema, ptr) == nil {
			// The error names a $ref's missing target: point at the $ref instead.
			ptr = findRef(schema, "#"+ptr)
		}
		add("schema-invalid", ptr, fmt.Sprintf("%s does not compile: %s", which, cleanErr(err)))
		return out
	}
	if cyc := refCycle(schema); cyc != "" {
		add("schema-invalid", cyc, fmt.Sprintf("%s has a $ref cycle that never reaches a value (%s → …): validating any argument loops; make the recursion go through properties or items", which, cyc))
		return out
	}
	out = append(out, checkValues(c, schema, &slow)...)
	return out
}

// firstPerLocation keeps the first error at each instance location: a keyword that fails
// several branches of the meta-schema (a "type" that is neither a name nor an array) says
// one thing.
func firstPerLocation(ls []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	seen := map[string]bool{}
	var out []*jsonschema.ValidationError
	for _, l := range ls {
		k := strings.Join(l.InstanceLocation, "/")
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// refCycle returns the pointer of a $ref that can lead back to itself through keywords that
// apply to the same value ($ref, allOf, anyOf, oneOf, not, if, then, else) and so never
// consume input, or "". A validator following it loops; the schema library reports it only
// when a value happens to reach it.
func refCycle(schema *listing.Value) string {
	// Nodes are subschema pointers; edges go to in-place applicators and local $ref targets.
	edges := map[string][]string{}
	var refs []string
	eachSubschema(schema, "", func(s *listing.Value, p *path) {
		r := s.Get("$ref")
		hasRef := r.IsString() && strings.HasPrefix(r.Str, "#")
		if !hasRef && !s.Has("not") && !s.Has("if") && !s.Has("then") && !s.Has("else") && !s.Has("allOf") && !s.Has("anyOf") && !s.Has("oneOf") {
			return // no edge leaves this node
		}
		ptr := p.String()
		if hasRef {
			target := r.Str[1:]
			if target == "" || strings.HasPrefix(target, "/") {
				if t, err := url.PathUnescape(target); err == nil {
					target = t
				}
				edges[ptr] = append(edges[ptr], target)
				refs = append(refs, ptr)
			}
		}
		for _, k := range []string{"not", "if", "then", "else"} {
			if s.Get(k).IsObject() {
				edges[ptr] = append(edges[ptr], ptr+"/"+k)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if a := s.Get(k); a != nil && a.Kind == listing.Array {
				for i := range a.Items {
					edges[ptr] = append(edges[ptr], ptr+"/"+k+"/"+itoa(i))
				}
			}
		}
	})
	if len(refs) == 0 {
		return ""
	}
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	found := ""
	var visit func(n string, depth int) bool
	visit = func(n string, depth int) bool {
		if depth > 10000 {
			found = n // a chain this long is as good as a loop
			return true
		}
		switch state[n] {
		case active:
			return true
		case done:
			return false
		}
		state[n] = active
		for _, m := range edges[n] {
			if visit(m, depth+1) {
				if found == "" && len(edges[n]) > 0 && schema != nil {
					if r := listing.Resolve(schema, n+"/$ref"); r != nil {
						found = n + "/$ref"
					}
				}
				return true
			}
		}
		state[n] = done
		return false
	}
	for _, r := range refs {
		if visit(r, 0) {
			if found == "" {
				found = r + "/$ref"
			}
			return found
		}
	}
	return ""
}

func leafErrors(ve *jsonschema.ValidationError, acc []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(acc, ve)
	}
	for _, c := range ve.Causes {
		acc = leafErrors(c, acc)
	}
	return acc
}

// cleanErr words a compiler error without the internal base URL.
func cleanErr(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, schemaBase+"#", "#")
	s = strings.ReplaceAll(s, schemaBase, "the schema")
	s = strings.TrimPrefix(s, "jsonschema: ")
	return s
}

// errPointer extracts the JSON pointer a compiler error names (…#/properties/x…), if any.
func errPointer(err error) string {
	s := err.Error()
	i := strings.Index(s, schemaBase+"#")
	if i < 0 {
		return ""
	}
	s = s[i+len(schemaBase)+1:]
	end := strings.IndexAny(s, "\" '")
	if end >= 0 {
		s = s[:end]
	}
	if !strings.HasPrefix(s, "/") {
		return ""
	}
	return s
}

// refPointer finds the $ref, $dynamicRef or $schema whose value leads to url.
func refPointer(schema *listing.Value, url string) string {
	found := ""
	var walk func(v *listing.Value, ptr string)
	walk = func(v *listing.Value, ptr string) {
		if found != "" {
			return
		}
		switch v.Kind {
		case listing.Array:
			for i, it := range v.Items {
				walk(it, ptr+"/"+itoa(i))
			}
		case listing.Object:
			for _, m := range v.Fields() {
				p := ptr + ptrTok(m.Key)
				if (m.Key == "$ref" || m.Key == "$dynamicRef" || m.Key == "$schema" || m.Key == "$id") && m.Value.IsString() {
					ref := m.Value.Str
					if j := strings.IndexByte(ref, '#'); j >= 0 {
						ref = ref[:j]
					}
					if ref != "" && strings.HasSuffix(strings.SplitN(url, "#", 2)[0], ref) {
						found = p
						return
					}
				}
				walk(m.Value, p)
			}
		}
	}
	walk(schema, "")
	return found
}

// findRef returns the pointer of the first $ref whose text is ref, or "".
func findRef(schema *listing.Value, ref string) string {
	found := ""
	eachSubschema(schema, "", func(s *listing.Value, p *path) {
		if r := s.Get("$ref"); found == "" && r.IsString() && r.Str == ref {
			found = p.String() + "/$ref"
		}
	})
	return found
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// Keywords whose values are schemas, or objects or arrays of schemas. Values under any other
// keyword (default, enum, examples, const …) are data, not schemas.
var (
	schemaKeys      = set("items additionalProperties contains not if then else propertyNames unevaluatedProperties unevaluatedItems additionalItems")
	schemaMapKeys   = set("properties patternProperties $defs definitions dependentSchemas")
	schemaArrayKeys = set("anyOf oneOf allOf prefixItems")
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// eachSubschema calls f for every object subschema of schema, with its path (base, then the
// tokens below schema).
func eachSubschema(schema *listing.Value, base string, f func(s *listing.Value, p *path)) {
	walkSubschemas(schema, newPath(base), f)
}

func walkSubschemas(schema *listing.Value, p *path, f func(s *listing.Value, p *path)) {
	if !schema.IsObject() || len(p.toks) > 4*DefaultMaxSchemaDepth {
		return
	}
	f(schema, p)
	for _, m := range schema.Fields() {
		switch {
		case schemaKeys[m.Key]:
			p.push(m.Key)
			if m.Value.Kind == listing.Array && m.Key == "items" { // draft-04 tuple form
				for i, it := range m.Value.Items {
					p.push(itoa(i))
					walkSubschemas(it, p, f)
					p.pop()
				}
			} else {
				walkSubschemas(m.Value, p, f)
			}
			p.pop()
		case schemaMapKeys[m.Key] && m.Value.IsObject():
			p.push(m.Key)
			for _, s := range m.Value.Fields() {
				p.push(s.Key)
				walkSubschemas(s.Value, p, f)
				p.pop()
			}
			p.pop()
		case schemaArrayKeys[m.Key] && m.Value.Kind == listing.Array:
			p.push(m.Key)
			for i, it := range m.Value.Items {
				p.push(itoa(i))
				walkSubschemas(it, p, f)
				p.pop()
			}
			p.pop()
		}
	}
}

// maxProbes bounds the values checkValues validates in one schema: with a backtracking pattern
// each can take up to the regexp timeout.
const maxProbes = 500

// checkValues validates default, const, enum and examples values against the schema they sit in.
func checkValues(c *jsonschema.Compiler, schema *listing.Value, slow *atomic.Bool) []Finding {
	var out []Finding
	budget := maxProbes
	eachSubschema(schema, "", func(s *listing.Value, p *path) {
		type probe struct {
			key string
			v   *listing.Value
			ptr string
		}
		var probes []probe
		if !s.Has("default") && !s.Has("const") && !s.Has("enum") && !s.Has("examples") {
			return
		}
		ptr := p.String()
		if d := s.Get("default"); d != nil {
			probes = append(probes, probe{"default", d, ptr + "/default"})
		}
		if d := s.Get("const"); d != nil {
			probes = append(probes, probe{"const", d, ptr + "/const"})
		}
		if e := s.Get("enum"); e != nil && e.Kind == listing.Array {
			for i, it := range e.Items {
				probes = append(probes, probe{"enum", it, ptr + "/enum/" + itoa(i)})
			}
		}
		if e := s.Get("examples"); e != nil && e.Kind == listing.Array {
			for i, it := range e.Items {
				probes = append(probes, probe{"examples", it, ptr + "/examples/" + itoa(i)})
			}
		}
		if len(probes) == 0 || budget <= 0 || slow.Load() {
			return
		}
		if len(probes) > budget {
			probes = probes[:budget]
		}
		budget -= len(probes)
		sub, err := c.Compile(schemaBase + "#" + ptr)
		if err != nil {
			return // the whole schema compiled, so this cannot fail short of a library change
		}
		for _, p := range probes {
			if slow.Load() {
				out = append(out, Finding{Rule: "schema-limit", Severity: registry["schema-limit"].Severity, Pointer: ptr,
					Message: "a pattern here takes too long to match (catastrophic backtracking): the remaining default, enum and examples values were not checked, and a validating client may hang on it too"})
				budget = 0
				return
			}
			if err := sub.Validate(toAny(p.v)); err != nil {
				msg := err.Error()
				var ve *jsonschema.ValidationError
				if errors.As(err, &ve) {
					if ls := leafErrors(ve, nil); len(ls) > 0 {
						msg = ls[0].ErrorKind.LocalizedString(printer)
					}
				}
				out = append(out, Finding{Rule: "schema-value-invalid", Severity: registry["schema-value-invalid"].Severity, Pointer: p.ptr,
					Message: fmt.Sprintf("%s value %s does not validate against its own schema: %s", p.key, short(string(listing.Marshal(p.v, ""))), msg)})
			}
		}
	})
	return out
}

func short(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
