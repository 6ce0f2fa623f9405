package taskformat

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
)

// A case accepting any of several tools is a task with several answers, and its rejected tools
// the task's rejects, with no loss; what a task cannot say is still a loss.
func TestToTasksAnswers(t *testing.T) {
	args := func(s string) Call { return Call{Tool: "a", Args: mustValue(t, s)} }
	tests := []struct {
		name           string
		c              Case
		answers, rejec []string
		losses         []string // a substring of each loss, in order
	}{
		{"any of", Case{Query: "q", AnyOf: true, Expect: []Call{{Tool: "a"}, {Tool: "b"}}}, []string{"a", "b"}, nil, nil},
		{"any of, one tool twice", Case{Query: "q", AnyOf: true, Expect: []Call{{Tool: "a"}, {Tool: "a"}}}, []string{"a"}, nil, nil},
		{"any of, same args", Case{Query: "q", AnyOf: true, Expect: []Call{args(`{"n": 1}`), {Tool: "b", Args: mustValue(t, `{"n":1}`)}}}, []string{"a", "b"}, nil, nil},
		{"any of, other args", Case{Query: "q", AnyOf: true, Expect: []Call{args(`{"n": 1}`), {Tool: "b", Args: mustValue(t, `{"n": 2}`)}}}, []string{"a", "b"}, nil,
			[]string{"the alternatives expect different arguments; a task holds one set: kept a's"}},
		{"all of", Case{Query: "q", Expect: []Call{{Tool: "a"}, {Tool: "b"}}}, []string{"a"}, nil, []string{"the case expects calls to 2 tools (a, b); a task names one: kept a"}},
		{"reject", Case{Query: "q", Expect: []Call{{Tool: "a"}}, Reject: []string{"c", "d", "c"}}, []string{"a"}, []string{"c", "d"}, nil},
		{"reject with none", Case{Query: "q", None: true, Reject: []string{"c"}}, nil, []string{"c"}, nil},
		{"reject an answer", Case{Query: "q", AnyOf: true, Expect: []Call{{Tool: "a"}, {Tool: "b"}}, Reject: []string{"b", "c"}}, []string{"a", "b"}, []string{"c"},
			[]string{"the case both expects and rejects b; a task cannot: kept it expected"}},
	}
	for _, tt := range tests {
		tasks, losses := ToTasks([]Case{tt.c})
		got := tasks[0]
		if !reflect.DeepEqual(got.Answers(), tt.answers) || !reflect.DeepEqual(got.Reject, tt.rejec) {
			t.Errorf("%s: answers %q, reject %q; want %q, %q", tt.name, got.Answers(), got.Reject, tt.answers, tt.rejec)
		}
		if len(losses) != len(tt.losses) {
			t.Errorf("%s: losses %v, want %d", tt.name, losses, len(tt.losses))
			continue
		}
		for i, l := range losses {
			if !strings.Contains(l.Message, tt.losses[i]) {
				t.Errorf("%s: loss %q, want %q", tt.name, l.Message, tt.losses[i])
			}
		}
		// What a task holds comes back as the case it was read from.
		back, bl := ToTasks(FromTasks(tasks))
		if len(bl) != 0 || !reflect.DeepEqual(back[0].Answers(), got.Answers()) || !reflect.DeepEqual(back[0].Reject, got.Reject) {
			t.Errorf("%s: through FromTasks: %+v (losses %v), want %+v", tt.name, back[0], bl, got)
		}
	}
	one := FromTasks([]selection.Task{{Task: "q", Expect: new("a"), AnyOf: []string{"a", "b"}, Args: mustValue(t, `{"n": 1}`), Reject: []string{"c"}}})[0]
	if !one.AnyOf || len(one.Expect) != 2 || one.Expect[1].Args == nil || !reflect.DeepEqual(one.Reject, []string{"c"}) {
		t.Errorf("FromTasks of a set task = %+v", one)
	}
}
