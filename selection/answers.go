package selection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Answers returns the tools any of which is a right choice: the list of a task whose expect is a
// list, else its one expected tool, else none (no tool should be called).
func (t Task) Answers() []string {
	if len(t.AnyOf) > 0 {
		return t.AnyOf
	}
	if t.Expect != nil {
		return []string{*t.Expect}
	}
	return nil
}

// Accepts reports whether choosing the tool name answers the task rightly.
func (t Task) Accepts(name string) bool {
	if len(t.AnyOf) > 0 {
		return slices.Contains(t.AnyOf, name)
	}
	return t.Expect != nil && *t.Expect == name
}

// Rejects reports whether the task names the tool as one that must not be chosen.
func (t Task) Rejects(name string) bool { return slices.Contains(t.Reject, name) }

// nameSet answers membership in a task's answers or rejects: a scan for the few names tasks
// usually give, a map past that (a hostile file can list thousands).
func nameSet(names []string) func(string) bool {
	if len(names) <= 8 {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return func(n string) bool { return m[n] }
}

// taskJSON is a Task as written: expect is a string, null or a list.
type taskJSON struct {
	ID     string          `json:"id,omitempty"`
	Task   string          `json:"task"`
	Expect json.RawMessage `json:"expect"`
	Reject []string        `json:"reject,omitempty"`
	Args   *listing.Value  `json:"args,omitempty"`
	Tags   []string        `json:"tags,omitempty"`
}

// MarshalJSON writes a task as a task file holds it: a set task's expect as its list.
func (t Task) MarshalJSON() ([]byte, error) {
	var expect any = t.Expect
	if len(t.AnyOf) > 0 {
		expect = t.AnyOf
	}
	e, err := json.Marshal(expect)
	if err != nil {
		return nil, fmt.Errorf("writing task %q's expect: %w", t.Task, err)
	}
	return json.Marshal(taskJSON{ID: t.ID, Task: t.Task, Expect: e, Reject: t.Reject, Args: t.Args, Tags: t.Tags})
}

// UnmarshalJSON reads what MarshalJSON writes (run files keep their tasks so); task files are
// read by ParseTasks, which checks more and says where.
func (t *Task) UnmarshalJSON(b []byte) error {
	var j taskJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Task{ID: j.ID, Task: j.Task, Reject: j.Reject, Args: j.Args, Tags: j.Tags}
	e := strings.TrimSpace(string(j.Expect))
	switch {
	case e == "" || e == "null":
	case strings.HasPrefix(e, "["):
		if err := json.Unmarshal(j.Expect, &t.AnyOf); err != nil {
			return fmt.Errorf("task %q: expect must be a tool name, null or a list of tool names: %w", j.Task, err)
		}
		if len(t.AnyOf) == 0 {
			return fmt.Errorf("task %q: expect is an empty list; give at least one tool name, or null", j.Task)
		}
		t.Expect = &t.AnyOf[0]
	default:
		var s string
		if err := json.Unmarshal(j.Expect, &s); err != nil {
			return fmt.Errorf("task %q: expect must be a tool name, null or a list of tool names: %w", j.Task, err)
		}
		t.Expect = &s
	}
	return nil
}

// readNames reads a task's list of tool names in field (expect or reject), which must be an
// array of distinct strings; what names one item ("answer", "rejected tool") in messages.
func readNames(v *listing.Value, field, what string, i int, ptr string) ([]string, error) {
	at := func(j int, msg string) error {
		return &TaskError{Msg: fmt.Sprintf("task %d: %s", i+1, msg), Pointer: fmt.Sprintf("%s/%s/%d", ptr, field, j)}
	}
	names := make([]string, 0, len(v.Items))
	seen := make(map[string]bool, len(v.Items))
	for j, it := range v.Items {
		switch {
		case !it.IsString():
			return nil, at(j, fmt.Sprintf("%s %d is a %s; %q must list tool names as strings, such as [\"tickets_get\", \"tickets_search\"]", what, j+1, it.Kind, field))
		case listing.HasLoneSurrogate(it.Str):
			return nil, at(j, fmt.Sprintf("%s %d holds a lone surrogate escape that cannot be written as UTF-8", what, j+1))
		case seen[it.Str]:
			return nil, at(j, fmt.Sprintf("%q names %q twice; list each tool once", field, it.Str))
		}
		seen[it.Str] = true
		names = append(names, it.Str)
	}
	return names, nil
}

// readAnswers reads a task's expect list (any of its tools is right) and its reject list (tools
// that must not be chosen) into t, whose Expect holds expect when it is a string.
func readAnswers(t *Task, it *listing.Value, i int, ptr string) error {
	if expect := it.Get("expect"); expect.Kind == listing.Array {
		if len(expect.Items) == 0 {
			return &TaskError{Msg: fmt.Sprintf("task %d: \"expect\" is an empty list; name at least one tool that is right, or write null when no tool should be called", i+1), Pointer: ptr + "/expect"}
		}
		names, err := readNames(expect, "expect", "answer", i, ptr)
		if err != nil {
			return err
		}
		t.AnyOf, t.Expect = names, &names[0]
	}
	rej := it.Get("reject")
	if rej == nil {
		return nil
	}
	if rej.Kind != listing.Array {
		return &TaskError{Msg: fmt.Sprintf("task %d: \"reject\" is a %s; it must be a list of tool names that must not be chosen, such as [\"tickets_delete\"]", i+1, rej.Kind), Pointer: ptr + "/reject"}
	}
	names, err := readNames(rej, "reject", "rejected tool", i, ptr)
	if err != nil {
		return err
	}
	for j, n := range names {
		if t.Accepts(n) {
			return &TaskError{Msg: fmt.Sprintf("task %d: %q is both expected and rejected; take it out of one of the lists", i+1, n), Pointer: fmt.Sprintf("%s/reject/%d", ptr, j)}
		}
	}
	if len(names) > 0 {
		t.Reject = names
	}
	return nil
}

// reprList writes names as the reference writes one: Python reprs, comma-separated.
func reprList(names []string) string {
	rs := make([]string, len(names))
	for i, n := range names {
		rs[i] = listing.PythonRepr(n)
	}
	return strings.Join(rs, ", ")
}

// missingDetail is the verdict's line when none of the answers is in the listing: the
// reference's words for one.
func missingDetail(answers []string) string {
	if len(answers) == 1 {
		return fmt.Sprintf("expected tool %s is not in the listing", listing.PythonRepr(answers[0]))
	}
	return fmt.Sprintf("none of the expected tools %s is in the listing", reprList(answers))
}

// grade gives the verdict of a task that expects a tool (any of its answers), shown as shown.
// Scores decide, as in the reference: the best answer wins when no other tool scores more.
func (r *Ranker) grade(v *Verdict, s []float64, at places, shown string, t Task) {
	topScore := s[at.top]
	switch {
	case at.mine < 0:
		v.Status, v.Level = Missing, "FAIL"
		v.Detail = missingDetail(t.Answers())
		return
	case topScore == 0:
		v.Status, v.Level = NoWords, "FAIL"
		v.Detail = fmt.Sprintf(`"%s": no word of the task appears in any definition`, shown)
		return
	}
	want := r.names[at.mine]
	if s[at.mine] < topScore {
		v.Status, v.Level = Wrong, "FAIL"
		v.Detail = fmt.Sprintf(`"%s": %s wins (%.1f), %s scores %.1f`, shown, r.names[at.top], topScore, want, s[at.mine])
		if t.Rejects(r.names[at.top]) {
			v.Status = Rejected
			v.Detail = fmt.Sprintf(`"%s": %s wins (%.1f), a tool the task rejects; %s scores %.1f`, shown, r.names[at.top], topScore, want, s[at.mine])
		}
		return
	}
	rName, rScore := "-", 0.0
	if at.runner >= 0 {
		rName, rScore = r.names[at.runner], s[at.runner]
	}
	if at.runner >= 0 && at.runner == at.rej {
		rName = "the rejected " + rName
	}
	if rScore >= Ambiguous*topScore {
		v.Status, v.Level = Close, "WARN"
		v.Detail = fmt.Sprintf(`"%s": %s (%.1f) is not clearly ahead of %s (%.1f)`, shown, want, topScore, rName, rScore)
	} else {
		v.Status, v.Level = Clear, "PASS"
		v.Detail = fmt.Sprintf(`"%s": %s (%.1f), next %s %.1f`, shown, want, topScore, rName, rScore)
	}
	if at.rej >= 0 && at.rej != at.runner && s[at.rej] >= Ambiguous*topScore {
		v.Detail += fmt.Sprintf("; the rejected %s scores %.1f", r.names[at.rej], s[at.rej])
	}
	absent(v, r, t)
}

// absent notes the answers of a set task that the listing lacks: a warning, since the task can
// still be answered by the others.
func absent(v *Verdict, r *Ranker, t Task) {
	for _, a := range t.AnyOf {
		if _, ok := r.firstNamed[a]; !ok {
			v.Absent = append(v.Absent, a)
		}
	}
	switch len(v.Absent) {
	case 0:
		return
	case 1:
		v.Detail += fmt.Sprintf("; expected tool %s is not in the listing", listing.PythonRepr(v.Absent[0]))
	default:
		v.Detail += fmt.Sprintf("; expected tools %s are not in the listing", reprList(v.Absent))
	}
	if v.Level == "PASS" {
		v.Level = "WARN"
	}
}

// Renamed returns the task with each tool it names (its expected tool, each answer of a set and
// each rejected tool) passed through rename, and whether any changed; t itself is not modified.
func (t Task) Renamed(rename func(string) (string, bool)) (Task, bool) {
	changed := false
	names := func(ns []string) []string {
		var out []string
		for i, n := range ns {
			if to, ok := rename(n); ok && to != n {
				if out == nil {
					out = slices.Clone(ns)
				}
				out[i], changed = to, true
			}
		}
		if out == nil {
			return ns
		}
		return out
	}
	t.AnyOf, t.Reject = names(t.AnyOf), names(t.Reject)
	switch {
	case len(t.AnyOf) > 0:
		t.Expect = &t.AnyOf[0]
	case t.Expect != nil:
		if to, ok := rename(*t.Expect); ok && to != *t.Expect {
			t.Expect, changed = &to, true
		}
	}
	return t, changed
}

// WithExpect returns the task expecting the one tool name (nil: no tool), no longer a set, and
// no longer rejecting name; t itself is not modified.
func (t Task) WithExpect(name *string) Task {
	t.Expect, t.AnyOf = name, nil
	if name != nil && t.Rejects(*name) {
		t.Reject = slices.DeleteFunc(slices.Clone(t.Reject), func(r string) bool { return r == *name })
		if len(t.Reject) == 0 {
			t.Reject = nil
		}
	}
	return t
}
