package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
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
