package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/runner"
)

// The run report names a set task's answers and counts the choices of rejected tools.
func TestRunTextAnswers(t *testing.T) {
	s := &runner.Score{Tasks: 2, Scored: 4, Correct: 2, Rejected: 1, PerTask: []runner.TaskResult{
		{Index: 0, Task: "find it", Expected: "a", Answers: []string{"a", "b"}, Choices: []string{"b", "a"}, Correct: 2, Scored: 2},
		{Index: 1, Task: "close it", Expected: "c", Choices: []string{"c", "d"}, Correct: 1, Rejected: 1, Scored: 2},
	}}
	var b bytes.Buffer
	writeRunText(&b, s, nil, "")
	for _, want := range []string{
		"rejected tools chosen: 1 of 4 answered calls\n",
		`"find it": expect any of "a", "b", chose "b", "a" (2/2 right)`,
		`"close it": expect "c", chose "c", "d" (1/2 right, 1 rejected)`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	// A run without rejects says nothing of them.
	s.Rejected, s.PerTask[1].Rejected = 0, 0
	b.Reset()
	writeRunText(&b, s, nil, "")
	if strings.Contains(b.String(), "rejected") {
		t.Errorf("report mentions rejects in a run without them:\n%s", b.String())
	}
}
