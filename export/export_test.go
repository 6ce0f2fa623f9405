package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

func readListing(t testing.TB, path string) *listing.Listing {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: filepath.Base(path)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return l
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// goldenCases are the listings every format is checked on: the seed fixtures, the real
// listings (read in place from shared/) and the awkward listing in testdata.
func goldenCases(t *testing.T) map[string]string {
	cases := map[string]string{"awkward": filepath.Join("testdata", "awkward-tools.json")}
	shared, ok := testutil.SharedPath(t)
	if !ok {
		t.Log("shared/ not found next to the module: golden tests run on testdata only")
		return cases
	}
	for _, f := range []string{"clear", "confusing", "draft"} {
		cases["seed-"+f] = filepath.Join(shared, "reference", "fixtures", f+"-tools.json")
	}
	for _, f := range []string{"kubernetes-mcp-server", "kubernetes-mcp-server-extra-toolsets", "github-mcp-server", "gitlab-mcp-server", "mongodb-mcp-server"} {
		cases["real-"+f] = filepath.Join(shared, "listings", "real", f+".json")
	}
	return cases
}

func TestJSONGolden(t *testing.T) {
	for name, path := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			l := readListing(t, path)
			pretty := JSON(l, JSONOptions{})
			if strings.HasPrefix(name, "real-") {
				// The real listings are saved as 2-space JSON of the tools/list result, so the
				// export of the unedited listing is the file itself: compare with it rather than
				// keep a copy of it under testdata.
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(pretty, src) {
					t.Errorf("the export of unedited %s differs from it\n%s", path, testutil.FirstDifference(pretty, src))
				}
			} else {
				golden(t, name+".json", pretty)
			}
			// An unedited listing exports as itself: same tools, same envelope, as written.
			back, err := listing.Parse(pretty, listing.Options{Name: "exported"})
			if err != nil {
				t.Fatalf("the export does not parse: %v", err)
			}
			if !listing.Equal(back.Result(), l.Result()) {
				t.Fatal("the exported result differs from the input's result")
			}
			bare := JSON(l, JSONOptions{Bare: true, Compact: true})
			if !bytes.Equal(bare, append(listing.Marshal(listing.NewArray(l.Tools...), ""), '\n')) {
				t.Fatal("the bare compact export is not the tools array, compact")
			}
			if bytes.ContainsAny(bytes.TrimSuffix(bare, []byte("\n")), "\n") || bare[0] != '[' {
				t.Fatalf("the bare compact export is not one line holding an array: %.80s", bare)
			}
		})
	}
}

func TestGoGolden(t *testing.T) {
	for name, path := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			l := readListing(t, path)
			code, warns, err := Go(l, GoOptions{Package: "tools", Source: filepath.Base(path)})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".go.txt", code)
			var w bytes.Buffer
			for _, x := range warns {
				fmt.Fprintf(&w, "%s\t%s\t%s\n", x.Kind, x.Pointer, x)
			}
			golden(t, name+".warnings.txt", w.Bytes())
		})
	}
	t.Run("awkward-main", func(t *testing.T) {
		l := readListing(t, filepath.Join("testdata", "awkward-tools.json"))
		code, _, err := Go(l, GoOptions{Main: true, Source: "awkward-tools.json", ServerName: "awkward"})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "awkward.main.go.txt", code)
	})
}

// TestGoWarnings pins the documented differences on a small listing, one kind at a time.
func TestGoWarnings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // kind and pointer
	}{
		{"sorted and complete", `[{"annotations":{"idempotentHint":false,"readOnlyHint":true},"description":"d","inputSchema":{"type":"object"},"name":"a"}]`, nil},
		{"order", `[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]`,
			[]string{"order /tools", "member-order /tools/0", "member-order /tools/1"}},
		{"hints unset", `[{"annotations":{"destructiveHint":true},"inputSchema":{"type":"object"},"name":"a"}]`,
			[]string{"hint-default /tools/0/annotations/readOnlyHint", "hint-default /tools/0/annotations/idempotentHint", "member-order /tools/0/annotations"}},
		{"hint null", `[{"annotations":{"idempotentHint":true,"readOnlyHint":null},"inputSchema":{"type":"object"},"name":"a"}]`,
			[]string{"hint-default /tools/0/annotations/readOnlyHint"}},
		{"unknown member", `[{"inputSchema":{"type":"object"},"name":"a","execution":{}}]`,
			[]string{"dropped /tools/0/execution"}},
		{"unknown annotation", `[{"annotations":{"idempotentHint":true,"readOnlyHint":true,"audience":[]},"inputSchema":{"type":"object"},"name":"a"}]`,
			[]string{"dropped /tools/0/annotations/audience"}},
		{"empty title", `[{"inputSchema":{"type":"object"},"name":"a","title":""}]`,
			[]string{"empty-omitted /tools/0/title"}},
		{"null output schema", `[{"inputSchema":{"type":"object"},"name":"a","outputSchema":null}]`,
			[]string{"dropped /tools/0/outputSchema"}},
		{"meta unsorted", `[{"_meta":{"b":1,"a":2},"inputSchema":{"type":"object"},"name":"a"}]`,
			[]string{"member-order /tools/0/_meta"}},
		{"icon", `[{"inputSchema":{"type":"object"},"name":"a","icons":[{"theme":"dark","src":"x","alt":"y"}]}]`,
			[]string{"dropped /tools/0/icons/0/alt", "member-order /tools/0/icons/0"}},
		{"invalid name", `[{"inputSchema":{"type":"object"},"name":"a b"}]`,
			[]string{"notice "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listing.Parse([]byte(tt.in), listing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, warns, err := Go(l, GoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warns {
				got = append(got, string(w.Kind)+" "+w.Pointer)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestGoRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts GoOptions
		want string // in the error
	}{
		{"no input schema", `[{"name":"a"}]`, GoOptions{}, `missing input schema`},
		{"input schema not an object type", `[{"name":"a","inputSchema":{"type":"array"}}]`, GoOptions{}, `input schema must have type "object"`},
		{"input schema with a type list", `[{"name":"a","inputSchema":{"type":["object","null"]}}]`, GoOptions{}, `input schema must have type "object"`},
		{"bad header annotation", `[{"name":"a","inputSchema":{"type":"object","properties":{"p":{"type":"array","x-mcp-header":"X"}}}}]`, GoOptions{}, `x-mcp-header`},
		{"description not a string", `[{"name":"a","description":3,"inputSchema":{"type":"object"}}]`, GoOptions{}, `description is a number`},
		{"hint not a boolean", `[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]`, GoOptions{}, `readOnlyHint is a string`},
		{"annotations not an object", `[{"name":"a","inputSchema":{"type":"object"},"annotations":[]}]`, GoOptions{}, `annotations is an array`},
		{"icon without src", `[{"name":"a","inputSchema":{"type":"object"},"icons":[{"mimeType":"image/png"}]}]`, GoOptions{}, `no string src`},
		{"NaN in a schema", `[{"name":"a","inputSchema":{"type":"object","maximum":NaN}}]`, GoOptions{}, `NaN or Infinity`},
		{"lone surrogate in a description", `[{"name":"a","description":"x\ud800","inputSchema":{"type":"object"}}]`, GoOptions{}, `lone UTF-16 surrogate`},
		{"duplicate names", `[{"name":"a","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]`, GoOptions{}, `also used by tool 1`},
		{"package not an identifier", `[{"name":"a","inputSchema":{"type":"object"}}]`, GoOptions{Package: "my-tools"}, `not a Go identifier`},
		{"main in another package", `[{"name":"a","inputSchema":{"type":"object"}}]`, GoOptions{Package: "tools", Main: true}, `must be package main`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listing.Parse([]byte(tt.in), listing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			code, _, err := Go(l, tt.opts)
			if err == nil {
				t.Fatalf("no error; generated:\n%s", code)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestHandlerIdent(t *testing.T) {
	taken := map[string]bool{}
	tests := []struct{ name, want string }{
		{"get_pods", "handleGetPods"},
		{"files.read-text", "handleFilesReadText"},
		{"files_read_text", "handleFilesReadText_2"},
		{"123", "handle123"},
		{"日本", "handleTool5"},
		{"", "handleTool6"},
		{"handleTool5", "handleHandleTool5"},
	}
	for i, tt := range tests {
		if got := handlerIdent(tt.name, i, taken); got != tt.want {
			t.Errorf("handlerIdent(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestGoString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"has \"quotes\"", "`has \"quotes\"`"},
		{"back`quote\"", `"back` + "`" + `quote\""`},
		{"line\nbreak", "`line\nbreak`"},
		{"crlf\r\n", `"crlf\r\n"`},
		{"bidi \u202e\"", `"bidi \u202e\""`},
		{"Größe \"ok\"", "`Größe \"ok\"`"},
		{"nbsp\u00a0\\", `"nbsp\u00a0\\"`},
		{"comment */ end", `"comment */ end"`},
	}
	for _, tt := range tests {
		if got := goString(tt.in); got != tt.want {
			t.Errorf("goString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
