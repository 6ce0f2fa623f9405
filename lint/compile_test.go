package lint

import (
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/schema"
)

// compileSchema compiles one schema and checks the values in it against their own schemas,
// with a request budget of its own (tests and benchmarks; the Linter shares one per call). which is "inputSchema" or
// "outputSchema"; the findings' pointers are relative to the schema.
func compileSchema(sch *listing.Value, which string, maxDepth int) []Finding {
	fs, _ := compileSchemaIn(sch, which, maxDepth, schema.NewGuard())
	return fs
}
