package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// The seeds' confusing fixture, read in place, and the honest rewrites the CLI's recorded
// improvement proposes (cmd/workbench/testdata/improve).
const (
	improveFixtures = "/work/shared/reference/fixtures"
	improveRewrites = "../cmd/workbench/testdata/improve/rewrites.json"
)

// confusingWorkspace creates a workspace of the confusing fixture with its tasks.
func confusingWorkspace(t *testing.T, e *runEnv) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(improveFixtures, "confusing-tools.json"))
	if err != nil {
		t.Skipf("the seeds' fixture: %v", err)
	}
	l, err := listing.Parse(src, listing.Options{Name: "confusing-tools.json"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(filepath.Join(improveFixtures, "tasks-confusing.json"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(tb, false)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := e.s.store.Create(context.Background(), "confusing", l, tasks, Author{Name: "test"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return ws.ID
}

func honestRewrites(t *testing.T) map[string][]string {
	t.Helper()
	var m map[string][]string
	b, err := os.ReadFile(improveRewrites)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// improveValues is the Improve dialog's form as a page sends it.
func improveValues(kv ...string) url.Values {
	v := url.Values{"endpoint": {"fake"}, "rounds": {"2"}, "samples": {"1"}, "heldout": {"0.5"}, "maxcalls": {"300"}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

var improveJobPath = regexp.MustCompile(`/w/[0-9a-f]{32}/tasks/improve/([0-9a-f]{32})`)

// waitImprove polls the job's status route, as the dialog does, until the loop ended, and
// returns the last answer.
func waitImprove(t *testing.T, e *runEnv, ws, jid string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, body := e.call(t, http.MethodGet, "/w/"+ws+"/tasks/improve/"+jid, nil)
		if code != http.StatusOK {
			t.Fatalf("status: %d %s", code, body)
		}
		if !strings.Contains(body, `data-status="running"`) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("the improvement did not end:\n%s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startImprove opens the dialog, starts the loop and returns its job id: the answer comes at
// once, running, with the poll that reads its status.
func startImprove(t *testing.T, e *runEnv, ws string, form url.Values) string {
	t.Helper()
	code, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/tasks/improve", nil)
	if code != http.StatusOK || !strings.Contains(dlg, `data-testid="improve-form"`) || !strings.Contains(dlg, "the baseline and final runs need") {
		t.Fatalf("the dialog: %d %s", code, dlg)
	}
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve", form)
	if code != http.StatusOK || !strings.Contains(body, `data-testid="improve-poll"`) {
		t.Fatalf("start: %d %s", code, body)
	}
	m := improveJobPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no job in the answer:\n%s", body)
	}
	return m[1]
}

// TestImproveApplyUndo: with a model that proposes honest rewrites, the loop raises held-out
// accuracy on the confusing fixture; the report says by how much with its interval and
// McNemar p and shows the word diffs; Apply stores the changed descriptions as one revision,
// Undo takes it back, and after a changed tool Apply is refused in words.
func TestImproveApplyUndo(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Rewrites: honestRewrites(t)})
	ws := confusingWorkspace(t, e)
	before := make([]string, 4)
	for i := range before {
		before[i] = e.description(t, ws, i)
	}
	jid := startImprove(t, e, ws, improveValues())
	body := waitImprove(t, e, ws, jid)
	for _, want := range []string{`data-status="improved"`, "Held-out accuracy rose from", "McNemar p", "difference 95% interval",
		`data-testid="improve-attempt"`, `data-testid="improve-diff"`, "<ins>", `data-testid="improve-apply"`, "verdict: "} {
		if !strings.Contains(body, want) {
			t.Errorf("the report lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, `data-testid="improve-poll"`) {
		t.Error("an ended improvement still polls")
	}
	j := e.s.drafts.improves.get(ws, time.Now())
	changed := j.changed(j.snapshot().rep)
	if len(changed) == 0 {
		t.Fatal("improved, but no tool changed")
	}
	code, ans := e.edit(t, "/w/"+ws+"/tasks/improve/"+jid+"/apply")
	if code != http.StatusOK || !strings.Contains(ans, `data-testid="draft-done"`) || !strings.Contains(ans, "1 revision stored") {
		t.Fatalf("apply: %d %s", code, ans)
	}
	for _, ch := range changed {
		if got := e.description(t, ws, ch.index); got != ch.new {
			t.Errorf("after Apply %s reads %q, want %q", ch.name, got, ch.new)
		}
	}
	revs, err := e.db.Revisions(context.Background(), ws, store.RevisionPage{Limit: 1})
	if err != nil || len(revs) == 0 || !strings.HasPrefix(revs[0].Message, "Apply improved descriptions of ") {
		t.Errorf("the last revision: %+v %v", revs, err)
	}
	if code, _ := e.edit(t, "/w/"+ws+"/undo"); code != http.StatusOK {
		t.Fatalf("undo: %d", code)
	}
	for i, want := range before {
		if got := e.description(t, ws, i); got != want {
			t.Errorf("after Undo tool %d reads %q, want %q back", i, got, want)
		}
	}
	// A job applies once: after Undo, its Apply (a stale dialog, a replayed POST) is refused.
	code, ans = e.edit(t, "/w/"+ws+"/tasks/improve/"+jid+"/apply")
	if code != http.StatusOK || !strings.Contains(ans, "already applied once; run the improvement again") || strings.Contains(ans, "1 revision stored") {
		t.Fatalf("apply after Undo: %d %s", code, ans)
	}
	for i, want := range before {
		if got := e.description(t, ws, i); got != want {
			t.Errorf("after a refused second Apply tool %d reads %q, want %q", i, got, want)
		}
	}
	for what, b := range map[string]string{"report": body, "apply": ans, "log": e.log.String()} {
		if strings.Contains(b, testKey) {
			t.Errorf("the %s carries the key", what)
		}
	}
}

// TestImproveStuffingOffersNothing: a model that stuffs keywords wins training tasks only; the
// held-out tasks catch it, the report says there is no improvement, and there is nothing to
// apply (the route refuses too).
func TestImproveStuffingOffersNothing(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Mode: fakemodel.Stuffing})
	ws := confusingWorkspace(t, e)
	before := e.description(t, ws, 0)
	jid := startImprove(t, e, ws, improveValues())
	body := waitImprove(t, e, ws, jid)
	if !strings.Contains(body, `data-status="not-improved"`) || !strings.Contains(body, `data-testid="improve-nothing"`) {
		t.Errorf("the report:\n%s", body)
	}
	if strings.Contains(body, `data-testid="improve-apply"`) || strings.Contains(body, `data-testid="improve-diff"`) {
		t.Errorf("a report with no improvement offers a change:\n%s", body)
	}
	code, ans := e.edit(t, "/w/"+ws+"/tasks/improve/"+jid+"/apply")
	if code != http.StatusOK || !strings.Contains(ans, "nothing to apply") {
		t.Errorf("apply: %d %s", code, ans)
	}
	if got := e.description(t, ws, 0); got != before {
		t.Errorf("the description changed to %q", got)
	}
}

// TestImproveCancelAndOneAtATime: a slow model's loop runs in the background; a second start
// on the workspace is refused in words; Cancel stops it and the dialog says so.
func TestImproveCancelAndOneAtATime(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Chooser: fake.Server{Delay: 300 * time.Millisecond}})
	ws := confusingWorkspace(t, e)
	jid := startImprove(t, e, ws, improveValues())
	code, again := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve", improveValues())
	if code != http.StatusOK || !strings.Contains(again, "already running on this workspace") {
		t.Errorf("a second start: %d %s", code, again)
	}
	code, ans := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve/"+jid+"/cancel", nil)
	if code != http.StatusOK {
		t.Fatalf("cancel: %d %s", code, ans)
	}
	body := waitImprove(t, e, ws, jid)
	if !strings.Contains(body, "Cancelled") || strings.Contains(body, `data-testid="improve-apply"`) {
		t.Errorf("after Cancel:\n%s", body)
	}
}

// TestImproveFormProblems: the plan and the start say what is wrong with the form.
func TestImproveFormProblems(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := confusingWorkspace(t, e)
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{improveValues("rounds", "9"), "Rounds must be a whole number from 1 to 5"},
		{improveValues("heldout", "1"), "held-out share must be a number from 0.1 to 0.9"},
		{improveValues("maxcalls", "3"), "cannot pay for the baseline run"},
		{improveValues("endpoint", "nope"), "No endpoint is named"},
	} {
		_, body := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve", tc.form)
		if !strings.Contains(body, tc.want) || strings.Contains(body, `data-testid="improve-poll"`) {
			t.Errorf("%v: %s", tc.form, body)
		}
	}
	_, plan := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve/plan", improveValues("rounds", "1"))
	if !strings.Contains(plan, `data-testid="improve-plan"`) || !strings.Contains(plan, "At most") {
		t.Errorf("the plan: %s", plan)
	}
}

// TestImproveRefusedToViewers: a view link's dialog says why it cannot improve and offers no
// form; its posts are refused without a call to the model.
func TestImproveRefusedToViewers(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	m := &fakemodel.Server{Key: testKey}
	r := newRig(t, Config{Auth: AuthConfig{Mode: AuthToken, Token: adminToken},
		Runs: RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: m}, Retries: -1}})
	b := r.visitor()
	b.get(t, "/s/"+r.link(t, store.CanView).Token)
	dlg := b.datastar(t, http.MethodGet, "/w/"+r.ws+"/tasks/improve", nil).Body.String()
	if !strings.Contains(dlg, `data-testid="improve-refused"`) || strings.Contains(dlg, `data-testid="improve-form"`) {
		t.Errorf("a viewer's dialog:\n%s", dlg)
	}
	if rec := b.form(t, "/w/"+r.ws+"/tasks/improve", improveValues()); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's start: %d %s", rec.Code, rec.Body.String())
	}
	for _, p := range []string{"cancel", "apply"} {
		if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/tasks/improve/"+strings.Repeat("a", 32)+"/"+p, map[string]any{}); rec.Code != http.StatusForbidden {
			t.Errorf("a viewer's %s: %d", p, rec.Code)
		}
	}
	if rec := b.datastar(t, http.MethodGet, "/w/"+r.ws+"/tasks/improve/"+strings.Repeat("a", 32), nil); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's status: %d", rec.Code)
	}
	if n := m.Requests(); n != 0 {
		t.Errorf("the model was called %d times for a viewer", n)
	}
}

// TestImproveHostileTextIsInert: what a model wrote reaches the progress lines and the report
// escaped, and no CR reaches the event stream.
func TestImproveHostileTextIsInert(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Rewrites: map[string][]string{"get_data": {hostileModelText}, "find": {hostileModelText}}})
	ws := confusingWorkspace(t, e)
	jid := startImprove(t, e, ws, improveValues())
	body := waitImprove(t, e, ws, jid)
	if !strings.Contains(body, `data-testid="improve-report"`) {
		t.Fatalf("no report:\n%s", body)
	}
	for _, bad := range []string{"<img src=x", `data-on:click="@post('/x')"`, "</script><img", "\r", "\ndata: signals {pwned"} {
		if strings.Contains(body, bad) {
			t.Errorf("the report carries %q raw", bad)
		}
	}
	if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the report does not show the model's text escaped:\n%s", body)
	}
}

// TestImproveRefusedToParticipants: a workshop participant's copy is scored as it is and the
// server's endpoints are the teacher's: the dialog, the start, the status, Cancel and Apply
// are refused.
func TestImproveRefusedToParticipants(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	dlg := b.datastar(t, http.MethodGet, "/w/"+ws+"/tasks/improve", nil).Body.String()
	if !strings.Contains(dlg, "your copy in a workshop") || strings.Contains(dlg, `data-testid="improve-form"`) {
		t.Errorf("the participant's dialog:\n%s", dlg)
	}
	if body := b.form(t, "/w/"+ws+"/tasks/improve", improveValues()).Body.String(); !strings.Contains(body, "your copy in a workshop") ||
		strings.Contains(body, `data-testid="improve-poll"`) {
		t.Errorf("the participant's start:\n%s", body)
	}
	jid := strings.Repeat("a", 32)
	for _, p := range []string{"/cancel", "/apply"} {
		if rec := b.datastar(t, http.MethodPost, "/w/"+ws+"/tasks/improve/"+jid+p, map[string]any{}); rec.Code != http.StatusForbidden {
			t.Errorf("%s on a participant's copy: %d", p, rec.Code)
		}
	}
	if rec := b.datastar(t, http.MethodGet, "/w/"+ws+"/tasks/improve/"+jid, nil); rec.Code != http.StatusForbidden {
		t.Errorf("the status on a participant's copy: %d", rec.Code)
	}
}

// TestImproveServerBound: a server runs at most maxImprovesRunning improvements at once; a
// dialog opened again while one runs shows it, still polling.
func TestImproveServerBound(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Chooser: fake.Server{Delay: 300 * time.Millisecond}})
	var running []string
	for range maxImprovesRunning {
		ws := confusingWorkspace(t, e)
		running = append(running, ws, startImprove(t, e, ws, improveValues()))
	}
	ws := confusingWorkspace(t, e)
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve", improveValues())
	if !strings.Contains(body, "its most at once") || strings.Contains(body, `data-testid="improve-poll"`) {
		t.Errorf("a start past the server's bound:\n%s", body)
	}
	_, dlg := e.call(t, http.MethodGet, "/w/"+running[0]+"/tasks/improve", nil)
	if !strings.Contains(dlg, `data-testid="improve-poll"`) || !strings.Contains(dlg, running[1]) {
		t.Errorf("the dialog opened again does not show the running improvement:\n%s", dlg)
	}
	for i := 0; i < len(running); i += 2 {
		e.call(t, http.MethodPost, "/w/"+running[i]+"/tasks/improve/"+running[i+1]+"/cancel", nil)
		waitImprove(t, e, running[i], running[i+1])
	}
}

// TestImproveNoEndpoint: a server with no endpoint says how to configure one, and offers no form.
func TestImproveNoEndpoint(t *testing.T) {
	s := newServer(t)
	ws := openExample(t, s, "library-2-draft")
	req := httptest.NewRequest(http.MethodGet, "/w/"+ws+"/tasks/improve", nil)
	req.Header.Set("Datastar-Request", "true")
	rec := do(t, s, req)
	body := rec.Body.String()
	if !strings.Contains(body, `data-testid="improve-configure"`) || !strings.Contains(body, "--endpoints FILE") || strings.Contains(body, `data-testid="improve-form"`) {
		t.Errorf("the dialog with no endpoint: %d\n%s", rec.Code, body)
	}
}
