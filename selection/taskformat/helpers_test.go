package taskformat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustValue(t testing.TB, src string) *listing.Value {
	t.Helper()
	v, err := listing.ParseJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func casesJSON(t testing.TB, cs []Case) string {
	t.Helper()
	b, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lossFields(ls []Loss) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Field
	}
	return out
}

func lossLines(title string, ls []Loss) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n", title, len(ls))
	for _, l := range ls {
		b.WriteString("  " + l.String() + "\n")
	}
	return b.String()
}

// expectation sums up a case's expected calls for a table.
func expectation(c Case) string {
	switch {
	case c.None:
		return "none"
	case c.AnyOf:
		return "any " + strings.Join(toolNamesList(c.Expect), ",")
	}
	return strings.Join(toolNamesList(c.Expect), ",")
}
