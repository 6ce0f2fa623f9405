// Package testlistings makes the listings the tests of several packages build alike: tools from
// names and descriptions, many distinct tools, many near-identical ones. Only tests import it.
package testlistings

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// idSchema is the input schema every tool here takes: one required, described string id.
var idSchema = map[string]any{"type": "object",
	"properties": map[string]any{"id": map[string]any{"type": "string", "description": "The id."}},
	"required":   []string{"id"}}

// Of parses a listing of tools given as name and description (an empty description is left
// out), each taking idSchema.
func Of(t testing.TB, tools ...[2]string) *listing.Listing {
	t.Helper()
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	ts := make([]tool, len(tools))
	for i, nd := range tools {
		ts[i] = tool{nd[0], nd[1], idSchema}
	}
	b, err := json.Marshal(map[string]any{"tools": ts})
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(b, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Distinct is a listing of n distinct tools (tool_00000 …, "Finds record i of collection i%97
// by its id."); salt, appended to every description, makes the tools of one call its own.
func Distinct(t testing.TB, n int, salt string) *listing.Listing {
	t.Helper()
	tools := make([][2]string, n)
	for i := range tools {
		tools[i] = [2]string{fmt.Sprintf("tool_%05d", i), fmt.Sprintf("Finds record %d of collection %d by its id.%s", i, i%97, salt)}
	}
	return Of(t, tools...)
}

// NearIdentical is a listing of n tools whose descriptions differ in one word each (every pair
// a near-duplicate at 86%), with salt in every description so that listings made with other
// salts share no tool.
func NearIdentical(t testing.TB, n int, salt string) *listing.Listing {
	t.Helper()
	tools := make([][2]string, n)
	for i := range tools {
		tools[i] = [2]string{fmt.Sprintf("orders_lookup_%05d", i),
			fmt.Sprintf("Look up one customer order by its identifier and return status items total variant%d%s", i, salt)}
	}
	return Of(t, tools...)
}
