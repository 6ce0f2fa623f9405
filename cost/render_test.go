package cost

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func parse(t testing.TB, src string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(src), listing.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func counter(t testing.TB, enc, render string, o Options) *Counter {
	t.Helper()
	tok, err := NewTokenizer(enc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCounter(tok, render, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The cookbook's worked example ("How to count tokens with tiktoken", section on tools): one
// function, get_current_weather, whose parameters are location and unit (an enum of two), sent
// with a system and a user message. The cookbook's estimate, which it checks against the API's
// usage, is 101 prompt tokens for gpt-4o and gpt-4o-mini and 105 for gpt-3.5-turbo and gpt-4.
func TestOpenAIReproducesCookbookExample(t *testing.T) {
	tools := `[{"name": "get_current_weather", "description": "Get the current weather in a given location",
		"inputSchema": {"type": "object", "properties": {
			"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
			"unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}},
			"required": ["location"]}}]`
	msgs := []ChatMessage{
		{Role: "system", Content: "You are a helpful assistant that can answer to questions about the weather."},
		{Role: "user", Content: "What's the weather like in San Francisco?"},
	}
	cases := []struct {
		enc, model string
		want       int
	}{
		{"o200k_base", "gpt-4o", 101},
		{"o200k_base", "gpt-4o-mini", 101},
		{"o200k_base", "", 101},
		{"cl100k_base", "gpt-4", 105},
		{"cl100k_base", "gpt-3.5-turbo", 105},
		{"cl100k_base", "", 105},
	}
	for _, tc := range cases {
		t.Run(tc.enc+"/"+tc.model, func(t *testing.T) {
			c := counter(t, tc.enc, "openai", Options{Model: tc.model})
			rep := c.Listing(parse(t, tools))
			if !rep.Estimate {
				t.Error("the openai rendering must be labelled an estimate")
			}
			got := rep.Total.Tokens + OpenAIMessageTokens(c.Tokenizer(), msgs)
			if got != tc.want {
				t.Errorf("tools %d + messages = %d, the cookbook counts %d", rep.Total.Tokens, got, tc.want)
			}
		})
	}
}

func harmonyText(t *testing.T, l *listing.Listing) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(harmonyPrefix)
	for _, tool := range l.Tools {
		b.WriteString(harmonyTool(nil, tool).texts[0])
	}
	b.WriteString(harmonySuffix)
	return b.String()
}

// The harmony response format guide's function-calling example, rendered from the equivalent
// MCP tools, must come out as the guide prints the developer message's tools section.
func TestHarmonyMatchesGuideExample(t *testing.T) {
	l := parse(t, `[
	{"name": "get_location", "description": "Gets the location of the user."},
	{"name": "get_current_weather", "description": "Gets the current weather in the provided location.",
	 "inputSchema": {"type": "object", "properties": {
		"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
		"format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
	  "required": ["location"]}},
	{"name": "get_multiple_weathers", "description": "Gets the current weather in the provided list of locations.",
	 "inputSchema": {"type": "object", "properties": {
		"locations": {"type": "array", "items": {"type": "string"}, "description": "List of city and state, e.g. [\"San Francisco, CA\", \"New York, NY\"]"},
		"format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
	  "required": ["locations"]}}]`)
	want := `# Tools

## functions

namespace functions {

// Gets the location of the user.
type get_location = () => any;

// Gets the current weather in the provided location.
type get_current_weather = (_: {
// The city and state, e.g. San Francisco, CA
location: string,
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

// Gets the current weather in the provided list of locations.
type get_multiple_weathers = (_: {
// List of city and state, e.g. ["San Francisco, CA", "New York, NY"]
locations: string[],
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

} // namespace functions`
	if got := harmonyText(t, l); got != want {
		t.Errorf("got\n%s\n\nwant\n%s", got, want)
	}
	rep := counter(t, "o200k_base", "harmony", Options{}).Listing(l)
	if rep.Total.Bytes != len(want)+len("developer")+len("<|start|><|message|><|end|>") {
		t.Errorf("harmony bytes %d, the message is %d", rep.Total.Bytes, len(want)+len("developer<|start|><|message|><|end|>"))
	}
}

// Cases of json_schema_to_typescript worked out by hand from openai/harmony's encoding.rs.
func TestHarmonyTypes(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"no type", `{"properties": {"a": {"type": "string"}}}`, "any"},
		{"type list", `{"type": ["integer", "null"]}`, "number | null"},
		{"array without items", `{"type": "array"}`, "Array<any>"},
		{"enum of mixed", `{"type": "string", "enum": ["a", 1, "b"]}`, `"a" | "b"`},
		{"nullable and default", `{"type": "object", "properties": {"n": {"type": "integer", "nullable": true, "default": 5}}}`,
			"{\nn?: number | null, // default: 5\n}"},
		{"title and examples", `{"type": "object", "required": ["q"], "properties": {"q": {"type": "string", "title": "Query", "description": "What to find", "examples": ["cats", 3]}}}`,
			"{\n// Query\n//\n// What to find\n// Examples:\n// - \"cats\"\nq: string,\n}"},
		{"nested object", `{"type": "object", "properties": {"o": {"type": "object", "description": "inner", "properties": {"x": {"type": "boolean"}}}}}`,
			"{\n// inner\no?:     // inner\n{\n    x?: boolean,\n    },\n}"},
		{"oneOf property", `{"type": "object", "properties": {"v": {"description": "a value", "default": "x", "oneOf": [{"type": "string", "description": "text"}, {"type": "number", "description": "count", "nullable": true}]}}}`,
			"{\n// a value\n// default: \"x\"\nv?:\n | string\n | number | null // count\n,\n}"},
		{"top oneOf", `{"oneOf": [{"type": "string", "default": "d"}, {"type": "boolean", "description": "flag"}]}`,
			"\n | string // default: \"d\"\n | boolean // flag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := listing.ParseJSON([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got := tsType(v, ""); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestSeedHostLine(t *testing.T) {
	l := parse(t, `[{"name": "q", "description": "Café \"x\"", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "maximum": 1.50}}}, "annotations": {"readOnlyHint": true}, "title": "Q"}]`)
	got := seedHostTool(nil, l.Tools[0]).texts[0]
	want := `{"type": "function", "function": {"name": "q", "description": "Café \"x\"", "parameters": {"type": "object", "properties": {"n": {"type": "number", "maximum": 1.5}}}}}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestAnthropicOverhead(t *testing.T) {
	l := parse(t, `[{"name": "a", "description": "b", "inputSchema": {"type": "object"}}]`)
	cases := []struct {
		model, choice string
		want          int
	}{
		{"", "", 346},
		{"claude-sonnet-4", "any", 313},
		{"claude-3-opus", "auto", 530},
		{"claude-3-haiku", "tool", 340},
	}
	for _, tc := range cases {
		c := counter(t, "cl100k_base", "anthropic", Options{Model: tc.model, ToolChoice: tc.choice})
		rep := c.Listing(l)
		text := `[{"name":"a","description":"b","input_schema":{"type":"object"}}]`
		tokens := c.Tokenizer().Count(text[1:len(text)-1]) + c.Tokenizer().Count("[") + c.Tokenizer().Count("]")
		if rep.Overhead.Tokens-2 != tc.want || rep.Total.Tokens != tokens+tc.want || rep.Total.Bytes != len(text) {
			t.Errorf("%s/%s: overhead %d, total %+v; want system prompt %d, tokens %d, bytes %d", tc.model, tc.choice, rep.Overhead.Tokens, rep.Total, tc.want, tokens+tc.want, len(text))
		}
	}
	if rep := counter(t, "cl100k_base", "anthropic", Options{}).Listing(parse(t, `[]`)); rep.Total.Tokens > 2 {
		t.Errorf("no tools, yet %d tokens: the system prompt is only added with tools", rep.Total.Tokens)
	}
	tab := Anthropic()
	if tab.Version == "" || tab.Source == "" || len(tab.Models) == 0 {
		t.Errorf("anthropic.json lacks a version, a source or models: %+v", tab)
	}
}

func TestCounterOptionErrors(t *testing.T) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		render string
		o      Options
		want   string
	}{
		{"html", Options{}, `unknown rendering "html"`},
		{"openai", Options{Model: "gpt-5"}, "constants for gpt-4o"},
		{"anthropic", Options{Model: "claude-9"}, `no tool-use system prompt size for model "claude-9"`},
		{"compact", Options{Model: "gpt-4o"}, "takes no model"},
		{"anthropic", Options{ToolChoice: "some"}, `unknown tool choice "some"`},
	}
	for _, tc := range cases {
		_, err := NewCounter(tok, tc.render, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: error %v, want one containing %q", tc.render, tc.o, err, tc.want)
		}
	}
}

func TestTokenizerErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"p50k_base", `unknown tokenizer "p50k_base"`},
		{"/nonexistent/tokenizer.json", "reading tokenizer file"},
		{"testdata/not-a-tokenizer.json", "not a tokenizer.json"},
		{"testdata/bpe-tokenizer.json", "not supported"},
	}
	for _, tc := range cases {
		_, err := OpenTokenizer(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}
