package taskformat

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// FromTasks turns the workbench's tasks into cases.
func FromTasks(tasks []selection.Task) []Case {
	out := make([]Case, len(tasks))
	for i, t := range tasks {
		c := Case{ID: t.ID, Query: t.Task, Tags: t.Tags}
		if t.Expect == nil {
			c.None = true
		} else {
			c.Expect = []Call{{Tool: *t.Expect, Args: t.Args}}
		}
		out[i] = c
	}
	return out
}

// ToTasks turns cases into the workbench's tasks, reporting what a task cannot hold: it names
// one expected tool (or none), so a second expected call or alternative, and rejected tools,
// are lost; a title becomes the id when the case has none.
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
		if len(c.Expect) > 1 {
			how := "expects calls to"
			if c.AnyOf {
				how = "accepts any of"
			}
			lose("expect", fmt.Sprintf("the case %s %d tools (%s); a task names one: kept %s", how, len(c.Expect), toolNames(c.Expect), c.Expect[0].Tool))
		}
		if !c.None && len(c.Expect) == 0 {
			lose("expect", "the case names no expected tool and does not say none should be called; written as expect null (no tool)")
		}
		if len(c.Reject) > 0 {
			lose("reject", fmt.Sprintf("a task cannot name tools that must not be called; dropped %v", c.Reject))
		}
		tasks[i] = t
	}
	return tasks, losses
}
