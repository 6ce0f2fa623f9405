package lint

import (
	"strings"
	"sync"

	"github.com/tool-workbench/workbench/listing"
)

func init() {
	repairers["params-required"] = repairRequired
	repairers["no-params-closed"] = repairClosed
	repairers["json-duplicate-key"] = repairDuplicateKey
	repairers["param-default-promised"] = repairDefault
	repairers["header-sensitive"] = repairHeader
}

// inputSchema returns the tool's inputSchema object and its pointer when f's pointer is that
// schema, or nil.
func inputSchema(l *listing.Listing, f Finding) (*listing.Value, string) {
	t, toks := findingTool(l, f)
	if t == nil || len(toks) != 1 || toks[0] != "inputSchema" {
		return nil, ""
	}
	s := t.Get("inputSchema")
	if !s.IsObject() {
		return nil, ""
	}
	return s, f.Pointer
}

// repairRequired adds "required": [] where the key is absent, which already means that every
// parameter is optional. Drafts 3 and 4 forbid an empty list, so a schema that names them keeps
// its form.
func repairRequired(c *fixCtx, f Finding) []Repair {
	l := c.l
	s, ptr := inputSchema(l, f)
	if s == nil || s.Get("required") != nil {
		return nil
	}
	if d := s.Get("$schema").String(); strings.Contains(d, "draft-03") || strings.Contains(d, "draft-04") {
		return nil
	}
	return []Repair{newRepair(l, f, "", `Add "required": [] (every parameter stays optional)`,
		listing.Op{Kind: listing.OpSet, Path: ptr + "/required", Value: listing.NewArray()})}
}

// repairClosed closes a schema without parameters with additionalProperties: false.
func repairClosed(c *fixCtx, f Finding) []Repair {
	l := c.l
	s, ptr := inputSchema(l, f)
	if s == nil {
		return nil
	}
	return []Repair{newRepair(l, f, "", "Add additionalProperties: false (the tool then refuses any argument)",
		listing.Op{Kind: listing.OpSet, Path: ptr + "/additionalProperties", Value: listing.NewBool(false)})}
}

// repairDuplicateKey rewrites the object that repeats a key as a parser reads it: each key once,
// where it first appeared, with its last value (listing.Value.Fields).
func repairDuplicateKey(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil || len(toks) == 0 {
		return nil
	}
	parent := listing.Resolve(t, listing.JoinPointer(toks[:len(toks)-1]...))
	if !parent.IsObject() {
		return nil
	}
	fields := parent.Fields()
	if len(fields) == len(parent.Members) {
		return nil
	}
	dropped := len(parent.Members) - len(fields)
	obj := listing.NewObject(append([]listing.Member(nil), fields...)...)
	ptr := "/tools/" + itoa(f.ToolIndex) + listing.JoinPointer(toks[:len(toks)-1]...)
	return []Repair{newRepair(l, f, "", "Drop "+plural(dropped, "repeated key")+", keeping the value a JSON parser keeps (the last)",
		listing.Op{Kind: listing.OpSet, Path: ptr, Value: obj})}
}

// repairHeader removes x-mcp-header from a parameter that looks personal or secret.
func repairHeader(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil || len(toks) == 0 || toks[len(toks)-1] != "x-mcp-header" {
		return nil
	}
	if listing.Resolve(t, listing.JoinPointer(toks...)) == nil {
		return nil
	}
	return []Repair{newRepair(l, f, "", "Remove x-mcp-header from the parameter (its value then travels only in the request body)",
		listing.Op{Kind: listing.OpRemove, Path: f.Pointer})}
}

// repairDefault moves the default a parameter's description promises into its schema: the
// first of the JSON literal and the string that the parameter's schema accepts (the linter's
// own schema-value-invalid test decides), with the phrase that promised it taken out of the
// description, which would otherwise repeat the schema (description-repeats-schema).
func repairDefault(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil {
		return nil
	}
	p := listing.Resolve(t, listing.JoinPointer(toks...))
	if !p.IsObject() || hasDefault(p) || !p.Get("description").IsString() {
		return nil
	}
	desc := p.Get("description").String()
	enum := enumStrings(p)
	v := promisedDefault(desc, enum)
	if v == "" {
		return nil
	}
	rest, ok := withoutDefaultPhrase(desc, v)
	if !ok || strings.TrimSpace(rest) == "" || promisedDefault(rest, enum) != "" {
		return nil
	}
	for _, cand := range defaultCandidates(desc, v) {
		ops := []listing.Op{{Kind: listing.OpSet, Path: f.Pointer + "/default", Value: cand}, setString(f.Pointer+"/description", rest)}
		if defaultValid(t, toks, cand) {
			title := "Move the default " + short(string(listing.Marshal(cand, ""))) + " from the description into the schema"
			return []Repair{newRepair(l, f, "", title, ops...)}
		}
	}
	return nil
}

// withoutDefaultPhrase returns desc without the phrase that promises the default v: a
// parenthesis ("(default: 30)"), a sentence of its own ("Defaults to 30."), or a clause that
// ends a sentence (", defaults to 30."). Anything else would leave words hanging, and ok is
// false.
func withoutDefaultPhrase(desc, v string) (string, bool) {
	for _, m := range defaultPromise.FindAllStringSubmatchIndex(desc, -1) {
		val := strings.TrimRight(desc[m[4]:m[5]], ".")
		if val != v {
			continue
		}
		// The value's pattern takes in a full stop that ends the sentence: leave it there.
		a, b := m[0], m[4]+len(val)
		if m[3] > m[2] && b < len(desc) && desc[b] == desc[m[2]] {
			b++ // the closing quote
		}
		if desc[a] == '(' {
			end := strings.IndexByte(desc[b:], ')')
			if end < 0 || end > 20 {
				return "", false
			}
			return strings.TrimRight(desc[:a], " ") + desc[b+end+1:], true
		}
		for _, sp := range sentenceSpans(desc) {
			if a < sp[0] || a >= sp[1] {
				continue
			}
			sentence := strings.TrimRight(desc[b:sp[1]], " \t\r\n")
			if sentence != "" && sentence != "." {
				return "", false
			}
			if strings.TrimSpace(desc[sp[0]:a]) == "" {
				out, _ := dropSentences(desc, func(s string) bool { return s == desc[sp[0]:sp[1]] })
				return out, true
			}
			head := strings.TrimRight(desc[:a], " ")
			if !strings.HasSuffix(head, ",") && !strings.HasSuffix(head, ";") {
				return "", false
			}
			return head[:len(head)-1] + desc[b:], true
		}
	}
	return "", false
}

// defaultCandidates are the values a promised default v may stand for: the JSON literal it
// spells (a number, true, false, null) unless the description quotes it, then the string.
func defaultCandidates(desc, v string) []*listing.Value {
	var out []*listing.Value
	if !strings.ContainsAny(desc, `"'`+"`") || !quotedIn(desc, v) {
		if lit, err := listing.ParseJSON([]byte(v)); err == nil && lit.Kind != listing.String && lit.Kind != listing.Object && lit.Kind != listing.Array {
			out = append(out, lit)
		}
	}
	return append(out, listing.NewString(v))
}

// quotedIn reports whether v appears in quotes in desc.
func quotedIn(desc, v string) bool {
	for _, q := range []string{`"`, `'`, "`"} {
		if strings.Contains(desc, q+v+q) {
			return true
		}
	}
	return false
}

// repairLinter checks the values repairs propose; it has a cache of its own.
var repairLinter = sync.OnceValue(func() *Linter { return New(Config{}) })

// defaultValid reports whether the linter finds value v valid as the default of the property
// schema at toks in tool t: no schema-value-invalid finding there, and no schema-invalid or
// schema-limit finding. A property schema without $ref is checked on its own, in a tool of
// one parameter, so that a tool of many parameters is not linted again for each.
func defaultValid(t *listing.Value, toks []string, v *listing.Value) bool {
	p := listing.Resolve(t, listing.JoinPointer(toks...))
	rel := listing.JoinPointer(toks...) + "/default"
	if !hasRef(p) {
		schema := listing.NewObject(listing.Member{Key: "type", Value: listing.NewString("object"), KeyPos: -1},
			listing.Member{Key: "properties", Value: listing.NewObject(listing.Member{Key: "p", Value: p, KeyPos: -1}), KeyPos: -1})
		t = listing.NewObject(listing.Member{Key: "name", Value: listing.NewString("t"), KeyPos: -1},
			listing.Member{Key: "inputSchema", Value: schema, KeyPos: -1})
		toks = []string{"inputSchema", "properties", "p"}
		rel = "/inputSchema/properties/p/default"
	}
	op := listing.Op{Kind: listing.OpSet, Path: "/tools/0" + listing.JoinPointer(toks...) + "/default", Value: v}
	one, err := (&listing.Listing{Tools: []*listing.Value{t}}).Apply(op)
	if err != nil {
		return false
	}
	for _, f := range repairLinter().Lint(one) {
		if f.Rule == "schema-value-invalid" && strings.HasPrefix(f.Pointer, "/tools/0"+rel) ||
			f.Rule == "schema-invalid" || f.Rule == "schema-limit" {
			return false
		}
	}
	return true
}

// hasRef reports whether a schema holds a $ref or $dynamicRef anywhere, which may point into
// the rest of the tool's schema.
func hasRef(v *listing.Value) bool {
	switch v.Kind {
	case listing.Object:
		for _, m := range v.Members {
			if m.Key == "$ref" || m.Key == "$dynamicRef" || m.Key == "$recursiveRef" || hasRef(m.Value) {
				return true
			}
		}
	case listing.Array:
		for _, it := range v.Items {
			if hasRef(it) {
				return true
			}
		}
	}
	return false
}
