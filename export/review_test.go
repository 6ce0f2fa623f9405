package export

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// The review's engines are injected; these doubles are small and deterministic so that the
// golden reports pin the report's form, not a real linter's or ranker's judgement.

// fakeFindings flags descriptions under twelve words and generic names.
func fakeFindings(l *listing.Listing) ([]Finding, error) {
	var out []Finding
	for i, t := range l.Tools {
		name := t.Get("name").Str
		if d := t.Get("description"); len(strings.Fields(d.String())) < 12 {
			out = append(out, Finding{Tool: name, Rule: "short-description", Severity: "warning",
				Pointer: listing.JoinPointer("tools", itoa(i), "description"), Message: "the description has fewer than 12 words"})
		}
		for _, generic := range []string{"data", "run", "query", "find", "search"} {
			if strings.Contains(name, generic) {
				out = append(out, Finding{Tool: name, Rule: "generic-name", Severity: "error",
					Pointer: listing.JoinPointer("tools", itoa(i), "name"), Message: "the name says " + generic + " | <b>which</b>?"})
			}
		}
	}
	if len(l.Tools) > 20 {
		out = append(out, Finding{Rule: "too-many-tools", Severity: "info", Message: "more than 20 tools"})
	}
	return out, nil
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// fakeTokens counts words of the tool's JSON.
func fakeTokens(t *listing.Value) int { return len(strings.Fields(string(listing.Marshal(t, " ")))) }

// fakeRanker picks, per task, the tool whose name and description share most words with it.
func fakeRanker(tasksPath string) func(*listing.Listing) ([]Verdict, error) {
	return func(l *listing.Listing) ([]Verdict, error) {
		b, err := os.ReadFile(tasksPath)
		if err != nil {
			return nil, err
		}
		var tasks []struct{ Task, Expect string }
		if err := json.Unmarshal(b, &tasks); err != nil {
			return nil, err
		}
		out := []Verdict{}
		for _, task := range tasks {
			words := strings.Fields(strings.ToLower(task.Task))
			best, bestN := "", 0
			for _, t := range l.Tools {
				text := strings.ToLower(t.Get("name").Str + " " + t.Get("description").String())
				text = strings.ReplaceAll(text, "_", " ")
				n := 0
				for _, w := range words {
					if slices.Contains(strings.Fields(text), w) {
						n++
					}
				}
				if n > bestN {
					best, bestN = t.Get("name").Str, n
				}
			}
			v := Verdict{Task: task.Task, Expected: task.Expect, Picked: best, Status: "wrong"}
			switch {
			case best == "":
				v.Status = "no-words"
			case best == task.Expect:
				v.Status = "clear"
			}
			out = append(out, v)
		}
		return out, nil
	}
}

// fakeEngine is an engine of the doubles above; a tasksPath of "" ranks nothing.
func fakeEngine(tasksPath string) func(*listing.Listing) (*Analysis, error) {
	return func(l *listing.Listing) (*Analysis, error) {
		a := &Analysis{ToolTokens: make([]int, len(l.Tools)), Tokens: 2} // a frame of 2
		var err error
		if a.Findings, err = fakeFindings(l); err != nil {
			return nil, err
		}
		for i, t := range l.Tools {
			a.ToolTokens[i] = fakeTokens(t)
			a.Tokens += a.ToolTokens[i]
		}
		if tasksPath == "" {
			return a, nil
		}
		if a.Verdicts, err = fakeRanker(tasksPath)(l); err != nil {
			return nil, err
		}
		for _, v := range a.Verdicts {
			switch v.Status {
			case "clear":
				a.Clear++
			default:
				a.Wrong++
			}
		}
		return a, nil
	}
}

// awkwardEdited is the awkward listing after a review's worth of edits: a rename, schema and
// annotation changes and a hostile description.
func awkwardEdited(t *testing.T, l *listing.Listing) *listing.Listing {
	t.Helper()
	str := listing.NewString
	mustParse := func(s string) *listing.Value {
		v, err := listing.ParseJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	edited, err := l.ApplyAll([]listing.Op{
		{Kind: listing.OpSet, Path: "/tools/0/description", Value: str("Read a text file. Pass `path` relative to the root; ```fences``` and <script>alert(1)</script> stay text.\n# not a heading | not a cell")},
		{Kind: listing.OpRemove, Path: "/tools/0/inputSchema/properties/odd"},
		{Kind: listing.OpSet, Path: "/tools/0/inputSchema/properties/range/$ref", Value: str("#/$defs/span")},
		{Kind: listing.OpSet, Path: "/tools/0/inputSchema/properties/limit", Value: mustParse(`{"type":"integer","description":"At most this many bytes."}`)},
		{Kind: listing.OpSet, Path: "/tools/0/inputSchema/required", Value: mustParse(`["path","limit"]`)},
		{Kind: listing.OpSet, Path: "/tools/0/annotations/openWorldHint", Value: listing.NewBool(true)},
		{Kind: listing.OpSet, Path: "/tools/1/name", Value: str("files_read_text_legacy")},
		{Kind: listing.OpRemove, Path: "/tools/3"},
		{Kind: listing.OpSet, Path: "/tools/2/title", Value: str("Query | the *database*")},
		{Kind: listing.OpInsert, Path: "/tools/-", Value: mustParse(`{"name":"files.write","description":"Write a text file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path","text"]}}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return edited
}

func TestReviewGolden(t *testing.T) {
	shared, haveShared := testutil.SharedPath(t)
	awk := readListing(t, filepath.Join("testdata", "awkward-tools.json"))
	type tc struct {
		name      string
		base, cur *listing.Listing
		opts      ReviewOptions
	}
	cases := []tc{
		{"awkward-edited", awk, awkwardEdited(t, awk), ReviewOptions{BaselineName: "awkward-tools.json", CurrentName: "edited `awkward` <listing>",
			Analyze: fakeEngine(""), TokenUnit: "words of the tool's JSON (a test double)", RankingNote: "no --tasks given"}},
		{"awkward-no-engines", awk, awkwardEdited(t, awk), ReviewOptions{}},
		{"awkward-unchanged", awk, awk, ReviewOptions{Analyze: fakeEngine("")}},
	}
	if haveShared {
		fx := func(n string) string { return filepath.Join(shared, "reference", "fixtures", n) }
		real := func(n string) string { return filepath.Join(shared, "listings", "real", n+".json") }
		cases = append(cases,
			tc{"seed-draft-to-clear", readListing(t, fx("draft-tools.json")), readListing(t, fx("clear-tools.json")), ReviewOptions{
				BaselineName: "draft-tools.json", CurrentName: "clear-tools.json", Analyze: fakeEngine(fx("tasks-clear.json")),
				TokenUnit: "words of the tool's JSON (a test double)"}},
			tc{"seed-confusing-to-clear", readListing(t, fx("confusing-tools.json")), readListing(t, fx("clear-tools.json")), ReviewOptions{
				BaselineName: "confusing-tools.json", CurrentName: "clear-tools.json", Analyze: fakeEngine(fx("tasks-clear.json"))}},
			tc{"real-kubernetes-extra-toolsets", readListing(t, real("kubernetes-mcp-server")), readListing(t, real("kubernetes-mcp-server-extra-toolsets")), ReviewOptions{
				BaselineName: "kubernetes-mcp-server.json", CurrentName: "kubernetes-mcp-server-extra-toolsets.json", Analyze: fakeEngine("")}},
			tc{"real-github-against-itself", readListing(t, real("github-mcp-server")), readListing(t, real("github-mcp-server")), ReviewOptions{
				Analyze: fakeEngine("")}},
		)
	} else {
		t.Log("shared/ not found next to the module: review goldens run on testdata only")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Review(c.base, c.cur, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".review.md", got)
		})
	}
}

// TestReviewContent checks what the awkward review must say, independently of its golden file.
func TestReviewContent(t *testing.T) {
	awk := readListing(t, filepath.Join("testdata", "awkward-tools.json"))
	got, err := Review(awk, awkwardEdited(t, awk), ReviewOptions{Analyze: fakeEngine("")})
	if err != nil {
		t.Fatal(err)
	}
	md := string(got)
	for _, want := range []string{
		"### `files_read_text_legacy` (renamed from `files_read_text`)",
		"### `files.write` (added)",
		"### `ⓐⓑ` (removed)",
		"removed property `odd`",
		"added property `limit` (`\"integer\"`)",
		"now required: `limit`",
		"`range` `$ref`: `\"#/$defs/range\"` → `\"#/$defs/span\"`",
		"`openWorldHint`: `false` → `true`",
		"````text\n",        // a fence longer than the ``` in the description
		"`title`: unset → ", // the new title of db-query*/
		"Tools: 1 added, 1 removed, 1 renamed, 2 changed, 1 unchanged.",
		"| Findings |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// Hostile text never becomes a heading: outside fenced blocks, every line starting with #
	// is one the report writes.
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = strings.TrimSuffix(line, "text") // the closing fence is the opening one without its info string
		case fence != "" && line == fence:
			fence = ""
		case fence == "" && strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# Review of") &&
			!strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "### `"):
			t.Errorf("a heading not written by the report: %q", line)
		}
	}
	if fence != "" {
		t.Errorf("a fenced block is left open: %q", fence)
	}
	if strings.Contains(md, "| <b>") || strings.Contains(md, "): the name says query | <b>") {
		t.Error("a finding's message is not escaped")
	}
}

func TestReviewErrors(t *testing.T) {
	awk := readListing(t, filepath.Join("testdata", "awkward-tools.json"))
	boom := errors.New("boom")
	tests := []struct {
		name      string
		base, cur *listing.Listing
		opts      ReviewOptions
		want      string
	}{
		{"no baseline", nil, awk, ReviewOptions{}, "both a baseline and a current listing"},
		{"engine fails", awk, awk, ReviewOptions{BaselineName: "b.json", Analyze: func(*listing.Listing) (*Analysis, error) { return nil, boom }}, "analysing b.json: boom"},
		{"engine ranks different tasks", awk, awkwardEdited(t, awk), ReviewOptions{Analyze: func(l *listing.Listing) (*Analysis, error) {
			a := &Analysis{ToolTokens: make([]int, len(l.Tools)), Verdicts: []Verdict{}}
			for _, n := range l.Names() {
				if strings.HasPrefix(n, "files") {
					a.Verdicts = append(a.Verdicts, Verdict{Task: n})
				}
			}
			return a, nil
		}}, "must rank the same tasks"},
		{"engine ranks for one listing only", awk, awkwardEdited(t, awk), ReviewOptions{Analyze: func(l *listing.Listing) (*Analysis, error) {
			a := &Analysis{ToolTokens: make([]int, len(l.Tools))}
			if l == awk {
				a.Verdicts = []Verdict{}
			}
			return a, nil
		}}, "must rank the same tasks"},
		{"engine counts other tools", awk, awk, ReviewOptions{Analyze: func(l *listing.Listing) (*Analysis, error) { return &Analysis{}, nil }}, "tokens of 0 tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Review(tt.base, tt.cur, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestWordDiff(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"same text", "same text", "same text"},
		{"", "new", "{+new+}"},
		{"old", "", "[-old-]"},
		{"Return one ticket.", "Show one ticket.", "[-Return-]{+Show+} one ticket."},
		{"a b c d", "a x y d", "a [-b c-]{+x y+} d"},
		{"keep the end", "keep  the end", "keep{+ +} the end"},
		{"bidi", "bidi \u202e", "bidi{+ \u202e+}"},
		{"one\ntwo", "one\nthree", "one\n[-two-]{+three+}"},
		{"a b", "a b c", "a b{+ c+}"},
	}
	for _, tt := range tests {
		if got := renderDiff(WordDiff(tt.a, tt.b)); got != tt.want {
			t.Errorf("WordDiff(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMarkdownEscaping(t *testing.T) {
	tests := []struct {
		fn       func(string) string
		in, want string
	}{
		{mdText, "a_b *c* <d> [e](f) | g & h # i", `a\_b \*c\* \<d\> \[e\](f) \| g \& h \# i`},
		{mdText, "two\nlines", "two lines"},
		{mdCode, "plain", "`plain`"},
		{mdCode, "has `tick`", "`` has `tick` ``"},
		{mdCode, "```", "```` ``` ````"},
		{mdCode, "", "`  `"},
		{mdCell, "`a|b`", "`a\\|b`"},
		{mdCell, `a\|b`, `a\|b`},
		{mdText, "rtl \u202e x", `rtl \\u202e x`}, // renders as rtl \u202e x
		{mdCode, "nbsp\u00a0", "`nbsp\\u00a0`"},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%q → %q, want %q", tt.in, got, tt.want)
		}
	}
}
