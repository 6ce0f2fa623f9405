package listing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// The expected messages were printed by Python 3.11's json.loads for the same input.
func TestParseJSONErrorsMatchPython(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "Expecting value: line 1 column 1 (char 0)"},
		{`[`, "Expecting value: line 1 column 2 (char 1)"},
		{`{`, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{`{"a":1,}`, "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"},
		{`[1,]`, "Expecting value: line 1 column 4 (char 3)"},
		{`"\x"`, `Invalid \escape: line 1 column 2 (char 1)`},
		{`"\u12"`, `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{`"\u12`, `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{`"abc`, "Unterminated string starting at: line 1 column 1 (char 0)"},
		{"\"a\x01\"", "Invalid control character at: line 1 column 3 (char 2)"},
		{`{"a" 1}`, "Expecting ':' delimiter: line 1 column 6 (char 5)"},
		{`{"a":1 "b"}`, "Expecting ',' delimiter: line 1 column 8 (char 7)"},
		{`[1 2]`, "Expecting ',' delimiter: line 1 column 4 (char 3)"},
		{`1 2`, "Extra data: line 1 column 3 (char 2)"},
		{`-`, "Expecting value: line 1 column 1 (char 0)"},
		{`01`, "Extra data: line 1 column 2 (char 1)"},
		{`1.`, "Extra data: line 1 column 2 (char 1)"},
		{`1e`, "Extra data: line 1 column 2 (char 1)"},
		{"\ufeff[]", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
		{`{"a":}`, "Expecting value: line 1 column 6 (char 5)"},
		{"[1,\n  x]", "Expecting value: line 2 column 3 (char 6)"},
		{`["é", x]`, "Expecting value: line 1 column 7 (char 6)"},
	}
	for _, tt := range tests {
		_, err := ParseJSON([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseJSON(%q) = %v, want a SyntaxError", tt.in, err)
			continue
		}
		if se.Error() != tt.want {
			t.Errorf("ParseJSON(%q) error\n got %s\nwant %s", tt.in, se.Error(), tt.want)
		}
	}
}

// The expected spellings are what Python's json.dumps writes after json.loads.
func TestPythonJSON(t *testing.T) {
	tests := []struct{ in, compact, ascii string }{
		{`[-0, 1.0, 1E2, 1e16, 1e15, 0.00001, 123456789012345678901234567890]`,
			`[0,1.0,100.0,1e+16,1000000000000000.0,1e-05,123456789012345678901234567890]`,
			`[0, 1.0, 100.0, 1e+16, 1000000000000000.0, 1e-05, 123456789012345678901234567890]`},
		{`[1e400, -1e400, NaN, -0.0, 0.1, 1.5e-7, 2.5E+300]`,
			`[Infinity,-Infinity,NaN,-0.0,0.1,1.5e-07,2.5e+300]`,
			`[Infinity, -Infinity, NaN, -0.0, 0.1, 1.5e-07, 2.5e+300]`},
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`, `{"b": 3, "a": 2}`},
		{`"é<>&\u2028\u0007\u007f😀"`, "\"é<>&\u2028\\u0007\u007f😀\"", `"\u00e9<>&\u2028\u0007\u007f\ud83d\ude00"`},
	}
	for _, tt := range tests {
		v, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Fatalf("ParseJSON(%s): %v", tt.in, err)
		}
		if got := string(PythonJSON(v, true)); got != tt.compact {
			t.Errorf("compact %s\n got %s\nwant %s", tt.in, got, tt.compact)
		}
		if got := string(PythonJSON(v, false)); got != tt.ascii {
			t.Errorf("default %s\n got %s\nwant %s", tt.in, got, tt.ascii)
		}
	}
}

func TestMarshalKeepsWhatWasWritten(t *testing.T) {
	in := `{"z":1,"a":[1.50,-0,"\u00e9\n",true,null],"z":{"k":1e5},"lone":"\ud800"}`
	v, err := ParseJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":[1.50,-0,"é\n",true,null],"z":{"k":1e5},"lone":"\ud800"}`
	if got := string(Marshal(v, "")); got != want {
		t.Errorf("Marshal\n got %s\nwant %s", got, want)
	}
	if got := v.Get("z").Get("k").Str; got != "1e5" {
		t.Errorf("Get takes the last repeated key: got %q", got)
	}
	if f := v.Fields(); len(f) != 3 || f[0].Key != "z" || f[0].Value.Kind != Object {
		t.Errorf("Fields keeps the first place and the last value: %+v", f)
	}
}

func TestParseShapes(t *testing.T) {
	tool := `{"name":"a","inputSchema":{"type":"object"}}`
	tests := []struct {
		name, in string
		shape    Shape
		tools    int
		sse      bool
	}{
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tool + `]}}`, ShapeResponse, 1, false},
		{"result", `{"tools":[` + tool + `,` + tool + `],"nextCursor":"x"}`, ShapeResult, 2, false},
		{"array", `[` + tool + `]`, ShapeArray, 1, false},
		{"empty array", `[]`, ShapeArray, 0, false},
		{"tool", tool, ShapeTool, 1, false},
		{"pages", `[{"result":{"tools":[` + tool + `],"nextCursor":"2"}},{"tools":[` + tool + `]}]`, ShapePages, 2, false},
		{"sse", "event: message\ndata: {\"result\":{\"tools\":[" + tool + "]}}\n\n", ShapeResponse, 1, true},
		{"sse last data line wins", "data: {\"result\":{\"tools\":[]}}\ndata:  [" + tool + "]  \n", ShapeArray, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse([]byte(tt.in), Options{Name: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if l.Shape != tt.shape || len(l.Tools) != tt.tools || l.SSE != tt.sse {
				t.Errorf("got shape %s, %d tools, sse %v; want %s, %d, %v", l.Shape, len(l.Tools), l.SSE, tt.shape, tt.tools, tt.sse)
			}
			for _, tl := range l.Tools {
				if tl.Pos < 0 || tl.Pos >= len(tt.in) || tt.in[tl.Pos] != '{' {
					t.Errorf("tool position %d does not point at its object", tl.Pos)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		kind     ErrorKind
		msg      string
	}{
		{"not json", "hello", ErrNotJSON, "x holds neither JSON nor an SSE data line"},
		{"bad sse", "data: {oops", ErrSyntax, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Méthode inconnue"}}`, ErrRPC,
			`the response is a JSON-RPC error: {"code": -32601, "message": "M\u00e9thode inconnue"}`},
		{"no tools", `{"result":{"items":[]}}`, ErrNoTools, "no tools array found in x"},
		{"null result", `{"result":null}`, ErrNoTools, "no tools array found in x"},
		{"tools not array", `{"tools":{}}`, ErrNoTools, "no tools array found in x"},
		{"number", `42`, ErrNoTools, "no tools array found in x"},
		{"name not string", `[{"name":1},{"name":"b"},"c"]`, ErrBadTool, "2 entries of the tools array have no string `name`"},
		{"not utf-8", "[\"\xff\"]", ErrEncoding, "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"},
		{"truncated utf-8", "[\"\xe2\x82", ErrEncoding, "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Options{Name: "x"})
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want *Error", err)
			}
			if le.Kind != tt.kind || le.Msg != tt.msg {
				t.Errorf("got kind %d %q\nwant kind %d %q", le.Kind, le.Msg, tt.kind, tt.msg)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	big := []byte("[" + strings.Repeat(`{"name":"t"},`, 30) + `{"name":"t"}]`)
	_, err := Parse(big, Options{Name: "x", Limits: Limits{Tools: 10}})
	var le *Error
	if !errors.As(err, &le) || le.Kind != ErrLimit || !strings.Contains(le.Msg, "31 tools") {
		t.Errorf("tool limit: got %v", err)
	}
	_, err = Parse(big, Options{Name: "x", Limits: Limits{Bytes: 100}})
	if !errors.As(err, &le) || le.Kind != ErrLimit || !strings.Contains(le.Msg, "bytes") {
		t.Errorf("byte limit: got %v", err)
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := ParseJSON([]byte(deep)); err == nil || !strings.Contains(err.Error(), "Nesting deeper") {
		t.Errorf("depth limit: got %v", err)
	}
}

// Every real listing and fixture encodes back to the same values and, for the real listings
// (written with two-space indentation), to the same bytes.
func TestRoundTripSharedListings(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	fixtures, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "reference", "fixtures"), "*-tools.json"))
	for _, f := range append(files, fixtures...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Parse(src, Options{Name: f})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		again, err := Parse(l.Marshal("  "), Options{Name: f})
		if err != nil {
			t.Fatalf("%s re-encoded: %v", f, err)
		}
		if !Equal(NewArray(l.Tools...), NewArray(again.Tools...)) {
			t.Errorf("%s: tools changed in a round trip", f)
		}
		if strings.Contains(f, "real") && string(l.Marshal("  "))+"\n" != string(src) && string(l.Marshal("  ")) != string(src) {
			t.Errorf("%s: bytes changed in a round trip", f)
		}
	}
}
