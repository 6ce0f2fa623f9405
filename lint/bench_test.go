package lint

import (
	"strconv"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkLintGitHubCold runs every extended rule on the GitHub listing (117 tools) with an
// empty cache: every schema compiled, every tool's rules run.
func BenchmarkLintGitHubCold(b *testing.B) {
	l := load(b, testutil.Shared(b, "listings", "real", "github-mcp-server.json"))
	b.ReportAllocs()
	for b.Loop() {
		New(Config{}).Lint(l)
	}
}

// BenchmarkLintGitHubEdit re-lints the GitHub listing after an edit to one tool's description,
// as the browser does on a keystroke: the edited tool's rules and the listing-wide rules run,
// the other 116 tools come from the cache.
func BenchmarkLintGitHubEdit(b *testing.B) {
	l := load(b, testutil.Shared(b, "listings", "real", "github-mcp-server.json"))
	lt := New(Config{})
	lt.Lint(l)
	desc := l.Tools[40].Get("description").Str
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		edited, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/40/description", Value: listing.NewString(desc + " v" + strconv.Itoa(i))})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		lt.Lint(edited)
	}
}

// BenchmarkLintGitHubUnchanged re-lints an unchanged listing: everything cached.
func BenchmarkLintGitHubUnchanged(b *testing.B) {
	l := load(b, testutil.Shared(b, "listings", "real", "github-mcp-server.json"))
	lt := New(Config{})
	lt.Lint(l)
	b.ReportAllocs()
	for b.Loop() {
		lt.Lint(l)
	}
}

// BenchmarkLintGitHubSchemasCached runs every tool's rules again on the GitHub listing with the
// compiled schemas cached by content hash (as after an edit to every description): the
// per-tool cache is emptied before each run, the schema cache (and its map from schema values to
// their hashes, which an edit outside the schemas keeps valid) is not.
func BenchmarkLintGitHubSchemasCached(b *testing.B) {
	l := load(b, testutil.Shared(b, "listings", "real", "github-mcp-server.json"))
	lt := New(Config{})
	lt.Lint(l)
	b.ReportAllocs()
	for b.Loop() {
		lt.tools.Clear()
		lt.byPtr.Clear()
		lt.Lint(l)
	}
}

// BenchmarkCompileGitHubSchemas compiles the 117 input schemas of the GitHub listing (meta-schema
// validation, $ref resolution, value checks): the part of a cold lint the schema cache saves.
func BenchmarkCompileGitHubSchemas(b *testing.B) {
	l := load(b, testutil.Shared(b, "listings", "real", "github-mcp-server.json"))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range l.Tools {
			compileSchema(t.Get("inputSchema"), "inputSchema", DefaultMaxSchemaDepth)
		}
	}
}
