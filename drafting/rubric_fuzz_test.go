package drafting

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadRubric holds a rubric answer's reading to its bounds on any text: either every
// dimension, in order, with a score from 1 to 5 and a reason of at most MaxReason characters,
// or a problem and nothing.
func FuzzReadRubric(f *testing.F) {
	f.Add(`{"scores":{"purpose":{"score":4,"reason":"ok"},"usage":{"score":1,"reason":""},"behaviour":{"score":5,"reason":"x"},"parameters":{"score":3,"reason":"y"},"brevity":{"score":2,"reason":"z"},"neighbours":{"score":5,"reason":"w"}}}`)
	f.Add("```json\n{\"scores\":{\"purpose\":{\"score\":9}}}\n```")
	f.Add(`{"scores":[4,5,3]}`)
	f.Add("Sure! here you go")
	f.Fuzz(func(t *testing.T, text string) {
		dims, problem := readRubric(text)
		if problem != "" {
			if dims != nil {
				t.Fatalf("a problem (%s) and dimensions %v", problem, dims)
			}
			return
		}
		if len(dims) != len(Dimensions) {
			t.Fatalf("%d dimensions", len(dims))
		}
		for i, d := range dims {
			if d.ID != Dimensions[i].ID || d.Score < 1 || d.Score > 5 || utf8.RuneCountInString(d.Reason) > MaxReason || d.Reason == "" {
				t.Fatalf("dimension %d: %+v", i, d)
			}
		}
	})
}

// FuzzTaskCheck: whatever a model proposes, a kept proposal names no tool, expects a known
// tool or none, and is not empty; the kind is one of the three.
func FuzzTaskCheck(f *testing.F) {
	f.Add("Open ticket 7", "get_data", "plain", "")
	f.Add("call GET-DATA now", "get_data", "confusion", "fetch_data")
	f.Add("", "", "no-tool", "")
	f.Add("Delete\u00a0ticket", "nope", "weird", "x")
	names := []string{"get_data", "fetch_data", "run", "search", "a.b", "ünï"}
	f.Fuzz(func(t *testing.T, task, expect, kind, neighbour string) {
		known := map[string]bool{}
		for _, n := range names {
			known[n] = true
		}
		ck := &taskChecker{known: known, seen: map[string]string{}}
		for _, n := range names {
			low := strings.ToLower(n)
			ck.names = append(ck.names, nameForms{name: n, forms: []string{low, spaceSeparators(low)}})
		}
		p := ck.check(task, expect, kind, neighbour)
		switch p.Kind {
		case KindPlain, KindConfusion, KindNoTool:
		default:
			t.Fatalf("kind %q", p.Kind)
		}
		if p.Refused != "" {
			return
		}
		if strings.TrimSpace(p.Task.Task) == "" || ck.named(p.Task.Task) != "" {
			t.Fatalf("kept %q", p.Task.Task)
		}
		if e := p.Task.Expected(); e != "" && !known[e] {
			t.Fatalf("kept a task expecting %q", e)
		}
	})
}
