package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// TestHistoryCoversTasks: a task edit is a revision; a diff shows it task by task, a revision
// shows its tasks, and restoring a revision brings its tasks back.
func TestHistoryCoversTasks(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-2-draft")
	pid := strings.Repeat("e", 32)
	before := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	postAs(t, s, ana, pid, "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Renew my loan, please"})
	head, err := st.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	if head.Kind != store.KindTasks || head.Number != 1 {
		t.Fatalf("the task edit made revision %d of kind %s", head.Number, head.Kind)
	}
	_, evs := getSSE(t, s, "/w/"+id+"/history/diff", map[string]any{"pid": pid, "ra": 0, "rb": 1})
	diff := patched(evs)["rev-detail"]
	rows := find(t, diff, "task-change")
	if len(rows) != 1 || attr(rows[0], "data-kind") != "changed" || !strings.Contains(text(rows[0]), "Renew my loan, please") {
		t.Errorf("task diff: %s", diff)
	}
	if d := find(t, diff, "rev-diff"); len(d) != 1 || attr(d[0], "data-changed") != "true" {
		t.Errorf("a diff of a task edit says nothing changed: %s", diff)
	}
	_, evs = getSSE(t, s, "/w/"+id+"/history/1", map[string]any{"pid": pid})
	if tasks := find(t, patched(evs)["rev-detail"], "rev-task"); len(tasks) == 0 || !strings.Contains(text(tasks[0]), "Renew my loan, please") {
		t.Errorf("revision 1 does not show its tasks")
	}
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/0/tasks.json", nil))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "Renew my loan") {
		t.Errorf("baseline tasks download: %d %.200s", rec.Code, rec.Body.String())
	}
	postAs(t, s, bo, pid, "/w/"+id+"/history/0/restore", map[string]any{"tool": 0})
	if got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String(); got != before {
		t.Errorf("restoring the baseline did not bring its tasks back:\n%s\nwant\n%s", got, before)
	}
}

// TestLiveTaskEdits: Ana's typing in a task reaches Bo's page as that task's fields; when Bo is
// typing in the same task he gets a notice instead, and his field is left alone.
func TestLiveTaskEdits(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	pa, pb := strings.Repeat("a", 32), strings.Repeat("b", 32)
	sb := openStream(t, ts.URL, id, bo, pb, 0)
	openStream(t, ts.URL, id, ana, pa, 0)
	sb.waitFor(t, "ana's presence", func(s string) bool { return strings.Contains(s, ">ana<") })

	sb.reset()
	postAs(t, s, ana, pa, "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"tool": 0, "val": "Check out a book for me"})
	body := sb.waitFor(t, "ana's task text", func(s string) bool { return strings.Contains(s, "Check out a book for me") })
	if !strings.Contains(body, `id="t-1-task"`) || strings.Contains(body, `id="tasks"`) {
		t.Errorf("the other page should get task 1's fields, not the whole table: %.600s", body)
	}

	// Bo types in task 1; Ana changes it again: Bo is told, and his field is not replaced.
	postAs(t, s, bo, pb, "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"tool": 0, "val": "Bo is typing"})
	sb.reset()
	postAs(t, s, ana, pa, "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"tool": 0, "val": "Ana again"})
	body = sb.waitFor(t, "the task notice", func(s string) bool {
		return strings.Contains(s, `data-testid="task-notice"`) && strings.Contains(s, "ana just changed task 2")
	})
	if strings.Contains(body, `id="t-1-task"`) {
		t.Errorf("the task field was replaced under a person typing in it")
	}
	// Another task's edit still reaches him as fields.
	sb.reset()
	postAs(t, s, ana, pa, "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "First task, edited"})
	sb.waitFor(t, "task 0's fields", func(s string) bool {
		return strings.Contains(s, `id="t-0-task"`) && strings.Contains(s, "First task, edited")
	})
	// The notice's button shows the table as it stands.
	_, evs := getSSE(t, s, "/w/"+id+"/tasks/panel", map[string]any{"pid": pb})
	if tbl := patched(evs)["tasks"]; !strings.Contains(tbl, "Ana again") {
		t.Errorf("tasks/panel does not show the current tasks: %.300s", tbl)
	}
}

// TestReplicasDeliverTaskEdits: a task edit on one PostgreSQL replica reaches a page on the
// other as that task's fields.
func TestReplicasDeliverTaskEdits(t *testing.T) {
	s1, id, sb := twoReplicas(t)
	sb.reset()
	postAs(t, s1, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Typed on replica one"})
	body := sb.waitFor(t, "the task edit from replica one", func(s string) bool { return strings.Contains(s, "Typed on replica one") })
	if !strings.Contains(body, `id="t-0-task"`) || strings.Contains(body, `id="tasks"`) {
		t.Errorf("replica two's page should get task 0's fields: %.600s", body)
	}
	postAs(t, s1, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=add&i=0", map[string]any{"tool": 0})
	sb.waitFor(t, "the task table after a task was added", func(s string) bool { return strings.Contains(s, `id="tasks"`) })
}

// TestStaleTaskChangeRefused: a task change sent from a table rendered before a task was added
// or removed (its index may name another task now) is not applied; the page gets the table as it
// stands and its text back.
func TestStaleTaskChangeRefused(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-2-draft")
	page := getPageAs(t, s, bo, "/w/"+id)
	m := regexp.MustCompile(`task\?op=set&amp;i=1&amp;k=task&amp;g=(\d+)`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the task field does not send the table's version")
	}
	g := m[1]
	before := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	// Ana removes task 0: Bo's task 1 is task 0 now.
	postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=del&i=0&g="+g, map[string]any{"tool": 0})
	after := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	if after == before {
		t.Fatal("the removal was not applied")
	}
	// Bo's change reaches another server (a replica, or this one after a restart): it knows too.
	s2 := serverOn(t, st)
	evs := postAs(t, s2, bo, strings.Repeat("b", 32), "/w/"+id+"/task?op=set&i=1&k=task&g="+g, map[string]any{"tool": 0, "val": "Bo's text for the second task"})
	p := patched(evs)
	if n := p["task-notice"]; !strings.Contains(n, "was not saved") || !strings.Contains(n, "Bo&#39;s text for the second task") {
		t.Errorf("the stale change's notice should give the text back: %q", n)
	}
	if _, ok := p["tasks"]; !ok {
		t.Errorf("the page did not get the table as it stands: %v", keys(p))
	}
	if got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String(); got != after {
		t.Errorf("the stale change was applied:\n%s", got)
	}
	// From the table as it stands, the change goes through.
	g2 := regexp.MustCompile(`g=(\d+)`).FindStringSubmatch(p["tasks"])[1]
	postAs(t, s, bo, strings.Repeat("b", 32), "/w/"+id+"/task?op=set&i=0&k=task&g="+g2, map[string]any{"tool": 0, "val": "Bo's text"})
	if got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String(); !strings.Contains(got, "Bo's text") {
		t.Errorf("a change from the current table was refused:\n%s", got)
	}
}

// TestConcurrentTaskEditsKeepBoth: Bo's edit of one task lands between Ana's read of the task
// file and her edit of another task: her edit is made again from his, and both stand.
func TestConcurrentTaskEditsKeepBoth(t *testing.T) {
	base := newTestStore(t)
	rt := &interject{Store: base, method: "PutTasks", when: func(a any) bool { return a.(store.TaskEdit).Base != nil }}
	s := serverOn(t, rt)
	id := openExample(t, s, "library-2-draft")
	rt.arm(func(st store.Store) {
		tf, err := st.Tasks(context.Background(), id)
		if err != nil {
			t.Error(err)
			return
		}
		var tasks []map[string]any
		if err := json.Unmarshal(tf.Body, &tasks); err != nil {
			t.Error(err)
			return
		}
		tasks[2]["task"] = "Bo's edit of task 3"
		b, _ := json.Marshal(tasks)
		if _, err := st.PutTasks(context.Background(), store.TaskEdit{Workspace: id, Author: "bo", AuthorID: bo.id, Body: b, Base: &tf.Seq}); err != nil {
			t.Error(err)
		}
	})
	postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Ana's edit of task 1"})
	got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	if !strings.Contains(got, "Bo's edit of task 3") || !strings.Contains(got, "Ana's edit of task 1") {
		t.Errorf("one of two concurrent task edits was lost:\n%s", got)
	}
	revs, err := base.Revisions(context.Background(), id, store.RevisionPage{})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 3 {
		t.Errorf("%d revisions, want 3 (the baseline, Bo's, Ana's)", len(revs))
	}
}

// TestTaskChangeNotAppliedToShiftedTask: Bo removes a task between Ana's read of the task file
// and her edit of a later task: her edit (made by index) is refused with her text given back,
// never written into the task that moved up; and two removals of one task remove one.
func TestTaskChangeNotAppliedToShiftedTask(t *testing.T) {
	base := newTestStore(t)
	rt := &interject{Store: base, method: "PutTasks", when: func(a any) bool { return a.(store.TaskEdit).Base != nil }}
	s := serverOn(t, rt)
	id := openExample(t, s, "library-2-draft")
	g := taskShapeRe.FindStringSubmatch(getPageAs(t, s, ana, "/w/"+id))[1]
	before := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	rt.arm(func(st store.Store) {
		tf, err := st.Tasks(context.Background(), id)
		if err != nil {
			t.Error(err)
			return
		}
		var tasks []json.RawMessage
		_ = json.Unmarshal(tf.Body, &tasks)
		b, _ := json.Marshal(tasks[1:]) // Bo removes task 1
		if _, err := st.PutTasks(context.Background(), store.TaskEdit{Workspace: id, Author: "bo", AuthorID: bo.id, Body: b, Base: &tf.Seq}); err != nil {
			t.Error(err)
		}
	})
	evs := postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=set&i=1&k=task&g="+g, map[string]any{"tool": 0, "val": "Ana's edit of task 2"})
	if n := patched(evs)["task-notice"]; !strings.Contains(n, "Ana&#39;s edit of task 2") {
		t.Errorf("the refused change should give the text back: %q", n)
	}
	got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	if strings.Contains(got, "Ana's edit") {
		t.Errorf("Ana's edit was applied to the task that moved into its place:\n%s", got)
	}
	if got == before {
		t.Error("Bo's removal was lost")
	}
	// Both remove (what they see as) task 1 from the same table: one task goes.
	g = taskShapeRe.FindStringSubmatch(getPageAs(t, s, ana, "/w/"+id))[1]
	count := func() int {
		var ts []any
		_ = json.Unmarshal(do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.Bytes(), &ts)
		return len(ts)
	}
	n0 := count()
	postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=del&i=0&g="+g, map[string]any{"tool": 0})
	postAs(t, s, bo, strings.Repeat("b", 32), "/w/"+id+"/task?op=del&i=0&g="+g, map[string]any{"tool": 0})
	if n := count(); n != n0-1 {
		t.Errorf("two removals of one task from one table left %d tasks of %d", n, n0)
	}
}

// TestTaskRowsOfOthersReachEveryPage: a task edit that lands while Ana's is being made (another
// replica's, say) reaches every page, Ana's too, with Ana's own: pages show what differs from
// what they showed, not only what the last edit set.
func TestTaskRowsOfOthersReachEveryPage(t *testing.T) {
	base := newTestStore(t)
	rt := &interject{Store: base, method: "PutTasks", when: func(a any) bool { return a.(store.TaskEdit).Base != nil }}
	s := serverOn(t, rt)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	cy := person{"cy", strings.Repeat("c3", 16)}
	sc := openStream(t, ts.URL, id, cy, strings.Repeat("c", 32), 0)
	sc.waitFor(t, "cy's page", func(s string) bool { return strings.Contains(s, ">cy<") })
	rt.arm(func(st store.Store) {
		tf, _ := st.Tasks(context.Background(), id)
		var tasks []map[string]any
		_ = json.Unmarshal(tf.Body, &tasks)
		tasks[2]["task"] = "Bo's edit of task 3"
		b, _ := json.Marshal(tasks)
		if _, err := st.PutTasks(context.Background(), store.TaskEdit{Workspace: id, Author: "bo", AuthorID: bo.id, Field: "/2/task", Body: b, Base: &tf.Seq}); err != nil {
			t.Error(err)
		}
	})
	sc.reset()
	evs := postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Ana's edit of task 1"})
	if got := patched(evs)["t-2-task"]; !strings.Contains(got, "Bo&#39;s edit of task 3") {
		t.Errorf("Ana's page did not get Bo's task: %v", keys(patched(evs)))
	}
	if _, ok := patched(evs)["t-0-task"]; ok {
		t.Error("Ana's own field was replaced under her typing")
	}
	sc.waitFor(t, "both tasks on cy's page", func(s string) bool {
		return strings.Contains(s, "Bo&#39;s edit of task 3") && strings.Contains(s, "Ana&#39;s edit of task 1")
	})
}

// TestUndoButtonsFollowThePerson: Ana's edit in one tab enables Undo in her other tab, not in
// Bo's; a refused undo disables the button it used.
func TestUndoButtonsFollowThePerson(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	a2 := openStream(t, ts.URL, id, ana, strings.Repeat("d", 32), 1)
	b1 := openStream(t, ts.URL, id, bo, strings.Repeat("b", 32), 1)
	b1.waitFor(t, "ana's second tab", func(s string) bool { return strings.Contains(s, ">ana<") })
	a2.reset()
	b1.reset()
	postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Ana's text"})
	body := a2.waitFor(t, "ana's other tab's buttons", func(s string) bool { return strings.Contains(s, `id="history"`) })
	if m := regexp.MustCompile(`<button[^>]*data-testid="undo"[^>]*>`).FindString(body); m == "" || strings.Contains(m, "disabled") {
		t.Errorf("Ana's other tab: undo not enabled: %q", m)
	}
	if strings.Contains(b1.waitFor(t, "the edit on bo's page", func(s string) bool { return strings.Contains(s, `id="tool-row-0"`) }), `id="history"`) {
		t.Error("Bo's page got Ana's undo buttons")
	}
	// Bo overwrites; Ana's undo is refused and her button goes off.
	postAs(t, s, bo, strings.Repeat("b", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Bo's text"})
	a2.reset()
	evs := postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/undo", map[string]any{"tool": 0})
	h := patched(evs)["history"]
	if m := regexp.MustCompile(`<button[^>]*data-testid="undo"[^>]*>`).FindString(h); !strings.Contains(m, "disabled") {
		t.Errorf("after a refused undo with nothing left, the button should be off: %q", h)
	}
	a2.waitFor(t, "the button off on ana's other tab", func(s string) bool {
		return strings.Contains(regexp.MustCompile(`<button[^>]*data-testid="undo"[^>]*>`).FindString(s[max(0, strings.LastIndex(s, `id="history"`)):]), "disabled")
	})
}

// TestUndoOneTaskKeepsAnother: Ana's undo of her task edit takes back her task only, though Bo
// edited another task since.
func TestUndoOneTaskKeepsAnother(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-2-draft")
	before := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Ana's task"})
	postAs(t, s, bo, strings.Repeat("b", 32), "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"tool": 0, "val": "Bo's task"})
	evs := postAs(t, s, ana, strings.Repeat("a", 32), "/w/"+id+"/undo", map[string]any{"tool": 0})
	if n := patched(evs)["field-notice"]; strings.Contains(n, "refused") {
		t.Fatalf("Ana's undo was refused: %s", n)
	}
	got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()
	if strings.Contains(got, "Ana's task") || !strings.Contains(got, "Bo's task") {
		t.Errorf("after Ana's undo:\n%s", got)
	}
	var b, g []map[string]any
	_ = json.Unmarshal([]byte(before), &b)
	_ = json.Unmarshal([]byte(got), &g)
	if len(b) != len(g) || b[0]["task"] != g[0]["task"] {
		t.Errorf("Ana's task is not back to %q: %q", b[0]["task"], g[0]["task"])
	}
}

// taskShapeRe finds the task table's version in a page (the tools' shapes use g= too).
var taskShapeRe = regexp.MustCompile(`task\?op=[a-z]+&amp;i=\d+(?:&amp;k=[a-z]+)?&amp;g=(\d+)`)
