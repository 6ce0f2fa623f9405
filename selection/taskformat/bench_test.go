package taskformat

import (
	"fmt"
	"testing"
)

// BenchmarkPromptfooWrite10k writes 10,000 cases: YAML encoding is the costly part of a
// conversion, and grows with the events one document queues (see encodeYAML).
func BenchmarkPromptfooWrite10k(b *testing.B) {
	cases := make([]Case, 10000)
	for i := range cases {
		cases[i] = Case{ID: fmt.Sprintf("c%d", i), Query: fmt.Sprintf("Find the weather in city %d", i), Expect: []Call{{Tool: "get_forecast", Args: mustValue(b, `{"city": "C"}`)}}, Reject: []string{"x"}, Tags: []string{"a", "b"}}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := (promptfoo{}).Write(cases); err != nil {
			b.Fatal(err)
		}
	}
}
