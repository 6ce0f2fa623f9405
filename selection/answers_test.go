package selection

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTaskAnswers(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		answers []string
		reject  []string
		wantErr string // substring of the error; "" for none
		pointer string
	}{
		{"one answer", `[{"task": "a", "expect": "t"}]`, []string{"t"}, nil, "", ""},
		{"a set", `[{"task": "a", "expect": ["t", "u"]}]`, []string{"t", "u"}, nil, "", ""},
		{"a set of one", `[{"task": "a", "expect": ["t"]}]`, []string{"t"}, nil, "", ""},
		{"reject", `[{"task": "a", "expect": "t", "reject": ["u", "v"]}]`, []string{"t"}, []string{"u", "v"}, "", ""},
		{"reject with none", `[{"task": "a", "expect": null, "reject": ["u"]}]`, nil, []string{"u"}, "", ""},
		{"set and reject", `[{"task": "a", "expect": ["t", "u"], "reject": ["v"], "args": {"n": 1}}]`, []string{"t", "u"}, []string{"v"}, "", ""},
		{"empty reject", `[{"task": "a", "expect": "t", "reject": []}]`, []string{"t"}, nil, "", ""},
		{"empty set", `[{"task": "a", "expect": []}]`, nil, nil, `"expect" is an empty list`, "/0/expect"},
		{"set repeats", `[{"task": "a", "expect": ["t", "u", "t"]}]`, nil, nil, `"expect" names "t" twice`, "/0/expect/2"},
		{"set of numbers", `[{"task": "a", "expect": ["t", 3]}]`, nil, nil, `answer 2 is a number`, "/0/expect/1"},
		{"set of nulls", `[{"task": "a", "expect": [null]}]`, nil, nil, `answer 1 is a null`, "/0/expect/0"},
		{"expect object", `[{"task": "a", "expect": {"name": "t"}}]`, nil, nil, "every task needs", "/0"},
		{"reject string", `[{"task": "a", "expect": "t", "reject": "u"}]`, nil, nil, `"reject" is a string; it must be a list`, "/0/reject"},
		{"reject number", `[{"task": "a", "expect": "t", "reject": ["u", 1]}]`, nil, nil, `rejected tool 2 is a number`, "/0/reject/1"},
		{"reject repeats", `[{"task": "a", "expect": "t", "reject": ["u", "u"]}]`, nil, nil, `"reject" names "u" twice`, "/0/reject/1"},
		{"reject the answer", `[{"task": "a", "expect": "t", "reject": ["t"]}]`, nil, nil, `"t" is both expected and rejected`, "/0/reject/0"},
		{"reject one of a set", `[{"task": "a", "expect": ["t", "u"], "reject": ["u"]}]`, nil, nil, `"u" is both expected and rejected`, "/0/reject/0"},
		{"surrogate answer", `[{"task": "a", "expect": ["t", "\ud800"]}]`, nil, nil, "lone surrogate", "/0/expect/1"},
		{"surrogate reject", `[{"task": "a", "expect": "t", "reject": ["\udc00"]}]`, nil, nil, "lone surrogate", "/0/reject/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, err := ParseTasks([]byte(tt.src), false)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseTasks: %v", err)
				}
				tk := tasks[0]
				if !reflect.DeepEqual(tk.Answers(), tt.answers) || !reflect.DeepEqual(tk.Reject, tt.reject) {
					t.Errorf("answers %q, reject %q; want %q, %q", tk.Answers(), tk.Reject, tt.answers, tt.reject)
				}
				if len(tt.answers) > 0 && tk.Expected() != tt.answers[0] {
					t.Errorf("Expected() = %q, want the first answer %q", tk.Expected(), tt.answers[0])
				}
				return
			}
			var te *TaskError
			if !errors.As(err, &te) {
				t.Fatalf("error = %v, want a *TaskError containing %q", err, tt.wantErr)
			}
			if !strings.Contains(te.Msg, tt.wantErr) || te.Pointer != tt.pointer {
				t.Errorf("error = %q at %q, want %q at %q", te.Msg, te.Pointer, tt.wantErr, tt.pointer)
			}
		})
	}
}

// The reference knows one answer: strict parsing refuses a list with the reference's own
// message and ignores "reject" whatever it holds, as the reference ignores unknown keys.
func TestParseTaskAnswersStrict(t *testing.T) {
	_, err := ParseTasks([]byte(`[{"task": "a", "expect": ["t", "u"]}]`), true)
	var te *TaskError
	if !errors.As(err, &te) || te.Msg != badTasks || te.Pointer != "/0" {
		t.Errorf("strict list: error = %v, want %q at /0", err, badTasks)
	}
	tasks, err := ParseTasks([]byte(`[{"task": "a", "expect": "t", "reject": ["t", 1]}]`), true)
	if err != nil || len(tasks[0].Reject) != 0 {
		t.Errorf("strict reject: %v, %+v; want it ignored", err, tasks)
	}
}

func TestTaskAccepts(t *testing.T) {
	tests := []struct {
		task             Task
		name             string
		accepts, rejects bool
	}{
		{Task{Expect: strp("t")}, "t", true, false},
		{Task{Expect: strp("t")}, "u", false, false},
		{Task{}, "", false, false},
		{Task{Expect: strp("t"), AnyOf: []string{"t", "u"}}, "u", true, false},
		{Task{Expect: strp("t"), AnyOf: []string{"t", "u"}, Reject: []string{"v"}}, "v", false, true},
		{Task{Reject: []string{"v"}}, "v", false, true},
	}
	for _, tt := range tests {
		if a, r := tt.task.Accepts(tt.name), tt.task.Rejects(tt.name); a != tt.accepts || r != tt.rejects {
			t.Errorf("%+v: Accepts(%q), Rejects = %v, %v; want %v, %v", tt.task, tt.name, a, r, tt.accepts, tt.rejects)
		}
	}
}

// A task written as JSON reads back the same, and a one-answer task is written as before.
func TestTaskJSONRoundTrip(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{`[{"task": "a", "expect": "t"}]`, `[{"task":"a","expect":"t"}]`},
		{`[{"task": "a", "expect": null}]`, `[{"task":"a","expect":null}]`},
		{`[{"id": "x", "task": "a", "expect": ["t", "u"], "reject": ["v"], "args": {"n": 1}, "tags": ["p"]}]`,
			`[{"id":"x","task":"a","expect":["t","u"],"reject":["v"],"args":{"n":1},"tags":["p"]}]`},
		{`[{"task": "a", "expect": ["t"]}]`, `[{"task":"a","expect":["t"]}]`},
		{`[{"task": "a", "expect": null, "reject": ["v"]}]`, `[{"task":"a","expect":null,"reject":["v"]}]`},
	}
	for _, tt := range tests {
		tasks, err := ParseTasks([]byte(tt.src), false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tasks)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal(%s) = %s, want %s", tt.src, b, tt.want)
		}
		var back []Task
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != tt.want {
			t.Errorf("Unmarshal then Marshal = %s (%v), want %s", again, err, tt.want)
		}
		if !sameTasks(tasks, back) || back[0].Expected() != tasks[0].Expected() {
			t.Errorf("%s read back as %+v", b, back)
		}
	}
	var bad []Task
	for _, src := range []string{`[{"task": "a", "expect": []}]`, `[{"task": "a", "expect": [1]}]`, `[{"task": "a", "expect": 1}]`} {
		if err := json.Unmarshal([]byte(src), &bad); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, want an error", src, bad)
		}
	}
}

func TestJudgeAnswers(t *testing.T) {
	l := parse(t, `[
	 {"name": "search_catalogue", "description": "Find books in the catalogue by title or author."},
	 {"name": "place_hold", "description": "Reserve a copy of a book for a member."},
	 {"name": "list_loans", "description": "List a member's loans and due dates."},
	 {"name": "loans_list", "description": "List a member's loans and due dates."}
	]`)
	set := func(task string, answers []string, reject ...string) Task {
		return Task{Task: task, Expect: &answers[0], AnyOf: answers, Reject: reject}
	}
	tests := []struct {
		name   string
		task   Task
		status Status
		level  string
		detail string // a substring of the detail
	}{
		// Either loan tool is right: the tie between them no longer makes the task ambiguous.
		{"set of twins", set("which loans are due", []string{"list_loans", "loans_list"}), Clear, "PASS", "list_loans ("},
		{"the second answer wins", set("reserve a book", []string{"renew_loan", "place_hold"}), Clear, "WARN", "place_hold (2.7), next search_catalogue 1.1; expected tool 'renew_loan' is not in the listing"},
		{"no answer wins", set("reserve a book for a member", []string{"search_catalogue", "list_loans"}), Wrong, "FAIL", "place_hold wins"},
		{"no answer listed", set("renew", []string{"renew_loan", "extend_loan"}), Missing, "FAIL", "none of the expected tools 'renew_loan', 'extend_loan' is in the listing"},
		{"a rejected tool wins", Task{Task: "reserve a book for a member", Expect: strp("search_catalogue"), Reject: []string{"place_hold"}}, Rejected, "FAIL", "place_hold wins (3.6), a tool the task rejects"},
		{"a rejected tool is close", Task{Task: "which loans are due", Expect: strp("list_loans"), Reject: []string{"loans_list"}}, Close, "WARN", "the rejected loans_list"},
		{"a rejected tool far behind", Task{Task: "find a book by its author", Expect: strp("search_catalogue"), Reject: []string{"place_hold"}}, Clear, "PASS", ""},
		{"none, a rejected tool scores", Task{Task: "reserve the weather", Reject: []string{"place_hold"}}, NoneRisk, "WARN", "place_hold scores 1.6, a tool the task rejects"},
	}
	r := NewRanker(l.Tools)
	for _, tt := range tests {
		v := r.Judge(1, tt.task, false)
		if v.Status != tt.status || v.Level != tt.level || !strings.Contains(v.Detail, tt.detail) {
			t.Errorf("%s: %s %s %q; want %s %s containing %q", tt.name, v.Status, v.Level, v.Detail, tt.status, tt.level, tt.detail)
		}
	}
	// One answer of several is reported as not in the listing.
	v := r.Judge(1, set("which loans are due", []string{"renew_loan", "loans_list", "extend_loan"}), false)
	if !reflect.DeepEqual(v.Absent, []string{"renew_loan", "extend_loan"}) || v.Expected == nil || v.Expected.Name != "loans_list" {
		t.Errorf("absent %q, expected %+v; want [renew_loan extend_loan] and loans_list", v.Absent, v.Expected)
	}
}

// The rankings a Cache remembers are keyed by what the tasks ask: a task file that changes
// only its answer sets or its rejected tools is judged again.
func TestCacheRankSeesAnswerChanges(t *testing.T) {
	l := parse(t, `[
	 {"name": "place_hold", "description": "Reserve a copy of a book for a member."},
	 {"name": "search_catalogue", "description": "Find books in the catalogue by title or author."}
	]`)
	steps := []Task{
		{Task: "reserve a book", Expect: strp("search_catalogue")},
		{Task: "reserve a book", Expect: strp("search_catalogue"), AnyOf: []string{"search_catalogue", "place_hold"}},
		{Task: "reserve a book", Expect: strp("search_catalogue")},
		{Task: "reserve a book", Expect: strp("search_catalogue"), Reject: []string{"place_hold"}},
	}
	c := NewCache(0)
	for i, task := range steps {
		got := mustRank(t, c, l, []Task{task})
		want := Rank(l, []Task{task}, true)
		if got[0].Status != want[0].Status || got[0].Detail != want[0].Detail {
			t.Errorf("step %d: cached %s %q, fresh %s %q", i+1, got[0].Status, got[0].Detail, want[0].Status, want[0].Detail)
		}
	}
}

// A rejected winner counts with the wrong ones in the reference's closing line.
func TestSummaryCountsRejected(t *testing.T) {
	vs := []Verdict{{Status: Clear}, {Status: Rejected}, {Status: Wrong}}
	if got, want := Summary(vs), "INFO selection: 3 tasks, 1 clear, 0 ambiguous, 2 wrong or not found"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
