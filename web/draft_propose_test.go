package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
)

// propose asks for a proposal of ws and returns its id and the indexes of its usable tasks
// (expecting want, when want is not "").
func (e *runEnv) propose(t *testing.T, ws, want string) (string, []string) {
	t.Helper()
	_, body := e.call(t, http.MethodPost, "/w/"+ws+"/tasks/propose", url.Values{"endpoint": {"fake"}, "per": {"1"}})
	m := addPath.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no Add form:\n%s", body)
	}
	var ok []string
	for i, p := range e.s.drafts.proposal(ws, m[1]).tasks {
		if p.Refused == "" && len(ok) < 2 && (want == "" || expectName(p.Task.Expect) == want) {
			ok = append(ok, strconv.Itoa(i))
		}
	}
	if len(ok) == 0 {
		t.Fatalf("no usable proposal expecting %q", want)
	}
	return m[1], ok
}

// TestProposeAddTwiceAddsOnce: "Add ticked" a second time on the same proposals answers
// "already added"; the same tasks ticked in another proposal are refused as already in the
// task file; neither adds a task.
func TestProposeAddTwiceAddsOnce(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	n0 := e.tasks(t, ws)
	pid, ok := e.propose(t, ws, "")
	other, _ := e.propose(t, ws, "") // asked before the add: it proposes the same tasks
	if code, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+pid+"/add", url.Values{"pick": ok}); code != http.StatusOK || !strings.Contains(ans, "draft-done") {
		t.Fatalf("add: %d %s", code, ans)
	}
	if _, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+pid+"/add", url.Values{"pick": ok}); !strings.Contains(ans, "already added") {
		t.Errorf("the second add of the same proposals:\n%s", ans)
	}
	if _, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+other+"/add", url.Values{"pick": ok}); !strings.Contains(ans, "already in the task file") {
		t.Errorf("the same tasks from another proposal:\n%s", ans)
	}
	if n := e.tasks(t, ws); n != n0+len(ok) {
		t.Errorf("%d tasks after adding %d to %d: duplicates added", n, len(ok), n0)
	}
}

// TestProposeAddAfterRenameRefused: proposals made before their tool was renamed expect a name
// the listing no longer has: adding them is refused in words, and nothing is added.
func TestProposeAddAfterRenameRefused(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{})
	ws := openExample(t, e.s, "library-2-draft")
	old := e.toolName(t, ws, 0)
	pid, ok := e.propose(t, ws, old)
	n0 := e.tasks(t, ws)
	e.editVal(t, "/w/"+ws+"/edit?t=0&f=name", "renamed_lookup")
	if got := e.toolName(t, ws, 0); got != "renamed_lookup" {
		t.Fatalf("the rename did not land: %q", got)
	}
	_, ans := e.editForm(t, "/w/"+ws+"/tasks/propose/"+pid+"/add", url.Values{"pick": ok})
	if !strings.Contains(ans, "no longer has") || !strings.Contains(ans, old) {
		t.Errorf("adding proposals that expect the old name:\n%s", ans)
	}
	if n := e.tasks(t, ws); n != n0 {
		t.Errorf("%d tasks, want %d: proposals expecting a renamed tool were added", n, n0)
	}
}

// editVal posts the page's signals with $val to path as one person (an editor's field edit).
func (e *runEnv) editVal(t *testing.T, path, val string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path,
		strings.NewReader(`{"pid":"`+strings.Repeat("c", 32)+`","tool":0,"ver":0,"val":`+strconv.Quote(val)+`}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	return rec.Code
}
