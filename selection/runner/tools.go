package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/schema"
)

// emptySchema is sent for a tool without an object inputSchema: chat APIs require parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// toolSet is a listing's tools as the chat API takes them, with their compiled input schemas.
type toolSet struct {
	defs    []openai.Tool
	names   []string
	index   map[string]int // first tool with each name
	schemas []*schema.Bounded
	bad     []string // why a tool's schema could not be compiled, "" if it was
}

func newToolSet(l *listing.Listing) *toolSet {
	ts := &toolSet{index: map[string]int{}}
	// The arguments come from a model that read the listing, which may be hostile: checking them
	// is bounded per call and, through one guard, over the whole run.
	guard := schema.NewGuard()
	empty, err := listing.ParseJSON(emptySchema)
	if err != nil {
		panic(fmt.Sprintf("runner: the empty schema does not parse: %v", err))
	}
	for i, t := range l.Tools {
		name := t.Get("name").Str
		desc := ""
		if d := t.Get("description"); d.IsString() {
			desc = d.Str
		}
		params := emptySchema
		sch := t.Get("inputSchema")
		if sch.IsObject() {
			// The schema goes as written: unknown keywords, key order and number spelling kept.
			params = json.RawMessage(listing.Marshal(sch, ""))
		} else {
			sch = empty
		}
		ts.defs = append(ts.defs, openai.Tool{Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: name, Description: desc, Parameters: params}})
		ts.names = append(ts.names, name)
		if _, dup := ts.index[name]; !dup {
			ts.index[name] = i
		}
		s, err := compileSchema(guard, sch, i)
		ts.schemas = append(ts.schemas, s)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		ts.bad = append(ts.bad, msg)
	}
	return ts
}

// compileSchema compiles a tool's input schema (draft 2020-12 unless it says otherwise) as the
// linter does: nothing outside the document is loaded (a $ref to the network is an error, not a
// request), its patterns are read as ECMA-262, and checking a value against it is bounded.
func compileSchema(g *schema.Guard, sch *listing.Value, i int) (*schema.Bounded, error) {
	// The schema library reads documents as encoding/json does, numbers as json.Number: the
	// listing's spelling of each number is kept.
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(listing.Marshal(sch, "")))
	if err != nil {
		return nil, fmt.Errorf("the input schema does not compile: reading it: %w", err)
	}
	s, err := g.Compile(doc, fmt.Sprintf("urn:workbench:tool:%d", i))
	var lim *schema.LimitError
	switch {
	case errors.As(err, &lim):
		return nil, fmt.Errorf("the input schema is too costly to check: %w", err)
	case err != nil:
		return nil, fmt.Errorf("the input schema does not compile: %w", err)
	}
	return s, nil
}

// ArgCheck is what the workbench found of one call's arguments.
type ArgCheck struct {
	// JSON: the arguments parse as a JSON object.
	JSON bool `json:"json"`
	// Valid: they satisfy the tool's input schema (nil when not checked: not JSON, unknown tool,
	// or a schema that does not compile).
	Valid *bool `json:"valid,omitempty"`
	// Match: they hold the task's expected args (nil when the task expects none or another
	// tool was chosen).
	Match *bool `json:"match,omitempty"`
	// Problems say what failed, in order.
	Problems []string `json:"problems,omitempty"`
}

func (ts *toolSet) check(tool string, raw string, want *listing.Value, expected string) ArgCheck {
	var ac ArgCheck
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		// Several servers send "" for a call without arguments.
		trimmed = "{}"
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(trimmed))
	if err != nil {
		ac.Problems = append(ac.Problems, fmt.Sprintf("the arguments are not JSON: %v", err))
		return ac
	}
	if _, ok := doc.(map[string]any); !ok {
		ac.Problems = append(ac.Problems, "the arguments are JSON but not an object")
		return ac
	}
	ac.JSON = true
	i, known := ts.index[tool]
	if known && ts.schemas[i] != nil {
		err := ts.schemas[i].Validate(doc)
		var lim *schema.LimitError
		if errors.As(err, &lim) {
			ac.Problems = append(ac.Problems, "not checked against the input schema: "+oneLine(lim.Error()))
		} else {
			valid := err == nil
			if !valid {
				ac.Problems = append(ac.Problems, "the arguments do not match the input schema: "+oneLine(schema.ValidationSummary(err)))
			}
			ac.Valid = &valid
		}
	} else if known {
		ac.Problems = append(ac.Problems, "not checked against the input schema: "+ts.bad[i])
	}
	if want != nil && tool == expected {
		wantDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(listing.Marshal(want, "")))
		match := err == nil && subset(wantDoc, doc)
		if !match {
			ac.Problems = append(ac.Problems, fmt.Sprintf("the arguments do not hold the expected %s", listing.Marshal(want, "")))
		}
		ac.Match = &match
	}
	return ac
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// subset reports whether got holds want: objects member by member (extra members in got are
// fine), arrays element by element, numbers by value, everything else by equality.
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return false
		}
		a, _, err1 := big.ParseFloat(string(w), 10, 256, big.ToNearestEven)
		b, _, err2 := big.ParseFloat(string(g), 10, 256, big.ToNearestEven)
		return err1 == nil && err2 == nil && a.Cmp(b) == 0
	default:
		return want == got
	}
}
