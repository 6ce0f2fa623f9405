package selection

import (
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func parse(t testing.TB, s string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(s), listing.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func strp(s string) *string { return &s }

func TestJudge(t *testing.T) {
	l := parse(t, `[
	 {"name": "search_catalogue", "description": "Find books in the catalogue by title or author."},
	 {"name": "place_hold", "description": "Reserve a copy of a book for a member."},
	 {"name": "list_loans", "description": "List a member's loans and due dates."},
	 {"name": "loans_list", "description": "List a member's loans and due dates."}
	]`)
	tests := []struct {
		task   Task
		status Status
		winner string
	}{
		{Task{Task: "find a book by its author", Expect: strp("search_catalogue")}, Clear, "search_catalogue"},
		{Task{Task: "reserve a book for a member", Expect: strp("search_catalogue")}, Wrong, "place_hold"},
		{Task{Task: "which loans are due", Expect: strp("list_loans")}, Close, "list_loans"},
		{Task{Task: "renew", Expect: strp("renew_loan")}, Missing, "list_loans"},
		{Task{Task: "zzz", Expect: strp("place_hold")}, NoWords, "list_loans"},
		{Task{Task: "what is the weather like"}, NoneClear, "list_loans"},
		{Task{Task: "reserve the weather"}, NoneRisk, "place_hold"},
	}
	r := NewRanker(l.Tools)
	for i, tt := range tests {
		v := r.Judge(i+1, tt.task, true)
		if v.Status != tt.status || v.Winner.Name != tt.winner {
			t.Errorf("%q: got %s won by %s (%s); want %s won by %s", tt.task.Task, v.Status, v.Winner.Name, v.Detail, tt.status, tt.winner)
		}
		if len(v.Top) != 2 {
			t.Errorf("%q: %d top tools, want 2", tt.task.Task, len(v.Top))
		}
	}
	// The exact tie between the two loan tools stays exact.
	s := r.Scores("which loans are due")
	if s[2] != s[3] {
		t.Errorf("identical tools scored %v and %v", s[2], s[3])
	}
	v := r.Judge(1, Task{Task: "find a book by its author", Expect: strp("search_catalogue")}, true)
	if len(v.Winner.Words) == 0 || v.Winner.Words[0].Word != "author" || v.Margin() <= 0 {
		t.Errorf("explanation: %+v margin %v", v.Winner.Words, v.Margin())
	}
}

func TestParseTasks(t *testing.T) {
	tests := []struct {
		in     string
		strict bool
		n      int
		err    string
	}{
		{`[{"task": "a", "expect": "b"}]`, true, 1, ""},
		{`[{"task": "a", "expect": null}]`, true, 0, "every task needs string fields `task` and `expect`"},
		{`[{"task": "a", "expect": null, "id": "t1", "tags": ["x"]}]`, false, 1, ""},
		{`{}`, true, 0, ""},
		{`{"a": 1}`, true, 0, "every task needs string fields `task` and `expect`"},
		{`3`, true, 0, "the task file holds a number"},
		{`[{"task": "a", "expect": "b"},]`, true, 0, "Expecting value: line 1 column 31 (char 30)"},
	}
	for _, tt := range tests {
		got, err := ParseTasks([]byte(tt.in), tt.strict)
		if tt.err != "" {
			if err == nil || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err {
				t.Errorf("ParseTasks(%s) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || len(got) != tt.n {
			t.Errorf("ParseTasks(%s) = %d tasks, %v; want %d", tt.in, len(got), err, tt.n)
		}
	}
}
