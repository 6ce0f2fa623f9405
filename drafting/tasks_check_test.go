package drafting

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
)

// TestTaskCheckTable checks one proposal at a time against the confusing fixture (get_data,
// fetch_data, query, search, find, run, create, update, delete) and a task file holding
// "Show ticket 42".
func TestTaskCheckTable(t *testing.T) {
	l := fixture(t, "confusing-tools.json")
	existing := []selection.Task{{Task: "Show ticket 42"}}
	cases := []struct {
		name                   string
		task, expect, kind, nb string
		refused                string // a part of the refusal, "" for none
		wantKind, wantExpect   string
		wantNeighbour          string
	}{
		{"plain", "Open the ticket numbered 7", "get_data", "plain", "", "", KindPlain, "get_data", ""},
		{"empty", "   ", "get_data", "plain", "", "the task is empty", KindPlain, "get_data", ""},
		{"unknown tool", "Book a flight", "book_flight", "plain", "", `expects "book_flight", which is not a tool`, KindPlain, "", ""},
		{"names its own tool", "Call get_data for ticket 7", "get_data", "plain", "", "names the tool get_data; a model must pick it", KindPlain, "get_data", ""},
		{"names it with spaces", "please get data on ticket 7", "get_data", "plain", "", "names the tool get_data", KindPlain, "get_data", ""},
		{"names it in capitals", "FETCH-DATA now", "get_data", "plain", "", "names the tool fetch_data", KindPlain, "get_data", ""},
		{"names another tool", "Delete ticket 9", "update", "plain", "", "names the tool delete", KindPlain, "update", ""},
		{"a word inside another is no name", "Rerunning the nightly export", "get_data", "plain", "", "", KindPlain, "get_data", ""},
		{"repeats the task file", "show  TICKET 42", "get_data", "plain", "", "repeats task 1 of the task file", KindPlain, "get_data", ""},
		{"no tool, kind unknown", "What is the capital of France?", "", "weird", "", "", KindNoTool, "", ""},
		{"unknown kind with a tool", "Open ticket 8 for me", "get_data", "weird", "", "", KindPlain, "get_data", ""},
		{"confusion keeps a known neighbour", "Look at ticket 5's status", "get_data", "confusion", "fetch_data", "", KindConfusion, "get_data", "fetch_data"},
		{"confusion drops an unknown neighbour", "Peek at ticket 5", "get_data", "confusion", "nope", "", KindConfusion, "get_data", ""},
		{"too long", strings.Repeat("ticket ", 200), "get_data", "plain", "", "longer than 1000 characters", KindPlain, "get_data", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck := newTaskChecker(l, l.Names(), existing)
			p := ck.check(c.task, c.expect, c.kind, c.nb)
			if c.refused == "" && p.Refused != "" || !strings.Contains(p.Refused, c.refused) {
				t.Errorf("refused %q, want %q", p.Refused, c.refused)
			}
			if p.Kind != c.wantKind || p.Task.Expected() != c.wantExpect || p.Neighbour != c.wantNeighbour {
				t.Errorf("kind %q expect %q neighbour %q, want %q %q %q", p.Kind, p.Task.Expected(), p.Neighbour, c.wantKind, c.wantExpect, c.wantNeighbour)
			}
			if c.wantExpect == "" && p.Task.Expect != nil {
				t.Error("a no-tool task must have expect null (selection's form for none)")
			}
		})
	}
}

// TestTaskCheckRepeatsAnEarlierProposal: the second of two proposals that differ only in case
// and spaces is refused.
func TestTaskCheckRepeatsAnEarlierProposal(t *testing.T) {
	l := fixture(t, "confusing-tools.json")
	ck := newTaskChecker(l, l.Names(), nil)
	if p := ck.check("Open ticket 3", "get_data", KindPlain, ""); p.Refused != "" {
		t.Fatalf("first refused: %s", p.Refused)
	}
	if p := ck.check(" open   TICKET 3 ", "fetch_data", KindPlain, ""); p.Refused != "repeats an earlier proposal" {
		t.Errorf("second: %q", p.Refused)
	}
}

// TestHasPhrase: a tool's name counts only as whole words.
func TestHasPhrase(t *testing.T) {
	cases := []struct {
		s, phrase string
		want      bool
	}{
		{"call run now", "run", true},
		{"rerun it", "run", false},
		{"running", "run", false},
		{"run", "run", true},
		{"(run)", "run", true},
		{"run_it", "run", false},
		{"éruné", "run", false},
		{"a get data b", "get data", true},
		{"", "run", false},
		{"run", "", false},
	}
	for _, c := range cases {
		if got := hasPhrase(c.s, c.phrase); got != c.want {
			t.Errorf("hasPhrase(%q, %q) = %v", c.s, c.phrase, got)
		}
	}
}
