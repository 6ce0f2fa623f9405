package lint

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func mustSchema(t testing.TB, src string) *listing.Value {
	t.Helper()
	v, err := listing.ParseJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A pattern too costly to compile is a schema-limit finding at the pattern (schema's
// TestPatternLimits covers the limits themselves).
func TestPatternLimitFinding(t *testing.T) {
	fs := compileSchema(mustSchema(t, `{"type": "object", "properties": {"x": {"pattern": "`+strings.Repeat("[ab]{1000}", 60)+`"}}}`), "inputSchema", DefaultMaxSchemaDepth)
	if len(fs) != 1 || fs[0].Rule != "schema-limit" || fs[0].Pointer != "/properties/x/pattern" {
		t.Errorf("findings %+v, want one schema-limit at /properties/x/pattern", fs)
	}
}
