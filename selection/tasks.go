// Package selection answers which tool a task would pick: task files, the reference checker's
// word-overlap ranker (a stand-in for a model that has only the words of the definitions to go
// on), and the verdicts and statistics built on them.
package selection

import (
	"fmt"

	"github.com/tool-workbench/workbench/listing"
)

// Task is one entry of a task file. The reference's format is [{"task", "expect"}]; the
// workbench also reads "expect": null (no tool should be called), "args" (a subset of the
// arguments the chosen tool should get), "id" and "tags".
type Task struct {
	ID     string         `json:"id,omitempty"`
	Task   string         `json:"task"`
	Expect *string        `json:"expect"`
	Args   *listing.Value `json:"args,omitempty"`
	Tags   []string       `json:"tags,omitempty"`
}

// Expected returns the expected tool's name, or "" when no tool should be called.
func (t Task) Expected() string {
	if t.Expect == nil {
		return ""
	}
	return *t.Expect
}

// TaskError is a task file that cannot be used. Msg is the reference's wording where it has one.
type TaskError struct {
	Msg     string
	Pointer string
	Err     error
}

func (e *TaskError) Error() string { return e.Msg }

// Unwrap returns the underlying parse error, if any.
func (e *TaskError) Unwrap() error { return e.Err }

// Reference's message for any task that does not fit its format.
const badTasks = "every task needs string fields `task` and `expect`"

// MaxTasks bounds a task file.
const MaxTasks = 100000

// ParseTasks reads a task file. With strict, it accepts only what the reference accepts (every
// expect a string); otherwise expect may be null and the extended fields are read.
func ParseTasks(src []byte, strict bool) ([]Task, error) {
	if err := listing.CheckUTF8(src); err != nil {
		return nil, &TaskError{Msg: err.Error(), Err: err}
	}
	v, err := listing.ParseJSON(src)
	if err != nil {
		return nil, &TaskError{Msg: err.Error(), Err: err}
	}
	switch v.Kind {
	case listing.Array:
	case listing.Object, listing.String:
		// The reference iterates an object's keys or a string's characters: empty ones are no tasks,
		// anything else fails its check.
		if !v.Truthy() {
			return nil, nil
		}
		return nil, &TaskError{Msg: badTasks, Pointer: ""}
	default:
		return nil, &TaskError{Msg: fmt.Sprintf("the task file holds a %s; it must be a JSON array of {\"task\", \"expect\"} objects", v.Kind)}
	}
	if len(v.Items) > MaxTasks {
		return nil, &TaskError{Msg: fmt.Sprintf("the task file holds %d tasks; the workbench reads up to %d", len(v.Items), MaxTasks)}
	}
	tasks := make([]Task, 0, len(v.Items))
	for i, it := range v.Items {
		ptr := fmt.Sprintf("/%d", i)
		task, expect := it.Get("task"), it.Get("expect")
		okExpect := expect.IsString() || !strict && expect != nil && expect.Kind == listing.Null
		if !it.IsObject() || !task.IsString() || !okExpect {
			return nil, &TaskError{Msg: badTasks, Pointer: ptr}
		}
		if listing.HasLoneSurrogate(task.Str) || listing.HasLoneSurrogate(expect.Str) {
			return nil, &TaskError{Msg: fmt.Sprintf("task %d holds a lone surrogate escape that cannot be written as UTF-8", i+1), Pointer: ptr}
		}
		t := Task{Task: task.Str}
		if expect.IsString() {
			s := expect.Str
			t.Expect = &s
		}
		if !strict {
			if id := it.Get("id"); id.IsString() {
				t.ID = id.Str
			}
			if a := it.Get("args"); a.IsObject() {
				t.Args = a
			}
			if tags := it.Get("tags"); tags != nil && tags.Kind == listing.Array {
				for _, tg := range tags.Items {
					if tg.IsString() {
						t.Tags = append(t.Tags, tg.Str)
					}
				}
			}
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}
