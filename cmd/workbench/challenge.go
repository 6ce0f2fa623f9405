package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/selection"
)

func init() {
	register(command{
		name:    "challenge",
		summary: "score listings on a workshop challenge's hidden tasks, as the workbench's challenges score them",
		usage: "score LISTING... --hidden FILE [--split live|final|both] [--format text|json]\n\n" +
			"FILE is a challenge file: the teacher's challenge.json download, or one written by hand, such as\n" +
			`  {"version": 1, "title": "Bike share", "tools": ["get_station", "find"],` + "\n" +
			`   "budget": {"tokens": 600}, "live": [{"task": "…", "expect": "find"}], "final": [{"task": "…", "expect": null}]}` + "\n" +
			"Each LISTING is a participant's listing file in any shape check reads. Tools are known by their place:\n" +
			"a hidden task asks for the tool in the place where its starting tool was, whatever it is called now.\n" +
			"Exit 0 when every listing was scored, 2 when the challenge file or a listing could not be read\n" +
			"(the others are still scored).",
		run: runChallenge,
	})
}

func runChallenge(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "score" {
		fs := newFlags(commands["challenge"], e.stderr)
		if _, err := parseFlags(fs, args); err != nil {
			return err
		}
		fs.Usage()
		return usageError{"challenge takes a subcommand: score"}
	}
	fs := newFlags(commands["challenge"], e.stderr)
	hidden := fs.String("hidden", "", "the challenge file with the hidden tasks (required)")
	split := fs.String("split", "both", "the split to score: live, final, or both (ranked by final)")
	format := fs.String("format", "text", "text or json")
	files, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case *hidden == "":
		return usageError{"challenge score needs --hidden FILE, the challenge file (the teacher's view downloads it as challenge.json)"}
	case len(files) == 0:
		return usageError{"challenge score needs at least one LISTING file to score"}
	case *split != "live" && *split != "final" && *split != "both":
		return usageError{fmt.Sprintf("--split %q: use live, final or both", *split)}
	case *format != "text" && *format != "json":
		return usageError{fmt.Sprintf("--format %q: use text or json", *format)}
	}
	src, err := readSource(e, *hidden)
	if err != nil {
		return usageError{fmt.Sprintf("--hidden: %v", err)}
	}
	f, err := challenge.Parse(src)
	if err != nil {
		return usageError{fmt.Sprintf("%s: %v", *hidden, err)}
	}
	splits := []challenge.Split{challenge.Split(*split)}
	if *split == "both" {
		splits = []challenge.Split{challenge.Live, challenge.Final}
	}
	scored, failed := scoreFiles(ctx, e, f, files, splits)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if *format == "json" {
		err = writeScoresJSON(e.stdout, f, *split, scored, failed)
	} else {
		err = writeScoresText(e.stdout, f, splits, scored)
	}
	if err != nil {
		return err
	}
	for _, fl := range failed {
		fmt.Fprintf(e.stderr, "workbench: %s: %s\n", fl.File, fl.Message)
	}
	if len(failed) > 0 {
		fmt.Fprintf(e.stderr, "workbench: %d of %d listings could not be read: mend them and score again\n", len(failed), len(files))
		return exitError{2}
	}
	return nil
}

// scoredFile is one listing's scores, by split; failedFile one that could not be read.
type scoredFile struct {
	File   string                               `json:"file"`
	Rank   int                                  `json:"rank"`
	Scores map[challenge.Split]challenge.Result `json:"scores"`
	rankBy challenge.Result
}

type failedFile struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

// scoreFiles scores each file on the splits and ranks them as a leaderboard does: by score on
// the last split, then fewer tokens, then the order given.
func scoreFiles(ctx context.Context, e *env, f *challenge.File, files []string, splits []challenge.Split) ([]scoredFile, []failedFile) {
	var scored []scoredFile
	var failed []failedFile
	for _, path := range files {
		l, err := loadListing(e, path)
		if err != nil {
			failed = append(failed, failedFile{File: path, Message: err.Error()})
			continue
		}
		sf := scoredFile{File: path, Scores: map[challenge.Split]challenge.Result{}}
		for _, sp := range splits {
			r, err := challenge.Score(ctx, l, f, sp)
			if err != nil {
				failed = append(failed, failedFile{File: path, Message: err.Error()})
				break
			}
			sf.Scores[sp], sf.rankBy = r, r
		}
		if len(sf.Scores) == len(splits) {
			scored = append(scored, sf)
		}
	}
	slices.SortStableFunc(scored, func(a, b scoredFile) int {
		return cmp.Or(cmp.Compare(b.rankBy.Score, a.rankBy.Score), cmp.Compare(a.rankBy.Tokens, b.rankBy.Tokens))
	})
	for i := range scored {
		scored[i].Rank = i + 1
		if i > 0 && scored[i].rankBy.Score == scored[i-1].rankBy.Score && scored[i].rankBy.Tokens == scored[i-1].rankBy.Tokens {
			scored[i].Rank = scored[i-1].Rank
		}
	}
	return scored, failed
}

// scoresDoc is the JSON document: stable field names, listings in rank order.
type scoresDoc struct {
	Title    string              `json:"title"`
	Tools    []string            `json:"tools"`
	Budget   challenge.Budget    `json:"budget"`
	Split    string              `json:"split"`
	Listings []scoredFile        `json:"listings"`
	Failed   []failedFile        `json:"failed"`
	Tasks    map[string]int      `json:"tasks"`
	Rule     string              `json:"identityRule"`
	Scorer   challenge.Scorer    `json:"scorer"`
	Penalty  challenge.Penalties `json:"penalties"`
}

func writeScoresJSON(w io.Writer, f *challenge.File, split string, scored []scoredFile, failed []failedFile) error {
	d := scoresDoc{Title: f.Title, Tools: f.Tools, Budget: f.Budget, Split: split, Listings: scored, Failed: failed,
		Tasks: map[string]int{"live": len(f.Live), "final": len(f.Final)}, Rule: challenge.IdentityRule, Scorer: f.Scorer, Penalty: f.Penalties}
	if d.Listings == nil {
		d.Listings = []scoredFile{}
	}
	if d.Failed == nil {
		d.Failed = []failedFile{}
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeScoresText prints the ranking, then each listing's verdicts and penalties.
func writeScoresText(w io.Writer, f *challenge.File, splits []challenge.Split, scored []scoredFile) error {
	fmt.Fprintf(w, "%s: %d starting tools, budget %d tokens (%s, %s), %d live and %d final hidden tasks\n\n",
		f.Title, len(f.Tools), f.Budget.Tokens, f.Budget.Tokenizer, f.Budget.Rendering, len(f.Live), len(f.Final))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "rank\tfile\t"
	for _, sp := range splits {
		head += string(sp) + " score\t" + string(sp) + " won\t"
	}
	fmt.Fprintln(tw, head+"tokens\tpenalties")
	for _, s := range scored {
		row := fmt.Sprintf("%d\t%s\t", s.Rank, s.File)
		for _, sp := range splits {
			r := s.Scores[sp]
			row += fmt.Sprintf("%d\t%s/%d\t", r.Score, won(r), r.Tasks)
		}
		r := s.rankBy
		tokens := fmt.Sprintf("%d/%d", r.Tokens, r.Budget)
		if r.OverBudget {
			tokens += " OVER"
		}
		fmt.Fprintf(tw, "%s%s\t%d\n", row, tokens, r.PenaltyPoints)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range scored {
		fmt.Fprintf(w, "\n%s\n", s.File)
		vw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, sp := range splits {
			tasks := f.Live
			if sp == challenge.Final {
				tasks = f.Final
			}
			for _, v := range s.Scores[sp].Verdicts {
				fmt.Fprintf(vw, "  %s %d\t%s\t%s\t%s\n", sp, v.Task+1, verdictWord(v), pickedText(v, tasks[v.Task], f.Tools), clipText(tasks[v.Task].Task, 70))
			}
		}
		if err := vw.Flush(); err != nil {
			return err
		}
		for _, p := range s.rankBy.Penalties {
			where := "the listing"
			if p.Place >= 0 {
				where = fmt.Sprintf("tool %d %s", p.Place+1, p.Tool)
			}
			fmt.Fprintf(w, "  -%d %s (%s): %s\n", p.Points, p.Rule, where, p.Message)
		}
		if r := s.rankBy; r.OverBudget {
			fmt.Fprintf(w, "  over budget: %d tokens of %d, so the score is 0\n", r.Tokens, r.Budget)
		}
	}
	return nil
}

// won is the tasks won, a half for each won within the ranker's margin.
func won(r challenge.Result) string {
	return strconv.FormatFloat(float64(r.Clear)+float64(r.Ambiguous)/2, 'f', -1, 64)
}

func verdictWord(v challenge.Verdict) string {
	switch {
	case v.Half:
		return "half " + v.Status
	case v.Win:
		return "won " + v.Status
	}
	return "lost " + v.Status
}

// pickedText says which tool the ranker picked and, when lost, which place the task wanted (and
// the starting tool that was there).
func pickedText(v challenge.Verdict, t selection.Task, tools []string) string {
	picked := "picked no tool"
	if v.Picked != "" {
		picked = fmt.Sprintf("picked %s (place %d)", v.Picked, v.Place+1)
	}
	if v.Win {
		return picked
	}
	want := "no tool"
	if a := t.Answers(); len(a) > 0 {
		places := make([]string, len(a))
		for i, n := range a {
			places[i] = fmt.Sprintf("place %d (%s)", slices.Index(tools, n)+1, n)
		}
		want = strings.Join(places, " or ")
	}
	return picked + ", wanted " + want
}

func clipText(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return strconv.Quote(string(r))
	}
	return strconv.Quote(string(r[:n-1]) + "…")
}
