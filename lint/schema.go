package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/schema"
)

// Limits on the schemas the linter compiles. Real schemas nest a handful of levels and hold a
// few hundred nodes; the limits keep a hostile schema from costing more than a finding.
const (
	DefaultMaxSchemaDepth = schema.MaxDepth
	MaxSchemaNodes        = schema.MaxNodes
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

// schemaWalk holds what a pre-compile walk of a schema found.
type schemaWalk struct {
	depth, nodes int
	badNumber    string // pointer of a NaN or Infinity literal
	tooDeepAt    string
	hugeNumber   string // pointer of a number beyond schema.MaxNumberExponent or schema.MaxNumberDigits
	hugeWhy      string
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
		} else if w.hugeNumber == "" {
			// Refused here, before the schema library parses it into a big.Rat.
			if why := schema.NumberTooBig(v.Str); why != "" {
				w.hugeNumber, w.hugeWhy = p.String(), why
			}
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

// compileSchemaIn compiles one schema and checks the values in it (default, const, enum,
// examples) against their own schemas, drawing on g, the budgets of a whole request: a Linter should
// pass one guard per Lint call, so that a listing of many costly schemas is bounded as a whole.
// request reports that g's budgets (not the schema's) stopped a check: the findings then depend
// on the request, and are not to be cached for others.
func compileSchemaIn(sch *listing.Value, which string, maxDepth int, g *schema.Guard) (fs []Finding, request bool) {
	var out []Finding
	add := func(rule, ptr, msg string) {
		out = append(out, Finding{Rule: rule, Severity: registry[rule].Severity, Pointer: ptr, Message: msg})
	}
	var w schemaWalk
	walkSchema(sch, newPath(""), 0, maxDepth, &w)
	switch {
	case w.tooDeepAt != "":
		add("schema-limit", w.tooDeepAt, fmt.Sprintf("%s nests deeper than %d levels; it was not compiled (real schemas nest a few levels: flatten it, or move shared parts into $defs)", which, maxDepth))
		return out, false
	case w.nodes > MaxSchemaNodes:
		add("schema-limit", "", fmt.Sprintf("%s has more than %d values; it was not compiled", which, MaxSchemaNodes))
		return out, false
	case w.badNumber != "":
		add("schema-invalid", w.badNumber, fmt.Sprintf("%s holds NaN or Infinity, which JSON does not allow: write a number or remove the keyword", which))
		return out, false
	case w.hugeNumber != "":
		add("schema-limit", w.hugeNumber, fmt.Sprintf("%s holds %s; it was not compiled, since exact arithmetic on such a number can take minutes (and most JSON parsers round it to Infinity or refuse it): write a number a float64 can hold", which, w.hugeWhy))
		return out, false
	}
	doc := toAny(sch)
	if lim := g.Admit(doc); lim != nil {
		add("schema-limit", "", fmt.Sprintf("%s was not compiled: %s", which, lim.Reason))
		return out, lim.Request
	}
	loader := &schema.RefusingLoader{}
	rb := schema.NewRegexps(g)
	c := schema.NewCompiler(loader, rb)
	if err := c.AddResource(schemaBase, doc); err != nil {
		add("schema-invalid", "", fmt.Sprintf("%s cannot be read as a schema: %s", which, cleanErr(err)))
		return out, false
	}
	root, err := c.Compile(schemaBase)
	if len(loader.Asked) > 0 {
		for _, u := range uniq(loader.Asked) {
			ptr := refPointer(sch, u)
			shown := u
			if v := listing.Resolve(sch, ptr); v.IsString() {
				shown = v.Str
			}
			add("schema-ref-external", ptr, fmt.Sprintf("%s refers to %q, outside the document; it was not fetched (a host must not follow a $ref to the network either): inline the definition under $defs and refer to it as #/$defs/…", which, shown))
		}
		return out, false
	}
	if why := rb.Reason(); why != "" {
		add("schema-limit", patternPointer(sch, rb.Refused()), fmt.Sprintf("%s was not compiled: %s", which, why))
		return out, rb.Request()
	}
	if err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			var ve *jsonschema.ValidationError
			if errors.As(sve.Err, &ve) {
				leaves := firstPerLocation(schema.LeafErrors(ve))
				for i, l := range leaves {
					if i == 3 {
						add("schema-invalid", "", fmt.Sprintf("%s: %d more problems against the meta-schema", which, len(leaves)-3))
						break
					}
					add("schema-invalid", listing.JoinPointer(l.InstanceLocation...),
						fmt.Sprintf("%s is not a valid JSON Schema: %s", which, l.ErrorKind.LocalizedString(printer)))
				}
				return out, false
			}
		}
		ptr := errPointer(err)
		if listing.Resolve(sch, ptr) == nil {
			// The error names a $ref's missing target: point at the $ref instead.
			ptr = findRef(sch, "#"+ptr)
		}
		add("schema-invalid", ptr, fmt.Sprintf("%s does not compile: %s", which, cleanErr(err)))
		return out, false
	}
	if cyc := refCycle(sch); cyc != "" {
		add("schema-invalid", cyc, fmt.Sprintf("%s has a $ref cycle that never reaches a value (%s → …): validating any argument loops; make the recursion go through properties or items", which, cyc))
		return out, false
	}
	vs, request := checkValues(func() *schema.Bounded { return schema.NewBounded(c, schemaBase, doc, root, rb) }, sch)
	return append(out, vs...), request
}

// patternPointer returns the pointer of the pattern (or patternProperties name) pat, or "".
func patternPointer(schema *listing.Value, pat string) string {
	found := ""
	if pat == "" {
		return found
	}
	eachSubschema(schema, "", func(s *listing.Value, p *path) {
		if found != "" {
			return
		}
		if v := s.Get("pattern"); v.IsString() && v.Str == pat {
			found = p.String() + "/pattern"
		} else if pp := s.Get("patternProperties"); pp.IsObject() && pp.Has(pat) {
			found = p.String() + "/patternProperties" + ptrTok(pat)
		}
	})
	return found
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

// set is the words of s, as a set.
func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// eachSubschema calls f for every object subschema of schema, with its path (base, then the
// tokens below schema).
func eachSubschema(sch *listing.Value, base string, f func(s *listing.Value, p *path)) {
	walkSubschemas(sch, newPath(base), f)
}

func walkSubschemas(sch *listing.Value, p *path, f func(s *listing.Value, p *path)) {
	if !sch.IsObject() || len(p.toks) > 4*DefaultMaxSchemaDepth {
		return
	}
	f(sch, p)
	for _, m := range sch.Fields() {
		switch {
		case schema.SubschemaKeys[m.Key]:
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
		case schema.SubschemaMapKeys[m.Key] && m.Value.IsObject():
			p.push(m.Key)
			for _, s := range m.Value.Fields() {
				p.push(s.Key)
				walkSubschemas(s.Value, p, f)
				p.pop()
			}
			p.pop()
		case schema.SubschemaArrayKeys[m.Key] && m.Value.Kind == listing.Array:
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

// maxProbes bounds the values checkValues validates in one schema.
const maxProbes = 500

// checkValues validates default, const, enum and examples values against the schema they sit
// in, within the schema's budgets: a value whose validation could cost more than the steps
// left, or a pattern that runs out of time, stops the checks with a schema-limit finding.
func checkValues(bounded func() *schema.Bounded, sch *listing.Value) (out []Finding, request bool) {
	var bs *schema.Bounded // made on the first value: most schemas have none
	budget := maxProbes
	work := int64(schema.MaxWork)
	stopped := false
	eachSubschema(sch, "", func(s *listing.Value, p *path) {
		type probe struct {
			key string
			v   *listing.Value
			ptr string
		}
		var probes []probe
		if stopped || !s.Has("default") && !s.Has("const") && !s.Has("enum") && !s.Has("examples") {
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
		if len(probes) == 0 || budget <= 0 {
			return
		}
		if len(probes) > budget {
			probes = probes[:budget]
		}
		budget -= len(probes)
		if bs == nil {
			bs = bounded()
		}
		sub, err := bs.Sub(ptr)
		if err != nil {
			return // the whole schema compiled, so this cannot fail short of a library change
		}
		for _, p := range probes {
			used, err := bs.ValidateSub(sub, toAny(p.v), work)
			work -= used
			var lim *schema.LimitError
			if errors.As(err, &lim) {
				out = append(out, Finding{Rule: "schema-limit", Severity: registry["schema-limit"].Severity, Pointer: ptr,
					Message: fmt.Sprintf("%s value %s was not checked against its schema, nor were the remaining default, enum and examples values: %s (a client that validates arguments may stall on it too)",
						p.key, short(string(listing.Marshal(p.v, ""))), lim.Reason)})
				stopped, request = true, lim.Request
				return
			}
			if err != nil {
				out = append(out, Finding{Rule: "schema-value-invalid", Severity: registry["schema-value-invalid"].Severity, Pointer: p.ptr,
					Message: fmt.Sprintf("%s value %s does not validate against its own schema: %s", p.key, short(string(listing.Marshal(p.v, ""))), schema.ErrMessage(err))})
			}
		}
	})
	return out, request
}

// short cuts s to 60 characters, as messages quote values.
func short(s string) string { return schema.Short(s) }
