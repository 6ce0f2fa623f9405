package schema

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// schemaBase is the URL the tests compile schemas under.
const schemaBase = "https://workbench.invalid/schema.json"

// schemaWork returns the bound of every default, const, enum and examples value of doc (what
// the linter's value checks would validate), summed, and the largest of one value.
func schemaWork(t testing.TB, doc any) (total, most int64) {
	t.Helper()
	bs, err := NewGuard().Compile(doc, schemaBase)
	if err != nil {
		return 0, 0 // the finding is schema-invalid or schema-limit, not a value check
	}
	eachSubschema(doc, nil, func(s map[string]any, ptr string) {
		var vals []any
		for _, k := range []string{"default", "const"} {
			if v, ok := s[k]; ok {
				vals = append(vals, v)
			}
		}
		for _, k := range []string{"enum", "examples"} {
			if v, ok := s[k].([]any); ok {
				vals = append(vals, v...)
			}
		}
		if len(vals) == 0 {
			return
		}
		sub, err := bs.Sub(ptr)
		if err != nil {
			t.Fatalf("%s: %v", ptr, err)
		}
		for _, v := range vals {
			bs.mu.Lock()
			n, _, lim := bs.bound(sub, v, 1<<40, "")
			bs.mu.Unlock()
			if lim != nil {
				t.Fatalf("%s: %v", ptr, lim)
			}
			total += n
			most = max(most, n)
		}
	})
	return total, most
}

// eachSubschema calls f for every object subschema of doc with its pointer (toks joined).
func eachSubschema(doc any, toks []string, f func(s map[string]any, ptr string)) {
	obj, ok := doc.(map[string]any)
	if !ok || len(toks) > 4*MaxDepth {
		return
	}
	f(obj, joinPointer(toks...))
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		arr, isArr := v.([]any)
		switch {
		case SubschemaKeys[k] && isArr && k == "items", SubschemaArrayKeys[k] && isArr:
			for i, it := range arr {
				eachSubschema(it, append(toks, k, strconv.Itoa(i)), f)
			}
		case SubschemaKeys[k]:
			eachSubschema(v, append(toks, k), f)
		case SubschemaMapKeys[k] && isMap(v):
			m := v.(map[string]any)
			for _, kk := range sortedKeys(m) {
				eachSubschema(m[kk], append(toks, k, kk), f)
			}
		}
	}
}

// realSchemas returns the input and output schemas of the tools of each real listing under
// ../shared/listings/real, by file and "tool/inputSchema", or skips.
func realSchemas(t testing.TB) map[string]map[string]any {
	t.Helper()
	dir := testutil.Shared(t, "listings", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("skipped: this test needs the real listings, %s/*.json, which are not there", dir)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools, _ := doc.(map[string]any)["tools"].([]any)
		if r, ok := doc.(map[string]any)["result"].(map[string]any); ok {
			tools, _ = r["tools"].([]any)
		}
		schemas := map[string]any{}
		for _, tool := range tools {
			tm, _ := tool.(map[string]any)
			for _, which := range []string{"inputSchema", "outputSchema"} {
				if s, ok := tm[which].(map[string]any); ok {
					schemas[fmt.Sprint(tm["name"])+"/"+which] = s
				}
			}
		}
		out[filepath.Base(f)] = schemas
	}
	return out
}

// TestRealSchemaWork measures the bound on the real listings, against which the budgets were
// chosen: the most costly schema must stay far below MaxWork.
func TestRealSchemaWork(t *testing.T) {
	for file, schemas := range realSchemas(t) {
		var worst, worstValue int64
		worstAt := ""
		for _, at := range sortedKeys(schemas) {
			total, most := schemaWork(t, schemas[at])
			if total > worst {
				worst, worstAt = total, at
			}
			worstValue = max(worstValue, most)
		}
		t.Logf("%s: %d schemas, the most costly %s at %d steps, the most costly value %d steps", file, len(schemas), worstAt, worst, worstValue)
		if worst*100 > MaxWork {
			t.Errorf("%s: %s needs %d steps, within a hundredth of the budget (%d)", file, worstAt, worst, MaxWork)
		}
	}
}

// countingVocab makes every compiled schema count the evaluations its extension sees: the
// validator runs extensions on all but the evaluations it ends early (a type or enum mismatch,
// a false schema, errors in boolean mode), so the count is at most the real number of steps.
func countingVocab(n *atomic.Int64) *jsonschema.Vocabulary {
	meta, err := jsonschema.UnmarshalJSON(strings.NewReader(`{}`))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://workbench.invalid/counting-meta.json", meta); err != nil {
		panic(err)
	}
	sch := c.MustCompile("https://workbench.invalid/counting-meta.json")
	return &jsonschema.Vocabulary{URL: "https://workbench.invalid/vocab/counting", Schema: sch,
		Compile: func(*jsonschema.CompilerContext, map[string]any) (jsonschema.SchemaExt, error) {
			return countingExt{n}, nil
		}}
}

type countingExt struct{ n *atomic.Int64 }

func (e countingExt) Validate(*jsonschema.ValidatorContext, any) { e.n.Add(1) }

// boundAndCount compiles schema with a counting vocabulary and returns the bound of validating
// value against it (nil error) and the evaluations the validator made, or the limit error.
func boundAndCount(t testing.TB, doc any, value any, limit int64) (bound, counted int64, err error) {
	if w := Walk(doc, MaxDepth); w.TooDeepAt != "" || w.Nodes > MaxNodes || w.BadNumber != "" || w.HugeNumber != "" {
		return 0, 0, errors.New("refused before compiling")
	}
	var n atomic.Int64
	rb := NewRegexps(NewGuard())
	c := NewCompiler(&RefusingLoader{}, rb)
	c.RegisterVocabulary(countingVocab(&n))
	c.AssertVocabs()
	if err := c.AddResource(schemaBase, doc); err != nil {
		return 0, 0, err
	}
	root, err := c.Compile(schemaBase)
	if err != nil {
		return 0, 0, err
	}
	bs := NewBounded(c, schemaBase, doc, root, rb)
	bs.mu.Lock()
	bound, _, lim := bs.bound(root, value, limit, "")
	bs.mu.Unlock()
	if lim != nil {
		return 0, 0, lim
	}
	_ = root.Validate(value)
	return bound, n.Load(), nil
}

func mustValue(t testing.TB, src string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mustSchema reads a schema document; schemas and values read alike.
func mustSchema(t testing.TB, src string) any { return mustValue(t, src) }

// TestBoundCoversEvaluations checks the bound against the evaluations counted on schemas that
// exercise each keyword the bound follows.
func TestBoundCoversEvaluations(t *testing.T) {
	tests := []struct{ schema, value string }{
		{`{"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}], "$defs": {"a": {"allOf": [{"type": "string"}, {"minLength": 2}]}}}`, `1`},
		{`{"oneOf": [{"not": {"type": "string"}}, {"if": {"type": "number"}, "then": {"minimum": 3}, "else": {"maxLength": 2}}]}`, `5`},
		{`{"type": "object", "properties": {"a": {"$ref": "#"}}, "patternProperties": {"^a": {"$ref": "#"}, "a$": {}}, "additionalProperties": {"type": "number"}}`, `{"a": {"a": {"a": {}}, "b": 1}, "c": 2}`},
		{`{"type": "object", "propertyNames": {"pattern": "^[a-z]+$", "anyOf": [{"maxLength": 3}, {"minLength": 1}]}, "dependentSchemas": {"a": {"required": ["b"]}}, "unevaluatedProperties": {"type": "string"}}`, `{"a": 1, "bb": "x", "ccc": [1]}`},
		{`{"type": "array", "prefixItems": [{"type": "string"}], "items": {"anyOf": [{"type": "number"}, {"$ref": "#"}]}, "contains": {"type": "number"}, "uniqueItems": true, "unevaluatedItems": false}`, `["a", 1, [2, [3]], 4]`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"n": {"type": "integer", "multipleOf": 2}}, "items": [{"$ref": "#/definitions/n"}], "additionalItems": {"$ref": "#/definitions/n"}, "dependencies": {"x": {"required": ["y"]}, "z": ["x"]}}`, `[2, 3, 4]`},
		{`{"$dynamicAnchor": "node", "type": "object", "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}, "$defs": {"strict": {"$id": "strict", "$dynamicAnchor": "node", "$ref": "schema.json", "unevaluatedProperties": false}}}`, `{"kids": [{"kids": []}, {"kids": [{"x": 1}]}]}`},
		{`{"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true, "type": "object", "properties": {"kids": {"type": "array", "items": {"$recursiveRef": "#"}}}}`, `{"kids": [{"kids": [{}]}, {"kids": 1}]}`},
		{`{"enum": [1, "a", [1, 2], {"a": 1}], "const": {"a": 1}}`, `{"a": 1}`},
	}
	for _, tt := range tests {
		bound, counted, err := boundAndCount(t, mustSchema(t, tt.schema), mustValue(t, tt.value), MaxWork)
		if err != nil {
			t.Errorf("%s: %v", tt.schema, err)
			continue
		}
		if counted == 0 || bound < counted {
			t.Errorf("%s with %s: bound %d, counted %d evaluations", tt.schema, tt.value, bound, counted)
		}
	}
}

// The in-place checks: a loop through keywords refCycle does not follow, and a chain longer
// than maxInPlace, are refused, and so is a number beyond the limits in a value.
func TestBoundRefuses(t *testing.T) {
	tests := []struct{ name, schema, value, want string }{
		{"loop through dependentSchemas", `{"$defs": {"a": {"$anchor": "a", "dependentSchemas": {"k": {"$ref": "#a"}}}}, "$ref": "#a"}`, `{"k": 1}`, "loop"},
		{"loop through an anchor", `{"$defs": {"a": {"$anchor": "a", "anyOf": [{"$ref": "#a"}]}}, "$ref": "#a"}`, `1`, "loop"},
		{"chain", `{"$ref": "#/$defs/a0", "$defs": {` + refChain(150) + `}}`, `1`, "flatten the chain"},
		{"huge number", `{"type": "number", "multipleOf": 0.5}`, `1e500`, "exponent"},
		{"many digits", `{"type": "number"}`, strings.Repeat("9", 1500), "digits"},
		{"doubling", `{"$ref": "#/$defs/a0", "$defs": {` + doubling(30) + `}}`, `1`, "anyOf (2 branches)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := boundAndCount(t, mustSchema(t, tt.schema), mustValue(t, tt.value), MaxWork)
			var lim *LimitError
			if !errors.As(err, &lim) || !strings.Contains(lim.Reason, tt.want) {
				t.Errorf("got %v, want a limit saying %q", err, tt.want)
			}
		})
	}
}

func refChain(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(`"a` + strconv.Itoa(i) + `": {"$ref": "#/$defs/a` + strconv.Itoa(i+1) + `"}, `)
	}
	return b.String() + `"a` + strconv.Itoa(n) + `": {"type": "string"}`
}

func doubling(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		r := `{"$ref": "#/$defs/a` + strconv.Itoa(i+1) + `"}`
		b.WriteString(`"a` + strconv.Itoa(i) + `": {"anyOf": [` + r + `, ` + r + `]}, `)
	}
	return b.String() + `"a` + strconv.Itoa(n) + `": {"type": "string"}`
}

// A SchemaGuard's budgets hold across schemas: once its work is spent, schemas are not
// compiled and values not checked.
func TestSchemaGuardSharedBudget(t *testing.T) {
	g := NewGuard()
	g.work.Store(10_000_000) // four values' worth, to keep the test short
	schema := mustSchema(t, `{"$ref": "#/$defs/a0", "$defs": {`+doubling(12)+`}}`)
	refused := 0
	for i := 0; i < 8; i++ {
		bs, err := g.Compile(schema, schemaBase)
		if err == nil {
			err = bs.Validate(mustValue(t, `1`))
		}
		var lim *LimitError
		if errors.As(err, &lim) {
			refused++
			if !lim.Request || !strings.Contains(lim.Reason, "request") {
				t.Errorf("refused for %q, want the request's budget", lim.Reason)
			}
		}
	}
	if used := 10_000_000 - g.work.Load(); refused == 0 || used > 10_000_000+MaxWork {
		t.Errorf("%d of 8 values refused, %d units used of %d", refused, used, 10_000_000)
	}
}

// The regular-expression budget: once a pattern times out, every later match answers at once
// and Validate says the verdict is not to be trusted; the time spent stays near the budget.
func TestRegexBudget(t *testing.T) {
	g := NewGuard()
	bs, err := g.Compile(mustSchema(t, `{"type": "array", "items": {"pattern": "^(?=a)(a+)+$"}}`), schemaBase)
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for i := 0; i < 100; i++ {
		items = append(items, `"`+strings.Repeat("a", 30)+`!"`)
	}
	var lim *LimitError
	if err := bs.Validate(mustValue(t, "["+strings.Join(items, ",")+"]")); !errors.As(err, &lim) || !strings.Contains(lim.Reason, "too long to match") {
		t.Fatalf("got %v, want a limit on the pattern", err)
	}
	if spent := int64(maxRequestRegexp) - g.regex.Load(); spent > int64(maxSchemaRegexp) {
		t.Errorf("spent %v of regular-expression time, more than the schema's %v", spent, maxSchemaRegexp)
	}
	if err := bs.Validate(mustValue(t, `["a"]`)); !errors.As(err, &lim) {
		t.Errorf("a slow schema validated again: %v", err)
	}
}

// Patterns too costly to compile or to match are refused, whatever the engine.
func TestPatternLimits(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"long", `{"pattern": "` + strings.Repeat("a", maxPatternBytes+1) + `"}`, "bytes long"},
		{"long ECMA", `{"pattern": "(?=a)` + strings.Repeat("a", maxECMAPatternBytes) + `"}`, "only ECMA-262"},
		{"large program", `{"pattern": "` + strings.Repeat("[ab]{1000}", 60) + `"}`, "instructions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewGuard().Compile(mustSchema(t, tt.schema), schemaBase)
			var lim *LimitError
			if !errors.As(err, &lim) || !strings.Contains(lim.Reason, tt.want) {
				t.Errorf("got %v, want a limit saying %q", err, tt.want)
			}
		})
	}
}

// FuzzSchemaBound: for any schema and value, computing the bound ends within its limit, and
// when the value is validated the validator makes no more evaluations than the bound.
func FuzzSchemaBound(f *testing.F) {
	f.Add(`{"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}], "$defs": {"a": {"type": "string"}}}`, `1`)
	f.Add(`{"type": "object", "patternProperties": {"^a": {"$ref": "#"}, "a": {"$ref": "#"}}}`, `{"a": {"a": {"ab": 1}}}`)
	f.Add(`{"$dynamicAnchor": "n", "items": {"$dynamicRef": "#n"}, "$defs": {"x": {"$dynamicAnchor": "n", "not": {}}}}`, `[[1], []]`)
	f.Add(`{"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true, "anyOf": [{"items": {"$recursiveRef": "#"}}, {"contains": {"$recursiveRef": "#"}}]}`, `[[[1]], 2]`)
	f.Add(`{"dependentSchemas": {"a": {"propertyNames": {"enum": ["a", "b"]}}}, "unevaluatedProperties": {"if": true, "then": false}}`, `{"a": 1, "c": 2}`)
	f.Add(`{"type": "integer", "multipleOf": 1e-300, "enum": [1, 2.5, 1e300]}`, `1e300`)
	f.Add(`{"uniqueItems": true, "items": {"const": {"a": [1]}}}`, `[{"a": [1]}, {"a": [1]}]`)
	f.Fuzz(func(t *testing.T, schemaSrc, valueSrc string) {
		schema, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaSrc))
		if err != nil || !isMap(schema) {
			return
		}
		value, err := jsonschema.UnmarshalJSON(strings.NewReader(valueSrc))
		if err != nil {
			return
		}
		bound, counted, err := boundAndCount(t, schema, value, 20_000)
		if err != nil {
			return
		}
		if bound > 20_000 {
			t.Fatalf("bound %d past the limit without an error", bound)
		}
		if counted > bound {
			t.Fatalf("the validator made %d evaluations, more than the bound %d", counted, bound)
		}
	})
}

// TestBoundedRealListings: Compile and Validate, as model runs use them, accept every real
// schema and its own examples without a limit.
func TestBoundedRealListings(t *testing.T) {
	for file, schemas := range realSchemas(t) {
		g := NewGuard()
		for _, at := range sortedKeys(schemas) {
			if !strings.HasSuffix(at, "/inputSchema") {
				continue
			}
			bs, err := g.Compile(schemas[at], "urn:workbench:tool")
			if err != nil {
				continue // such a schema has a schema-invalid finding
			}
			var lim *LimitError
			if err := bs.Validate(map[string]any{}); errors.As(err, &lim) {
				t.Errorf("%s %s: %v", file, at, err)
			}
		}
	}
}

// workCases stress one kind of work each, for BenchmarkWorkUnits.
func workCases() []struct{ name, schema, value string } {
	var enum, obj, arr []string
	for i := 0; i < 5000; i++ {
		enum = append(enum, `"value`+strconv.Itoa(i)+`"`)
		obj = append(obj, `"k`+strconv.Itoa(i)+`": `+strconv.Itoa(i))
		arr = append(arr, `{"a": `+strconv.Itoa(i)+`, "b": "x`+strconv.Itoa(i)+`"}`)
	}
	big := `0.` + strings.Repeat("3", 990) + `7e-390`
	return []struct{ name, schema, value string }{
		{"anyof-failing", `{"$ref": "#/$defs/a0", "$defs": {` + doubling(13) + `}}`, `1`},
		{"allof-passing", `{"$ref": "#/$defs/a0", "$defs": {` + strings.ReplaceAll(doubling(13), "anyOf", "allOf") + `}}`, `"s"`},
		{"enum-miss", `{"enum": [` + strings.Join(enum, ",") + `]}`, `"zzz"`},
		{"enum-items", `{"items": {"enum": [` + strings.Join(enum[:500], ",") + `]}}`, `[` + strings.Join(enum[4000:4500], ",") + `]`},
		{"unevaluated-members", `{"anyOf": [` + strings.Repeat(`{"unevaluatedProperties": true},`, 50) + `{"unevaluatedProperties": true}]}`, `{` + strings.Join(obj, ",") + `}`},
		{"additional-members", `{"type": "object", "additionalProperties": {"type": "integer"}}`, `{` + strings.Join(obj, ",") + `}`},
		{"unique-hashed", `{"uniqueItems": true}`, `[` + strings.Join(arr, ",") + `]`},
		{"unique-pairwise", `{"items": {"uniqueItems": true}}`, `[` + strings.Repeat(`[`+strings.Join(arr[:20], ",")+`],`, 200) + `[]]`},
		{"big-numbers", `{"items": {"multipleOf": ` + big + `, "minimum": -` + big + `}}`, `[` + strings.Repeat(big+",", 300) + `1]`},
		{"long-strings", `{"items": {"minLength": 1, "pattern": "^[a-z0-9]+$"}}`, `[` + strings.Repeat(`"`+strings.Repeat("a", 10000)+`",`, 50) + `"a"]`},
		{"format", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"format": "hostname"}}`, `[` + strings.Repeat(`"`+strings.Repeat("a", 1000)+`",`, 200) + `"a"]`},
		{"deep-value", `{"anyOf": [{"$ref": "#/$defs/d"}, {"$ref": "#/$defs/d"}], "$defs": {"d": {"items": {"$ref": "#/$defs/d"}, "type": "string"}}}`, strings.Repeat("[", 60) + strings.Repeat("]", 60)},
	}
}

// BenchmarkWorkUnits validates values that stress each kind of work the bound weighs and
// reports the time per unit of the bound (ns/unit, which the budgets assume is at most ~12)
// and the units computing the bound took itself.
func BenchmarkWorkUnits(b *testing.B) {
	for _, c := range workCases() {
		b.Run(c.name, func(b *testing.B) {
			bs, err := NewGuard().Compile(mustSchema(b, c.schema), schemaBase)
			if err != nil {
				b.Fatal(err)
			}
			v := mustValue(b, c.value)
			bs.mu.Lock()
			n, work, lim := bs.bound(bs.root, v, 1<<40, "")
			bs.mu.Unlock()
			if lim != nil {
				b.Fatal(lim)
			}
			for b.Loop() {
				_ = bs.root.Validate(v)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
			b.ReportMetric(float64(n), "units")
			b.ReportMetric(float64(work), "bound-units")
		})
	}
}
