package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/stats"
)

// biasTasks are the ticket listing's tasks, each with cue appended, and one that expects no
// tool.
func biasTasks(t *testing.T, cue string) []selection.Task {
	src := `[
	 {"task": "Show me ticket 4521 CUE", "expect": "tickets_get"},
	 {"task": "Find the open support tickets CUE", "expect": "tickets_search"},
	 {"task": "Permanently remove ticket 12 CUE", "expect": "tickets_delete"},
	 {"task": "Look up the user named Ada by email CUE", "expect": "users_find"},
	 {"task": "What is the capital of France?", "expect": null}
	]`
	return mustTasks(t, strings.ReplaceAll(src, "CUE", cue))
}

// TestPositionBiasFakeModels runs the fake model with shuffled orders: told to call the tool
// listed first, its first-listed share is 1 and its interval lies above chance (1/4), and it is
// right only when the expected tool was sent first; left to the ranker, which does not see the
// order, its share is the share of calls whose expected tool came first, and near chance.
func TestPositionBiasFakeModels(t *testing.T) {
	l := mustListing(t, ticketTools)
	seed := int64(3)
	spec := Spec{Samples: 40, Shuffle: true, Seed: &seed}
	for _, c := range []struct {
		name, cue string
		first     bool
	}{
		{"first listed", "[[first]]", true},
		{"position blind", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, err := Execute(context.Background(), fakeClient(t, &fake.Server{}, ClientOptions{}), l, biasTasks(t, c.cue), Options{Spec: spec})
			if err != nil {
				t.Fatal(err)
			}
			pb := ScoreRun(run).OrderBias
			if pb == nil || pb.Tools != 4 || pb.Chance != 0.25 || len(pb.ByExpected) != 2 {
				t.Fatalf("order bias %+v, want 4 tools, chance 1/4 and buckets 1 and 2-4", pb)
			}
			b1, rest := pb.ByExpected[0].Rate, pb.ByExpected[1].Rate
			if b1.N+rest.N != 160 || pb.ByExpected[1].Label() != "2-4" {
				t.Errorf("buckets %+v, want the 160 calls of the 4 tasks that expect a tool in 1 and 2-4", pb.ByExpected)
			}
			if c.first {
				if pb.First.K != pb.First.N || pb.First.N < 160 || !pb.Above {
					t.Errorf("first-listed %s, above chance %v; want every call, above", pb.First, pb.Above)
				}
				if b1.K != b1.N || rest.K != 0 {
					t.Errorf("accuracy by expected position: 1 %s, 2-4 %s; want all right at 1, none after", b1, rest)
				}
				return
			}
			if pb.Above || pb.First.Interval.Low > 0.25 || pb.First.Interval.High < 0.25 || pb.First.K != pb.ExpectedFirst.K {
				t.Errorf("first-listed %s (expected first %s), above chance %v; want near 1/4, as often as the expected tool came first", pb.First, pb.ExpectedFirst, pb.Above)
			}
			if b1.K != b1.N || rest.K != rest.N {
				t.Errorf("accuracy by expected position: 1 %s, 2-4 %s; want all right wherever it was sent", b1, rest)
			}
		})
	}
}

// TestPositionBiasByHand checks the shares and the buckets on runs built by hand: 25 tools,
// one task expecting t0, and calls at chosen positions.
func TestPositionBiasByHand(t *testing.T) {
	tools := make([]string, 25)
	for i := range tools {
		tools[i] = fmt.Sprintf("t%d", i)
	}
	seed := int64(9)
	for _, c := range []struct {
		name      string
		shuffle   bool
		positions []int // the chosen tool's place per sample (-1: a text answer)
		wantFirst Rate
		buckets   []string
	}{
		{"fixed order, always first", false, []int{0, 0, 0, 0}, rate(4, 4), nil},
		{"fixed order, text answers left out", false, []int{0, -1, 3, -1}, rate(1, 2), nil},
		{"shuffled", true, []int{0, 1, 2, 3, 4, 5}, rate(1, 6), []string{"1", "2-5", "6-20", "21-25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Run{Header: Header{Tools: tools, Tasks: []selection.Task{{Task: "x", Expect: strp("t0")}},
				Spec: Spec{Samples: len(c.positions), Shuffle: c.shuffle, Seed: &seed}}}
			wantExpFirst, right := 0, map[string][2]int{}
			for s, p := range c.positions {
				ord := order(25, r.Header.Spec, 0, s)
				cl := Call{Task: 0, Sample: s, Outcome: OutText, Position: -1}
				if p >= 0 {
					cl.Outcome, cl.Tool, cl.Position = OutTool, tools[ord[p]], p
				}
				r.Calls = append(r.Calls, cl)
				exp := placeOf(ord, 0, tools)
				if exp == 0 && p >= 0 {
					wantExpFirst++
				}
				b := PositionBucket{From: positionBuckets[bucketOf(exp+1)]}
				k := right[fmt.Sprint(b.From)]
				k[1]++
				if cl.Choice() == "t0" {
					k[0]++
				}
				right[fmt.Sprint(b.From)] = k
			}
			pb := positionBias(r)
			if pb.First != c.wantFirst || pb.ExpectedFirst.K != wantExpFirst || pb.Above != (pb.First.Interval.Low > 0.04) {
				t.Errorf("first %s, expected first %s, above %v; want %s and %d", pb.First, pb.ExpectedFirst, pb.Above, c.wantFirst, wantExpFirst)
			}
			var labels []string
			for _, b := range pb.ByExpected {
				labels = append(labels, b.Label())
				k := right[fmt.Sprint(b.From)]
				if b.Rate.K != k[0] || b.Rate.N != k[1] || b.Rate.Interval != stats.Wilson(k[0], k[1], stats.Z95) {
					t.Errorf("bucket %s: %s, want %d/%d", b.Label(), b.Rate, k[0], k[1])
				}
			}
			if strings.Join(labels, " ") != strings.Join(c.buckets, " ") {
				t.Errorf("buckets %v, want %v", labels, c.buckets)
			}
		})
	}
}

// BenchmarkPositionBias measures the order bias of a shuffled run the size of the GitHub
// listing's: 117 tools, 200 tasks, 5 samples (1,000 calls, each order drawn again).
func BenchmarkPositionBias(b *testing.B) {
	tools := make([]string, 117)
	for i := range tools {
		tools[i] = fmt.Sprintf("tool_%d", i)
	}
	seed := int64(1)
	r := &Run{Header: Header{Tools: tools, Spec: Spec{Samples: 5, Shuffle: true, Seed: &seed}}}
	for ti := range 200 {
		r.Header.Tasks = append(r.Header.Tasks, selection.Task{Task: "t", Expect: &tools[ti%117]})
		for s := range 5 {
			r.Calls = append(r.Calls, Call{Task: ti, Sample: s, Outcome: OutTool, Tool: tools[(ti+s)%117], Position: s})
		}
	}
	for b.Loop() {
		positionBias(r)
	}
}
