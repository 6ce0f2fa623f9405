package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

const module = "github.com/tool-workbench/workbench"

// layers places each package of ours: a package may import only packages of a lower layer
// (the design's "arrows point one way": cmd → web, api → workspace, runs → analysis, store →
// lint, cost, selection, export → schema, listing, words). A package missing here fails the
// test, so that a new package is placed on purpose.
var layers = map[string]int{
	"listing": 0, "words": 0, "schema": 0, "static": 0, "examples": 0, "views": 0,
	"internal/lru": 0, "internal/testutil": 0, "internal/hostile": 0, "internal/archtest": 0, "internal/termsafe": 0,
	"internal/atomicfile": 0,
	"selection/stats":     0, "listing/remote/internal/testserver": 0, "cost/hfbpe": 0,

	"listing/remote": 1, "listing/tooledit": 1, "internal/testlistings": 1, "lint/reference": 1, "cost": 1, "export": 1, "store": 1,

	"lint": 2, "selection": 2, "store/internal/sqlstore": 2,

	"selection/runner": 3, "selection/fake": 3, "selection/taskformat": 3, "store/sqlite": 3, "store/postgres": 3,
	"store/storetest": 3, "analysis": 3,

	"workspace": 4, "runs": 4, "review": 4, "drafting": 4,

	"drafting/fakemodel": 5, // a test model for drafting: briefs in, canned answers out

	"challenge": 5, // over the workspace service: participants' copies are workspaces

	"api": 6, "web": 6,

	"cmd/workbench": 7, "internal/hostile/measure": 7,
	"internal/goinstall": 7,
}

// longFuncs are the functions allowed past 100 lines: line-for-line ports, which stay
// comparable with their originals only while their shape is the same.
var longFuncs = map[string]bool{
	"cost/render.go tsType":                 true, // harmony's TypeScript rendering of a schema
	"lint/reference/reference.go NameLines": true, // the reference checker's name lines
}

const maxFileLines, maxFuncLines = 900, 100

// goFiles returns every Go file of the module (generated templ files aside), relative to root.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_templ.go") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportsPointDown holds every non-test file to the layers above.
func TestImportsPointDown(t *testing.T) {
	root := testutil.ModuleRoot(t)
	fset := token.NewFileSet()
	for _, rel := range goFiles(t, root) {
		if strings.HasSuffix(rel, "_test.go") {
			continue // tests may reach across (an agreement test drives the CLI, the API and the pages)
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		from, ok := layers[pkg]
		if !ok {
			t.Errorf("%s: package %s has no layer in archtest's table; place it", rel, pkg)
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			dep, ours := strings.CutPrefix(path, module+"/")
			if !ours {
				continue
			}
			to, known := layers[dep]
			switch {
			case !known:
				t.Errorf("%s imports %s, which has no layer in archtest's table", rel, dep)
			case to >= from && !strings.HasPrefix(dep, pkg+"/"):
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", rel, from, dep, to)
			}
		}
	}
}

// TestSizes holds every file to maxFileLines and every function, tests included, to maxFuncLines.
func TestSizes(t *testing.T) {
	root := testutil.ModuleRoot(t)
	fset := token.NewFileSet()
	for _, rel := range goFiles(t, root) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n := fset.Position(f.End()).Line; n > maxFileLines {
			t.Errorf("%s has %d lines; split it (at most %d)", rel, n, maxFileLines)
		}
		var long []string
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch x := n.(type) {
			case *ast.FuncDecl:
				name = x.Name.Name
			case *ast.FuncLit:
				name = "a function literal"
			default:
				return true
			}
			lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
			if lines > maxFuncLines && !longFuncs[rel+" "+name] {
				long = append(long, name+" ("+strconv.Itoa(lines)+" lines, line "+strconv.Itoa(fset.Position(n.Pos()).Line)+")")
			}
			return true
		})
		if len(long) > 0 {
			slices.Sort(long)
			t.Errorf("%s: functions over %d lines: %s", rel, maxFuncLines, strings.Join(long, ", "))
		}
	}
}
