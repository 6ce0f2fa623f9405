package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// The review report (the export menu's Markdown, and `workbench export --format review`) shows
// the figures the workspace page and the CLI show for the same revision: the Cost tab's token
// total (`workbench cost`), the findings panel's count, and the Tasks tab's verdicts and summary
// (`workbench check --tasks`).

// figures are what one of them shows about one revision.
type figures struct {
	tokens, findings             int
	clear, ambiguous, wrong, all int
	statuses                     string // the verdicts, in task order, each followed by a space
}

// reviewAgreeCase is a listing and its task file (nil: no tasks) and, for the page, how it is
// opened: an example by its id, or a paste (with the task file imported).
type reviewAgreeCase struct {
	name, example string
	src, tasks    []byte
}

func reviewAgreeCases(t *testing.T) []reviewAgreeCase {
	var cases []reviewAgreeCase
	for _, ex := range examples.All() {
		cases = append(cases, reviewAgreeCase{name: "example-" + ex.ID, example: ex.ID, src: ex.Listing, tasks: ex.Tasks})
	}
	for _, s := range []struct{ name, tasks string }{{"clear", "tasks-clear.json"}, {"confusing", "tasks-confusing.json"}, {"draft", "tasks-clear.json"}} {
		cases = append(cases, reviewAgreeCase{name: "seed-" + s.name, src: testutil.ReadShared(t, "reference", "fixtures", s.name+"-tools.json"),
			tasks: testutil.ReadShared(t, "reference", "fixtures", s.tasks)})
	}
	real, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	for i, f := range real {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := reviewAgreeCase{name: "real-" + strings.TrimSuffix(filepath.Base(f), ".json"), src: src}
		if i%2 == 0 { // half of them with tasks made from their tool names, half without
			c.tasks = namesTasks(t, src)
		}
		cases = append(cases, c)
	}
	return cases
}

// namesTasks makes a task file for a listing: a task per tool of its first twelve, worded as
// its name; one for a tool not in the listing; and one that expects no tool.
func namesTasks(t *testing.T, src []byte) []byte {
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tasks := []map[string]any{{"task": "what will the weather be tomorrow", "expect": nil},
		{"task": "open the pod bay doors", "expect": "doors_open"}}
	for _, n := range l.Names()[:min(12, len(l.Tools))] {
		tasks = append(tasks, map[string]any{"task": strings.NewReplacer("_", " ", "-", " ").Replace(n), "expect": n})
	}
	b, err := json.Marshal(tasks)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReviewAgreesWithPageAndCLI(t *testing.T) {
	page := newAgreementPage(t)
	for _, c := range reviewAgreeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			lpath, tpath := filepath.Join(dir, "listing.json"), filepath.Join(dir, "tasks.json")
			testutil.WriteFile(t, lpath, c.src)
			args := []string{"--baseline", lpath}
			if c.tasks != nil {
				testutil.WriteFile(t, tpath, c.tasks)
				args = append(args, "--tasks", tpath)
			}
			loc := openInPage(t, page, c)
			shown := pageFigures(t, getPage(t, page, loc).String())
			// A fresh workspace's baseline is its current revision: both columns are the page's.
			md := getPage(t, page, loc+"/export?format=review").String()
			for col, got := range reviewFigures(t, md) {
				sameFigures(t, "the review download's column "+strconv.Itoa(col+1), got, "the page", shown)
			}
			out, errs, code := runCLI(t, "", append([]string{"export", lpath, "--format", "review"}, args...)...)
			if code != 0 {
				t.Fatalf("workbench export exited %d: %s", code, errs)
			}
			for col, got := range reviewFigures(t, out) {
				sameFigures(t, "workbench export --format review's column "+strconv.Itoa(col+1), got, "the page", shown)
			}
			sameFigures(t, "workbench cost and check", cliFigures(t, lpath, tpath, c.tasks != nil), "the page", shown)
		})
	}
}

func sameFigures(t *testing.T, gotName string, got figures, wantName string, want figures) {
	t.Helper()
	if got != want {
		t.Errorf("%s shows %+v;\n%s shows %+v", gotName, got, wantName, want)
	}
}

// openInPage opens the case's workspace as a person would: an example from the home page, or a
// paste and then the task file's import. It returns the workspace's path.
func openInPage(t *testing.T, h http.Handler, c reviewAgreeCase) string {
	t.Helper()
	if c.example != "" {
		return postForm(t, h, "/examples/"+c.example, "application/x-www-form-urlencoded", nil)
	}
	loc := postForm(t, h, "/workspaces", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"listing": {string(c.src)}}.Encode()))
	if c.tasks != nil {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, err := mw.CreateFormFile("file", "tasks.json")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(c.tasks)
		_ = mw.Close()
		postForm(t, h, loc+"/tasks/import", mw.FormDataContentType(), &b)
	}
	return loc
}

// postForm posts a form and returns where the answer redirects to.
func postForm(t *testing.T, h http.Handler, path, ctype string, body io.Reader) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, body)
	req.Header.Set("Content-Type", ctype)
	req.Host = "127.0.0.1" // local mode answers to loopback names only
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST %s: status %d: %.500s", path, rec.Code, rec.Body)
	}
	return rec.Header().Get("Location")
}

// getPage answers a GET as the server does for a page on this machine.
func getPage(t *testing.T, h http.Handler, path string) *bytes.Buffer {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.500s", path, rec.Code, rec.Body)
	}
	return rec.Body
}

// pageFigures reads a workspace page: the Cost tab's token total (cost-tokens), the findings
// panel's severity counts, the Tasks tab's summary (task-summary) and each verdict's status.
func pageFigures(t *testing.T, page string) figures {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var f figures
	atoi := func(s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("the page shows %q where a number belongs", s)
		}
		return n
	}
	walk(doc, func(n *html.Node) {
		switch attr(n, "data-testid") {
		case "cost-tokens":
			f.tokens = atoi(text(n))
		case "count-error", "count-warning", "count-info":
			f.findings += atoi(text(n))
		case "verdict":
			f.statuses += attr(n, "data-status") + " "
		case "task-summary":
			m := regexp.MustCompile(`(\d+) clear\s*(\d+) ambiguous\s*(\d+) wrong\s*of (\d+)`).FindStringSubmatch(text(n))
			if m == nil {
				t.Fatalf("the task summary reads %q", text(n))
			}
			f.clear, f.ambiguous, f.wrong, f.all = atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
		}
	})
	return f
}

// reviewFigures reads a review report's two columns, baseline and current: its summary table
// and the verdicts of its ranking table.
func reviewFigures(t *testing.T, md string) [2]figures {
	t.Helper()
	var f [2]figures
	row := func(label string) []string {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(label) + ` \| ([^|]*) \| ([^|]*) \|`).FindStringSubmatch(md)
		if m == nil {
			return nil
		}
		return m[1:]
	}
	num := func(s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("the report shows %q where a number belongs:\n%s", s, md)
		}
		return n
	}
	for i, want := range []struct {
		label string
		to    func(f *figures) *int
	}{{"Tokens", func(f *figures) *int { return &f.tokens }}, {"Findings", func(f *figures) *int { return &f.findings }},
		{"Tasks clear", func(f *figures) *int { return &f.clear }}, {"Tasks ambiguous", func(f *figures) *int { return &f.ambiguous }},
		{"Tasks wrong", func(f *figures) *int { return &f.wrong }}} {
		cells := row(want.label)
		if cells == nil {
			if i < 2 {
				t.Fatalf("the report has no %s row:\n%s", want.label, md)
			}
			continue
		}
		for col := range 2 {
			n, all, _ := strings.Cut(cells[col], "/")
			*want.to(&f[col]) = num(n)
			if all != "" {
				f[col].all = num(all)
			}
		}
	}
	// The ranking table: | task | expected | baseline | current | change |; a verdict cell is
	// its status, then the pick.
	_, table, ok := strings.Cut(md, "## Ranking per task\n\n")
	if !ok {
		return f
	}
	table, _, _ = strings.Cut(table, "\n\n")
	for _, line := range strings.Split(table, "\n")[2:] { // past the heading and the rule
		cells := regexp.MustCompile(`[^\\]\|`).Split(line, -1) // cells end at a pipe the report did not escape
		if len(cells) < 5 {
			t.Fatalf("a ranking row reads %q", line)
		}
		for col := range 2 {
			status, _, _ := strings.Cut(strings.TrimSpace(cells[2+col]), ",")
			f[col].statuses += status + " "
		}
	}
	return f
}

// cliFigures are what `workbench cost` and `workbench check --tasks` say of a listing.
func cliFigures(t *testing.T, lpath, tpath string, withTasks bool) figures {
	t.Helper()
	out, errs, code := runCLI(t, "", "cost", lpath, "--format", "json")
	if code != 0 {
		t.Fatalf("workbench cost exited %d: %s", code, errs)
	}
	var rep cost.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	f := figures{tokens: rep.Total.Tokens}
	args := []string{"check", lpath, "--format", "json"}
	if withTasks {
		args = append(args, "--tasks", tpath)
	}
	out, errs, code = runCLI(t, "", args...)
	if code > 1 {
		t.Fatalf("workbench check exited %d: %s", code, errs)
	}
	var r analysis.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// check reports the ranker's WARN and FAIL verdicts as findings of rule select as well; the
	// page shows them on the Tasks tab only.
	for _, fd := range r.Findings {
		if fd.Rule != "select" {
			f.findings++
		}
	}
	for _, v := range r.Ranking {
		f.statuses += string(v.Status) + " "
		f.all++
		switch v.Status {
		case "clear", "none":
			f.clear++
		case "ambiguous", "none-risk":
			f.ambiguous++
		default:
			f.wrong++
		}
	}
	return f
}
