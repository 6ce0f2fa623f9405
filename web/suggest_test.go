package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// newDraftEnv is a server whose one endpoint ("fake") is the in-process drafting model m.
func newDraftEnv(t *testing.T, m *fakemodel.Server) *runEnv {
	t.Helper()
	t.Setenv(keyEnv, testKey)
	m.Key = testKey
	return newRunEnvWith(t, nil, RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv,
		HTTP: runner.HandlerDoer{Handler: m}, Retries: -1})
}

// askForm is the Suggest dialog's form as a page sends it.
func askForm(kv ...string) url.Values {
	v := url.Values{"endpoint": {"fake"}, "k": {"3"}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

var acceptPath = regexp.MustCompile(`/w/[0-9a-f]{32}/suggest/([0-9a-f]{32})/([0-9]+)/accept`)

// description reads tool i's description as stored.
func (e *runEnv) description(t *testing.T, ws string, i int) string {
	t.Helper()
	w, err := e.s.store.Get(context.Background(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	return w.Listing.Tools[i].Get("description").String()
}

// edit posts the page's signals to path as one person (undo is per person).
func (e *runEnv) edit(t *testing.T, path string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"pid":"`+strings.Repeat("c", 32)+`","tool":0,"ver":0}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestSuggestAcceptUndo: the dialog shows the plan before asking; the answer says "Asking fake…"
// first, then three scored candidates with word diffs; Accept stores candidate 2 as one
// revision named for the tool; Undo brings the old text back.
func TestSuggestAcceptUndo(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	before := e.description(t, ws, 0)
	code, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/suggest/form?t=0", nil)
	if code != http.StatusOK || !strings.Contains(dlg, `data-testid="suggest-form"`) || !strings.Contains(dlg, "At most") {
		t.Fatalf("the dialog: %d %s", code, dlg)
	}
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm())
	if code != http.StatusOK {
		t.Fatalf("suggest: %d %s", code, body)
	}
	asking, cards := strings.Index(body, "Asking fake…"), strings.Index(body, `data-testid="suggest-card"`)
	if asking < 0 || cards < asking {
		t.Fatalf("the answer does not say it is asking before the candidates:\n%s", body)
	}
	if n := strings.Count(body, `data-testid="suggest-card"`); n != 3 {
		t.Fatalf("%d candidates, want 3:\n%s", n, body)
	}
	for _, want := range []string{`data-testid="suggest-diff"`, "<ins>", `data-testid="suggest-ranker"`, `data-testid="suggest-tokens"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the candidates lack %s", want)
		}
	}
	m := acceptPath.FindAllStringSubmatch(body, -1)
	if len(m) != 3 {
		t.Fatalf("%d Accept buttons, want 3", len(m))
	}
	sid := m[1][1]
	want := e.s.drafts.suggestion(ws, sid).cands[1].Description
	code, ans := e.edit(t, "/w/"+ws+"/suggest/"+sid+"/1/accept")
	if code != http.StatusOK || !strings.Contains(ans, `data-testid="draft-done"`) {
		t.Fatalf("accept: %d %s", code, ans)
	}
	if got := e.description(t, ws, 0); got != want {
		t.Fatalf("after Accept the description is %q, want the candidate %q", got, want)
	}
	revs, err := e.db.Revisions(context.Background(), ws, store.RevisionPage{Limit: 1})
	if err != nil || len(revs) == 0 || !strings.HasPrefix(revs[0].Message, "Accept suggested rewrite of ") {
		t.Errorf("the last revision: %+v %v", revs, err)
	}
	if code, _ := e.edit(t, "/w/"+ws+"/undo"); code != http.StatusOK {
		t.Fatalf("undo: %d", code)
	}
	if got := e.description(t, ws, 0); got != before {
		t.Fatalf("after Undo the description is %q, want %q back", got, before)
	}
	// The suggestion was made for the old text, which is back: accepting again works; after
	// another change to the description it is refused.
	if code, ans := e.edit(t, "/w/"+ws+"/suggest/"+sid+"/0/accept"); code != http.StatusOK || !strings.Contains(ans, `data-testid="draft-done"`) {
		t.Fatalf("accept after undo: %d %s", code, ans)
	}
	e.edit(t, "/w/"+ws+"/undo")
	e.edit(t, "/w/"+ws+"/edit?t=0&f=description") // the page's $val is absent: the description is emptied
	if code, ans := e.edit(t, "/w/"+ws+"/suggest/"+sid+"/1/accept"); code != http.StatusOK || !strings.Contains(ans, "changed since the suggestion") {
		t.Fatalf("accept after the text changed: %d %s", code, ans)
	}
}

// TestSuggestProblemsInWords: a promotional model's candidates are marked whatever they score;
// a model run, when asked, compares each candidate with the current text; a malformed answer,
// an unknown endpoint, a bad count and an expired suggestion each say what happened.
func TestSuggestProblemsInWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model *fakemodel.Server
		form  url.Values
		want  []string
		cards bool
	}{
		{"promotional", &fakemodel.Server{Mode: fakemodel.Promotional}, askForm(),
			[]string{"adds promotional wording", "adds instructions to the model", `data-testid="suggest-mark"`}, true},
		{"malformed", &fakemodel.Server{Mode: fakemodel.Malformed, Bad: fakemodel.BadText}, askForm(),
			[]string{`data-testid="suggest-problem"`}, false},
		{"with a model run", &fakemodel.Server{}, askForm("run", "on", "k", "2"),
			[]string{`data-testid="suggest-run-result"`, "McNemar p", "paired calls"}, true},
		{"with parameters", &fakemodel.Server{}, askForm("params", "on", "k", "1"),
			[]string{`data-testid="suggest-param-diff"`}, true},
		{"unknown endpoint", &fakemodel.Server{}, askForm("endpoint", "nope"), []string{"No endpoint is named"}, false},
		{"k out of range", &fakemodel.Server{}, askForm("k", "9"), []string{"Candidates must be a whole number from 1 to 8"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newDraftEnv(t, tc.model)
			ws := openExample(t, e.s, "library-2-draft")
			code, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", tc.form)
			if code != http.StatusOK {
				t.Fatalf("%d %s", code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the answer lacks %q:\n%s", w, body)
				}
			}
			if got := strings.Contains(body, `data-testid="suggest-card"`); got != tc.cards {
				t.Errorf("candidates shown: %v, want %v", got, tc.cards)
			}
		})
	}
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest/"+strings.Repeat("a", 32)+"/0/accept", nil)
	if code != http.StatusOK || !strings.Contains(body, "ask again") {
		t.Errorf("an unknown suggestion: %d %s", code, body)
	}
}

// hostileModelText is text a model might send to break out of the page: markup, a Datastar attribute,
// and CR/LF that would start an SSE field of their own.
const hostileModelText = `Finds books.</script><img src=x onerror=alert(1)> <b data-on:click="@post('/x')">x</b>` +
	"\r\nevent: datastar-patch-signals\r\ndata: signals {pwned: 1}\r\n"

// TestSuggestHostileTextIsInert: a candidate's text reaches the page escaped, in the dialog and
// after Accept in the editor, and no CR reaches the event stream.
func TestSuggestHostileTextIsInert(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	w, err := e.s.store.Get(context.Background(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	name := w.Listing.Tools[0].Get("name").String()
	e = newDraftEnv(t, &fakemodel.Server{Rewrites: map[string][]string{name: {hostileModelText}}})
	ws = openExample(t, e.s, "library-2-draft")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm("k", "1"))
	m := acceptPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no candidate:\n%s", body)
	}
	_, ans := e.call(t, http.MethodPost, "/w/"+ws+"/suggest/"+m[1]+"/0/accept", nil)
	for what, b := range map[string]string{"suggestion": body, "accept": ans} {
		for _, bad := range []string{"<img src=x", `data-on:click="@post('/x')"`, "</script><img", "\r", "\ndata: signals {pwned"} {
			if strings.Contains(b, bad) {
				t.Errorf("the %s answer carries %q raw", what, bad)
			}
		}
		if !strings.Contains(b, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("the %s answer does not show the text escaped:\n%s", what, b)
		}
	}
	if got := e.description(t, ws, 0); !strings.Contains(got, "<img src=x") {
		t.Errorf("the stored description is %q: the text is data, kept as sent", got)
	}
}

// TestSuggestKeyNeverShown: a model that quotes the request's Authorization header gets the
// key scrubbed before anything reaches a page, a log, or the dialog.
func TestSuggestKeyNeverShown(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Mode: fakemodel.Echo})
	ws := openExample(t, e.s, "library-2-draft")
	_, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/suggest/form?t=0", nil)
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm())
	m := acceptPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no candidate:\n%s", body)
	}
	_, ans := e.call(t, http.MethodPost, "/w/"+ws+"/suggest/"+m[1]+"/0/accept", nil)
	_, page := e.call(t, http.MethodGet, "/w/"+ws, nil)
	for what, b := range map[string]string{"dialog": dlg, "suggestion": body, "accept": ans, "page": page, "log": e.log.String()} {
		if strings.Contains(b, testKey) {
			t.Errorf("the %s carries the key", what)
		}
	}
}

// TestSuggestRefusedToViewers: a view link's dialog says why it cannot ask, offers no form, and
// its posts are refused without a call to the model; its page hides the buttons patches bring.
func TestSuggestRefusedToViewers(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey}
	r := newRig(t, Config{Auth: AuthConfig{Mode: AuthToken, Token: adminToken},
		Runs: RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}})
	b := r.visitor()
	b.get(t, "/s/"+r.link(t, store.CanView).Token)
	dlg := b.datastar(t, http.MethodGet, "/w/"+r.ws+"/suggest/form?t=0", nil).Body.String()
	if !strings.Contains(dlg, `data-testid="suggest-refused"`) || strings.Contains(dlg, `data-testid="suggest-form"`) {
		t.Errorf("a viewer's dialog:\n%s", dlg)
	}
	if rec := b.form(t, "/w/"+r.ws+"/suggest?t=0", askForm()); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's ask: %d %s", rec.Code, rec.Body.String())
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/suggest/"+strings.Repeat("a", 32)+"/0/accept", map[string]any{}); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's accept: %d", rec.Code)
	}
	if rec := b.form(t, "/w/"+r.ws+"/tasks/propose", url.Values{"endpoint": {"fake"}}); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's proposal: %d", rec.Code)
	}
	if n := m.Requests(); n != 0 {
		t.Errorf("the model was called %d times for a viewer", n)
	}
	if page := b.get(t, "/w/"+r.ws).Body.String(); !strings.Contains(page, `.draft-btn { display: none !important; }`) {
		t.Error("a viewer's page does not hide the drafting buttons")
	}
}
