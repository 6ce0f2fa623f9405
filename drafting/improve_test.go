package drafting_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// expecting makes tasks that expect the tools named, "" for a task no tool should take.
func expecting(names ...string) []selection.Task {
	out := make([]selection.Task, len(names))
	for i, n := range names {
		out[i].Task = "task " + n
		if n != "" {
			n := n
			out[i].Expect = &n
		}
	}
	return out
}

// Split is deterministic: tasks grouped by expected tool, every other task of a group held out
// starting with a training one, and single-task tools taking turns across groups.
func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tasks       []selection.Task
		share       float64
		train, held []int
	}{
		{"the confusing seed: update's two tasks split, the single ones take turns",
			expecting("get_data", "search", "update", "delete", "run", "find", "update", "create"), 0.5,
			[]int{0, 2, 3, 5}, []int{1, 4, 6, 7}},
		{"two tasks per tool: one of each on each side", expecting("a", "b", "a", "b"), 0.5, []int{0, 1}, []int{2, 3}},
		{"three of a tool at one half: the extra one trains", expecting("a", "a", "a"), 0.5, []int{0, 1}, []int{2}},
		{"a quarter of four: the last is held out", expecting("a", "a", "a", "a"), 0.25, []int{0, 1, 2}, []int{3}},
		{"most of four held out, one still trains", expecting("a", "a", "a", "a"), 0.9, []int{0}, []int{1, 2, 3}},
		{"tasks for no tool are a group too", expecting("", "", "a"), 0.5, []int{0, 2}, []int{1}},
		{"a share out of range means one half", expecting("a", "a"), 0, []int{0}, []int{1}},
		{"one task cannot be held out", expecting("a"), 0.5, []int{0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train, held := drafting.Split(tc.tasks, tc.share)
			if !reflect.DeepEqual(train, tc.train) || !reflect.DeepEqual(held, tc.held) {
				t.Errorf("Split = %v, %v; want %v, %v", train, held, tc.train, tc.held)
			}
			again, _ := drafting.Split(tc.tasks, tc.share)
			if !reflect.DeepEqual(again, train) {
				t.Errorf("a second Split gave %v, then %v", train, again)
			}
		})
	}
}

// ticketRewrites are honest descriptions of the confusing seed's tools, as a careful writer
// would put them: what each does, to what, and which neighbour to use instead.
var ticketRewrites = map[string][]string{
	"get_data": {"Get one ticket by its id and show its title, status, assignee and comments. Read-only; to list the tickets that match words or a status, use search."},
	"update":   {"Update an existing ticket by its id: change its status (close, resolve, reopen), its assignee or other fields, or add a comment. Returns the updated ticket; for a new ticket use create."},
	"delete":   {"Delete a ticket by its id for good, removing a duplicate or spam ticket; this cannot be undone. To keep a ticket but mark it done, use update."},
	"create":   {"Create a new ticket from a title and a description, such as a bug report, and return its id. To change an existing ticket use update."},
}

// PlanImprove counts the baseline run, every round's rewrites at their most and the final run.
func TestPlanImprove(t *testing.T) {
	l, tasks := confusing(t)
	p := drafting.PlanImprove(l, tasks, drafting.ImproveOptions{Rounds: 2, K: 3})
	// 8 baseline calls, 2 rounds × 9 tools × (1 + 3 × 8), 4 final calls.
	if want := 8 + 2*9*25 + 4; p.Calls != want {
		t.Errorf("plan %d calls, want %d: %s", p.Calls, want, p.What)
	}
	base, final := drafting.ImproveFloor(tasks, drafting.ImproveOptions{Samples: 3})
	if base != 24 || final != 12 {
		t.Errorf("floor %d + %d, want 24 + 12", base, final)
	}
}

// heldOutText fails the test if any brief the model received holds a held-out task's text.
func heldOutText(t *testing.T, s *fakemodel.Server, tasks []selection.Task, held []int) {
	t.Helper()
	briefs := s.Briefs()
	for _, b := range briefs {
		j, _ := json.Marshal(b)
		for _, h := range held {
			if strings.Contains(string(j), tasks[h].Task) {
				t.Errorf("a %s brief holds held-out task %d %q", b.Job, h+1, tasks[h].Task)
			}
		}
	}
}

// The loop on the confusing seed with four kinds of model: honest rewrites raise held-out
// accuracy; stuffed keywords, promotion and broken answers do not, and the report says why. A
// token bound the honest rewrites break keeps them out too.
func TestImprove(t *testing.T) {
	l, tasks := confusing(t)
	eng := engine(t)
	as, _, err := drafting.ScoreText(context.Background(), eng, l, nil, 0, l.Tools[0].Get("description").String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		server   *fakemodel.Server
		opts     drafting.ImproveOptions
		improved bool
		verdict  string // part of the verdict
		check    func(t *testing.T, r *drafting.ImproveReport)
	}{
		{"honest rewrites", &fakemodel.Server{Rewrites: ticketRewrites}, drafting.ImproveOptions{}, true, "Held-out accuracy rose from",
			func(t *testing.T, r *drafting.ImproveReport) {
				if len(r.Changed) == 0 || r.Compare == nil || r.Compare.McNemarP <= 0 {
					t.Errorf("changed %v, comparison %+v", r.Changed, r.Compare)
				}
			}},
		{"honest rewrites, three samples a task", &fakemodel.Server{Rewrites: ticketRewrites}, drafting.ImproveOptions{Samples: 3}, true, "Held-out accuracy rose from 3/12 to 6/12",
			func(t *testing.T, r *drafting.ImproveReport) {
				if r.HeldPairs != 12 || r.TrainCalls != 12 {
					t.Errorf("%d held-out pairs, %d training calls; want 12 and 12", r.HeldPairs, r.TrainCalls)
				}
			}},
		{"keyword stuffing", &fakemodel.Server{Mode: fakemodel.Stuffing}, drafting.ImproveOptions{}, false, "No improvement on held-out tasks", nil},
		{"promotional", &fakemodel.Server{Mode: fakemodel.Promotional}, drafting.ImproveOptions{}, false, "no rewrite was kept",
			func(t *testing.T, r *drafting.ImproveReport) {
				if len(r.Attempts) == 0 {
					t.Fatal("no attempt recorded")
				}
				for _, a := range r.Attempts {
					if a.Kept || a.Ran || !strings.HasPrefix(a.Reason, "refused: it has ") || !strings.Contains(a.Reason, "promotional wording") {
						t.Errorf("attempt on %s: kept %v, ran %v, reason %q", a.Tool, a.Kept, a.Ran, a.Reason)
					}
				}
			}},
		{"over the token bound", &fakemodel.Server{Rewrites: ticketRewrites}, drafting.ImproveOptions{MaxTokens: as.Tokens}, false, "no rewrite was kept",
			func(t *testing.T, r *drafting.ImproveReport) {
				if len(r.Attempts) == 0 {
					t.Fatal("no attempt recorded")
				}
				for _, a := range r.Attempts {
					if a.Ran || !strings.Contains(a.Reason, fmt.Sprintf("tokens, over the bound of %d", as.Tokens)) {
						t.Errorf("attempt on %s: ran %v, reason %q", a.Tool, a.Ran, a.Reason)
					}
				}
			}},
		{"malformed", &fakemodel.Server{Mode: fakemodel.Malformed}, drafting.ImproveOptions{}, false, "no rewrite was kept",
			func(t *testing.T, r *drafting.ImproveReport) {
				if len(r.Problems) == 0 || len(r.Attempts) != 0 {
					t.Errorf("problems %q, attempts %d: want the malformed answers named and nothing tried", r.Problems, len(r.Attempts))
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCaller(t, tc.server, drafting.NewBudget(500), runner.ClientOptions{})
			r, err := drafting.Improve(context.Background(), c, eng, l, tasks, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					var text strings.Builder
					r.WriteText(&text)
					t.Log("the report:\n" + text.String())
				}
			}()
			if r.Improved != tc.improved || !strings.Contains(r.Verdict, tc.verdict) {
				t.Errorf("improved %v, verdict %q; want %v and %q", r.Improved, r.Verdict, tc.improved, tc.verdict)
			}
			if r.Improved != (r.HeldAfter > r.HeldBefore && len(r.Changed) > 0) || r.Calls != c.Budget.Spent() || r.Calls != tc.server.Requests() {
				t.Errorf("improved %v with held-out %d → %d; %d calls counted, %d spent, %d served",
					r.Improved, r.HeldBefore, r.HeldAfter, r.Calls, c.Budget.Spent(), tc.server.Requests())
			}
			if len(tc.server.Briefs()) == 0 {
				t.Error("no rewrite was asked for")
			}
			heldOutText(t, tc.server, tasks, r.HeldOut)
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// A budget that cannot pay for the baseline and final runs is refused before any call, with
// the numbers; one that runs out midway stops the rewrites but still measures what was kept.
func TestImproveBudget(t *testing.T) {
	l, tasks := confusing(t)
	eng := engine(t)
	s := &fakemodel.Server{Rewrites: ticketRewrites}
	c := fakeCaller(t, s, drafting.NewBudget(11), runner.ClientOptions{})
	_, err := drafting.Improve(context.Background(), c, eng, l, tasks, drafting.ImproveOptions{})
	if !errors.Is(err, drafting.ErrBudget) || !strings.Contains(err.Error(), "needs 8 calls and the final held-out run 4, 12 in all") || s.Requests() != 0 {
		t.Errorf("err %v after %d requests; want a refusal with the numbers before any", err, s.Requests())
	}

	// The baseline, one rewrite call, one candidate run and the final run.
	s = &fakemodel.Server{Rewrites: ticketRewrites}
	c = fakeCaller(t, s, drafting.NewBudget(8+1+8+4), runner.ClientOptions{})
	r, err := drafting.Improve(context.Background(), c, eng, l, tasks, drafting.ImproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stopped, "budget") || r.Compare == nil || r.Calls != 21 || s.Requests() != 21 {
		t.Errorf("stopped %q, comparison %v, %d calls, %d served; want a stop for the budget after 21 calls and a final run", r.Stopped, r.Compare != nil, r.Calls, s.Requests())
	}
}
