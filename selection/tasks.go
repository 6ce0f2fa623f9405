// Package selection answers which tool a task would pick: task files, the reference checker's
// word-overlap ranker (a stand-in for a model that has only the words of the definitions to go
// on), and the verdicts and statistics built on them; and what is read off the same scoring: the
// overlap map of competing tools (overlap*.go), the description damage test (damage.go) and the
// verdicts under every rotation of the tool order (orderbias.go). A task may accept several
// tools and reject others (answers.go).
package selection

import (
	"fmt"

	"github.com/tool-workbench/workbench/listing"
)

// Task is one entry of a task file. The reference's format is [{"task", "expect"}]; the
// workbench also reads "expect": null (no tool should be called), "expect" as a list of tools
// any of which is right, "reject" (tools that must not be chosen), "args" (a subset of the
// arguments the chosen tool should get), "id" and "tags".
type Task struct {
	ID   string `json:"id,omitempty"`
	Task string `json:"task"`
	// Expect is the expected tool, or the first of AnyOf: code that knows one answer reads it.
	Expect *string `json:"expect"`
	// AnyOf are the right tools of a task whose expect is a list (nil otherwise); Answers
	// reads both forms.
	AnyOf []string `json:"-"`
	// Reject are tools that must not be chosen (worse than a wrong choice).
	Reject []string       `json:"reject,omitempty"`
	Args   *listing.Value `json:"args,omitempty"`
	Tags   []string       `json:"tags,omitempty"`
}

// Expected returns the expected tool's name (a set task's first answer), or "" when no tool
// should be called.
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
// expect a string; other members, "reject" among them, are ignored); otherwise expect may be
// null or a list and the extended fields are read.
func ParseTasks(src []byte, strict bool) ([]Task, error) {
	if err := listing.CheckUTF8(src); err != nil {
		return nil, &TaskError{Msg: err.Error(), Err: err}
	}
	v, err := listing.ParseJSON(src)
	if err != nil {
		return nil, &TaskError{Msg: err.Error(), Err: err}
	}
	if d, p := listing.Deepest(v); strict && d > listing.PythonMaxDepth {
		return nil, &TaskError{Pointer: p, Msg: fmt.Sprintf("the task file nests arrays and objects %d levels deep; the reference checker's Python stops at %d (RecursionError). Flatten the task's arguments, or check without --rules reference", d, listing.PythonMaxDepth)}
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
	ids := map[string]int{}
	for i, it := range v.Items {
		ptr := fmt.Sprintf("/%d", i)
		task, expect := it.Get("task"), it.Get("expect")
		okExpect := expect.IsString() || !strict && expect != nil && (expect.Kind == listing.Null || expect.Kind == listing.Array)
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
			if err := readAnswers(&t, it, i, ptr); err != nil {
				return nil, err
			}
			if err := readExtended(&t, it, i, ptr, ids); err != nil {
				return nil, err
			}
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// MaxIDLength bounds a task's id, which labels rows in reports and pairs tasks across runs.
const MaxIDLength = 200

// readExtended reads the workbench's optional fields of task i. A field that is present but
// malformed is an error rather than silently dropped: a task whose expected arguments vanished
// would pass for the wrong reason. ids maps each id seen so far to its task's index.
func readExtended(t *Task, it *listing.Value, i int, ptr string, ids map[string]int) error {
	bad := func(field, msg string) error {
		return &TaskError{Msg: fmt.Sprintf("task %d: %s", i+1, msg), Pointer: ptr + "/" + field}
	}
	if id := it.Get("id"); id != nil {
		switch {
		case !id.IsString():
			return bad("id", fmt.Sprintf("\"id\" is a %s; it must be a non-empty string such as \"refund-1\"", id.Kind))
		case id.Str == "":
			return bad("id", "\"id\" is empty; give a non-empty string or leave the field out")
		case len(id.Str) > MaxIDLength:
			return bad("id", fmt.Sprintf("\"id\" is %d bytes long; the workbench reads up to %d", len(id.Str), MaxIDLength))
		case listing.HasLoneSurrogate(id.Str):
			return bad("id", "\"id\" holds a lone surrogate escape that cannot be written as UTF-8")
		}
		if j, dup := ids[id.Str]; dup {
			return bad("id", fmt.Sprintf("id %q repeats task %d's; ids pair tasks across runs, so each must be unique", id.Str, j+1))
		}
		ids[id.Str] = i
		t.ID = id.Str
	}
	if a := it.Get("args"); a != nil {
		if !a.IsObject() {
			return bad("args", fmt.Sprintf("\"args\" is a %s; it must be an object holding a subset of the expected arguments, such as {\"city\": \"Oslo\"}", a.Kind))
		}
		if t.Expect == nil {
			return bad("args", "\"args\" is given but \"expect\" is null: arguments can only be expected of a tool call")
		}
		t.Args = a
	}
	if tags := it.Get("tags"); tags != nil {
		if tags.Kind != listing.Array {
			return bad("tags", fmt.Sprintf("\"tags\" is a %s; it must be an array of strings such as [\"billing\"]", tags.Kind))
		}
		for j, tg := range tags.Items {
			if !tg.IsString() {
				return &TaskError{Msg: fmt.Sprintf("task %d: tag %d is a %s; tags must be strings", i+1, j+1, tg.Kind), Pointer: fmt.Sprintf("%s/tags/%d", ptr, j)}
			}
			if listing.HasLoneSurrogate(tg.Str) {
				return &TaskError{Msg: fmt.Sprintf("task %d: tag %d holds a lone surrogate escape that cannot be written as UTF-8", i+1, j+1), Pointer: fmt.Sprintf("%s/tags/%d", ptr, j)}
			}
			t.Tags = append(t.Tags, tg.Str)
		}
	}
	return nil
}
