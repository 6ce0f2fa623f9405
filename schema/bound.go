package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The work bound. Before a value is validated, bound computes on the compiled schema graph an
// upper bound of the work the validator (jsonschema/v6 validator.go) can do for it, in units of
// about 10 ns. Its steps are evaluations: one subschema applied to one value (an instance
// node), which costs stepUnits (allocations and bookkeeping, about 1 µs) plus what its keywords
// do with the value (local). count(S, x) = local(S, x) + Σ count(c, x) over the subschemas S
// applies in place (allOf, anyOf, oneOf, not, if, then, else, $ref, $dynamicRef, $recursiveRef,
// dependentSchemas, dependencies) + Σ count(c, y) over the subschemas it applies to x's members
// and items y (properties, patternProperties, additionalProperties, unevaluatedProperties,
// propertyNames, items, prefixItems, additionalItems, contains, unevaluatedItems). It is
// memoised on (S, x) but summed per reference, so it equals the unfolded count; it stops once
// past the limit, and computing it costs a small fraction of what it allows.
//
// It over-counts where the validator may stop early: every branch of anyOf and oneOf, then and
// else both, every patternProperties pattern as matching (which also avoids running patterns),
// every schema that could be the target of a $dynamicRef. The validator checks each evaluation
// for a cycle (the same subschema applied in place to the same value again) by scanning the
// chain of in-place subschemas, and formats the whole scope chain into the error when it finds
// one: so a chain longer than maxInPlace, or an in-place cycle, is refused rather than counted.
//
// local(S, x) weighs, per keyword: enum and const compare x with their values (bounded by both
// sizes; a number is parsed into a big.Rat each time), an object's members are walked (and
// matched against every pattern), an array's items (uniqueItems hashes and compares them), a
// string's bytes (minLength, maxLength, pattern, format), a number's big.Rat arithmetic
// (quadratic in its digits), the instance location copied into an error (x's depth). The
// weights were measured on schemas that stress each (BenchmarkWorkUnits reports ns/unit): one
// unit takes 1–12 ns. Matching patterns is bounded by time as well (Regexps).
const (
	stepUnits    = 100 // one evaluation
	numberUnits  = 50  // parsing a small number into a big.Rat (fmt.Sprint, SetString)
	memberUnits  = 2   // walking one member of an object (and its unevaluated bookkeeping)
	patternUnits = 5   // matching one member name against one pattern, besides the match
	matchUnits   = 2   // a byte of a pattern match (RE2 takes ~20 ns a byte; time bounds it too)
)

// inode is one node of the value being validated.
type inode struct {
	kind  byte     // 'o' object, 'a' array, 's' string, 'n' number, 'x' anything else
	names []string // an object's member names
	kids  []int32  // an object's member values (in the order of names), an array's items
	keys  []int32  // an object's member names as string nodes (propertyNames checks them)
	size  int64    // a string's length in bytes, a number's digits and exponent, the members
	// nameBytes is the length of an object's member names together.
	nameBytes int64
	weight    int64 // the cost of comparing or hashing the subtree (enum, const, uniqueItems)
	depth     int32
}

type memoKey struct {
	s *jsonschema.Schema
	x int32
}

// inPlaceInfo is what the graph of in-place subschemas below one schema holds.
type inPlaceInfo struct {
	longest int      // the longest chain of in-place subschemas from here, this one included
	loop    []string // pointers of an in-place cycle reachable from here, if any
	busy    bool     // being computed (a cycle when met again)
}

// schemaInfo caches what local needs of one schema: the weights of its enum and const, how
// many numeric keywords it has and the work of their numbers.
type schemaInfo struct {
	enum, konst, nums, num int64
}

type bounder struct {
	s     *Bounded
	limit int64
	scope string // whose budget the limit is, for the message
	work  int64  // the work of computing the bound, in the same units
	err   *LimitError
	nodes []inode
	memo  map[memoKey]int64 // nil when counts depend on the path ($recursiveRef)
	// path is the validator's scope chain: every subschema applied so far, innermost last.
	// seg is where the current value's in-place chain starts; start where the current
	// validation starts (propertyNames validates each name afresh).
	path       []*jsonschema.Schema
	seg, start int
}

// bound returns an upper bound of the work of validating v against sch, and the work of
// computing it; or a *LimitError when the bound exceeds limit (scope says whose budget
// that is, for the message), v holds a number beyond the limits, or the subschemas applied to
// one value loop or chain too long. s.mu must be held.
func (s *Bounded) bound(sch *jsonschema.Schema, v any, limit int64, scope string) (int64, int64, *LimitError) {
	b := &bounder{s: s, limit: limit, scope: scope}
	if !s.doc.recursive {
		b.memo = map[memoKey]int64{}
	}
	root, bad := b.build(v, 0)
	if bad != nil {
		return 0, 0, &LimitError{Reason: fmt.Sprintf("the value holds %s at %q: exact arithmetic on it can take minutes; write a number a float64 can hold", bad.why, joinPointer(bad.path...))}
	}
	n := b.count(sch, root)
	if b.err != nil {
		return limit + 1, b.work, b.err
	}
	return n, b.work, nil
}

// badNumber is a number beyond the limits, and its path (built on the way out).
type badNumber struct {
	why  string
	path []string
}

// build adds v and its members to the nodes, refusing numbers beyond the limits.
func (b *bounder) build(v any, depth int32) (int32, *badNumber) {
	i := int32(len(b.nodes))
	b.nodes = append(b.nodes, inode{kind: 'x', weight: 1, depth: depth})
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names) // a deterministic first culprit
		kids := make([]int32, len(names))
		keys := make([]int32, len(names))
		w := int64(1)
		for j, k := range names {
			c, bad := b.build(v[k], depth+1)
			if bad != nil {
				bad.path = append([]string{k}, bad.path...)
				return 0, bad
			}
			kids[j] = c
			keys[j] = int32(len(b.nodes))
			kw := 1 + int64(len(k))/64
			b.nodes = append(b.nodes, inode{kind: 's', size: int64(len(k)), weight: kw, depth: depth + 1})
			w += kw + b.nodes[c].weight
		}
		b.nodes[i] = inode{kind: 'o', names: names, kids: kids, keys: keys, size: int64(len(names)), weight: w, depth: depth}
		for _, k := range names {
			b.nodes[i].nameBytes += int64(len(k))
		}
	case []any:
		kids := make([]int32, len(v))
		w := int64(1)
		for j, it := range v {
			c, bad := b.build(it, depth+1)
			if bad != nil {
				bad.path = append([]string{strconv.Itoa(j)}, bad.path...)
				return 0, bad
			}
			kids[j] = c
			w += b.nodes[c].weight
		}
		b.nodes[i] = inode{kind: 'a', kids: kids, size: int64(len(v)), weight: w, depth: depth}
	case string:
		b.nodes[i] = inode{kind: 's', size: int64(len(v)), weight: 1 + int64(len(v))/64, depth: depth}
	case json.Number:
		if why := NumberTooBig(string(v)); why != "" {
			return 0, &badNumber{why: why}
		}
		n := numberSize(string(v))
		b.nodes[i] = inode{kind: 'n', size: n, weight: 2 * ratUnits(n), depth: depth}
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		b.nodes[i] = inode{kind: 'n', size: 20, weight: 2 * ratUnits(20), depth: depth}
	}
	return i, nil
}

// numberSize is the decimal size of a number literal's big.Rat: its digits and exponent.
func numberSize(lit string) int64 {
	n := int64(len(lit))
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e, _ := strconv.Atoi(strings.TrimLeft(lit[i+1:], "+"))
		n += int64(max(e, -e))
	}
	return n
}

// ratUnits is the work of parsing or comparing a number of n decimal digits (exponent
// included): big.Rat's normalisation is quadratic in them (1,400 digits take ~25 µs).
func ratUnits(n int64) int64 { return numberUnits + n*n/4096 }

// count returns the bound of applying s to node x, saturating past the limit.
func (b *bounder) count(s *jsonschema.Schema, x int32) int64 {
	if b.err != nil {
		return b.limit + 1
	}
	// A call costs a few map operations (~10 units); every call adds at least stepUnits/2
	// to the bound, so this stops only past the limit.
	b.work += 10
	if b.work > b.limit {
		b.exceeded(s, x)
		return b.limit + 1
	}
	if s.Bool != nil {
		return stepUnits / 2
	}
	key := memoKey{s, x}
	if b.memo != nil {
		if n, ok := b.memo[key]; ok {
			return n
		}
	}
	if !b.enter(s) {
		return b.limit + 1
	}
	b.path = append(b.path, s)
	n := b.applied(s, x, b.local(s, x))
	b.path = b.path[:len(b.path)-1]
	if n > b.limit {
		b.exceeded(s, x)
	}
	if b.memo != nil {
		b.memo[key] = n
	}
	return n
}

// enter reports whether s may be applied in place at the end of the current chain: not when it
// is already in the chain (the validator would loop), nor past maxInPlace, nor when a chain
// below it can be either.
func (b *bounder) enter(s *jsonschema.Schema) bool {
	for _, t := range b.path[b.seg:] {
		if t == s {
			b.fail(s, fmt.Sprintf("validating it loops: %s applies to the same value again through a chain of in-place keywords (the validator stops there with an error): make the recursion go through properties or items", b.where(s)))
			return false
		}
	}
	if len(b.path)-b.seg >= maxInPlace {
		b.fail(s, fmt.Sprintf("more than %d subschemas apply to the same value in one chain of $ref, allOf, anyOf …, down to %s: flatten the chain", maxInPlace, b.where(s)))
		return false
	}
	return b.checkInPlace(s)
}

// applied adds to n, saturating past the limit, the counts of the subschemas s applies to x:
// in place (references, applicators, conditionals) and to its members or items.
func (b *bounder) applied(s *jsonschema.Schema, x int32, n int64) int64 {
	add := func(m int64) { n = min(n+m, b.limit+1) }
	self := func(c *jsonschema.Schema) {
		if c != nil {
			add(b.count(c, x))
		}
	}
	if s.Ref != nil && s.DraftVersion < 2019 {
		self(s.Ref) // siblings of $ref are ignored before 2019-09
		return n
	}
	self(s.Ref)
	self(b.recursiveTarget(s))
	for _, c := range b.dynamicTargets(s) {
		self(c)
	}
	for _, cs := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, {s.Not, s.If, s.Then, s.Else}} {
		for _, c := range cs {
			self(c)
		}
	}
	switch b.nodes[x].kind {
	case 'o':
		for _, c := range s.DependentSchemas {
			self(c)
		}
		for _, d := range s.Dependencies {
			if c, ok := d.(*jsonschema.Schema); ok {
				self(c)
			}
		}
		add(b.members(s, x))
	case 'a':
		add(b.items(s, x))
	case 's':
		if s.ContentSchema != nil {
			b.fail(s, "contentSchema is asserted, and the workbench cannot bound what a decoded string holds")
		}
	}
	return n
}

// recursiveTarget returns the schema s's $recursiveRef reaches, or nil; where it cannot be
// bounded it fails.
func (b *bounder) recursiveTarget(s *jsonschema.Schema) *jsonschema.Schema {
	r := s.RecursiveRef
	if r != nil && r.RecursiveAnchor {
		if b.s.doc.stray {
			b.fail(s, b.strayWhy())
		}
		r = b.outermostRecursive(r)
	}
	return r
}

// dynamicTargets returns every schema s's $dynamicRef may reach; where they cannot be bounded
// it fails.
func (b *bounder) dynamicTargets(s *jsonschema.Schema) []*jsonschema.Schema {
	if s.DynamicRef == nil {
		return nil
	}
	ts, ok := b.s.dynamicTargets(s.DynamicRef)
	if !ok {
		b.fail(s, b.strayWhy())
	}
	return ts
}

// members counts the subschemas s applies to an object's members and names.
func (b *bounder) members(s *jsonschema.Schema, x int32) int64 {
	var n int64
	nd := &b.nodes[x]
	additional, _ := s.AdditionalProperties.(*jsonschema.Schema)
	for i, name := range nd.names {
		c := nd.kids[i]
		p, named := s.Properties[name]
		if named {
			n += b.descend(p, c)
		}
		for _, p := range s.PatternProperties {
			n += b.descend(p, c)
		}
		if !named && additional != nil {
			n += b.descend(additional, c)
		}
		if s.UnevaluatedProperties != nil {
			n += b.descend(s.UnevaluatedProperties, c)
		}
		if n > b.limit {
			return n
		}
	}
	if s.PropertyNames != nil {
		for _, k := range nd.keys {
			// Each name is validated afresh: a new scope chain.
			seg, start := b.seg, b.start
			b.seg, b.start = len(b.path), len(b.path)
			n += b.count(s.PropertyNames, k)
			b.seg, b.start = seg, start
			if n > b.limit {
				return n
			}
		}
	}
	return n
}

// items counts the subschemas s applies to an array's items.
func (b *bounder) items(s *jsonschema.Schema, x int32) int64 {
	var n int64
	kids := b.nodes[x].kids
	each := func(c *jsonschema.Schema, from int) {
		if c == nil {
			return
		}
		for _, k := range kids[min(from, len(kids)):] {
			if n > b.limit {
				return
			}
			n += b.descend(c, k)
		}
	}
	evaluated := 0
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		each(items, 0)
		evaluated = len(kids)
	case []*jsonschema.Schema:
		for i, c := range items[:min(len(items), len(kids))] {
			n += b.descend(c, kids[i])
		}
		evaluated = min(len(items), len(kids))
	}
	if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		each(a, evaluated)
	}
	for i, c := range s.PrefixItems[:min(len(s.PrefixItems), len(kids))] {
		n += b.descend(c, kids[i])
	}
	each(s.Items2020, len(s.PrefixItems))
	each(s.Contains, 0)
	each(s.UnevaluatedItems, 0)
	return n
}

// descend counts c applied to node y, a member or item of the current value.
func (b *bounder) descend(c *jsonschema.Schema, y int32) int64 {
	seg := b.seg
	b.seg = len(b.path)
	n := b.count(c, y)
	b.seg = seg
	return n
}

// local weighs what s's own keywords do with node x (see the comment at the top).
func (b *bounder) local(s *jsonschema.Schema, x int32) int64 {
	nd := &b.nodes[x]
	w := stepUnits + int64(nd.depth)/2
	if s.Enum != nil || s.Const != nil || s.MultipleOf != nil || s.Minimum != nil || s.Maximum != nil ||
		s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil {
		si := b.s.schemaInfo(s)
		if s.Enum != nil {
			w += min(si.enum, int64(len(s.Enum.Values))*nd.weight)
		}
		if s.Const != nil {
			w += min(si.konst, nd.weight)
		}
		if nd.kind == 'n' && si.nums > 0 {
			// Each keyword parses x (fmt.Sprint, SetString) and computes with the schema's number.
			w += si.nums*2*ratUnits(nd.size) + 2*si.num
		}
	}
	switch nd.kind {
	case 'o':
		m, p := nd.size, int64(len(s.PatternProperties))
		w += m*(memberUnits+patternUnits*p) + matchUnits*p*nd.nameBytes + int64(len(s.Required)) + int64(len(s.DependentSchemas))
		for _, d := range s.Dependencies {
			if l, ok := d.([]string); ok {
				w += int64(len(l))
			}
			w++
		}
		for _, l := range s.DependentRequired {
			w += 1 + int64(len(l))
		}
	case 'a':
		m := nd.size
		w += m
		if s.UniqueItems && m > 1 {
			// Up to 20 items are compared pairwise; more are hashed, then compared on a match.
			w += min(m, 20) * nd.weight
		}
	case 's':
		if s.MinLength != nil || s.MaxLength != nil || s.ContentEncoding != nil || s.ContentMediaType != nil {
			w += nd.size / 8
		}
		if s.Pattern != nil {
			w += matchUnits * nd.size
		}
		if s.Format != nil {
			w += nd.size // format "regex" compiles the string
		}
	case 'n':
		if s.Types != nil {
			w += ratUnits(nd.size) // "integer" parses the number
		}
	}
	return w
}

// schemaInfo returns (computing once) the weights of s's enum, const and numbers.
func (s *Bounded) schemaInfo(sch *jsonschema.Schema) *schemaInfo {
	if si, ok := s.info[sch]; ok {
		return si
	}
	si := &schemaInfo{}
	if sch.Enum != nil {
		for _, v := range sch.Enum.Values {
			si.enum += anyWeight(v)
		}
	}
	if sch.Const != nil {
		si.konst = anyWeight(*sch.Const)
	}
	for _, r := range []*big.Rat{sch.MultipleOf, sch.Minimum, sch.Maximum, sch.ExclusiveMinimum, sch.ExclusiveMaximum} {
		if r != nil {
			si.nums++
			// 3.3 bits a decimal digit.
			si.num += ratUnits(int64(r.Num().BitLen()+r.Denom().BitLen())*3/10 + 1)
		}
	}
	s.info[sch] = si
	return si
}

// anyWeight is the cost of comparing or hashing v, as inode.weight.
func anyWeight(v any) int64 {
	switch v := v.(type) {
	case map[string]any:
		w := int64(1)
		for k, c := range v {
			w += 1 + int64(len(k))/64 + anyWeight(c)
		}
		return w
	case []any:
		w := int64(1)
		for _, c := range v {
			w += anyWeight(c)
		}
		return w
	case string:
		return 1 + int64(len(v))/64
	case json.Number:
		return 2 * ratUnits(numberSize(string(v))) // equals parses both sides
	}
	return 1
}

// outermostRecursive returns the target of a $recursiveRef whose initial target r has
// $recursiveAnchor: as the validator does, the outermost schema of the scope chain whose
// resource has "$recursiveAnchor": true (the schema itself, not its resource), or r.
func (b *bounder) outermostRecursive(r *jsonschema.Schema) *jsonschema.Schema {
	for _, t := range b.path[b.start:] {
		if b.s.doc.recursiveAnchored(b.s.pointer(t)) {
			return t
		}
	}
	return r
}

// dynamicTargets returns every schema a $dynamicRef can resolve to: its initial target, and
// when that carries the same $dynamicAnchor, every schema of the document that carries it; ok
// is false when a $dynamicAnchor may hide outside the schema keywords (docInfo.stray).
func (s *Bounded) dynamicTargets(d *jsonschema.DynamicRef) (ts []*jsonschema.Schema, ok bool) {
	if d.Anchor == "" || d.Ref.DynamicAnchor != d.Anchor {
		return []*jsonschema.Schema{d.Ref}, true
	}
	if s.doc.stray {
		return []*jsonschema.Schema{d.Ref}, false
	}
	if known, ok := s.dyn[d.Anchor]; ok {
		return known, true
	}
	ts = []*jsonschema.Schema{d.Ref}
	for _, ptr := range s.doc.dynAnchors[d.Anchor] {
		// These were compiled with the document (its schema positions), so this only looks
		// them up.
		if t, err := s.c.Compile(s.url + "#" + ptr); err == nil && t != d.Ref {
			ts = append(ts, t)
		}
	}
	if s.dyn == nil {
		s.dyn = map[string][]*jsonschema.Schema{}
	}
	s.dyn[d.Anchor] = ts
	return ts, true
}

func (b *bounder) strayWhy() string {
	return "a $dynamicRef or $recursiveRef resolves at run time, and an $id or anchor sits outside the schema keywords (in a default, enum or unknown keyword), so the workbench cannot tell its targets: move the anchored schemas under $defs"
}

// inPlaceEdges returns the subschemas sch applies to the value it is applied to.
func (s *Bounded) inPlaceEdges(sch *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c *jsonschema.Schema) {
		if c != nil {
			out = append(out, c)
		}
	}
	add(sch.Ref)
	if sch.Ref != nil && sch.DraftVersion < 2019 {
		return out
	}
	add(sch.RecursiveRef)
	if d := sch.DynamicRef; d != nil {
		ts, _ := s.dynamicTargets(d)
		out = append(out, ts...)
	}
	out = append(out, sch.AllOf...)
	out = append(out, sch.AnyOf...)
	out = append(out, sch.OneOf...)
	add(sch.Not)
	add(sch.If)
	add(sch.Then)
	add(sch.Else)
	for _, k := range sortedKeys(sch.DependentSchemas) {
		add(sch.DependentSchemas[k])
	}
	for _, k := range sortedKeys(sch.Dependencies) {
		if c, ok := sch.Dependencies[k].(*jsonschema.Schema); ok {
			add(c)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkInPlace makes sure the in-place subschemas below sch hold no cycle and no chain longer
// than maxInPlace, whatever the value: a memoised count would not see a cycle that closes
// above the schema it memoises. The answer is kept for the schema's lifetime.
func (b *bounder) checkInPlace(sch *jsonschema.Schema) bool {
	info := b.s.inPlaceOf(sch, &b.work)
	switch {
	case info.loop != nil:
		b.fail(sch, fmt.Sprintf("validating it can loop: %s applies to the same value again through in-place keywords ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas, $dynamicRef), and the validator stops there with an error: make the recursion go through properties or items", strings.Join(info.loop, " → ")))
		return false
	case info.longest > maxInPlace:
		b.fail(sch, fmt.Sprintf("more than %d subschemas apply to the same value in one chain of $ref, allOf, anyOf … below %s: flatten the chain", maxInPlace, b.where(sch)))
		return false
	}
	return true
}

// inPlaceOf computes (once per schema) the in-place graph below sch, counting its work in steps.
func (s *Bounded) inPlaceOf(sch *jsonschema.Schema, steps *int64) *inPlaceInfo {
	if info, ok := s.inPlace[sch]; ok {
		if info.busy {
			return &inPlaceInfo{loop: []string{"#" + s.pointer(sch)}}
		}
		return info
	}
	info := &inPlaceInfo{busy: true, longest: 1}
	s.inPlace[sch] = info
	for _, c := range s.inPlaceEdges(sch) {
		*steps += 10
		if c.Bool != nil {
			continue
		}
		ci := s.inPlaceOf(c, steps)
		if ci.loop != nil {
			info.loop = append([]string{"#" + s.pointer(sch)}, ci.loop...)
			if len(info.loop) > 4 {
				info.loop = append(info.loop[:3], "…")
			}
			break
		}
		info.longest = max(info.longest, ci.longest+1)
		if info.longest > maxInPlace {
			break
		}
	}
	info.busy = false
	return info
}

func (b *bounder) fail(s *jsonschema.Schema, why string) {
	if b.err == nil {
		b.err = &LimitError{Pointer: b.s.pointer(s), Reason: why}
	}
}

// exceeded reports the bound past the limit, blaming s (the innermost schema whose count
// exceeds it) and what in it multiplies the work.
func (b *bounder) exceeded(s *jsonschema.Schema, x int32) {
	if b.err != nil {
		return
	}
	var fan []string
	inPlace := false
	note := func(ok bool, what string, inplace bool) {
		if ok {
			fan = append(fan, what)
			inPlace = inPlace || inplace
		}
	}
	branches := func(kw string, n int) string { return fmt.Sprintf("%s (%d branches)", kw, n) }
	note(len(s.AnyOf) > 0, branches("anyOf", len(s.AnyOf)), true)
	note(len(s.AllOf) > 0, branches("allOf", len(s.AllOf)), true)
	note(len(s.OneOf) > 0, branches("oneOf", len(s.OneOf)), true)
	note(s.Not != nil, "not", true)
	note(s.If != nil, "if/then/else", true)
	note(s.Ref != nil, "$ref", true)
	note(s.DynamicRef != nil, "$dynamicRef", true)
	note(s.RecursiveRef != nil, "$recursiveRef", true)
	note(len(s.DependentSchemas) > 0 || len(s.Dependencies) > 0, "dependentSchemas", true)
	note(len(s.PatternProperties) > 0, fmt.Sprintf("patternProperties (%d patterns)", len(s.PatternProperties)), false)
	note(len(s.Properties) > 0 || s.AdditionalProperties != nil || s.UnevaluatedProperties != nil || s.PropertyNames != nil, "properties", false)
	note(s.Items != nil || s.Items2020 != nil || len(s.PrefixItems) > 0 || s.Contains != nil || s.UnevaluatedItems != nil, "items", false)
	note(s.Enum != nil, fmt.Sprintf("enum (%d values)", lenEnum(s)), false)
	note(s.UniqueItems, "uniqueItems", false)
	if len(fan) > 3 {
		fan = fan[:3]
	}
	what := "the value is large"
	if len(fan) > 0 {
		what = "the work multiplies at " + b.where(s) + ", through " + strings.Join(fan, ", ")
	}
	var advice string
	switch {
	case inPlace:
		advice = "flatten the chain of anyOf, allOf, oneOf, if/then/else or $ref (each branch that leads to more branching multiplies the work), or refer to a shared definition once rather than from every branch"
	case len(s.PatternProperties) > 1:
		advice = "use fewer patternProperties, with patterns that do not overlap, or name the properties"
	case s.Enum != nil || s.UniqueItems:
		advice = "shorten the enum or the value (every item is compared with every enum member)"
	default:
		advice = "shorten the value, or give its schema fewer nested subschemas"
	}
	b.err = &LimitError{Pointer: b.s.pointer(s), Reason: fmt.Sprintf("checking it could take more than %s units of work (about 10 ns each)%s: %s; %s",
		printer.Sprint(b.limit), b.scope, what, advice)}
}

func lenEnum(s *jsonschema.Schema) int {
	if s.Enum == nil {
		return 0
	}
	return len(s.Enum.Values)
}

// where names a compiled schema for a message.
func (b *bounder) where(s *jsonschema.Schema) string { return "#" + b.s.pointer(s) }

// docInfo is what the bound needs of the schema document beyond the compiled graph.
type docInfo struct {
	// dynAnchors lists the pointers of the schemas that carry each $dynamicAnchor.
	dynAnchors map[string][]string
	// resources maps the pointer of each resource ("" for the document, and every schema with
	// an $id) to whether it has "$recursiveAnchor": true.
	resources map[string]bool
	// recursive is set when the document holds a $recursiveRef, whose target depends on the
	// path: counts are then not memoised.
	recursive bool
	// stray is set when $id, $anchor, $dynamicAnchor or $recursiveAnchor appears outside the
	// schema keywords (a $ref may still reach it): dynamic references are then not bounded.
	stray bool
}

// recursiveAnchored reports whether the resource holding the schema at ptr has
// "$recursiveAnchor": true.
func (d docInfo) recursiveAnchored(ptr string) bool {
	for {
		if a, ok := d.resources[ptr]; ok {
			return a
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.resources[""]
		}
		ptr = ptr[:i]
	}
}

// scanDoc walks a schema document's subschemas (at the positions every draft's compiler
// walks) for what docInfo holds.
func scanDoc(doc any) docInfo {
	d := docInfo{dynAnchors: map[string][]string{}, resources: map[string]bool{}}
	var toks []string // the path to the current value; joined only for what is recorded
	var walk func(v any, schema bool)
	in := func(tok string, v any, schema bool) {
		toks = append(toks, tok)
		walk(v, schema)
		toks = toks[:len(toks)-1]
	}
	walk = func(v any, schema bool) {
		if len(toks) > 4*MaxDepth+8 {
			return
		}
		switch v := v.(type) {
		case []any:
			for i, it := range v {
				in(strconv.Itoa(i), it, false)
			}
		case map[string]any:
			if _, ok := v["$recursiveRef"]; ok {
				d.recursive = true
			}
			_, id := v["$id"].(string)
			a, dyn := v["$dynamicAnchor"].(string)
			if !schema {
				_, anchor := v["$anchor"]
				_, rec := v["$recursiveAnchor"]
				d.stray = d.stray || id || dyn || anchor || rec
				for k, c := range v {
					in(k, c, false)
				}
				return
			}
			if id || len(toks) == 0 {
				d.resources[joinPointer(toks...)] = v["$recursiveAnchor"] == true
			}
			if dyn {
				d.dynAnchors[a] = append(d.dynAnchors[a], joinPointer(toks...))
			}
			for k, c := range v {
				toks = append(toks, k)
				switch {
				case SubschemaKeys[k] || k == "contentSchema":
					if arr, ok := c.([]any); ok && (k == "items" || k == "additionalItems") {
						for i, it := range arr {
							in(strconv.Itoa(i), it, true)
						}
					} else {
						walk(c, true)
					}
				case (SubschemaMapKeys[k] || k == "dependencies") && isMap(c):
					for kk, cc := range c.(map[string]any) {
						in(kk, cc, true)
					}
				case SubschemaArrayKeys[k]:
					if arr, ok := c.([]any); ok {
						for i, it := range arr {
							in(strconv.Itoa(i), it, true)
						}
					} else {
						walk(c, false)
					}
				default:
					walk(c, false)
				}
				toks = toks[:len(toks)-1]
			}
		}
	}
	walk(doc, true)
	for _, ps := range d.dynAnchors {
		sort.Strings(ps)
	}
	return d
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}
