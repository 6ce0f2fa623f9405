package workspace

import (
	"reflect"
	"testing"

	"github.com/tool-workbench/workbench/selection"
)

// Choosing a task's expected tool in the table makes it a one-answer task (the table shows one
// select), drops that tool from its rejects, and leaves a set alone when its first answer is
// chosen again.
func TestTaskChangeExpectOfSet(t *testing.T) {
	set := func() []selection.Task {
		return []selection.Task{{Task: "a", Expect: new("x"), AnyOf: []string{"x", "y"}, Reject: []string{"z", "w"}}}
	}
	tests := []struct {
		value          string
		answers, rejec []string
	}{
		{"x", []string{"x", "y"}, []string{"z", "w"}},
		{"y", []string{"y"}, []string{"z", "w"}},
		{"z", []string{"z"}, []string{"w"}},
		{"", nil, []string{"z", "w"}},
	}
	for _, tt := range tests {
		cur := set()
		out, err := TaskChange{Op: "set", Index: 0, Field: "expect", Value: tt.value}.apply(cur)
		if err != nil {
			t.Fatal(err)
		}
		got := out[0]
		if !reflect.DeepEqual(got.Answers(), tt.answers) || !reflect.DeepEqual(got.Reject, tt.rejec) {
			t.Errorf("set %q: answers %q, reject %q; want %q, %q", tt.value, got.Answers(), got.Reject, tt.answers, tt.rejec)
		}
		if !reflect.DeepEqual(cur, set()) {
			t.Errorf("set %q changed the tasks it was given: %+v", tt.value, cur)
		}
	}
}
