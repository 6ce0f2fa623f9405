package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store/sqlite"
	"github.com/tool-workbench/workbench/workspace"
)

const (
	challengeTD = "testdata/challenge"
	workshopDir = "../../examples/workshop"
)

// TestChallengeScoreGolden keeps `workbench challenge score`'s output and exit codes as golden
// files, on the built-in workshop.
func TestChallengeScoreGolden(t *testing.T) {
	hidden := workshopDir + "/challenge.json"
	start, answer, stuffed := workshopDir+"/start.json", workshopDir+"/answer.json", challengeTD+"/stuffed.json"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"challenge", "score", "-h"}, 0},
		{"no-subcommand", []string{"challenge"}, 2},
		{"both", []string{"challenge", "score", start, answer, stuffed, "--hidden", hidden}, 0},
		{"live-json", []string{"challenge", "score", start, answer, "--hidden", hidden, "--split", "live", "--format", "json"}, 0},
		{"final", []string{"challenge", "score", "--split", "final", "--hidden", hidden, answer}, 0},
		{"no-hidden", []string{"challenge", "score", start}, 2},
		{"no-listing", []string{"challenge", "score", "--hidden", hidden}, 2},
		{"bad-split", []string{"challenge", "score", start, "--hidden", hidden, "--split", "all"}, 2},
		{"unknown-tool", []string{"challenge", "score", start, "--hidden", challengeTD + "/unknown-tool.json"}, 2},
		{"hidden-is-a-listing", []string{"challenge", "score", start, "--hidden", start}, 2},
		{"a-broken-listing", []string{"challenge", "score", challengeTD + "/broken.json", answer, "--hidden", hidden, "--split", "live"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
			got := fmt.Sprintf("$ workbench %s\n%s[stderr]\n%s[exit %d]\n", strings.Join(tc.args, " "), out, errs, code)
			testutil.Golden(t, filepath.Join(challengeTD, tc.name+".golden"), []byte(got))
		})
	}
}

// TestChallengeScoreJSON: the JSON document ranks the rewrite first and says the stuffed
// listing is over budget.
func TestChallengeScoreJSON(t *testing.T) {
	out, errs, code := runCLI(t, "", "challenge", "score", workshopDir+"/start.json", challengeTD+"/stuffed.json", workshopDir+"/answer.json",
		"--hidden", workshopDir+"/challenge.json", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Split    string `json:"split"`
		Listings []struct {
			File   string `json:"file"`
			Rank   int    `json:"rank"`
			Scores map[string]struct {
				Score      int  `json:"score"`
				OverBudget bool `json:"overBudget"`
			} `json:"scores"`
		} `json:"listings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Split != "both" || len(doc.Listings) != 3 || !strings.HasSuffix(doc.Listings[0].File, "answer.json") ||
		!doc.Listings[2].Scores["live"].OverBudget || doc.Listings[2].Scores["final"].Score != 0 {
		t.Errorf("document: %s", out)
	}
}

// TestChallengeListedInHelp checks that workbench help lists the command.
func TestChallengeListedInHelp(t *testing.T) {
	out, _, code := runCLI(t, "", "help")
	if code != 0 || !strings.Contains(out, "\n  challenge score listings on a workshop challenge's hidden tasks") {
		t.Errorf("exit %d; help does not list challenge:\n%s", code, out)
	}
}

// TestChallengeScoreMatchesTheService: a teacher who collects files gets what the workshop's
// service gives. The built-in workshop made into a challenge, a participant whose copy becomes
// answer.json, revealed; `workbench challenge score answer.json --hidden challenge.json` on the
// challenge document the teacher downloads gives the same live and final results.
func TestChallengeScoreMatchesTheService(t *testing.T) {
	settings, live, final := serviceResults(t)
	dir := t.TempDir()
	hiddenPath := filepath.Join(dir, "challenge.json")
	if err := os.WriteFile(hiddenPath, settings, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "", "challenge", "score", workshopDir+"/answer.json", "--hidden", hiddenPath, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cli struct {
		Listings []struct {
			Scores map[string]challenge.Result `json:"scores"`
		} `json:"listings"`
	}
	if err := json.Unmarshal([]byte(out), &cli); err != nil || len(cli.Listings) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, sp := range []struct {
		name    string
		service challenge.Result
	}{{"live", live}, {"final", final}} {
		got, want := cli.Listings[0].Scores[sp.name], sp.service
		if got.Score != want.Score || got.Tokens != want.Tokens || got.PenaltyPoints != want.PenaltyPoints || got.Clear != want.Clear || !slices.Equal(got.Verdicts, want.Verdicts) {
			t.Errorf("%s: the CLI gives %+v\nthe service %+v", sp.name, got, want)
		}
	}
}

// serviceResults runs the built-in workshop through the service with one participant whose
// listing is the workshop's answer, and returns the challenge document and their results.
func serviceResults(t *testing.T) (settings []byte, live, final challenge.Result) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	wsvc := workspace.New(db)
	s := challenge.New(db, wsvc, challenge.Options{})
	t.Cleanup(s.Close)
	w := examples.TheWorkshop()
	start, err := listing.Parse(w.Start, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := listing.Parse(w.Answer, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	practice, err := selection.ParseTasks(w.Practice, false)
	if err != nil {
		t.Fatal(err)
	}
	who := workspace.Author{Name: "Teacher", ID: "t1"}
	tw, err := wsvc.Create(ctx, "Bike share", start, practice, who, "example")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Create(ctx, tw.ID, challenge.Draft{Title: "Bike share workshop", Hidden: w.Hidden, Budget: challenge.Budget{Tokens: w.Budget}}, who)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.Join(ctx, c, "Ana")
	if err != nil {
		t.Fatal(err)
	}
	up := workspace.Edit{Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools", Value: listing.NewArray(answer.Tools...)}}}
	if _, err := wsvc.Apply(ctx, j.Participant.Workspace, up, workspace.Author{Name: "Ana"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Reveal(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	exp, err := s.Export(ctx, c.ID, "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Participants []struct{ Live, Final *challenge.Result } `json:"participants"`
	}
	if err := json.Unmarshal(exp, &doc); err != nil || len(doc.Participants) != 1 || doc.Participants[0].Live == nil || doc.Participants[0].Final == nil {
		t.Fatalf("export %v: %s", err, exp)
	}
	return rec.Settings, *doc.Participants[0].Live, *doc.Participants[0].Final
}
