package web

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// exportGet asks for an export as the menu's Download (or, with plain, its Copy) does.
func exportGet(t *testing.T, s *Server, id, query string, plain bool) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/export?"+query, nil)
	if plain {
		req.Header.Set("Accept", "text/plain")
	}
	return do(t, s, req)
}

func TestExportFormats(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	// An edit, so that the review has something to report.
	post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, "Find books by title, author or subject words. Use catalog_get_book for one ISBN."))
	tests := []struct {
		query    string
		ctype    string
		filename string
		prefix   string
		contains string
	}{
		{"format=json", "application/json", "listing.json", "{\n  \"tools\": [\n    {", "Use catalog_get_book for one ISBN."},
		{"format=json&shape=result&compact=1", "application/json", "listing.json", `{"tools":[{"`, "Use catalog_get_book for one ISBN."},
		{"format=json&shape=bare", "application/json", "tools.json", "[\n  {\n    \"name\"", ""},
		{"format=json&shape=bare&compact=1", "application/json", "tools.json", `[{"name":`, ""},
		{"format=go", "text/x-go; charset=utf-8", "tools.go", "// Code generated", "\npackage tools\n"},
		{"format=go&package=library", "text/x-go; charset=utf-8", "tools.go", "// Code generated", "\npackage library\n"},
		{"format=go&main=1", "text/x-go; charset=utf-8", "main.go", "// Code generated", "func main() {"},
		{"format=go&package=main&main=1", "text/x-go; charset=utf-8", "main.go", "// Code generated", "func main() {"},
		{"format=review", "text/markdown; charset=utf-8", "review.md", "# Review of ", "for one ISBN"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rec := exportGet(t, s, id, tt.query, false)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
			if got := rec.Header().Get("Content-Type"); got != tt.ctype {
				t.Errorf("content type %q, want %q", got, tt.ctype)
			}
			if got, want := rec.Header().Get("Content-Disposition"), `attachment; filename="`+tt.filename+`"`; got != want {
				t.Errorf("disposition %q, want %q", got, want)
			}
			body := rec.Body.String()
			if !strings.HasPrefix(body, tt.prefix) {
				t.Errorf("body starts %q, want %q", body[:min(60, len(body))], tt.prefix)
			}
			if !strings.Contains(body, tt.contains) {
				t.Errorf("body lacks %q", tt.contains)
			}
			if strings.HasPrefix(tt.query, "format=json") && !json.Valid([]byte(body)) {
				t.Errorf("the JSON export is not valid JSON")
			}
		})
	}
}

func TestExportErrors(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	bad := workspaceFrom(t, s, `[{"name": "a", "inputSchema": {"type": "array"}}]`)
	tests := []struct {
		name  string
		id    string
		query string
		code  int
		want  string
	}{
		{"unknown format", id, "format=pdf", http.StatusBadRequest, `unknown export format "pdf"`},
		{"unknown shape", id, "format=json&shape=tree", http.StatusBadRequest, `unknown JSON shape "tree"`},
		{"package not an identifier", id, "format=go&package=my-tools", http.StatusBadRequest, "must be a Go identifier"},
		{"main in another package", id, "format=go&package=tools&main=1", http.StatusBadRequest, "clear the package name, or untick “with main”"},
		{"a listing go-sdk refuses", bad, "format=go", http.StatusUnprocessableEntity, `input schema must have type "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := exportGet(t, s, tt.id, tt.query, true)
			if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("status %d %q, want %d with %q", rec.Code, rec.Body.String(), tt.code, tt.want)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Copy gets %q, want plain text", ct)
			}
			// A download (a browser navigation) gets the error page instead.
			rec = exportGet(t, s, tt.id, tt.query, false)
			if rec.Code != tt.code || len(find(t, rec.Body.String(), "error-page")) != 1 {
				t.Errorf("download of a failing export: status %d, no error page", rec.Code)
			}
		})
	}
}

// hostileTool is a tool whose text tries to break out of a Go string or comment, and out of
// Markdown text into markup, links and headings.
const hostileDesc = "Ends a comment */ and a raw string ` then\n}\nfunc init() { panic(\"pwned\") }\n/* <script>alert(1)</script> " +
	"[click](javascript:alert(1)) \n# Owned heading\n| a | b |"

func TestExportEscapesHostileText(t *testing.T) {
	s := newServer(t)
	src, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "evil-tool.v2", "title": "*/ `title`", "description": "Harmless at first.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"q": map[string]any{"type": "string", "description": hostileDesc}}}}}})
	id := workspaceFrom(t, s, string(src))
	// The hostile description arrives as an edit, so that it shows in the review's diff too.
	post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, hostileDesc))

	rec := exportGet(t, s, id, "format=go&main=1", false)
	if rec.Code != http.StatusOK {
		t.Fatalf("go: status %d: %s", rec.Code, rec.Body.String())
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", rec.Body.String(), parser.ParseComments)
	if err != nil {
		t.Fatalf("the generated Go does not parse: %v", err)
	}
	var found bool
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == "init" {
				t.Errorf("tool text became a function declaration")
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if v, err := strconv.Unquote(n.Value); err == nil && v == hostileDesc {
					found = true
				}
			}
		}
		return true
	})
	if !found {
		t.Errorf("the description is not one string literal holding the exact text")
	}

	rec = exportGet(t, s, id, "format=review", false)
	if rec.Code != http.StatusOK {
		t.Fatalf("review: status %d: %s", rec.Code, rec.Body.String())
	}
	md := rec.Body.String()
	// Text inside a fenced code block is literal; outside the fences nothing may be markup.
	prose, fenced := splitFences(md)
	for _, bad := range []string{"<script>", "](javascript:", "\n# Owned", "\n| a | b |"} {
		if strings.Contains(prose, bad) {
			t.Errorf("the review holds %q outside a code block", bad)
		}
	}
	if !strings.Contains(fenced, "# Owned heading\n| a | b |") {
		t.Errorf("the review does not show the description in a code block:\n%s", md)
	}
}

func TestExportNotes(t *testing.T) {
	s := newServer(t)
	// Tools out of name order and without readOnlyHint: go-sdk sorts them and sends false.
	id := workspaceFrom(t, s, `{"tools": [{"name": "b_tool", "description": "B.", "inputSchema": {"type": "object"}},
		{"name": "a_tool", "description": "A.", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": false}}]}`)
	p := patched(post(t, s, "/w/"+id+"/export/notes", sig(0, "")))
	notes := p["export-notes"]
	kinds := map[string]bool{}
	for _, n := range find(t, notes, "export-warning") {
		kinds[attr(n, "data-kind")] = true
	}
	if !kinds["order"] || !kinds["hint-default"] {
		t.Errorf("warnings %v, want order and hint-default: %s", kinds, notes)
	}
	bad := workspaceFrom(t, s, `[{"name": "a", "inputSchema": {"type": "array"}}]`)
	p = patched(post(t, s, "/w/"+bad+"/export/notes", sig(0, "")))
	if n := find(t, p["export-notes"], "export-problem"); len(n) != 1 || !strings.Contains(text(n[0]), `"object"`) {
		t.Errorf("problems: %s", p["export-notes"])
	}
}

// splitFences separates Markdown into the text outside fenced code blocks and the text inside
// them. A fence closes only on a line of the same backquotes, as CommonMark reads it.
func splitFences(md string) (prose, fenced string) {
	var out, in strings.Builder
	fence := ""
	for _, ln := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimRight(ln, "\n")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
		case fence != "" && strings.TrimSpace(trimmed) == fence:
			fence = ""
		case fence != "":
			in.WriteString(ln)
		default:
			out.WriteString(ln)
		}
	}
	return out.String(), in.String()
}

// A workspace's name comes from a server when it was fetched: it is hostile text too.
func TestExportHostileWorkspaceName(t *testing.T) {
	s := newServer(t)
	l, err := listing.Parse([]byte(`[{"name": "a", "description": "Finds a.", "inputSchema": {"type": "object"}}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := "srv */\n}\nfunc init() { panic(1) }\n# Owned <script>x</script>"
	ws, err := s.store.Create(context.Background(), name, l, nil, Author{Name: "test"}, "")
	if err != nil {
		t.Fatal(err)
	}
	code := exportGet(t, s, ws.ID, "format=go", false).Body.String()
	f, err := parser.ParseFile(token.NewFileSet(), "tools.go", code, parser.ParseComments)
	if err != nil {
		t.Fatalf("the generated Go does not parse: %v", err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" {
			t.Errorf("the workspace name became code")
		}
	}
	md := exportGet(t, s, ws.ID, "format=review", false).Body.String()
	prose, _ := splitFences(md)
	if strings.Contains(prose, "\n# Owned") || strings.Contains(prose, "<script>") {
		t.Errorf("the workspace name became Markdown structure or markup:\n%s", md[:min(300, len(md))])
	}
}
