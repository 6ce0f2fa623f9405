package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

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
