// Package schema is the workbench's one setup of the JSON Schema library
// (github.com/santhosh-tekuri/jsonschema/v6): the compiler's settings (NewCompiler), the
// regular-expression engine it uses (Go's RE2 where a pattern allows, ECMA-262 through regexp2
// otherwise, every match on a clock), and the bounds that make checking a value against a
// hostile schema cost a bounded amount of time and memory (Guard, Bounded, LimitError).
//
// It is a leaf: it imports the standard library and the schema and regexp libraries only, so
// that the linter (package lint) and the model runner (package selection/runner) share it. A
// schema document is what jsonschema.UnmarshalJSON returns: maps, slices, json.Number.
package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Limits on the schemas compiled. Real schemas nest a handful of levels and hold a few hundred
// nodes; the limits keep a hostile schema from costing more than a finding.
const (
	MaxDepth = 64
	MaxNodes = 100000
)

// printer words numbers with thousands separators, as the library words its messages.
var printer = message.NewPrinter(language.English)

// Keywords whose values are schemas, or objects or arrays of schemas. Values under any other
// keyword (default, enum, examples, const …) are data, not schemas.
var (
	SubschemaKeys      = set("items additionalProperties contains not if then else propertyNames unevaluatedProperties unevaluatedItems additionalItems")
	SubschemaMapKeys   = set("properties patternProperties $defs definitions dependentSchemas")
	SubschemaArrayKeys = set("anyOf oneOf allOf prefixItems")
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// RefusingLoader is the compiler's URL loader: it loads nothing, and records what was asked
// for. Meta-schemas of the known drafts are embedded in the library and never reach it.
type RefusingLoader struct{ Asked []string }

// Load refuses url, remembering it.
func (r *RefusingLoader) Load(url string) (any, error) {
	r.Asked = append(r.Asked, url)
	return nil, ErrRefused
}

// ErrRefused is the loader's answer to every URL.
var ErrRefused = errors.New("the workbench never fetches a schema from outside the document")

// Walked is what a pre-compile walk of a schema document found.
type Walked struct {
	Depth, Nodes int
	BadNumber    string // pointer of a NaN or Infinity literal
	TooDeepAt    string
	HugeNumber   string // pointer of a number beyond MaxNumberExponent or MaxNumberDigits
	HugeWhy      string
}

// Walk walks doc up to maxDepth levels (members in key order) for what must be refused before the
// schema library parses it.
func Walk(doc any, maxDepth int) Walked {
	var w Walked
	var toks []string
	var walk func(v any, depth int)
	in := func(tok string, v any, depth int) {
		toks = append(toks, tok)
		walk(v, depth)
		toks = toks[:len(toks)-1]
	}
	walk = func(v any, depth int) {
		w.Nodes++
		w.Depth = max(w.Depth, depth)
		if depth > maxDepth {
			if w.TooDeepAt == "" {
				w.TooDeepAt = joinPointer(toks...)
			}
			return
		}
		if w.Nodes > MaxNodes {
			return
		}
		switch v := v.(type) {
		case json.Number:
			if w.BadNumber == "" && (v == "NaN" || strings.HasSuffix(string(v), "Infinity")) {
				w.BadNumber = joinPointer(toks...)
			} else if why := NumberTooBig(string(v)); w.HugeNumber == "" && why != "" {
				w.HugeNumber, w.HugeWhy = joinPointer(toks...), why
			}
		case []any:
			for i, it := range v {
				in(strconv.Itoa(i), it, depth+1)
			}
		case map[string]any:
			for _, k := range sortedKeys(v) {
				in(k, v[k], depth+1)
			}
		}
	}
	walk(doc, 0)
	return w
}

// joinPointer joins tokens into a JSON pointer, escaping ~ and /.
func joinPointer(toks ...string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// LeafErrors returns the causes of ve that have no causes of their own, in order.
func LeafErrors(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	return leafErrors(ve, nil)
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

// ValidationSummary words a validation error (as Bounded.Validate returns it) in one short
// line: where the value first fails and why. The error's own Error formats the whole tree of
// causes, which grows with the work validation took.
func ValidationSummary(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		if ls := leafErrors(ve, nil); len(ls) > 0 {
			at := "the top level"
			if loc := joinPointer(ls[0].InstanceLocation...); loc != "" {
				at = shortText(strconv.Quote(loc), 100)
			}
			return fmt.Sprintf("at %s: %s", at, ErrMessage(err))
		}
	}
	return ErrMessage(err)
}

// ErrMessage words a validation error by its first leaf, without formatting the whole tree
// (which can be as large as the work it took) or long values of the schema.
func ErrMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Short(err.Error())
	}
	ls := leafErrors(ve, nil)
	if len(ls) == 0 {
		return "the value is not valid"
	}
	return shortText(kindMessage(ls[0].ErrorKind), 300)
}

// kindMessage words an error kind with long lists and values cut short.
func kindMessage(k jsonschema.ErrorKind) string {
	const most = 10
	switch k := k.(type) {
	case *kind.Enum:
		c := kind.Enum{Want: k.Want}
		if len(c.Want) > most {
			c.Want = c.Want[:most]
		}
		c.Want = shortValues(c.Want)
		msg := c.LocalizedString(printer)
		if len(k.Want) > most {
			msg += printer.Sprintf(" … (%d values)", len(k.Want))
		}
		return msg
	case *kind.Const:
		return (&kind.Const{Want: shortValues([]any{k.Want})[0]}).LocalizedString(printer)
	case *kind.Required:
		return (&kind.Required{Missing: firstNames(k.Missing, most)}).LocalizedString(printer)
	case *kind.Dependency:
		return (&kind.Dependency{Prop: k.Prop, Missing: firstNames(k.Missing, most)}).LocalizedString(printer)
	case *kind.DependentRequired:
		return (&kind.DependentRequired{Prop: k.Prop, Missing: firstNames(k.Missing, most)}).LocalizedString(printer)
	case *kind.Pattern:
		return (&kind.Pattern{Got: Short(k.Got), Want: Short(k.Want)}).LocalizedString(printer)
	case *kind.Format:
		got := k.Got
		if s, ok := got.(string); ok {
			got = Short(s)
		}
		return (&kind.Format{Got: got, Want: k.Want, Err: k.Err}).LocalizedString(printer)
	}
	return k.LocalizedString(printer)
}

// shortValues shortens long strings among primitive values (composite ones are not shown).
func shortValues(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			v = Short(s)
		}
		out[i] = v
	}
	return out
}

func firstNames(ns []string, n int) []string {
	if len(ns) <= n {
		return ns
	}
	return append(ns[:n:n], "…")
}

func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Short cuts s to 60 characters, as messages quote values.
func Short(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
