package taskformat

import (
	"strings"
	"testing"
)

func TestPromptfooReadLosses(t *testing.T) {
	tests := []struct {
		name, test string // one test of a config whose prompt is '{{query}}'
		want       string
		fields     string
	}{
		{"tool-call-f1 list", `{"vars": {"query": "q"}, "assert": [{"type": "tool-call-f1", "value": ["x", "y"]}]}`,
			"expect=[x y] reject=[] none=false", ""},
		{"tool-call-f1 string, partial credit", `{"vars": {"query": "q"}, "assert": [{"type": "tool-call-f1", "value": "x, y", "threshold": 0.5}]}`,
			"expect=[x y] reject=[] none=false", "assert[0].threshold"},
		{"tool used and its arguments are one call", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:tool-used", "value": "x"},
			{"type": "trajectory:tool-args-match", "value": {"name": "x", "arguments": {"k": "v"}, "mode": "exact", "ignore": "id"}}]}`,
			`expect=[x{"k":"v"}] reject=[] none=false`, "assert[1].mode assert[1].ignore"},
		{"arguments first, then the tool", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:tool-args-match", "value": {"name": "x", "args": {"k": "v"}}},
			{"type": "trajectory:tool-used", "value": ["x", "y"]}]}`,
			`expect=[x{"k":"v"} y] reject=[] none=false`, ""},
		{"sequence in order", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:tool-sequence", "value": {"steps": ["a", "b"]}}]}`,
			"expect=[a b] reject=[] none=false", ""},
		{"exact sequence", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:tool-sequence", "value": {"mode": "exact", "steps": ["a"]}}]}`,
			"expect=[] reject=[] none=false", "assert[0]"},
		{"pattern", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:tool-used", "value": {"pattern": "search*", "min": 2}}]}`,
			"expect=[] reject=[] none=false", "assert[0]"},
		{"rejected", `{"vars": {"query": "q"}, "assert": [{"type": "not-trajectory:tool-used", "value": ["a", "b"]}]}`,
			"expect=[] reject=[a b] none=false", ""},
		{"no tool", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:step-count", "value": {"type": "tool", "max": 0}}]}`,
			"expect=[] reject=[] none=true", ""},
		{"at most two tools", `{"vars": {"query": "q"}, "assert": [{"type": "trajectory:step-count", "value": {"type": "tool", "max": 2}}]}`,
			"expect=[] reject=[] none=false", "assert[0]"},
		{"any of", `{"vars": {"query": "q"}, "assert": [{"type": "assert-set", "threshold": 0.33, "assert": [
			{"type": "trajectory:tool-used", "value": "a"}, {"type": "trajectory:tool-used", "value": "b"}, {"type": "trajectory:tool-args-match", "value": {"name": "c", "args": {"k": 1}}}]}]}`,
			`expect=[a b c{"k":1}] reject=[] anyOf none=false`, ""},
		{"two of three", `{"vars": {"query": "q"}, "assert": [{"type": "assert-set", "threshold": 0.66, "assert": [
			{"type": "trajectory:tool-used", "value": "a"}, {"type": "trajectory:tool-used", "value": "b"}, {"type": "trajectory:tool-used", "value": "c"}]}]}`,
			"expect=[] reject=[] none=false", "assert[0]"},
		{"set without threshold is all of", `{"vars": {"query": "q"}, "assert": [{"type": "assert-set", "assert": [
			{"type": "trajectory:tool-used", "value": "a"}, {"type": "contains", "value": "ok"}]}]}`,
			"expect=[a] reject=[] none=false", "assert[0].assert[1]"},
		{"any of beside all of", `{"vars": {"query": "q"}, "assert": [{"type": "tool-call-f1", "value": ["x"]}, {"type": "assert-set", "threshold": 0.5, "assert": [
			{"type": "trajectory:tool-used", "value": "a"}, {"type": "trajectory:tool-used", "value": "b"}]}]}`,
			"expect=[x] reject=[] none=false", "assert[1]"},
		{"routing script", `{"vars": {"query": "q"}, "assert": [{"type": "javascript", "value": "const cs = context.metadata?.toolCalls ?? [];\nreturn cs.some((c) => c.name === 'x' && !c.is_error);"}]}`,
			"expect=[x] reject=[] none=false", "assert[0]"},
		{"negated routing script", `{"vars": {"query": "q"}, "assert": [{"type": "javascript", "value": "const cs = context.metadata?.toolCalls ?? []; return !cs.some(c => c.name === \"x\");"}]}`,
			"expect=[] reject=[x] none=false", ""},
		{"routing script on another variable", `{"vars": {"query": "q"}, "assert": [{"type": "javascript", "value": "const cs = context.metadata?.toolCalls ?? []; return other.some((c) => c.name === 'x');"}]}`,
			"expect=[] reject=[] none=false", "assert[0]"},
		{"other vars, metadata and options", `{"vars": {"query": "q", "city": "Oslo"}, "metadata": {"id": "i", "tags": ["t"], "owner": "me"}, "options": {"provider": "p"},
			"assert": [{"type": "javascript", "value": "return true"}, {"type": "tool-call-f1", "value": ["x"], "metric": "routing"}]}`,
			"expect=[x] reject=[] none=false", "vars.city metadata.owner options assert[0] assert[1].metric"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"prompts": ["{{query}}"], "tests": [` + tt.test + `]}`
			cases, losses, err := promptfoo{}.Read([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if got := parts(cases[0]); got != tt.want {
				t.Errorf("read %s, want %s", got, tt.want)
			}
			var fields []string
			for _, l := range losses {
				fields = append(fields, l.Field)
			}
			if got := strings.Join(fields, " "); got != tt.fields {
				t.Errorf("losses %q, want %q", got, tt.fields)
			}
		})
	}
}

func TestPromptfooQueryVar(t *testing.T) {
	tests := []struct{ name, src, want, err string }{
		{"named by the prompt", `{"prompts": ["{{ ask }}"], "tests": [{"vars": {"ask": "a", "query": "b"}}]}`, "a", ""},
		{"a known name", `{"providers": ["p"], "tests": [{"vars": {"question": "a", "n": 1}}]}`, "a", ""},
		{"the only string", `{"providers": ["p"], "tests": [{"vars": {"words": "a", "n": 1}}]}`, "a", ""},
		{"two strings", `{"providers": ["p"], "tests": [{"vars": {"a": "x", "b": "y"}}]}`, "", "no string var holding the query"},
		{"tests in another file", `{"providers": ["p"], "tests": "file://tests.yaml"}`, "", "convert that file"},
		{"a bare list of tests", `[{"vars": {"query": "a"}}]`, "a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, _, err := promptfoo{}.Read([]byte(tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cases[0].Query != tt.want {
				t.Errorf("query %q, want %q", cases[0].Query, tt.want)
			}
		})
	}
}

// TestPromptfooWriteCarriesAll writes every part of a case and reads it back unchanged:
// promptfoo's assertions can say all the model holds.
func TestPromptfooWriteCarriesAll(t *testing.T) {
	args := mustValue(t, `{"city": "Oslo", "days": 3, "ok": true, "tags": ["a"], "x": null, "f": 1.5}`)
	cases := []Case{
		{ID: "a", Title: "T", Query: "q1", Expect: []Call{{Tool: "x", Args: args}, {Tool: "y"}}, Reject: []string{"z"}, Tags: []string{"t1", "t2"}},
		{Query: "multi\nline: 'quoted' #not a comment", Expect: []Call{{Tool: "a"}, {Tool: "b"}, {Tool: "c"}}, AnyOf: true},
		{ID: "n", Query: "q3", None: true},
		{Query: "q4"},
	}
	out, losses, err := promptfoo{}.Write(cases)
	if err != nil || len(losses) > 0 {
		t.Fatalf("write: %v %v", err, losses)
	}
	back, losses, err := promptfoo{}.Read(out)
	if err != nil || len(losses) > 0 {
		t.Fatalf("read back: %v %v\n%s", err, losses, out)
	}
	if a, b := casesJSON(t, cases), casesJSON(t, back); a != b {
		t.Errorf("wrote\n%s\nread back\n%s\nfrom\n%s", a, b, out)
	}
}
