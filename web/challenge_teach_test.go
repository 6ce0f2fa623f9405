package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/examples"
)

// hiddenLibrary are hidden tasks for the library examples: none repeats a practice task.
const hiddenLibrary = `[
  {"task": "Find the record of the atlas with catalog id B-4471", "expect": "catalog_get_book", "tags": ["live"]},
  {"task": "Books about volcanoes for a school project", "expect": "catalog_search", "tags": ["live"]},
  {"task": "Give card 5512 the copy of Dune", "expect": "loans_check_out", "tags": ["final"]},
  {"task": "Which loans are late at the harbour branch?", "expect": "reports_overdue", "tags": ["final"]}
]`

// challengePost posts the teacher's form as the browser does (multipart), with fields set.
func challengePost(t testing.TB, s *Server, ws string, fields url.Values, mod func(*http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/challenge", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if mod != nil {
		mod(req)
	}
	return do(t, s, req)
}

// challengeFields are the form's fields as its defaults leave them, with hidden tasks.
func challengeFields(hidden string) url.Values {
	return url.Values{"title": {"Library challenge"}, "hidden": {hidden}, "budget": {""}, "tokenizer": {"o200k_base"},
		"rendering": {"compact"}, "errors": {"1"}, "promo": {"1"}, "instructions": {"1"}, "points": {"5"}, "minutes": {"60"}}
}

// newChallenge makes a challenge from ws through the form and returns its ID.
func newChallenge(t testing.TB, s *Server, ws, hidden string) string {
	t.Helper()
	rec := challengePost(t, s, ws, challengeFields(hidden), nil)
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/c/") {
		t.Fatalf("create: %d %s", rec.Code, rec.Body.String())
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/c/")
}

// one returns the only element with a data-testid, or fails.
func one(t testing.TB, doc, tid string) *html.Node {
	t.Helper()
	ns := find(t, doc, tid)
	if len(ns) != 1 {
		t.Fatalf("%d elements with data-testid %q, want 1", len(ns), tid)
	}
	return ns[0]
}

func TestChallengeFormDefaults(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	page := getPage(t, s, "/w/"+id+"/challenge")
	if got := attr(one(t, page, "ch-title"), "value"); got != "Library desk, draft 2: a first real draft challenge" {
		t.Errorf("title %q, want the workspace's name and \" challenge\"", got)
	}
	for tid, want := range map[string]string{"ch-points": "5", "ch-minutes": "60", "ch-budget": ""} {
		if got := attr(one(t, page, tid), "value"); got != want {
			t.Errorf("%s = %q, want %q", tid, got, want)
		}
	}
	for _, tid := range []string{"ch-errors", "ch-promo", "ch-instructions"} {
		if !hasAttr(one(t, page, tid), "checked") {
			t.Errorf("%s is not checked by default", tid)
		}
	}
	for tid, want := range map[string]string{"ch-tok": challenge.DefaultTokenizer, "ch-render": challenge.DefaultRendering} {
		if got := selected(one(t, page, tid)); got != want {
			t.Errorf("%s selects %q, want %q", tid, got, want)
		}
	}
	start := text(one(t, page, "ch-start-tokens"))
	if !strings.Contains(start, "The starting listing is ") || !strings.Contains(start, "tokens; left blank, the budget is") {
		t.Errorf("starting tokens: %q", start)
	}
	if !strings.Contains(page, "Model scoring is not offered") && !strings.Contains(page, "Scoring with a model is not offered") {
		t.Errorf("the form does not say that model scoring is not offered")
	}
	if len(find(t, page, "ch-earlier-none")) != 1 {
		t.Errorf("a workspace with no challenge lists earlier ones")
	}
	// The share menu leads here.
	if !strings.Contains(getPage(t, s, "/w/"+id), `href="/w/`+id+`/challenge"`) {
		t.Errorf("the workspace page has no way to the workshop form")
	}
}

// selected is the value of a select's selected option.
func selected(sel *html.Node) string {
	for c := sel.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "option" {
			if hasAttr(c, "selected") {
				return attr(c, "value")
			}
		}
	}
	return ""
}

// TestChallengeFormRefusals: a draft the service refuses shows the form again with the
// message, and every field as it was typed.
func TestChallengeFormRefusals(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	tests := []struct {
		name, hidden, want string
		change             func(url.Values)
	}{
		{"bad JSON", `[{"task": "Find a book", "expect": "catalog_search",}]`, "line 1", nil},
		{"unknown tool", `[{"task": "Find the atlas by id", "expect": "atlas_get"}]`, "atlas_get", nil},
		{"hidden is practice", `[{"task": "Show me the book with ISBN 9780141439518", "expect": "catalog_get_book"}]`, "practice", nil},
		{"no hidden tasks", "  ", "hidden tasks", nil},
		{"budget not a number", hiddenLibrary, "budget", func(v url.Values) { v.Set("budget", "lots") }},
		{"no end", hiddenLibrary, "minutes", func(v url.Values) { v.Set("minutes", "0") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := challengeFields(tc.hidden)
			v.Set("title", `Tuesday's <b>group</b>`)
			v.Del("promo") // unchecked, and kept so
			v.Set("rendering", "seed-host")
			if tc.change != nil {
				tc.change(v)
			}
			rec := challengePost(t, s, id, v, nil)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", rec.Code, rec.Header().Get("Location"))
			}
			page := rec.Body.String()
			if p := text(one(t, page, "ch-problem")); !strings.Contains(strings.ToLower(p), strings.ToLower(tc.want)) {
				t.Errorf("problem %q does not mention %q", p, tc.want)
			}
			ta := one(t, page, "ch-hidden")
			got := ""
			if ta.FirstChild != nil {
				got = ta.FirstChild.Data
			}
			if strings.TrimLeft(got, "\n") != strings.TrimLeft(tc.hidden, "\n") {
				t.Errorf("hidden tasks shown again as %q, want %q", got, tc.hidden)
			}
			if got := attr(one(t, page, "ch-title"), "value"); got != v.Get("title") {
				t.Errorf("title shown again as %q", got)
			}
			for _, f := range []string{"budget", "minutes", "points"} {
				if got := attr(one(t, page, "ch-"+f), "value"); got != v.Get(f) {
					t.Errorf("%s shown again as %q, want %q", f, got, v.Get(f))
				}
			}
			if hasAttr(one(t, page, "ch-promo"), "checked") {
				t.Errorf("an unchecked penalty came back checked")
			}
			if got := selected(one(t, page, "ch-render")); got != "seed-host" {
				t.Errorf("rendering came back as %q", got)
			}
		})
	}
}

// TestChallengeCreateAndTeacherView makes a challenge through the form and opens the
// teacher's view: the join code and URL, the controls, and the earlier challenge listed.
func TestChallengeCreateAndTeacherView(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	cid := newChallenge(t, s, id, hiddenLibrary)
	ch, err := s.challenges.Get(context.Background(), cid)
	if err != nil {
		t.Fatal(err)
	}
	page := getPage(t, s, "/c/"+cid)
	if got := text(one(t, page, "join-code")); got != showCode(ch.Code) {
		t.Errorf("join code %q, want %q", got, showCode(ch.Code))
	}
	if got := text(one(t, page, "join-url")); got != "http://example.com/join/"+ch.Code {
		t.Errorf("join URL %q", got)
	}
	for _, tid := range []string{"ch-freeze", "ch-reveal", "ch-csv", "ch-json", "ch-file", "board-rows", "heat-map", "board-link"} {
		if len(find(t, page, tid)) != 1 {
			t.Errorf("no %s on the teacher's view", tid)
		}
	}
	form := getPage(t, s, "/w/"+id+"/challenge")
	if !strings.Contains(text(one(t, form, "ch-earlier")), "Library challenge") {
		t.Errorf("the form does not list the challenge just made")
	}
	for _, step := range []struct{ path, state string }{{"freeze", "frozen"}, {"unfreeze", "open"}, {"reveal", "revealed"}} {
		req := httptest.NewRequest(http.MethodPost, "/c/"+cid+"/"+step.path, nil)
		if rec := do(t, s, req); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/c/"+cid {
			t.Fatalf("%s: %d %s", step.path, rec.Code, rec.Body.String())
		}
		if got := attr(one(t, getPage(t, s, "/c/"+cid), "ch-state"), "data-state"); got != step.state {
			t.Errorf("after %s the state is %q, want %q", step.path, got, step.state)
		}
	}
	if board := getPage(t, s, "/board/"+cid); len(find(t, board, "board-final")) != 1 {
		t.Errorf("the board shows no final ranking once revealed")
	}
}

// TestChallengeExports: the downloads are attachments nobody caches, the CSV holds no cell a
// spreadsheet would run as a formula, and challenge.json reads back as the challenge file.
func TestChallengeExports(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	cid := newChallenge(t, s, id, hiddenLibrary)
	ctx := context.Background()
	ch, err := s.challenges.Get(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "@SUM(A1)", "-2+3", "Ada"} {
		j, err := s.challenges.Join(ctx, ch, name)
		if err != nil {
			t.Fatalf("join %q: %v", name, err)
		}
		if err := s.challenges.Rescore(ctx, j.Participant.Workspace); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"results.csv", "results.json", "challenge.json"} {
		rec := do(t, s, httptest.NewRequest(http.MethodGet, "/c/"+cid+"/"+path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		if cd := rec.Header().Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.Contains(cd, ch.Code) {
			t.Errorf("%s: Content-Disposition %q", path, cd)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, cc)
		}
		switch path {
		case "results.csv":
			rows, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
			if err != nil || len(rows) < 6 {
				t.Fatalf("CSV: %d rows, %v", len(rows), err)
			}
			for _, row := range rows {
				for _, cell := range row {
					if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && !isNumber(cell) {
						t.Errorf("CSV cell %q would run as a formula", cell)
					}
				}
			}
		case "challenge.json":
			f, err := challenge.Parse(rec.Body.Bytes())
			if err != nil || len(f.Live) != 2 || len(f.Final) != 2 {
				t.Errorf("challenge.json does not read back: %v", err)
			}
		}
	}
}

// isNumber is a cell a spreadsheet reads as a number (a negative score is one).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || (i == 0 && r == '-')) {
			return false
		}
	}
	return len(s) > 1 || s[0] != '-'
}

// TestChallengeFormOffersTheWorkshop: on the built-in workshop's starting listing the form
// offers its hidden tasks, and they make a challenge as they are; elsewhere it does not.
func TestChallengeFormOffersTheWorkshop(t *testing.T) {
	s := newServer(t)
	lib := getPage(t, s, "/w/"+openExample(t, s, "library-2-draft")+"/challenge")
	if len(find(t, lib, "ch-example")) != 0 {
		t.Errorf("the library example's form offers the workshop's hidden tasks")
	}
	id := openExample(t, s, examples.WorkshopID)
	page := getPage(t, s, "/w/"+id+"/challenge")
	one(t, page, "ch-example")
	hidden := string(examples.TheWorkshop().Hidden)
	if !strings.Contains(page, html.EscapeString(hidden)) {
		t.Errorf("the form does not carry the workshop's hidden tasks for its button")
	}
	newChallenge(t, s, id, hidden)
}

// FuzzChallengeForm posts the teacher's form with any field values: the answer is a new
// challenge or the form again (never a server error), and the form again keeps the hidden
// tasks and the title as typed.
func FuzzChallengeForm(f *testing.F) {
	f.Add("Library challenge", hiddenLibrary, "", "5", "60")
	f.Add("", `[{"task": "x", "expect": "nope"}]`, "12", "-1", "0")
	f.Add("<b>t</b>", `{"tasks": [`, "1e9", "", "99999999999999999999")
	f.Add("t", `[{"task": "Books about volcanoes", "expect": null, "tags": ["final", "live"]}]`, "0", "100", "1")
	s := newServer(f)
	ws := openExample(f, s, "library-2-draft")
	f.Fuzz(func(t *testing.T, title, hidden, budget, points, minutes string) {
		v := challengeFields(hidden)
		v.Set("title", title)
		v.Set("budget", budget)
		v.Set("points", points)
		v.Set("minutes", minutes)
		rec := challengePost(t, s, ws, v, nil)
		switch rec.Code {
		case http.StatusSeeOther:
			return
		case http.StatusBadRequest:
		default:
			t.Fatalf("status %d", rec.Code)
		}
		plain := func(s string) bool {
			return utf8.ValidString(s) && !strings.ContainsAny(s, "\x00\r")
		}
		if !plain(hidden) || !plain(title) {
			return // (the HTML parser reads NUL, CR and broken UTF-8 back differently)
		}
		page := rec.Body.String()
		ta := one(t, page, "ch-hidden")
		got := ""
		if ta.FirstChild != nil {
			got = ta.FirstChild.Data
		}
		if strings.TrimPrefix(got, "\n") != strings.TrimPrefix(hidden, "\n") {
			t.Errorf("hidden tasks shown again as %q, want %q", got, hidden)
		}
		if got := attr(one(t, page, "ch-title"), "value"); got != title {
			t.Errorf("title shown again as %q, want %q", got, title)
		}
	})
}

// TestChallengeFormUpload: an uploaded task file stands for the text box; refused, it comes
// back in the text box, so the teacher can mend it there.
func TestChallengeFormUpload(t *testing.T) {
	s := newServer(t)
	ws := openExample(t, s, "library-2-draft")
	upload := func(file string) *httptest.ResponseRecorder {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for k, vs := range challengeFields("") {
			_ = mw.WriteField(k, vs[0])
		}
		fw, err := mw.CreateFormFile("hiddenfile", "hidden.json")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write([]byte(file))
		_ = mw.Close()
		req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/challenge", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		return do(t, s, req)
	}
	bad := `[{"task": "Find the atlas by id", "expect": "atlas_get"}]`
	rec := upload(bad)
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("a refused upload: %d", rec.Code)
	}
	if ta := one(t, rec.Body.String(), "ch-hidden"); ta.FirstChild == nil || ta.FirstChild.Data != bad {
		t.Errorf("the refused upload is not in the text box")
	}
	if rec := upload(hiddenLibrary); rec.Code != http.StatusSeeOther {
		t.Errorf("a good upload: %d %s", rec.Code, rec.Body.String())
	}
}
