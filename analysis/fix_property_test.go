package analysis

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/schema"
)

// TestSafeFixKeepsWhatSchemasAccept is the property that safe repairs change no tool's
// behaviour: on a generated listing, given every defect a safe repair mends (whitespace, hidden
// characters and docstring indentation in descriptions and titles, repeated keys with other
// values, no required list), each tool's inputSchema accepts and refuses, after Fix, exactly
// the generated argument objects it did before.
func TestSafeFixKeepsWhatSchemasAccept(t *testing.T) {
	src, _, ok := genFixListing(t, 150, 1)
	if !ok {
		t.Skip("skipped: the generated listing needs python3")
	}
	rng := rand.New(rand.NewPCG(15, 2026))
	l := mustParse(t, src)
	for i, tool := range l.Tools {
		l.Tools[i] = withDefects(rng, tool)
	}
	res, err := fixEngine(t).Fix(context.Background(), l, nil, FixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{}
	for _, r := range res.Applied {
		rules[r.Rule]++
	}
	for _, want := range []string{"hidden-unicode", "description-whitespace", "description-docstring-indent", "params-required", "json-duplicate-key"} {
		if rules[want] == 0 {
			t.Errorf("no %s repair applied (applied: %v): the property would not cover it", want, rules)
		}
	}
	checked := 0
	for i := range l.Tools {
		before := compileInput(t, l.Tools[i])
		after := compileInput(t, res.Listing.Tools[i])
		for k := 0; k < 60; k++ {
			arg := genArgument(rng, l.Tools[i].Get("inputSchema"))
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(arg))
			if err != nil {
				t.Fatalf("argument %s: %v", arg, err)
			}
			if b, a := before.Validate(doc) == nil, after.Validate(doc) == nil; b != a {
				t.Errorf("tool %d: %s was accepted %t before the fix and %t after\nbefore %s\nafter  %s", i, arg, b, a,
					listing.Marshal(l.Tools[i].Get("inputSchema"), ""), listing.Marshal(res.Listing.Tools[i].Get("inputSchema"), ""))
			}
			checked++
		}
	}
	t.Logf("%d repairs (%v), %d arguments checked against %d tools", len(res.Applied), rules, checked, len(l.Tools))
}

func compileInput(t *testing.T, tool *listing.Value) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(listing.Marshal(tool.Get("inputSchema"), "")))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.CompileTrusted("mem:///input.json", doc)
	if err != nil {
		t.Fatalf("%s: %v", listing.Marshal(tool.Get("inputSchema"), ""), err)
	}
	return s
}

// withDefects returns tool with some of the defects safe repairs mend, chosen by rng.
func withDefects(rng *rand.Rand, tool *listing.Value) *listing.Value {
	out := listing.Clone(tool)
	if d := out.Get("description"); d != nil {
		switch rng.IntN(3) {
		case 0:
			d.Str = "  " + d.Str + "\n"
		case 1:
			d.Str = "First line.\n        " + strings.ReplaceAll(d.Str, ". ", ".\n        ")
		}
	}
	in := out.Get("inputSchema")
	if rng.IntN(3) == 0 {
		in = dropMember(in, "required")
	}
	for _, m := range in.Get("properties").Fields() {
		p := m.Value
		switch rng.IntN(6) {
		case 0:
			if d := p.Get("description"); d != nil {
				d.Str = "The\u200b " + d.Str + "\u202e"
			}
		case 1:
			p.Members = append(p.Members, listing.Member{Key: "description", Value: listing.NewString("First line.\n        Second line.\n          Third."), KeyPos: -1})
		case 2:
			// A repeated key whose first value a parser drops: the schema means the last.
			p.Members = append([]listing.Member{{Key: "type", Value: listing.NewString("array"), KeyPos: -1}}, p.Members...)
		case 3:
			p.Members = append(p.Members, listing.Member{Key: "title", Value: listing.NewString(" Title\t"), KeyPos: -1})
		}
	}
	if rng.IntN(4) == 0 {
		in.Members = append(in.Members, listing.Member{Key: "additionalProperties", Value: listing.NewBool(true), KeyPos: -1},
			listing.Member{Key: "additionalProperties", Value: listing.NewBool(false), KeyPos: -1})
	}
	// Re-made so that each object knows its repeated keys.
	return reparse(out)
}

func dropMember(v *listing.Value, key string) *listing.Value {
	var keep []listing.Member
	for _, m := range v.Members {
		if m.Key != key {
			keep = append(keep, m)
		}
	}
	v.Members = keep
	return v
}

func reparse(v *listing.Value) *listing.Value {
	p, err := listing.ParseJSON(listing.Marshal(v, ""))
	if err != nil {
		panic(err)
	}
	return p
}

// genArgument returns an argument object (now and then another JSON value) for a schema: some
// of its properties, with values of every type and its enum values, and now and then a key it
// does not declare.
func genArgument(rng *rand.Rand, in *listing.Value) string {
	pool := []string{`"x"`, `""`, `0`, `-1`, `3.5`, `true`, `false`, `null`, `[]`, `[1,"a"]`, `{}`, `{"a":1}`, `"low"`}
	switch rng.IntN(12) {
	case 0:
		return pool[rng.IntN(len(pool))]
	}
	var parts []string
	for _, m := range in.Get("properties").Fields() {
		if rng.IntN(3) == 0 {
			continue
		}
		vals := pool
		if e := m.Value.Get("enum"); e != nil && e.Kind == listing.Array {
			for _, it := range e.Items {
				vals = append(vals, string(listing.Marshal(it, "")), string(listing.Marshal(it, "")))
			}
		}
		parts = append(parts, fmt.Sprintf("%q:%s", m.Key, vals[rng.IntN(len(vals))]))
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, `"undeclared":1`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}
