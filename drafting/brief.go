package drafting

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Bounds of a rewrite brief: what a prompt carries of a listing and its tasks, so that a large
// listing or task file costs a bounded prompt.
const (
	MaxNeighbours   = 5
	MaxBriefTasks   = 20
	MaxBriefText    = 300 // characters of one task or finding
	MaxBriefFinds   = 20
	MaxBriefSchema  = 16 << 10 // bytes of the schema sent; a larger one is left out
	maxParamsPerAns = 64       // parameter descriptions read from one candidate
	maxRationale    = 500
)

// RewriteBrief is the brief of a rewrite of tool i: its schema and findings (from eng), the
// neighbours it is confused with, and the tasks it should and should not win, taken from tasks
// as given (the improvement loop passes its training tasks only).
//
// Neighbours are the tools that win tasks expecting tool i (or come next when it wins them),
// the tools whose tasks it wins, and the tool the ranker ranks next for its own name and
// description; the most often confused first, at most MaxNeighbours. ShouldNotWin are the tasks
// expecting another tool or none that it wins, or trails the winner of within the ranker's
// ambiguity margin.
func RewriteBrief(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, i, k int, params bool) (Brief, error) {
	if l == nil || i < 0 || i >= len(l.Tools) {
		return Brief{}, fmt.Errorf("there is no tool %d to rewrite; pick one of the listing's tools", i+1)
	}
	if eng == nil {
		return Brief{}, fmt.Errorf("a rewrite brief needs the analysis engine; none was given")
	}
	r, err := eng.AnalyzeContext(ctx, l, tasks)
	if err != nil {
		return Brief{}, fmt.Errorf("reading tool %d's findings and tasks: %w", i+1, err)
	}
	tool := briefTool(l.Tools[i], true)
	b := Brief{Job: JobRewrite, Tool: &tool, K: clampK(k), Params: params}
	for _, f := range toolFindings(r, i, tool.Name) {
		if len(b.Findings) == MaxBriefFinds {
			break
		}
		b.Findings = append(b.Findings, clip(f.Rule+": "+f.Message, MaxBriefText))
	}
	confused := map[int]int{}
	for _, v := range r.Verdicts {
		readVerdict(&b, confused, v, i, tool.Name)
	}
	// The tool the ranker puts next for the tool's own words is a neighbour even when no task
	// shows it yet.
	scores := selection.NewRanker(l.Tools).Scores(tool.Name + " " + tool.Description)
	best := -1
	for j, s := range scores {
		if j != i && s > 0 && (best < 0 || s > scores[best]) {
			best = j
		}
	}
	if _, ok := confused[best]; best >= 0 && !ok {
		confused[best] = 0
	}
	for _, j := range byConfusion(confused) {
		b.Neighbours = append(b.Neighbours, briefTool(l.Tools[j], false))
	}
	return b, nil
}

// readVerdict adds what one verdict says about tool i (named name) to b and confused.
func readVerdict(b *Brief, confused map[int]int, v selection.Verdict, i int, name string) {
	other := func(s *selection.Scored) bool { return s != nil && s.Tool != i && s.Score > 0 }
	if v.Task.Accepts(name) {
		b.ShouldWin = addTask(b.ShouldWin, v.Task.Task)
		switch {
		case v.Winner != nil && v.Winner.Tool != i && other(v.Winner):
			confused[v.Winner.Tool]++
		case other(v.Runner) && v.Status == selection.Close:
			confused[v.Runner.Tool]++
		}
		return
	}
	wins := v.Winner != nil && v.Winner.Tool == i && v.Winner.Score > 0
	near := len(v.Top) > 1 && v.Top[1].Tool == i && v.Top[1].Score > 0 && v.Top[1].Score >= selection.Ambiguous*v.Top[0].Score
	if !wins && !near {
		return
	}
	b.ShouldNotWin = addTask(b.ShouldNotWin, v.Task.Task)
	if wins && other(v.Expected) {
		confused[v.Expected.Tool]++
	}
}

// addTask appends a task's text, clipped, to a list of at most MaxBriefTasks.
func addTask(list []string, task string) []string {
	if len(list) >= MaxBriefTasks {
		return list
	}
	return append(list, clip(task, MaxBriefText))
}

// byConfusion orders the confused tools most often confused first (ties by listing order),
// at most MaxNeighbours.
func byConfusion(confused map[int]int) []int {
	out := make([]int, 0, len(confused))
	for j := range confused {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool {
		if confused[out[a]] != confused[out[b]] {
			return confused[out[a]] > confused[out[b]]
		}
		return out[a] < out[b]
	})
	return out[:min(len(out), MaxNeighbours)]
}

// briefTool is a tool as a brief shows it; withSchema adds its input schema when it is small
// enough to send.
func briefTool(t *listing.Value, withSchema bool) BriefTool {
	bt := BriefTool{Name: clip(t.Get("name").Str, 200), Description: clip(t.Get("description").Str, MaxDescriptionBytes)}
	if s := t.Get("inputSchema"); withSchema && s != nil {
		if raw := listing.Marshal(s, ""); len(raw) <= MaxBriefSchema && json.Valid(raw) {
			bt.InputSchema = raw
		}
	}
	return bt
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// clampK is k as a request may ask it: DefaultK for none, at most MaxK.
func clampK(k int) int {
	if k <= 0 {
		return DefaultK
	}
	return min(k, MaxK)
}

// Candidates reads a rewrite answer: at most k usable candidates, and problems in words for
// what was wrong (not JSON, no candidates, a candidate empty, over MaxDescriptionBytes, or the
// same as the current text), never more than one line each. Parameter descriptions are kept
// only when params says the brief asked for them: a model that sends them anyway is not
// measured on them (Improve asks with params false and scores the description alone).
//
// A candidate that cannot be used is returned with Refused set (the page shows what the model
// tried), after the usable ones it came among; at most 2×MaxK candidates of an answer are read.
func Candidates(text string, k int, current string, params bool) (cands []Candidate, problems []string) {
	k = clampK(k)
	var a RewriteAnswer
	if err := Decode(text, &a); err != nil {
		return nil, []string{"the model's answer could not be used: " + err.Error() + "; ask again, or try a model that follows JSON instructions"}
	}
	if len(a.Candidates) == 0 {
		return nil, []string{"the model sent no candidates (an empty list); ask again, or try another model"}
	}
	seen := map[string]bool{strings.TrimSpace(current): true}
	usable, extra := 0, 0
	for n, ac := range a.Candidates {
		if n == 2*MaxK {
			extra += len(a.Candidates) - n
			break
		}
		c := Candidate{Description: strings.TrimSpace(ac.Description), Rationale: clip(strings.TrimSpace(ac.Rationale), maxRationale)}
		c.Refused = refusal(c.Description, current, seen)
		if c.Refused == "" && usable == k {
			extra++
			continue
		}
		if c.Refused != "" {
			c.Description = clip(c.Description, maxRationale) // enough to show what the model tried
			problems = append(problems, fmt.Sprintf("candidate %d was not used: %s", n+1, c.Refused))
		} else {
			usable++
			seen[c.Description] = true
			var dropped int
			switch {
			case !params && len(ac.Parameters) > 0:
				problems = append(problems, fmt.Sprintf("candidate %d: its %d parameter descriptions were not asked for and were left out", n+1, len(ac.Parameters)))
			case params:
				c.Params, dropped = readParams(ac.Parameters)
			}
			if dropped > 0 {
				problems = append(problems, fmt.Sprintf("candidate %d: %d parameter descriptions were left out (empty, or over %d bytes, or past the first %d)", n+1, dropped, MaxDescriptionBytes, maxParamsPerAns))
			}
		}
		cands = append(cands, c)
	}
	if extra > 0 {
		problems = append(problems, fmt.Sprintf("the model sent %d more candidates than the %d asked for; they were not read", extra, k))
	}
	if usable < k {
		problems = append(problems, fmt.Sprintf("%d of the %d candidates asked for are usable", usable, k))
	}
	return cands, problems
}

// refusal says why a candidate's description cannot be used, or "".
func refusal(d, current string, seen map[string]bool) string {
	switch {
	case d == "":
		return "its description is empty"
	case len(d) > MaxDescriptionBytes:
		return fmt.Sprintf("its description is %d bytes, over the %d allowed", len(d), MaxDescriptionBytes)
	case d == strings.TrimSpace(current):
		return "it is the current description unchanged"
	case seen[d]:
		return "it repeats an earlier candidate"
	}
	return ""
}

// readParams keeps the usable parameter descriptions of a candidate, bounded, and counts those
// left out.
func readParams(ps map[string]string) (map[string]string, int) {
	if len(ps) == 0 {
		return nil, 0
	}
	out, dropped := map[string]string{}, 0
	for _, name := range sortedKeys(ps) {
		d := strings.TrimSpace(ps[name])
		if d == "" || len(d) > MaxDescriptionBytes || len(name) > 200 || len(out) == maxParamsPerAns {
			dropped++
			continue
		}
		out[name] = d
	}
	return out, dropped
}
