package taskformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Workbench is the workbench's own task file format's name.
const Workbench = "workbench"

func init() { register(workbench{}) }

// workbench is the workbench's task file: selection.ParseTasks reads it, and
// selection/taskfile.schema.json describes it.
type workbench struct{}

func (workbench) Name() string  { return Workbench }
func (workbench) Title() string { return "Tool Workbench task file" }
func (workbench) Version() string {
	return "selection/taskfile.schema.json (" + selection.TaskFileSchemaID + ")"
}

// Detect claims a JSON array whose first element is an object with a "task" member: the
// workbench's and the reference checker's shape, which no other format has.
func (workbench) Detect(src []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(src))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	if !dec.More() {
		// An empty array is an empty task file (the workbench exports one): no other format has
		// nothing in a bare array.
		_, err := dec.Token()
		return err == nil
	}
	// Only the first element: a later one that is not an object is ParseTasks' to name.
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return false
	}
	_, ok := first["task"]
	return ok
}

func (workbench) Read(src []byte) ([]Case, []Loss, error) {
	tasks, err := selection.ParseTasks(src, false)
	if err != nil {
		return nil, nil, err
	}
	return FromTasks(tasks), nil, nil
}

func (workbench) Write(cases []Case) ([]byte, []Loss, error) {
	tasks, losses := ToTasks(cases)
	if tasks == nil {
		tasks = []selection.Task{}
	}
	b, err := json.MarshalIndent(tasks, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode tasks: %w", err)
	}
	return append(b, '\n'), losses, nil
}

// FromTasks turns the workbench's tasks into cases: a task with several right tools is a case
// accepting any of them, each with the task's arguments.
func FromTasks(tasks []selection.Task) []Case {
	out := make([]Case, len(tasks))
	for i, t := range tasks {
		c := Case{ID: t.ID, Query: t.Task, Tags: t.Tags, Reject: t.Reject}
		switch {
		case t.Expect == nil:
			c.None = true
		case len(t.AnyOf) > 0:
			for _, a := range t.AnyOf {
				c.Expect = append(c.Expect, Call{Tool: a, Args: t.Args})
			}
			c.AnyOf = len(t.AnyOf) > 1
		default:
			c.Expect = []Call{{Tool: *t.Expect, Args: t.Args}}
		}
		out[i] = c
	}
	return out
}

// ToTasks turns cases into the workbench's tasks, reporting what a task cannot hold: it names
// one expected tool, several any of which is right, or none, so the second of several calls
// all expected is lost, as are arguments that differ between alternatives; a title becomes the
// id when the case has none.
func ToTasks(cases []Case) ([]selection.Task, []Loss) {
	var losses lossList
	ids := map[string]bool{}
	for _, c := range cases {
		if c.ID != "" {
			ids[c.ID] = true
		}
	}
	tasks := make([]selection.Task, len(cases))
	for i, c := range cases {
		lose := losses.of(i, c)
		t := selection.Task{ID: c.ID, Task: c.Query, Tags: c.Tags}
		switch {
		case c.ID == "" && c.Title != "" && len(c.Title) <= selection.MaxIDLength && !ids[c.Title]:
			t.ID = c.Title
			ids[c.Title] = true
		case c.Title != "" && c.Title != c.ID:
			lose("title", fmt.Sprintf("the task file has no title; dropped %q", c.Title))
		}
		if !c.None && len(c.Expect) > 0 {
			name := c.Expect[0].Tool
			t.Expect = &name
			t.Args = c.Expect[0].Args
		}
		switch {
		case len(c.Expect) > 1 && c.AnyOf:
			t.AnyOf = anyOf(&t, c.Expect, lose)
		case len(c.Expect) > 1:
			lose("expect", fmt.Sprintf("the case expects calls to %d tools (%s); a task names one: kept %s", len(c.Expect), toolNames(c.Expect), c.Expect[0].Tool))
		}
		if !c.None && len(c.Expect) == 0 {
			lose("expect", "the case names no expected tool and does not say none should be called; written as expect null (no tool)")
		}
		t.Reject = rejects(t, c.Reject, lose)
		tasks[i] = t
	}
	return tasks, losses
}

// anyOf is the answer set of a task whose case accepts any of calls (t holds the first): each
// tool once. A task holds one set of arguments, for whichever answer is chosen: the first
// alternative's are kept, and others that differ are a loss.
func anyOf(t *selection.Task, calls []Call, lose func(field, msg string)) []string {
	var names []string
	differ := false
	for _, e := range calls {
		if !slices.Contains(names, e.Tool) {
			names = append(names, e.Tool)
		}
		differ = differ || !sameArgs(e.Args, t.Args)
	}
	if differ {
		lose("expect", fmt.Sprintf("the alternatives expect different arguments; a task holds one set: kept %s's", calls[0].Tool))
	}
	if len(names) == 1 {
		return nil // one tool, several ways: a one-answer task
	}
	t.Expect = &names[0]
	return names
}

// sameArgs reports whether two expected arguments are the same JSON.
func sameArgs(a, b *listing.Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(listing.Marshal(a, ""), listing.Marshal(b, ""))
}

// rejects are a case's rejected tools as a task holds them: each once, and none that the task
// also accepts (a task cannot say both).
func rejects(t selection.Task, names []string, lose func(field, msg string)) []string {
	var out []string
	for _, r := range names {
		switch {
		case t.Accepts(r):
			lose("reject", fmt.Sprintf("the case both expects and rejects %s; a task cannot: kept it expected", r))
		case !slices.Contains(out, r):
			out = append(out, r)
		}
	}
	return out
}
