package challenge

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"time"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// Export writes a challenge's results: "csv" or "json" (rank, name, live and final scores,
// tokens, penalties, and each hidden task's verdict). Teacher only.
func (s *Service) Export(ctx context.Context, id, format string) ([]byte, error) {
	if format != "csv" && format != "json" {
		return nil, invalid("export format %q: use csv or json", format)
	}
	c, ps, err := s.standing(ctx, id)
	if err != nil {
		return nil, err
	}
	revealed := c.State == store.ChallengeRevealed
	rs, err := s.ranked(ps, revealed)
	if err != nil {
		return nil, err
	}
	if format == "csv" {
		return exportCSV(c, rs, revealed)
	}
	return exportJSON(c, rs, revealed)
}

// exportDoc is the JSON export: stable field names, participants in leaderboard order.
type exportDoc struct {
	Challenge    string         `json:"challenge"`
	Title        string         `json:"title"`
	Code         string         `json:"code"`
	State        string         `json:"state"`
	Final        bool           `json:"final"` // ranked by the final split
	Tools        []string       `json:"tools"`
	Tasks        exportTasks    `json:"tasks"`
	Participants []exportPerson `json:"participants"`
}

type exportTasks struct {
	Live  []selection.Task `json:"live"`
	Final []selection.Task `json:"final"`
}

type exportPerson struct {
	Rank      int          `json:"rank"`
	Name      string       `json:"name"`
	Workspace string       `json:"workspace"`
	Live      *exportScore `json:"live"`
	Final     *exportScore `json:"final"`
}

type exportScore struct {
	Result
	Reached  time.Time `json:"reached"`
	Improved time.Time `json:"improved,omitzero"`
}

func exportJSON(c *Challenge, rs []ranked, final bool) ([]byte, error) {
	d := exportDoc{Challenge: c.ID, Title: c.Title, Code: c.Code, State: string(c.State), Final: final, Tools: c.File.Tools,
		Tasks: exportTasks{Live: c.File.Live, Final: c.File.Final}, Participants: make([]exportPerson, len(rs))}
	score := func(doc *scoreDoc) *exportScore {
		if doc == nil {
			return nil
		}
		return &exportScore{Result: doc.Result, Reached: doc.Reached, Improved: doc.Improved}
	}
	for i, r := range rs {
		d.Participants[i] = exportPerson{Rank: r.Rank, Name: r.Name, Workspace: r.Workspace, Live: score(r.live), Final: score(r.final)}
	}
	return encodeJSON(d)
}

// exportCSV writes one row per participant: the scores, then each hidden task's verdict
// (live tasks, then final tasks), a column per task headed by its split, number and text. The
// rank's heading says which split ranks: the final one once revealed.
func exportCSV(c *Challenge, rs []ranked, final bool) ([]byte, error) {
	by := "rank (by live score)"
	if final {
		by = "rank (by final score)"
	}
	head := []string{by, "name", "live score", "live clear", "live ambiguous", "live tasks", "tokens", "budget", "over budget",
		"penalty points", "final score", "final clear", "final ambiguous", "final tasks"}
	for i, t := range c.File.Live {
		head = append(head, fmt.Sprintf("live %d: %s", i+1, t.Task))
	}
	for i, t := range c.File.Final {
		head = append(head, fmt.Sprintf("final %d: %s", i+1, t.Task))
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	write := func(rec []string) {
		for i, cell := range rec {
			rec[i] = cellText(cell)
		}
		_ = w.Write(rec) // a bytes.Buffer does not fail; w.Error reports the rest
	}
	write(head)
	for _, r := range rs {
		rec := []string{rank(r), r.Name}
		rec = append(rec, scoreCells(r.live, true)...)
		rec = append(rec, scoreCells(r.final, false)...)
		rec = append(rec, verdictCells(r.live, len(c.File.Live))...)
		rec = append(rec, verdictCells(r.final, len(c.File.Final))...)
		write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("export csv: %w", err)
	}
	return b.Bytes(), nil
}

func rank(r ranked) string {
	if !r.Scored {
		return ""
	}
	return strconv.Itoa(r.Rank)
}

// scoreCells are a score's columns (empty when there is none); the live score has the
// tokens, budget and penalties besides.
func scoreCells(d *scoreDoc, live bool) []string {
	n := 4
	if live {
		n = 8
	}
	if d == nil {
		return make([]string, n)
	}
	out := []string{strconv.Itoa(d.Score), strconv.Itoa(d.Clear), strconv.Itoa(d.Ambiguous), strconv.Itoa(d.Tasks)}
	if live {
		out = append(out, strconv.Itoa(d.Tokens), strconv.Itoa(d.Budget), strconv.FormatBool(d.OverBudget), strconv.Itoa(d.PenaltyPoints))
	}
	return out
}

func verdictCells(d *scoreDoc, n int) []string {
	out := make([]string, n)
	if d == nil {
		return out
	}
	for i := range min(n, len(d.Verdicts)) {
		out[i] = d.Verdicts[i].Status
	}
	return out
}

// cellText keeps a spreadsheet from reading a cell as a formula: names and task texts are
// anyone's text, and a cell that starts with = + - @ (or a tab or carriage return, which some
// spreadsheets skip) is a formula there. A leading apostrophe makes it text.
func cellText(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
