package lint

import "github.com/tool-workbench/workbench/listing"

// compileSchema compiles one schema and checks the values in it against their own schemas,
// with a request budget of its own (tests and benchmarks; the Linter shares one per call). which is "inputSchema" or
// "outputSchema"; the findings' pointers are relative to the schema.
func compileSchema(schema *listing.Value, which string, maxDepth int) []Finding {
	fs, _ := compileSchemaIn(schema, which, maxDepth, NewSchemaGuard())
	return fs
}
