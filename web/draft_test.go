package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// editForm posts a form to path as one person (undo is per person), with the page's id.
func (e *runEnv) editForm(t *testing.T, path string, v url.Values) (int, string) {
	t.Helper()
	v.Set("pid", strings.Repeat("c", 32))
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Datastar-Request", "true")
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func (e *runEnv) tasks(t *testing.T, ws string) int {
	t.Helper()
	w, err := e.s.store.Get(context.Background(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	return len(w.Tasks)
}

var addPath = regexp.MustCompile(`/w/[0-9a-f]{32}/tasks/propose/([0-9a-f]{32})/add`)

// TestProposeTasksAddTicked: the proposals are listed with their kinds, a refused one is
// disabled with why; "Add ticked" adds the ticked ones after the task file's as one revision,
// which Undo takes back; a refused index is refused in words.
func TestProposeTasksAddTicked(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	n0 := e.tasks(t, ws)
	code, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/tasks/propose", nil)
	if code != http.StatusOK || !strings.Contains(dlg, `data-testid="propose-form"`) || !strings.Contains(dlg, "At most") {
		t.Fatalf("the dialog: %d %s", code, dlg)
	}
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/propose", url.Values{"endpoint": {"fake"}, "per": {"1"}})
	if code != http.StatusOK || !strings.Contains(body, "Asking fake…") {
		t.Fatalf("propose: %d %s", code, body)
	}
	for _, want := range []string{`data-testid="propose-task"`, `data-testid="propose-kind"`, "confusion", "no-tool", "Not offered:", "disabled"} {
		if !strings.Contains(body, want) {
			t.Errorf("the proposals lack %q", want)
		}
	}
	m := addPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no Add form:\n%s", body)
	}
	var ok []string
	refused := ""
	for i, p := range e.s.drafts.proposal(ws, m[1]).tasks {
		if p.Refused == "" && len(ok) < 2 {
			ok = append(ok, strconv.Itoa(i))
		} else if p.Refused != "" && refused == "" {
			refused = strconv.Itoa(i)
		}
	}
	if len(ok) < 2 || refused == "" {
		t.Fatalf("want two usable proposals and a refused one: %v %q", ok, refused)
	}
	if _, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+m[1]+"/add", url.Values{"pick": {ok[0], refused}}); !strings.Contains(ans, "cannot be added") {
		t.Errorf("a refused proposal ticked: %s", ans)
	}
	code, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+m[1]+"/add", url.Values{"pick": ok})
	if code != http.StatusOK || !strings.Contains(ans, `data-testid="draft-done"`) {
		t.Fatalf("add: %d %s", code, ans)
	}
	if n := e.tasks(t, ws); n != n0+2 {
		t.Fatalf("%d tasks after adding 2 to %d", n, n0)
	}
	revs, err := e.db.Revisions(context.Background(), ws, store.RevisionPage{Limit: 1})
	if err != nil || len(revs) == 0 || revs[0].Message != "Add 2 proposed tasks" {
		t.Errorf("the last revision: %+v %v", revs, err)
	}
	e.edit(t, "/w/"+ws+"/undo")
	if n := e.tasks(t, ws); n != n0 {
		t.Errorf("%d tasks after Undo, want %d", n, n0)
	}
}

// TestRubricOfflineThenModel: the dialog shows the tool's six dimensions offline, labelled so,
// with the listing's score; "Score with fake" scores with the model; without an endpoint
// there is no such button.
func TestRubricOfflineThenModel(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	_, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/rubric?t=0", nil)
	if n := strings.Count(dlg, `data-testid="rubric-dim"`); n != 6 {
		t.Errorf("%d dimensions shown, want 6:\n%s", n, dlg)
	}
	for _, want := range []string{offlineLabel, `data-testid="rubric-listing"`, "Score with fake", "at most 8 calls", `data-offline="true"`} {
		if !strings.Contains(dlg, want) {
			t.Errorf("the offline rubric lacks %q", want)
		}
	}
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/rubric?t=0", url.Values{"endpoint": {"fake"}})
	if !strings.Contains(body, "scored by fake-model on endpoint fake") || strings.Count(body, `data-testid="rubric-dim"`) != 6 {
		t.Errorf("the model's rubric:\n%s", body)
	}
	// The server's rubric cache holds every tool now: scoring again costs nothing.
	if _, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/rubric?t=0", nil); !strings.Contains(dlg, "at most 0 calls") {
		t.Errorf("the plan after scoring:\n%s", dlg)
	}
	none := newRunEnvWith(t, nil, RunsConfig{})
	ws = openExample(t, none.s, "library-2-draft")
	if _, dlg := none.call(t, http.MethodGet, "/w/"+ws+"/rubric?t=0", nil); strings.Contains(dlg, "Score with") || !strings.Contains(dlg, offlineLabel) {
		t.Errorf("without an endpoint:\n%s", dlg)
	}
	if _, dlg := none.call(t, http.MethodGet, "/w/"+ws+"/suggest/form?t=0", nil); !strings.Contains(dlg, `data-testid="suggest-configure"`) || strings.Contains(dlg, `data-testid="suggest-form"`) {
		t.Errorf("the Suggest dialog without an endpoint:\n%s", dlg)
	}
}

// TestSuggestSlowModelStopsInTime: a model slower than the request's deadline is stopped before
// it, and the dialog says what happened and what would work, in time to be read.
func TestSuggestSlowModelStopsInTime(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Delay: time.Minute})
	e.s.limit = newLimiter(suggestMargin+time.Second, 0, 0) // a request deadline of 4 s
	ws := openExample(t, e.s, "library-2-draft")
	start := time.Now()
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm())
	if took := time.Since(start); took > suggestMargin+time.Second {
		t.Errorf("the answer took %s, past the request's deadline", took)
	}
	if code != http.StatusOK || !strings.Contains(body, "Asking fake…") || !strings.Contains(body, "did not answer in time") {
		t.Errorf("a slow model: %d %s", code, body)
	}
}

// FuzzPickProposals: whatever indexes a page sends, the tasks picked are proposals that are
// not refused, each at most once, never more than were proposed.
func FuzzPickProposals(f *testing.F) {
	f.Add("0,1")
	f.Add("1,1")
	f.Add("-1")
	f.Add("2,0,9999999999999999999")
	f.Add("")
	props := []drafting.Proposed{{Task: selection.Task{Task: "a"}}, {Task: selection.Task{Task: "b"}, Refused: "names its tool"}, {Task: selection.Task{Task: "c"}}}
	f.Fuzz(func(t *testing.T, s string) {
		ticks := strings.Split(s, ",")
		got, problem := pickProposals(ticks, props)
		if problem != "" {
			if got != nil {
				t.Fatalf("a refusal with tasks: %v", got)
			}
			return
		}
		seen := map[string]bool{}
		for _, g := range got {
			if g.Task == "b" || seen[g.Task] {
				t.Fatalf("picked %q from %q", g.Task, s)
			}
			seen[g.Task] = true
		}
		if len(got) != len(ticks) {
			t.Fatalf("%d picked of %d ticks", len(got), len(ticks))
		}
	})
}

// TestParticipantCopyRefusesDrafting: a workshop participant's copy is scored as it is, and the
// server's endpoints are the teacher's: its dialog refuses to ask, its asks and accepts are
// refused, and its page hides the drafting buttons.
func TestParticipantCopyRefusesDrafting(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	dlg := b.datastar(t, http.MethodGet, "/w/"+ws+"/suggest/form?t=0", nil).Body.String()
	if !strings.Contains(dlg, "your copy in a workshop") || strings.Contains(dlg, `data-testid="suggest-form"`) {
		t.Errorf("the participant's dialog:\n%s", dlg)
	}
	if body := b.form(t, "/w/"+ws+"/suggest?t=0", askForm()).Body.String(); !strings.Contains(body, "your copy in a workshop") {
		t.Errorf("the participant's ask:\n%s", body)
	}
	if body := b.form(t, "/w/"+ws+"/tasks/propose", url.Values{"endpoint": {"fake"}}).Body.String(); !strings.Contains(body, "your copy in a workshop") {
		t.Errorf("the participant's proposal:\n%s", body)
	}
	for _, path := range []string{"/suggest/" + strings.Repeat("a", 32) + "/0/accept", "/tasks/propose/" + strings.Repeat("a", 32) + "/add"} {
		if rec := b.datastar(t, http.MethodPost, "/w/"+ws+path, map[string]any{}); rec.Code != http.StatusForbidden {
			t.Errorf("POST %s on a participant's copy: %d", path, rec.Code)
		}
	}
	if page := b.get(t, "/w/"+ws).Body.String(); !strings.Contains(page, `.draft-btn { display: none !important; }`) {
		t.Error("the participant's page does not hide the drafting buttons")
	}
}
