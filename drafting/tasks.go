package drafting

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Kinds of proposed task.
const (
	KindPlain     = "plain"     // a tool's job in the user's words, never its name
	KindConfusion = "confusion" // a neighbour's job in words close to this tool's
	KindNoTool    = "no-tool"   // a request no tool should take
)

// DefaultPerTool is how many tasks of each kind are asked per tool; MaxProposed bounds the
// proposals kept from one answer.
const (
	DefaultPerTool = 2
	MaxProposed    = 500
)

// Bounds of a tasks brief. A listing past them is shown to the model in part (the selected
// tools first), and the proposals say so: a brief of thousands of tools would cost more than
// the tasks are worth, and most models read a long brief worse.
const (
	MaxPerTool        = 10        // tasks of each kind asked per tool
	MaxBriefTools     = 60        // tools shown in one tasks brief
	MaxTasksBrief     = 200 << 10 // bytes of the tools and existing tasks in one brief
	MaxProposedLength = 1000      // characters of one proposed task
)

// TasksRequest asks for proposed tasks.
type TasksRequest struct {
	Listing  *listing.Listing
	Existing []selection.Task
	PerTool  int // default DefaultPerTool
	// Tools, when set, limits the proposals to these tool names (the selected tool).
	Tools []string
}

// Proposed is one proposed task, checked.
type Proposed struct {
	Task selection.Task `json:"task"` // Expect "" for a no-tool task (selection's form for none)
	Kind string         `json:"kind"`
	// Neighbour is the tool a confusion task borrows words from.
	Neighbour string `json:"neighbour,omitempty"`
	// Refused says why the proposal cannot be added (names its tool, names an unknown tool,
	// repeats an existing task, empty); the page shows it unticked and disabled.
	Refused string `json:"refused,omitempty"`
	// Verdict is the ranker's line on the task against the listing as it stands.
	Verdict string `json:"verdict,omitempty"`
}

// Proposals answers a TasksRequest.
type Proposals struct {
	Tasks    []Proposed `json:"tasks"`
	Plan     Plan       `json:"plan"`
	Calls    int        `json:"calls"`
	Problems []string   `json:"problems,omitempty"`
}

// PlanTasks is the most calls GenerateTasks makes: one, for the whole listing (none for a
// listing without tools, which GenerateTasks refuses).
func PlanTasks(req TasksRequest) Plan {
	if req.Listing == nil || len(req.Listing.Tools) == 0 {
		return Plan{Calls: 0, What: "no call: the listing has no tools to propose tasks for"}
	}
	n := len(req.Listing.Tools)
	if len(req.Tools) > 0 {
		n = len(req.Tools)
	}
	return Plan{Calls: 1, What: fmt.Sprintf("1 call to propose up to %d tasks of each kind for %s",
		tasksPerTool(req.PerTool), countOf(n, "tool"))}
}

func tasksPerTool(n int) int {
	switch {
	case n <= 0:
		return DefaultPerTool
	case n > MaxPerTool:
		return MaxPerTool
	}
	return n
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// GenerateTasks asks the model for tasks and checks each: a task that names its own tool (or
// any tool) by name, expects an unknown tool, repeats a task, or is empty is kept Refused with
// why, so the person sees what the model tried. A failed call is an error; an answer that is
// not the JSON asked for gives no tasks and a problem that says so.
func GenerateTasks(ctx context.Context, c Caller, req TasksRequest) (*Proposals, error) {
	if req.Listing == nil || len(req.Listing.Tools) == 0 {
		return nil, errors.New("the listing has no tools to propose tasks for; open a listing with tools first")
	}
	names := req.Listing.Names()
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n] = true
	}
	for _, n := range req.Tools {
		if !known[n] {
			return nil, fmt.Errorf("no tool named %q in the listing; pick one of its tools", clipToRunes(n, 64))
		}
	}
	brief, problems := tasksBrief(req)
	out := &Proposals{Tasks: []Proposed{}, Plan: PlanTasks(req), Problems: problems}
	text, err := c.Ask(ctx, brief)
	if !errors.Is(err, ErrBudget) {
		out.Calls = 1
	}
	if err != nil {
		return nil, fmt.Errorf("asking the model for tasks: %w", err)
	}
	var ans TasksAnswer
	if err := Decode(text, &ans); err != nil {
		out.Problems = append(out.Problems, "the model's answer is not the tasks asked for: "+err.Error())
		return out, nil
	}
	if len(ans.Tasks) == 0 {
		out.Problems = append(out.Problems, "the model proposed no tasks")
	}
	if len(ans.Tasks) > MaxProposed {
		out.Problems = append(out.Problems, fmt.Sprintf("the model proposed %d tasks; the first %d are kept", len(ans.Tasks), MaxProposed))
		ans.Tasks = ans.Tasks[:MaxProposed]
	}
	ck := newTaskChecker(req.Listing, names, req.Existing)
	wanted := map[string]bool{}
	for _, n := range req.Tools {
		wanted[n] = true
	}
	other := 0
	for _, a := range ans.Tasks {
		p := ck.check(a.Task, a.Expect, a.Kind, a.Neighbour)
		if len(wanted) > 0 && p.Task.Expected() != "" && !wanted[p.Task.Expected()] && !wanted[p.Neighbour] {
			other++ // a task for a tool that was not asked about
			continue
		}
		p.Verdict = ck.verdict(len(out.Tasks)+1, p)
		out.Tasks = append(out.Tasks, p)
	}
	if other > 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("%s for tools other than %s left out",
			countOf(other, "proposed task"), strings.Join(req.Tools, ", ")))
	}
	return out, nil
}

// tasksBrief is the brief of a tasks job: the listing's tools (the asked ones first), the
// existing tasks, within MaxBriefTools and MaxTasksBrief; problems say what was left out.
func tasksBrief(req TasksRequest) (Brief, []string) {
	b := Brief{Job: JobTasks, PerTool: tasksPerTool(req.PerTool), Tools: []BriefTool{}}
	var problems []string
	order := make([]int, 0, len(req.Listing.Tools))
	first := map[string]bool{}
	for _, n := range req.Tools {
		first[n] = true
	}
	names := req.Listing.Names()
	for i, n := range names {
		if first[n] {
			order = append(order, i)
		}
	}
	for i, n := range names {
		if !first[n] {
			order = append(order, i)
		}
	}
	size := 0
	for _, i := range order {
		t := req.Listing.Tools[i]
		bt := BriefTool{Name: names[i], Description: clipToBytes(t.Get("description").String(), MaxDescriptionBytes)}
		if len(b.Tools) >= MaxBriefTools || size+len(bt.Name)+len(bt.Description) > MaxTasksBrief {
			break
		}
		size += len(bt.Name) + len(bt.Description)
		b.Tools = append(b.Tools, bt)
	}
	if len(b.Tools) < len(names) {
		problems = append(problems, fmt.Sprintf("the listing has %d tools; the model was shown %d of them (at most %d tools and %d KB in one brief), so it proposes tasks for those only: select a tool to ask for its tasks",
			len(names), len(b.Tools), MaxBriefTools, MaxTasksBrief>>10))
	}
	for _, t := range req.Existing {
		if size+len(t.Task) > MaxTasksBrief {
			problems = append(problems, fmt.Sprintf("the model was shown %d of the %d existing tasks (the brief's %d KB are full); repeats of the others are still refused",
				len(b.Existing), len(req.Existing), MaxTasksBrief>>10))
			break
		}
		size += len(t.Task)
		b.Existing = append(b.Existing, t.Task)
	}
	return b, problems
}

// taskChecker checks proposals against the listing, the task file and the earlier proposals.
type taskChecker struct {
	known  map[string]bool
	names  []nameForms
	seen   map[string]string // a task's key: where it was seen first
	ranker *selection.Ranker
}

// nameForms are the forms in which a task could name a tool: as written, and with its
// separators read as spaces ("get_weather" as "get weather"), lower case.
type nameForms struct {
	name  string
	forms []string
}

func newTaskChecker(l *listing.Listing, names []string, existing []selection.Task) *taskChecker {
	ck := &taskChecker{known: map[string]bool{}, seen: map[string]string{}, ranker: selection.NewRanker(l.Tools)}
	for _, n := range names {
		if ck.known[n] || strings.TrimSpace(n) == "" {
			continue
		}
		ck.known[n] = true
		low := strings.ToLower(n)
		nf := nameForms{name: n, forms: []string{low}}
		if spaced := spaceSeparators(low); spaced != low {
			nf.forms = append(nf.forms, spaced)
		}
		ck.names = append(ck.names, nf)
	}
	for i, t := range existing {
		k := repeatKey(t.Task)
		if _, ok := ck.seen[k]; !ok {
			ck.seen[k] = fmt.Sprintf("task %d of the task file", i+1)
		}
	}
	return ck
}

// check builds and checks one proposal. The kind follows the expectation when the model's is
// unknown or contradicts it: a task that expects no tool is a no-tool task.
func (ck *taskChecker) check(task, expect, kind, neighbour string) Proposed {
	task = strings.TrimSpace(task)
	expect = strings.TrimSpace(expect)
	p := Proposed{Task: selection.Task{Task: task}, Kind: kind}
	if expect != "" {
		e := expect
		p.Task.Expect = &e
	}
	switch {
	case expect == "":
		p.Kind = KindNoTool
	case kind != KindConfusion:
		p.Kind = KindPlain
	}
	if ck.known[neighbour] && p.Kind == KindConfusion {
		p.Neighbour = neighbour
	}
	switch {
	case task == "":
		p.Refused = "the task is empty"
	case utf8.RuneCountInString(task) > MaxProposedLength:
		p.Task.Task = clipToRunes(task, MaxProposedLength)
		p.Refused = fmt.Sprintf("the task is longer than %d characters; a task is one request in a user's words", MaxProposedLength)
	case expect != "" && !ck.known[expect]:
		p.Task.Expect = nil
		p.Refused = fmt.Sprintf("it expects %q, which is not a tool of the listing", clipToRunes(expect, 64))
	default:
		if n := ck.named(task); n != "" {
			p.Refused = fmt.Sprintf("names the tool %s; a model must pick it from the description", n)
			break
		}
		k := repeatKey(task)
		if where, ok := ck.seen[k]; ok {
			p.Refused = "repeats " + where
			break
		}
	}
	if k := repeatKey(p.Task.Task); k != "" {
		if _, ok := ck.seen[k]; !ok {
			ck.seen[k] = "an earlier proposal"
		}
	}
	return p
}

// named returns the first tool of the listing the task names, or "".
func (ck *taskChecker) named(task string) string {
	low := strings.ToLower(task)
	spaced := spaceSeparators(low)
	for _, nf := range ck.names {
		for _, f := range nf.forms {
			if hasPhrase(low, f) || hasPhrase(spaced, f) {
				return nf.name
			}
		}
	}
	return ""
}

// verdict is the ranker's line on a proposal as task n (none for an empty task).
func (ck *taskChecker) verdict(n int, p Proposed) string {
	if p.Task.Task == "" {
		return ""
	}
	return ck.ranker.Judge(n, p.Task, false).Line()
}

// hasPhrase reports whether phrase occurs in s with no letter, digit or underscore right
// before or after it.
func hasPhrase(s, phrase string) bool {
	if phrase == "" {
		return false
	}
	for from := 0; from <= len(s)-len(phrase); {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(phrase):])
		if (i == 0 || !isWordRune(before)) && (i+len(phrase) == len(s) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
	return false
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// spaceSeparators reads _ and - as spaces, and runs of spaces as one.
func spaceSeparators(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// repeatKey is what two tasks that repeat each other share: lower case, spaces collapsed.
func repeatKey(task string) string { return strings.Join(strings.Fields(strings.ToLower(task)), " ") }

// clipToRunes cuts s to n characters, marking the cut.
func clipToRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// clipToBytes cuts s to at most n bytes on a character boundary, marking the cut.
func clipToBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
