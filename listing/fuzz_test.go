package listing

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

func addSeeds(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"é","inputSchema":{"type":"object"}}],"nextCursor":"x"}}`))
	f.Add([]byte(`[{"name":"a"},{"name":"a","x":[1.0,-0,1e400,NaN]}]`))
	f.Add([]byte("event: message\ndata: {\"result\":{\"tools\":[]}}\n"))
	f.Add([]byte(`{"name":"solo","annotations":{"readOnlyHint":true}}`))
	f.Add([]byte(`[{"tools":[{"name":"p1"}],"nextCursor":"2"},{"result":{"tools":[{"name":"p2"}]}}]`))
	f.Add([]byte(`{"error":{"code":1}}`))
	f.Add([]byte(`"\ud800\udc00\ud800"`))
	dir, _ := testutil.SharedPath(f, "reference", "fixtures") // seeds only: the fuzzer runs without them
	fixtures, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzParse: Parse never panics, every failure says where, and a parsed listing survives
// encode → parse unchanged.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := Parse(src, Options{Name: "fuzz"})
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			var se *SyntaxError
			if errors.As(err, &se) && (se.Line < 1 || se.Column < 1 || se.Offset < 0 || se.Offset > len(src)) {
				t.Fatalf("syntax error without a position: %+v", se)
			}
			if (le.Kind == ErrSyntax || le.Kind == ErrEncoding || le.Kind == ErrNotJSON) && le.Offset < 0 {
				t.Fatalf("error without an offset: %v", le)
			}
			return
		}
		for _, indent := range []string{"", "  "} {
			again, err := Parse(l.Marshal(indent), Options{Name: "again"})
			if err != nil {
				t.Fatalf("re-parse of %q: %v", l.Marshal(indent), err)
			}
			if !Equal(NewArray(l.Tools...), NewArray(again.Tools...)) {
				t.Fatalf("round trip changed the tools:\n%s\n%s", Marshal(NewArray(l.Tools...), ""), Marshal(NewArray(again.Tools...), ""))
			}
		}
	})
}

// FuzzParseJSON: any JSON text that parses encodes to text that parses to the same value.
func FuzzParseJSON(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if CheckUTF8(src) != nil {
			return
		}
		v, err := ParseJSON(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		w, err := ParseJSON(Marshal(v, ""))
		if err != nil || !Equal(v, w) {
			t.Fatalf("round trip of %q: %v", src, err)
		}
		_ = PythonJSON(v, true)
	})
}
