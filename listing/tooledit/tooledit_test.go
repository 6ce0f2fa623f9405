package tooledit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

const lend = `{"tools": [
 {"name": "loans_renew", "description": "Renew a loan.", "inputSchema": {"type": "object",
  "properties": {"loan_id": {"type": "string"}, "days": true}, "required": ["loan_id"]}},
 {"name": "books_get", "title": "Book", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}
]}`

// TestMake applies each edit to the listing above and compares the result, as JSON, with what
// the editor should have written: "" when the edit changes nothing.
func TestMake(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Edit
		want string // a JSON pointer's value after the edit, "pointer=json"
	}{
		{"set a description", Edit{Kind: Field, Tool: 0, Name: "description", Value: "Renew a loan by id."}, `/tools/0/description="Renew a loan by id."`},
		{"empty title goes", Edit{Kind: Field, Tool: 1, Name: "title"}, `/tools/1/title=`},
		{"absent description stays absent", Edit{Kind: Field, Tool: 1, Name: "description"}, ``},
		{"hint set", Edit{Kind: Field, Tool: 1, Name: "ann-destructiveHint", Value: "false"}, `/tools/1/annotations={"readOnlyHint":true,"destructiveHint":false}`},
		{"hint unset", Edit{Kind: Field, Tool: 1, Name: "ann-readOnlyHint"}, `/tools/1/annotations={}`},
		{"hint creates annotations", Edit{Kind: Field, Tool: 0, Name: "ann-openWorldHint", Value: "true"}, `/tools/0/annotations={"openWorldHint":true}`},
		{"rename a parameter", Edit{Kind: Param, Tool: 0, Param: 0, Name: "name", Value: "id"}, `/tools/0/inputSchema={"type":"object","properties":{"id":{"type":"string"},"days":true},"required":["id"]}`},
		{"one member", Edit{Kind: Param, Tool: 0, Param: 0, Name: "format", Value: "uuid"}, `/tools/0/inputSchema/properties/loan_id={"type":"string","format":"uuid"}`},
		{"true becomes an object", Edit{Kind: Param, Tool: 0, Param: 1, Name: "minimum", Value: "1"}, `/tools/0/inputSchema/properties/days={"minimum":1}`},
		{"numeric enum", Edit{Kind: Param, Tool: 0, Param: 0, Name: "enum", Value: "a, b"}, `/tools/0/inputSchema/properties/loan_id/enum=["a","b"]`},
		{"not required", Edit{Kind: Param, Tool: 0, Param: 0, Name: "required", Value: "false"}, `/tools/0/inputSchema/required=[]`},
		{"add a parameter", Edit{Kind: ParamOp, Tool: 1, Verb: "add"}, `/tools/1/inputSchema={"type":"object","required":[],"properties":{"param_1":{"type":"string","description":""}}}`},
		{"first stays first", Edit{Kind: ParamOp, Tool: 0, Param: 0, Verb: "up"}, ``},
		{"move a parameter", Edit{Kind: ParamOp, Tool: 0, Param: 0, Verb: "down"}, `/tools/0/inputSchema/properties={"days":true,"loan_id":{"type":"string"}}`},
		{"duplicate a tool", Edit{Kind: ToolOp, Tool: 1, Verb: "dup"}, `/tools/2/name="books_get_copy"`},
		{"add a tool", Edit{Kind: ToolOp, Verb: "add"}, `/tools/2={"name":"new_tool","description":"","inputSchema":{"type":"object","additionalProperties":false}}`},
		{"last stays last", Edit{Kind: ToolOp, Tool: 1, Verb: "down"}, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := parse(t, lend)
			ops, _, err := tt.e.Make(l)
			if err != nil {
				t.Fatalf("Make: %v", err)
			}
			if tt.want == "" {
				if len(ops) != 0 {
					t.Fatalf("ops %v; want none", ops)
				}
				return
			}
			ptr, want, _ := strings.Cut(tt.want, "=")
			got, err := l.ApplyAll(ops)
			if err != nil {
				t.Fatalf("apply %v: %v", ops, err)
			}
			if s := compact(t, got, ptr); s != want {
				t.Errorf("%s = %s\nwant %s", ptr, s, want)
			}
		})
	}
}

// TestMakeProblems: mistakes a person makes come back as a *Problem to show them; requests no
// page sends as other errors.
func TestMakeProblems(t *testing.T) {
	for _, tt := range []struct {
		name    string
		e       Edit
		want    string
		problem bool
	}{
		{"schema not JSON", Edit{Kind: Field, Name: "inputSchema", Value: "{"}, "Expecting property name", true},
		{"schema not an object", Edit{Kind: Field, Name: "outputSchema", Value: "[]"}, "must be a JSON object", true},
		{"inputSchema required", Edit{Kind: Field, Name: "inputSchema", Value: " "}, "inputSchema is required", true},
		{"tool gone", Edit{Kind: Field, Tool: 5, Name: "name"}, "tool 6 no longer exists; the listing has 2", true},
		{"tool gone for a move", Edit{Kind: ToolOp, Tool: 2, Verb: "up"}, "tool 3 no longer exists", true},
		{"parameter gone", Edit{Kind: Param, Param: 4, Name: "type"}, "parameter 5 no longer exists", true},
		{"duplicate name", Edit{Kind: Param, Param: 1, Name: "name", Value: "loan_id"}, "already called", true},
		{"not a number", Edit{Kind: Param, Param: 1, Name: "maximum", Value: "NaN"}, "must be a JSON number", true},
		{"unknown hint", Edit{Kind: Field, Name: "ann-fastHint", Value: "true"}, "unknown annotation", false},
		{"unknown field", Edit{Kind: Field, Name: "icon"}, "unknown field", false},
		{"unknown verb", Edit{Kind: ToolOp, Verb: "sort"}, "unknown tool operation", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.e.Make(parse(t, lend))
			var pr *Problem
			isProblem := errors.As(err, &pr)
			if err == nil || !strings.Contains(err.Error(), tt.want) || isProblem != tt.problem {
				t.Errorf("error %v (a problem: %v); want one saying %q (a problem: %v)", err, isProblem, tt.want, tt.problem)
			}
		})
	}
}

func TestKey(t *testing.T) {
	for _, tt := range []struct {
		e    Edit
		want string
	}{
		{Edit{Kind: Field, Tool: 3, Name: "description"}, "tools/3/description"},
		{Edit{Kind: Param, Tool: 3, Param: 1, Name: "type"}, "tools/3/param/1/type"},
		{Edit{Kind: ToolOp, Tool: 3, Verb: "del"}, ""},
	} {
		if got := tt.e.Key(); got != tt.want {
			t.Errorf("%+v: key %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "2.5": true, "-3": true, "1e400": true, " 7 ": true,
		"NaN": false, "Infinity": false, "-Infinity": false, "Inf": false, "0x1p3": false, "1,2": false, "": false, "\"1\"": false, "01": false} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsJSONNumber: a value isJSONNumber accepts is one encoding/json reads as a number, so the
// store can always write it.
func FuzzIsJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "1e400", "NaN", "-0.5e-3", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isJSONNumber(s) {
			return
		}
		var n json.Number
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			t.Errorf("isJSONNumber(%q) but encoding/json refuses it: %v", s, err)
		}
	})
}

func parse(t *testing.T, src string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(src), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// compact is the value at ptr as compact JSON, or "" when there is none.
func compact(t *testing.T, l *listing.Listing, ptr string) string {
	t.Helper()
	v := l.Get(ptr)
	if v == nil {
		return ""
	}
	return string(listing.Marshal(v, ""))
}
