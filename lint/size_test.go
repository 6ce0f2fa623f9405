package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// checkCompactLen fails when compactLen disagrees with the length of listing's encoding.
func checkCompactLen(t *testing.T, v *listing.Value) {
	t.Helper()
	if got, want := compactLen(v), len(listing.Marshal(v, "")); got != want {
		t.Errorf("compactLen = %d, listing.Marshal writes %d bytes: %s", got, want, listing.Marshal(v, ""))
	}
}

func TestCompactLenMatchesMarshal(t *testing.T) {
	tests := []string{
		`null`, `true`, `false`, `-0.0e+10`, `"plain"`, `""`, `[]`, `{}`, `[1,[2,[]],{}]`,
		`{"a":1,"a":2,"b":{"c":[null,true]}}`, `"quote \" backslash \\ slash \/"`,
		`"\n\r\t\b\f\u0000\u001f\u007f"`, `"é ü 日本 😀 \u2028"`, `"\ud800 lone, \udfff lone, \ud83d\ude00 pair"`,
	}
	for _, src := range tests {
		v, err := listing.ParseJSON([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		checkCompactLen(t, v)
	}
	checkCompactLen(t, nil)
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	for _, f := range files {
		for _, tool := range load(t, f).Tools {
			checkCompactLen(t, tool)
		}
	}
}

func FuzzCompactLen(f *testing.F) {
	for _, s := range []string{`{"name":"a\u0001","x":[1.50,"\ud800"]}`, `"\u00e9\t"`, `[{}]`} {
		f.Add([]byte(s))
	}
	if p, ok := testutil.SharedPath(f, "listings", "real", "kubernetes-mcp-server.json"); ok {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		v, err := listing.ParseJSON(src)
		if err != nil {
			return
		}
		checkCompactLen(t, v)
	})
}
