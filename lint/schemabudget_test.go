package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// hostileCase is a listing built to make checking a schema's values hang or exhaust memory.
// Each is kept in the hostile corpus, internal/hostile/testdata/<name>.json (go test -run TestHostileSchemas -update
// rewrites them from here); want is the pointer of the schema-limit finding it must produce.
type hostileCase struct {
	name   string
	schema any // the first tool's inputSchema
	want   string
}

// chain returns $defs a0 … a<n>, where each a<i> is step(ref to a<i+1>) and a<n> is last.
func chain(n int, step func(ref map[string]any) map[string]any, last map[string]any) map[string]any {
	defs := map[string]any{}
	for i := 0; i < n; i++ {
		defs[fmt.Sprintf("a%d", i)] = step(map[string]any{"$ref": fmt.Sprintf("#/$defs/a%d", i+1)})
	}
	defs[fmt.Sprintf("a%d", n)] = last
	return defs
}

func objectWith(x map[string]any, defs map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": map[string]any{"x": x}}
	if defs != nil {
		s["$defs"] = defs
	}
	return s
}

func nested(depth int, leaf any, wrap func(any) any) any {
	v := leaf
	for i := 0; i < depth; i++ {
		v = wrap(v)
	}
	return v
}

func hostileCases() []hostileCase {
	const steps = 40
	str := map[string]any{"type": "string"}
	x := map[string]any{"$ref": "#/$defs/a0", "default": 1}
	two := func(kw string) func(ref map[string]any) map[string]any {
		return func(ref map[string]any) map[string]any { return map[string]any{kw: []any{ref, ref}} }
	}
	catastrophic := "^(?=a)(a+)+$" // ECMA-262 only (a look-ahead); backtracks on "aaa…a!"
	slowText := strings.Repeat("a", 30) + "!"
	names := map[string]any{}
	var texts []any
	for i := 0; i < 3000; i++ {
		names[fmt.Sprintf("%s%d", slowText, i)] = 1
		texts = append(texts, fmt.Sprintf("%s%d", slowText, i))
	}
	var many []any
	for i := 0; i < 500; i++ {
		many = append(many, i)
	}
	patternSelf := map[string]any{"$ref": "#/$defs/p"}
	var hugeNumbers []any
	for i := 0; i < 300; i++ {
		hugeNumbers = append(hugeNumbers, json.Number(fmt.Sprintf("%de-999998", 7+i)))
	}
	return []hostileCase{
		{"schema-anyof-doubling", objectWith(x, chain(steps, two("anyOf"), str)), "/properties/x"},
		{"schema-allof-doubling", objectWith(x, chain(steps, two("allOf"), str)), "/properties/x"},
		{"schema-oneof-doubling", objectWith(x, chain(steps, two("oneOf"), str)), "/properties/x"},
		// not applies its subschema in boolean mode, where the validator stops at the first
		// error: so every step succeeds here.
		{"schema-not-doubling", objectWith(map[string]any{"$ref": "#/$defs/a0", "default": "s"}, chain(steps, func(ref map[string]any) map[string]any {
			return map[string]any{"$ref": ref["$ref"], "not": map[string]any{"not": ref}}
		}, str)), "/properties/x"},
		{"schema-ifthenelse-doubling", objectWith(x, chain(steps, func(ref map[string]any) map[string]any {
			return map[string]any{"if": ref, "then": ref, "else": ref}
		}, str)), "/properties/x"},
		{"schema-dependentschemas-doubling", objectWith(map[string]any{"$ref": "#/$defs/a0", "default": map[string]any{"k": 1, "j": 1}},
			chain(steps, func(ref map[string]any) map[string]any {
				return map[string]any{"dependentSchemas": map[string]any{"k": ref, "j": ref}}
			}, str)), "/properties/x"},
		// Three overlapping patterns, each leading back to the same schema, over an object
		// nested 40 deep: 3⁴⁰ paths.
		{"schema-patternprops-fanout", objectWith(map[string]any{"$ref": "#/$defs/p", "default": nested(steps, 1, func(v any) any { return map[string]any{"a": v} })},
			map[string]any{"p": map[string]any{"type": "object", "patternProperties": map[string]any{"^a": patternSelf, "a$": patternSelf, "a": patternSelf}}}),
			"/properties/x"},
		// $dynamicRef resolves at run time to any schema carrying its anchor.
		{"schema-dynamicref-fanout", objectWith(map[string]any{"$ref": "#/$defs/a0", "default": 1}, func() map[string]any {
			defs := map[string]any{}
			for i := 0; i < steps; i++ {
				ref := map[string]any{"$dynamicRef": fmt.Sprintf("#n%d", i+1)}
				defs[fmt.Sprintf("a%d", i)] = map[string]any{"$dynamicAnchor": fmt.Sprintf("n%d", i), "anyOf": []any{ref, ref}}
			}
			defs[fmt.Sprintf("a%d", steps)] = map[string]any{"$dynamicAnchor": fmt.Sprintf("n%d", steps), "type": "string"}
			return defs
		}()), "/properties/x"},
		// 2019-09's $recursiveRef, through arrays nested 40 deep (the innermost item fails
		// both branches, so anyOf tries both at every level).
		{"schema-recursiveref-doubling", func() map[string]any {
			s := objectWith(map[string]any{"$ref": "#/$defs/t", "default": nested(steps, 1, func(v any) any { return []any{v} })},
				map[string]any{"t": map[string]any{"type": "array", "anyOf": []any{
					map[string]any{"items": map[string]any{"$recursiveRef": "#"}},
					map[string]any{"items": map[string]any{"$recursiveRef": "#"}}}}})
			s["$schema"] = "https://json-schema.org/draft/2019-09/schema"
			s["$recursiveAnchor"] = true
			return s
		}(), "/properties/x"},
		// 500 values each within the budget of one value, not of the schema.
		{"schema-many-probes", objectWith(map[string]any{"$ref": "#/$defs/a0", "enum": many}, chain(12, two("anyOf"), str)), "/properties/x"},
		// A chain of $ref applied to one value: the validator scans the chain at every step.
		{"schema-ref-chain", objectWith(map[string]any{"$ref": "#/$defs/a0", "default": 1}, chain(1500, func(ref map[string]any) map[string]any { return ref }, str)), "/properties/x"},
		// The library's compiler looks up every subschema in a list: quadratic in their number.
		{"schema-many-subschemas", func() map[string]any {
			props := map[string]any{}
			for i := 0; i < 30000; i++ {
				props[fmt.Sprintf("p%d", i)] = map[string]any{}
			}
			return map[string]any{"type": "object", "properties": props}
		}(), ""},
		// A catastrophic pattern over thousands of values: each match times out.
		{"schema-regex-many-names", objectWith(map[string]any{"type": "object", "propertyNames": map[string]any{"pattern": catastrophic}, "default": names}, nil), "/properties/x"},
		{"schema-regex-many-strings", objectWith(map[string]any{"type": "array", "items": map[string]any{"type": "string", "pattern": catastrophic}, "default": texts}, nil), "/properties/x"},
		{"schema-regex-patternproperties", objectWith(map[string]any{"type": "object", "patternProperties": map[string]any{catastrophic: map[string]any{"type": "integer"}}, "default": names}, nil), "/properties/x"},
		// RE2 is linear in the input, times the program: 4,000 instructions over 300 KB.
		{"schema-regex-large-program", objectWith(map[string]any{"type": "string", "pattern": strings.Repeat("[ab]{1000}", 4) + "c", "default": strings.Repeat("ab", 150_000)}, nil), "/properties/x"},
		// big.Rat arithmetic on huge exponents and digit counts.
		{"schema-huge-exponent", objectWith(map[string]any{"type": "number", "multipleOf": json.Number("3e-999999"), "maximum": json.Number("1e999999"), "enum": hugeNumbers}, nil), "/properties/x/enum/0"},
		{"schema-huge-default", func() map[string]any {
			props := map[string]any{}
			for i := 0; i < 300; i++ {
				props[fmt.Sprintf("p%03d", i)] = map[string]any{"type": "integer", "multipleOf": 0.7, "default": json.Number("7e999999")}
			}
			return map[string]any{"type": "object", "properties": props}
		}(), "/properties/p000/default"},
		{"schema-many-digits", objectWith(map[string]any{"type": "number", "multipleOf": json.Number("0.7"), "default": json.Number(strings.Repeat("7", 100_000) + ".1")}, nil), "/properties/x/default"},
	}
}

func hostileListing(c hostileCase) []byte {
	l := map[string]any{"tools": []any{map[string]any{
		"name":        strings.ReplaceAll(c.name, "-", "_"),
		"description": "A tool whose input schema is built to make checking its values costly.",
		"inputSchema": c.schema,
	}}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func readHostile(tb testing.TB, c hostileCase) *listing.Listing {
	tb.Helper()
	path := filepath.Join("..", "internal", "hostile", "testdata", c.name+".json")
	if *testutil.Update {
		if err := os.WriteFile(path, hostileListing(c), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(src, hostileListing(c)) {
		tb.Fatalf("%s differs from what hostileCases makes: run go test -run TestHostileSchemas -update", path)
	}
	l, err := listing.Parse(src, listing.Options{Name: c.name})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// TestHostileSchemas lints each hostile listing: it must end (go test's timeout catches a
// hang) with a schema-limit finding at the schema that holds the costly value.
func TestHostileSchemas(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			l := readHostile(t, c)
			fs := New(Config{}).Lint(l)
			want := "/tools/0/inputSchema" + c.want
			var got []string
			for _, f := range fs {
				if f.Rule == "schema-limit" {
					if f.Pointer == want {
						t.Logf("%s", f.Message)
						return
					}
					got = append(got, f.Pointer+": "+f.Message)
				}
			}
			t.Errorf("no schema-limit finding at %s; schema-limit findings: %q", want, got)
		})
	}
}

// BenchmarkHostileSchemas lints each hostile listing with a new Linter (nothing cached).
func BenchmarkHostileSchemas(b *testing.B) {
	for _, c := range hostileCases() {
		b.Run(c.name, func(b *testing.B) {
			l := readHostile(b, c)
			b.ReportAllocs()
			for b.Loop() {
				New(Config{}).Lint(l)
			}
		})
	}
}
