package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
)

// TestDraftAskOverMaxCallsRefused: an ask whose plan is over drafting.MaxCalls is refused
// before any call, with the number of calls and what to lower; the form's plan line says so
// as the form changes; a rubric of more unscored tools than the cap is refused likewise.
func TestDraftAskOverMaxCallsRefused(t *testing.T) {
	m := &fakemodel.Server{}
	e := newDraftEnv(t, m)
	ws := openExample(t, e.s, "library-2-draft")
	big := askForm("k", "8", "run", "on", "samples", "100")
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", big)
	for _, want := range []string{fmt.Sprintf("more than the %d", drafting.MaxCalls), "lower the candidates (now 8)", "samples per task (now 100)", "untick the model run"} {
		if !strings.Contains(body, want) {
			t.Errorf("the over-cap ask lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Asking fake") || m.Requests() != 0 {
		t.Errorf("the over-cap ask made %d calls (or said it was asking)", m.Requests())
	}
	if _, plan := e.call(t, http.MethodPost, "/w/"+ws+"/suggest/plan?t=0", big); !strings.Contains(plan, "more than the") {
		t.Errorf("the plan line of an over-cap form:\n%s", plan)
	}

	// A listing of MaxCalls+1 tools: the rubric with a model would be one call per tool.
	var tools []string
	for i := range drafting.MaxCalls + 1 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"Reads record %d of the archive by its id.","inputSchema":{"type":"object"}}`, i, i))
	}
	ts := httptest.NewServer(e.s.Handler())
	defer ts.Close()
	loc := postListingHTTP(t, ts.URL, []byte(`{"tools":[`+strings.Join(tools, ",")+`]}`))
	_, body = e.call(t, http.MethodPost, loc+"/rubric?t=0", url.Values{"endpoint": {"fake"}})
	if !strings.Contains(body, fmt.Sprintf("%d tools not scored", drafting.MaxCalls+1)) || !strings.Contains(body, "more than the") {
		t.Errorf("the over-cap rubric:\n%.2000s", body)
	}
	if m.Requests() != 0 {
		t.Errorf("the over-cap rubric made %d calls", m.Requests())
	}
}

// toolName reads tool i's name as stored.
func (e *runEnv) toolName(t *testing.T, ws string, i int) string {
	t.Helper()
	w, err := e.s.store.Get(t.Context(), ws, Author{})
	if err != nil {
		t.Fatal(err)
	}
	return w.Listing.Tools[i].Get("name").String()
}

// askAsync posts the Suggest form for ws under ctx and sends its answer on out.
func (e *runEnv) askAsync(ctx context.Context, ws string, out chan<- string) {
	req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/suggest?t=0", strings.NewReader(askForm().Encode())).WithContext(ctx)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Datastar-Request", "true")
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	out <- rec.Body.String()
}

// TestDraftGateKeepsPagesAnswering: one editor asking a slow endpoint eight times at once gets
// two asks in flight for the workspace and "busy" at once for the rest; two more workspaces'
// asks fill the server's four, and a fifth is told the model is busy; meanwhile the asks
// waiting on the model hold no request slot, and pages answer.
func TestDraftGateKeepsPagesAnswering(t *testing.T) {
	m := &fakemodel.Server{Delay: time.Minute}
	e := newDraftEnv(t, m)
	e.s.limit = newLimiter(time.Minute, 8, 0) // the default slots on two cores
	a, b, c := openExample(t, e.s, "library-2-draft"), openExample(t, e.s, "library-2-draft"), openExample(t, e.s, "library-2-draft")
	ctx, cancel := context.WithCancel(t.Context())
	out := make(chan string, 16)
	defer func() {
		cancel()
		for range 4 { // the asks in flight end with the context
			<-out
		}
	}()
	for range 8 {
		go e.askAsync(ctx, a, out)
	}
	for i := range 6 {
		select {
		case body := <-out:
			if !strings.Contains(body, "The model is busy with 2 other requests; try again in a moment.") {
				t.Errorf("ask over the workspace's bound %d:\n%s", i, body)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 6 asks over the bound were answered at once", i)
		}
	}
	go e.askAsync(ctx, b, out)
	go e.askAsync(ctx, b, out)
	waitFor(t, func() bool { return m.Requests() >= 4 }, "four asks in flight")
	go e.askAsync(ctx, c, out)
	if body := <-out; !strings.Contains(body, "The model is busy with 4 other requests") {
		t.Errorf("a fifth ask on the server:\n%s", body)
	}
	if n := len(e.s.limit.slots); n != 0 {
		t.Errorf("%d request slots held while the asks wait on the model, want 0", n)
	}
	for _, ws := range []string{a, c} {
		if code, _ := e.call(t, http.MethodGet, "/w/"+ws, nil); code != http.StatusOK {
			t.Errorf("a page while four asks wait on the model: HTTP %d", code)
		}
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestRubricPlanRefreshedAfterScoring: scoring with an endpoint answers with the endpoint's
// plan line anew: every tool is kept now, so "at most 0 calls", not the stale count.
func TestRubricPlanRefreshedAfterScoring(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	if _, dlg := e.call(t, http.MethodGet, "/w/"+ws+"/rubric?t=0", nil); !strings.Contains(dlg, `id="rubric-plan-0"`) || !strings.Contains(dlg, "at most 8 calls") {
		t.Fatalf("the dialog's plan line:\n%s", dlg)
	}
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/rubric?t=0", url.Values{"endpoint": {"fake"}})
	i := strings.LastIndex(body, `id="rubric-plan-0"`)
	if i < 0 || !strings.Contains(body[i:], "at most 0 calls") {
		t.Errorf("the answer does not refresh the plan line:\n%s", body)
	}
}
