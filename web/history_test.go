package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/postgres"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// newTestStore opens a SQLite store on a file in a fresh temporary directory, closed when the
// test ends.
func newTestStore(t testing.TB) store.Store {
	t.Helper()
	return openSQLite(t, filepath.Join(t.TempDir(), "workbench.db"))
}

func openSQLite(t testing.TB, path string) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open SQLite store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// serverOn is a web server on st.
func serverOn(t testing.TB, st store.Store) *Server {
	t.Helper()
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: st, Engine: eng, DatastarJS: []byte("// test client")})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// person is one browser: its author cookie makes it one person to undo and presence.
type person struct {
	name, id string
}

func (p person) cookies(req *http.Request) *http.Request {
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: p.id})
	req.AddCookie(&http.Cookie{Name: cookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(p.name))})
	return req
}

var (
	ana = person{"ana", strings.Repeat("a1", 16)}
	bo  = person{"bo", strings.Repeat("b2", 16)}
)

// getPageAs gets a page as a person.
func getPageAs(t testing.TB, s *Server, who person, path string) string {
	t.Helper()
	rec := do(t, s, who.cookies(httptest.NewRequest(http.MethodGet, path, nil)))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d: %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// postAs posts signals as a person with a page id.
func postAs(t testing.TB, s *Server, who person, pid, path string, sg map[string]any) []event {
	t.Helper()
	if sg == nil {
		sg = map[string]any{}
	}
	sg["pid"] = pid
	b := sigJSON(sg)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	rec := do(t, s, who.cookies(req))
	if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
		t.Fatalf("POST %s: status %d: %s", path, rec.Code, rec.Body.String())
	}
	return parseSSE(t, rec.Body.String())
}

func getSSE(t testing.TB, s *Server, path string, sg map[string]any) (int, []event) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path+"?datastar="+url.QueryEscape(sigJSON(sg)), nil)
	req.Header.Set("Datastar-Request", "true")
	rec := do(t, s, req)
	return rec.Code, parseSSE(t, rec.Body.String())
}

func sigJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func headDescription(t testing.TB, st store.Store, id string, tool int) string {
	t.Helper()
	rev, err := st.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	return rev.Listing.Tools[tool].Get("description").String()
}

// TestEditSurvivesRestart edits through one server, then reads through a new server on the same
// database file.
func TestEditSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wb.db")
	st1, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s1 := serverOn(t, st1)
	id := openExample(t, s1, "library-2-draft")
	desc := "Show one book's full record by its catalog id. Kept across restarts."
	postAs(t, s1, ana, strings.Repeat("c", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": desc})
	postAs(t, s1, ana, strings.Repeat("c", 32), "/w/"+id+"/task?op=set&i=0&k=task", map[string]any{"tool": 0, "val": "Renew my loan please"})
	if err := st1.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := serverOn(t, openSQLite(t, path))
	page := getPage(t, s2, "/w/"+id)
	ta := find(t, page, "f-desc")
	if len(ta) != 1 || ta[0].FirstChild == nil || ta[0].FirstChild.Data != desc {
		t.Errorf("after a restart the description is not the edited one")
	}
	rec := do(t, s2, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil))
	if !strings.Contains(rec.Body.String(), "Renew my loan please") {
		t.Errorf("after a restart the task edit is lost: %s", rec.Body.String())
	}

	// Undo is kept by the store: after the restart Ana's buttons are live and her two steps
	// come back in order, the task edit first.
	if b := find(t, getPageAs(t, s2, ana, "/w/"+id), "undo"); len(b) != 1 || hasAttr(b[0], "disabled") {
		t.Errorf("after a restart Ana's undo button is not enabled")
	}
	if b := find(t, getPageAs(t, s2, bo, "/w/"+id), "undo"); len(b) != 1 || !hasAttr(b[0], "disabled") {
		t.Errorf("Bo, who made no edit, can undo")
	}
	postAs(t, s2, ana, strings.Repeat("c", 32), "/w/"+id+"/undo", map[string]any{"tool": 0})
	rec = do(t, s2, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil))
	if strings.Contains(rec.Body.String(), "Renew my loan please") {
		t.Errorf("undo after a restart did not take back the task edit: %s", rec.Body.String())
	}
	postAs(t, s2, ana, strings.Repeat("c", 32), "/w/"+id+"/undo", map[string]any{"tool": 0})
	if got := headDescription(t, s2.db, id, 0); got == desc {
		t.Errorf("the second undo after a restart did not take back the description")
	}
	// The task edit and its undo are revisions of history, like the listing's.
	revs, err := s2.db.Revisions(context.Background(), id, store.RevisionPage{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range revs {
		kinds = append(kinds, string(r.Kind))
	}
	if got := strings.Join(kinds, " "); got != "edit tasks tasks edit import" {
		t.Errorf("revision kinds, newest first: %s", got)
	}
}

func TestHistoryListViewDiffRestoreName(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-2-draft")
	pid := strings.Repeat("d", 32)
	base := headDescription(t, st, id, 0)
	first := "Show one book by its catalog id."
	postAs(t, s, ana, pid, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": first})
	postAs(t, s, bo, pid, "/w/"+id+"/edit?t=0&f=ann-readOnlyHint", map[string]any{"tool": 0, "val": "false"})

	// List: baseline, ana's edit, bo's annotation.
	code, evs := getSSE(t, s, "/w/"+id+"/history", map[string]any{"pid": pid})
	if code != http.StatusOK {
		t.Fatalf("history: %d", code)
	}
	list := patched(evs)["revisions"]
	revs := find(t, list, "rev")
	if len(revs) != 3 {
		t.Fatalf("revisions listed: %d, want 3: %s", len(revs), list)
	}
	if !strings.Contains(text(revs[0]), "bo") || !strings.Contains(text(revs[1]), "ana") || attr(revs[2], "data-number") != "0" {
		t.Errorf("revisions (newest first, with authors, baseline last): %q | %q | %q", text(revs[0]), text(revs[1]), text(revs[2]))
	}

	// View the baseline.
	_, evs = getSSE(t, s, "/w/"+id+"/history/0", map[string]any{"pid": pid})
	detail := patched(evs)["rev-detail"]
	if tools := find(t, detail, "rev-tool"); len(tools) != 8 || !strings.Contains(text(tools[0]), base) {
		t.Errorf("baseline view: %s", detail)
	}

	// Diff baseline → head: a word diff of the description and the annotation change.
	_, evs = getSSE(t, s, "/w/"+id+"/history/diff", map[string]any{"pid": pid, "ra": "0", "rb": "2"})
	diff := patched(evs)["rev-detail"]
	dd := find(t, diff, "desc-diff")
	if len(dd) != 1 || !strings.Contains(diff, "<ins>") || !strings.Contains(diff, "<del>") {
		t.Fatalf("description diff: %s", diff)
	}
	ch := find(t, diff, "change")
	if len(ch) != 1 || attr(ch[0], "data-kind") != "annotation" || !strings.Contains(text(ch[0]), "/annotations/readOnlyHint") {
		t.Errorf("annotation change: %s", diff)
	}
	// A diff of a revision with itself has no changes; an unknown revision is a 404 with a message.
	_, evs = getSSE(t, s, "/w/"+id+"/history/diff", map[string]any{"pid": pid, "ra": 1, "rb": 1})
	if !strings.Contains(patched(evs)["rev-detail"], `data-changed="false"`) {
		t.Errorf("self diff: %v", patched(evs))
	}
	if code, _ := getSSE(t, s, "/w/"+id+"/history/diff", map[string]any{"pid": pid, "ra": "x", "rb": 1}); code != http.StatusBadRequest {
		t.Errorf("non-numeric revision: %d", code)
	}
	if code, _ := getSSE(t, s, "/w/"+id+"/history/99", map[string]any{"pid": pid}); code != http.StatusNotFound {
		t.Errorf("unknown revision: %d", code)
	}

	// Name revision 1, then restore the baseline: a new revision with the baseline's listing.
	evs = postAs(t, s, ana, pid, "/w/"+id+"/history/1/name", map[string]any{"rname": "release candidate 2"})
	if n := find(t, patched(evs)["rev-list-region"], "rev-name"); len(n) != 1 || text(n[0]) != "release candidate 2" {
		t.Errorf("named revision not listed: %v", patched(evs))
	}
	evs = postAs(t, s, bo, pid, "/w/"+id+"/history/2/name", map[string]any{"rname": "release candidate 2"})
	if p := find(t, patched(evs)["history-problem"], "history-problem"); len(p) != 1 || !strings.Contains(text(p[0]), "not saved") {
		t.Errorf("a used name should be refused with a message: %v", keys(patched(evs)))
	}
	postAs(t, s, ana, pid, "/w/"+id+"/history/0/restore", map[string]any{"tool": 0})
	if got := headDescription(t, st, id, 0); got != base {
		t.Errorf("after restoring the baseline: %q", got)
	}
	revs2, err := st.Revisions(context.Background(), id, store.RevisionPage{})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs2) != 4 || revs2[0].Kind != store.KindRestore || revs2[0].RestoredFrom != 0 || revs2[2].Name != "release candidate 2" {
		t.Errorf("history after restore: %+v", revs2[0])
	}
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/1/listing.json", nil))
	if !strings.Contains(rec.Body.String(), first) {
		t.Errorf("download of revision 1: %.200s", rec.Body.String())
	}
}

// TestUndoIsPerPerson: undo takes back the asker's own last edit, as a new edit, and refuses
// when someone else changed that field since.
func TestUndoIsPerPerson(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-3-clear")
	pa, pb := strings.Repeat("1", 32), strings.Repeat("2", 32)
	base0, base1 := headDescription(t, st, id, 0), headDescription(t, st, id, 1)
	for _, v := range []string{"A", "An", "Ana's"} {
		postAs(t, s, ana, pa, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": v})
	}
	postAs(t, s, bo, pb, "/w/"+id+"/edit?t=1&f=description", map[string]any{"tool": 1, "val": "Bo's"})
	// Ana's undo takes back her burst of typing, not Bo's later edit.
	postAs(t, s, ana, pa, "/w/"+id+"/undo", map[string]any{"tool": 0})
	if d0, d1 := headDescription(t, st, id, 0), headDescription(t, st, id, 1); d0 != base0 || d1 != "Bo's" {
		t.Errorf("after ana's undo: tool 0 %q (want the original), tool 1 %q (want Bo's)", d0, d1)
	}
	postAs(t, s, ana, pa, "/w/"+id+"/redo", map[string]any{"tool": 0})
	if d0 := headDescription(t, st, id, 0); d0 != "Ana's" {
		t.Errorf("after ana's redo: %q", d0)
	}
	// Bo overwrites tool 0: Ana's undo of her (redone) edit is refused, Bo's text stands.
	postAs(t, s, bo, pb, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Bo wins"})
	evs := postAs(t, s, ana, pa, "/w/"+id+"/undo", map[string]any{"tool": 0})
	if n := patched(evs)["field-notice"]; !strings.Contains(n, "someone else changed") {
		t.Errorf("refused undo should say why: %v", keys(patched(evs)))
	}
	if d0 := headDescription(t, st, id, 0); d0 != "Bo wins" {
		t.Errorf("a refused undo changed the field: %q", d0)
	}
	// Bo's undo goes back to Ana's text (his own previous value), then to the original of tool 1.
	postAs(t, s, bo, pb, "/w/"+id+"/undo", map[string]any{"tool": 0})
	postAs(t, s, bo, pb, "/w/"+id+"/undo", map[string]any{"tool": 1})
	if d0, d1 := headDescription(t, st, id, 0), headDescription(t, st, id, 1); d0 != "Ana's" || d1 != base1 {
		t.Errorf("after bo's two undos: %q, %q", d0, d1)
	}
	// Every edit, undos included, is in history.
	edits, err := st.Edits(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 9 {
		t.Errorf("edits in history: %d, want 9 (3 typed, 1, undo, redo, 1, 2 undos)", len(edits))
	}
}

// stream is one page's live SSE stream over real HTTP.
type stream struct {
	mu   sync.Mutex
	buf  strings.Builder
	resp *http.Response
	done chan struct{}
}

func openStream(t testing.TB, base, id string, who person, pid string, tool int) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":%d,"ver":-1}`, pid, tool))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/w/"+id+"/stream?datastar="+q, nil)
	who.cookies(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	st := &stream{resp: resp, done: make(chan struct{})}
	go func() {
		defer close(st.done)
		r := bufio.NewReader(resp.Body)
		for {
			ln, err := r.ReadString('\n')
			st.mu.Lock()
			st.buf.WriteString(ln)
			st.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-st.done })
	return st
}

// waitFor waits until the stream's text satisfies ok, or fails after a generous deadline (a
// correctness bound, not a timing claim).
func (st *stream) waitFor(t testing.TB, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		st.mu.Lock()
		s := st.buf.String()
		st.mu.Unlock()
		if ok(s) {
			return s
		}
		time.Sleep(5 * time.Millisecond)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	t.Fatalf("stream never showed %s; it has: %.2000s", what, st.buf.String())
	return ""
}

func (st *stream) reset() {
	st.mu.Lock()
	st.buf.Reset()
	st.mu.Unlock()
}

// TestLiveEditPresenceAndFieldNotice: two pages on one workspace. Bo's page sees Ana arrive,
// sees her edit, and, while typing in the field she changes, gets a notice instead of a reset.
func TestLiveEditPresenceAndFieldNotice(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close) // after the streams' cleanups: Close waits for open requests
	id := openExample(t, s, "library-2-draft")
	pa, pb := strings.Repeat("a", 32), strings.Repeat("b", 32)
	sb := openStream(t, ts.URL, id, bo, pb, 0)
	sa := openStream(t, ts.URL, id, ana, pa, 2)
	sb.waitFor(t, "ana's presence on tool 2", func(s string) bool {
		return strings.Contains(s, `data-testid="presence"`) && strings.Contains(s, ">ana<") && strings.Contains(s, "loans_check_out")
	})
	_ = sa

	// An edit by Ana to tool 0 arrives at Bo's page (which shows tool 0) as patches. The reset
	// drops the full render Bo's page got on connecting (it too has a verdict-0), so the
	// verdict checked below is the one the edit sent.
	sb.reset()
	postAs(t, s, ana, pa, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Show one book by its catalog id or ISBN."})
	body := sb.waitFor(t, "the edited editor", func(s string) bool { return strings.Contains(s, "Show one book by its catalog id or ISBN.") })
	if !regexp.MustCompile(`id="verdict-0"[^>]*data-status="clear"`).MatchString(body) {
		t.Errorf("the other page did not get the new verdict")
	}

	// Bo types in the description; Ana changes the same field: Bo's page gets the notice and
	// no new editor (which would reset his field).
	postAs(t, s, bo, pb, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Bo is typing"})
	sb.reset()
	postAs(t, s, ana, pa, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Ana again"})
	body = sb.waitFor(t, "the field notice", func(s string) bool { return strings.Contains(s, `data-testid="field-notice"`) })
	if !strings.Contains(body, "ana just changed the field you are typing in") {
		t.Errorf("notice text: %s", body)
	}
	if strings.Contains(body, `id="editor"`) {
		t.Errorf("the editor was re-rendered under a person typing in it")
	}
	if got := headDescription(t, st, id, 0); got != "Ana again" {
		t.Errorf("last writer should win: %q", got)
	}
}

// TestFork copies a workspace with its tasks and history in one click.
func TestFork(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := openExample(t, s, "library-2-draft")
	postAs(t, s, ana, strings.Repeat("e", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Edited before the fork."})
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/fork", nil)
	rec := do(t, s, ana.cookies(req))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("fork: %d %s", rec.Code, rec.Body.String())
	}
	fid := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
	if fid == id || !wsIDPattern.MatchString(fid) {
		t.Fatalf("fork location %q", rec.Header().Get("Location"))
	}
	if got := headDescription(t, st, fid, 0); got != "Edited before the fork." {
		t.Errorf("fork head: %q", got)
	}
	page := getPage(t, s, "/w/"+fid)
	if n := len(find(t, page, "verdict")); n != 9 {
		t.Errorf("the fork has %d tasks, want the 9 of the original", n)
	}
	postAs(t, s, ana, strings.Repeat("e", 32), "/w/"+fid+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Only the fork."})
	if got := headDescription(t, st, id, 0); got != "Edited before the fork." {
		t.Errorf("editing the fork changed the original: %q", got)
	}
	rec = do(t, s, httptest.NewRequest(http.MethodPost, "/w/"+strings.Repeat("0", 32)+"/fork", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("fork of an unknown workspace: %d", rec.Code)
	}
}

// loadEdits has clients edit one workspace at once through the handlers, then checks that
// every edit is in history and that replaying history from the baseline gives the head.
func loadEdits(t *testing.T, servers []*Server, st store.Store, clients, edits int) {
	id := openExample(t, servers[0], "library-3-clear")
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			s := servers[c%len(servers)]
			who := person{fmt.Sprintf("client%02d", c), fmt.Sprintf("%032x", c+1)}
			pid := fmt.Sprintf("%032x", 1000+c)
			tool := c % 8
			for i := 0; i < edits; i++ {
				b := sigJSON(map[string]any{"pid": pid, "tool": tool, "val": fmt.Sprintf("client %d edit %d", c, i)})
				req := httptest.NewRequest(http.MethodPost, fmt.Sprintf("/w/%s/edit?t=%d&f=description", id, tool), strings.NewReader(b))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Datastar-Request", "true")
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, who.cookies(req))
				if rec.Code != http.StatusOK {
					errs <- fmt.Errorf("client %d edit %d: %d %s", c, i, rec.Code, rec.Body.String())
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := st.Edits(ctx, id, 0, clients*edits+10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != clients*edits {
		t.Fatalf("edits in history: %d, want %d", len(all), clients*edits)
	}
	seen := map[string]bool{}
	for i, e := range all {
		if e.Seq != int64(i+1) {
			t.Fatalf("edit %d has seq %d: history has a gap", i, e.Seq)
		}
		seen[e.Ops[0].Value.String()] = true
	}
	for c := 0; c < clients; c++ {
		for i := 0; i < edits; i++ {
			if v := fmt.Sprintf("client %d edit %d", c, i); !seen[v] {
				t.Fatalf("%q is not in history", v)
			}
		}
	}
	base, err := st.Revision(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := base.Listing
	for _, e := range all {
		if l, err = l.ApplyAll(e.Ops); err != nil {
			t.Fatalf("replay edit %d: %v", e.Seq, err)
		}
	}
	head, err := st.Revision(ctx, id, -1)
	if err != nil {
		t.Fatal(err)
	}
	if listing.HashOf(listing.NewArray(l.Tools...)) != listing.HashOf(listing.NewArray(head.Listing.Tools...)) {
		t.Errorf("replaying history in accepted order does not give the head")
	}
	// Each tool ends with the value of the last edit the store accepted for it.
	last := map[int]string{}
	for _, e := range all {
		last[toolOfPtr(e.Ops[0].Path)] = e.Ops[0].Value.String()
	}
	for tool, v := range last {
		if got := head.Listing.Tools[tool].Get("description").String(); got != v {
			t.Errorf("tool %d: head %q, last accepted %q", tool, got, v)
		}
	}
}

// TestLoadManyClientsSQLite is issue 6's load test: 20 clients × 200 edits on one workspace.
func TestLoadManyClientsSQLite(t *testing.T) {
	clients, edits := 20, 200
	if testing.Short() {
		clients, edits = 5, 20
	}
	st := newTestStore(t)
	loadEdits(t, []*Server{serverOn(t, st)}, st, clients, edits)
}

// postgresStores opens n PostgreSQL stores on WORKBENCH_TEST_POSTGRES (n replicas), or skips.
func postgresStores(t *testing.T, n int) []store.Store {
	dsn := os.Getenv("WORKBENCH_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("skipped: set WORKBENCH_TEST_POSTGRES to a PostgreSQL DSN (.ci/services starts one) to run the replica tests")
	}
	var out []store.Store
	for i := 0; i < n; i++ {
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatalf("open PostgreSQL store: %v", err)
		}
		t.Cleanup(func() { _ = st.Close() })
		out = append(out, st)
	}
	return out
}

// TestLoadManyClientsPostgres runs the load test across two replicas on one PostgreSQL database.
func TestLoadManyClientsPostgres(t *testing.T) {
	sts := postgresStores(t, 2)
	clients, edits := 20, 200
	if testing.Short() {
		clients, edits = 5, 20
	}
	loadEdits(t, []*Server{serverOn(t, sts[0]), serverOn(t, sts[1])}, sts[0], clients, edits)
}

// TestReplicasDeliverEachOthersEdits: two web servers on two PostgreSQL store instances (two
// replicas); an edit made through one arrives on a page of the other, and presence crosses too.
func TestReplicasDeliverEachOthersEdits(t *testing.T) {
	sts := postgresStores(t, 2)
	s1, s2 := serverOn(t, sts[0]), serverOn(t, sts[1])
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	ts1 := httptest.NewServer(s1.Handler())
	t.Cleanup(ts1.Close)
	id := openExample(t, s1, "library-2-draft")
	sb := openStream(t, ts2.URL, id, bo, strings.Repeat("b", 32), 0)
	openStream(t, ts1.URL, id, ana, strings.Repeat("a", 32), 1)
	sb.waitFor(t, "ana's presence from the other replica", func(s string) bool { return strings.Contains(s, ">ana<") })
	postAs(t, s1, ana, strings.Repeat("a", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Edited on replica one."})
	body := sb.waitFor(t, "the edit from replica one", func(s string) bool { return strings.Contains(s, "Edited on replica one.") })
	if !strings.Contains(body, `id="verdict-0"`) {
		t.Errorf("replica two's page did not get the verdict patch")
	}
}

// FuzzRevNumber: any signal value gives a number or an error that says what would work, never
// a panic.
func FuzzRevNumber(f *testing.F) {
	for _, s := range []string{`0`, `"12"`, `-1`, `""`, `null`, `"x"`, `1e99`, `{"a":1}`, `" 7 "`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := revNumber(raw, -1)
		if err != nil {
			if !strings.Contains(err.Error(), "revision number") {
				t.Errorf("error %q does not say what would work", err)
			}
			return
		}
		if len(raw) == 0 && n != -1 {
			t.Errorf("absent value gave %d, want the default", n)
		}
	})
}

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
	sts := postgresStores(t, 2)
	s1, s2 := serverOn(t, sts[0]), serverOn(t, sts[1])
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	ts1 := httptest.NewServer(s1.Handler())
	t.Cleanup(ts1.Close)
	id := openExample(t, s1, "library-2-draft")
	sb := openStream(t, ts2.URL, id, bo, strings.Repeat("b", 32), 0)
	openStream(t, ts1.URL, id, ana, strings.Repeat("a", 32), 1)
	sb.waitFor(t, "ana's presence from the other replica", func(s string) bool { return strings.Contains(s, ">ana<") })
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
		_ = json.Unmarshal([]byte(do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil)).Body.String()), &ts)
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

// pageCounter records how many revisions each Revisions call returned.
type pageCounter struct {
	store.Store
	mu   sync.Mutex
	most int
}

func (p *pageCounter) Revisions(ctx context.Context, ws string, page store.RevisionPage) ([]store.Revision, error) {
	revs, err := p.Store.Revisions(ctx, ws, page)
	p.mu.Lock()
	p.most = max(p.most, len(revs))
	p.mu.Unlock()
	return revs, err
}

// revNumbers lists the revision numbers of the rows under the elements of doc with testid.
func revNumbers(t testing.TB, doc, testid string) []int {
	t.Helper()
	var out []int
	for _, n := range find(t, doc, testid) {
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && attr(n, "data-testid") == "rev" {
				k, err := strconv.Atoi(attr(n, "data-number"))
				if err != nil {
					t.Fatalf("row without a number: %s", attr(n, "data-number"))
				}
				out = append(out, k)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
	}
	return out
}

// descending is from, from-1, …, to.
func descending(from, to int) []int {
	var out []int
	for n := from; n >= to; n-- {
		out = append(out, n)
	}
	return out
}

// TestHistoryPagesOlderRevisions: a history longer than a page shows the newest page, the
// baseline and "Show older revisions", which loads the next page; revisions pushed off the page
// by new ones can be loaded too; a live update of the list reads the newest page only.
func TestHistoryPagesOlderRevisions(t *testing.T) {
	st := &pageCounter{Store: newTestStore(t)}
	s := serverOn(t, st)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	ctx := context.Background()
	const head = 450
	for i := range head {
		// Alternate tools: every edit starts a revision.
		if _, err := st.AppendEdit(ctx, store.Edit{Workspace: id, Author: "cy", Ops: []listing.Op{{Kind: listing.OpSet,
			Path: fmt.Sprintf("/tools/%d/description", i%2), Value: listing.NewString(fmt.Sprint("edit ", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	pid := strings.Repeat("d", 32)
	live := dialSSE(t, ts.URL, id, pid, 0, head, func(r *http.Request) { ana.cookies(r) })

	_, evs := getSSE(t, s, "/w/"+id+"/history", map[string]any{"pid": pid})
	panel := patched(evs)["revisions"]
	if got, want := revNumbers(t, panel, "rev-list"), descending(head, head-199); !slices.Equal(got, want) {
		t.Errorf("the panel lists %v; want the newest page, %d to %d", got, head, head-199)
	}
	if got := revNumbers(t, panel, "rev-base"); !slices.Equal(got, []int{0}) {
		t.Errorf("the baseline row: %v", got)
	}
	if m := find(t, panel, "rev-base-meta"); len(m) != 1 || !strings.Contains(text(m[0]), "import") {
		t.Errorf("the baseline's record is not shown: %s", panel)
	}
	more := find(t, panel, "rev-older-more")
	if len(more) != 1 || !strings.Contains(attr(more[0], "data-on:click"), "history/older?first=1&before=251'") {
		t.Fatalf("no Show older revisions control loading those below 251: %s", panel)
	}
	if !strings.Contains(sigEvents(evs), `"_revtop":0`) {
		t.Errorf("opening the panel does not reset what it holds of older revisions: %s", sigEvents(evs))
	}

	older := func(query string) (string, []int, string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/older?"+query, nil)
		req.Header.Set("Datastar-Request", "true")
		rec := do(t, s, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("older?%s: %d %s", query, rec.Code, rec.Body)
		}
		evs := parseSSE(t, rec.Body.String())
		var mode string
		var rows []int
		for _, e := range evs {
			if e.Type == "datastar-patch-elements" && slices.Equal(e.Data["selector"], []string{"#rev-older"}) {
				mode = strings.Join(e.Data["mode"], "")
				rows = revNumbers(t, "<ol data-testid=x>"+e.elements()+"</ol>", "x")
			}
		}
		return mode, rows, sigEvents(evs)
	}
	mode, rows, sigs := older("first=1&before=251")
	if mode != "append" || !slices.Equal(rows, descending(250, 51)) || !strings.Contains(sigs, `"_revnext":51`) {
		t.Errorf("the next page: %s %v, signals %s; want 250 to 51 appended, next 51", mode, rows, sigs)
	}
	// The first older page says where the rows it brings start, as the click did: a late answer
	// to a panel opened again must not leave "Show older revisions" offered over its rows.
	if !strings.Contains(sigs, `"_revtop":251`) {
		t.Errorf("the first older page does not set what the list holds from its top: %s", sigs)
	}
	mode, rows, sigs = older("before=51")
	if strings.Contains(sigs, "_revtop") {
		t.Errorf("a later older page moved the top of what the list holds: %s", sigs)
	}
	if mode != "append" || !slices.Equal(rows, descending(50, 1)) || !strings.Contains(sigs, `"_revnext":0`) {
		t.Errorf("the last page: %s %v, signals %s; want 50 to 1 appended (the baseline is listed already), no next", mode, rows, sigs)
	}
	// Revisions pushed off the newest page after older ones were loaded come in above them.
	mode, rows, sigs = older("above=251&before=254")
	if mode != "prepend" || !slices.Equal(rows, descending(253, 251)) || !strings.Contains(sigs, `"_revtop":254`) {
		t.Errorf("the revisions between: %s %v, signals %s; want 253 to 251 prepended, top 254", mode, rows, sigs)
	}
	for _, bad := range []string{"before=x", "before=0", "", "before=300&above=300", "before=300&above=50", "before=300&above=x"} {
		req := httptest.NewRequest(http.MethodGet, "/w/"+id+"/history/older?"+bad, nil)
		if rec := do(t, s, req); rec.Code != http.StatusBadRequest {
			t.Errorf("older?%s: %d, want 400", bad, rec.Code)
		}
	}

	// A live update (someone edits) shows the newest page again and the baseline, leaves
	// #rev-older to the page, and offers the revisions the new one pushed off the page.
	postAs(t, s, bo, strings.Repeat("e", 32), "/w/"+id+"/edit?t=2&f=description", map[string]any{"tool": 2, "val": "A new revision."})
	ev := live.next(t, "the history list updated", func(e event) bool {
		_, ok := patchOf(e, "rev-list-region")
		return ok
	})
	list, _ := patchOf(ev, "rev-list-region")
	if got, want := revNumbers(t, list, "rev-list"), descending(head+1, head-198); !slices.Equal(got, want) {
		t.Errorf("the live list shows %v; want the newest page, %d to %d", got, head+1, head-198)
	}
	if o := find(t, list, "rev-older"); len(o) != 1 || !hasAttr(o[0], "data-ignore-morph") || o[0].FirstChild != nil {
		t.Errorf("the live list must leave the older revisions the page loaded alone: %s", list)
	}
	if b := find(t, list, "rev-between"); len(b) != 1 || !strings.Contains(attr(b[0], "data-show"), "$_revtop < 252") {
		t.Errorf("the live list does not offer the revisions pushed off its page: %s", list)
	}
	if got := revNumbers(t, list, "rev-base"); !slices.Equal(got, []int{0}) {
		t.Errorf("the live list's baseline row: %v", got)
	}
	if st.most > store.DefaultRevisionLimit {
		t.Errorf("a read of the history returned %d revisions; a page holds at most %d", st.most, store.DefaultRevisionLimit)
	}

	// Naming the baseline shows the name in the namer's list, and live on the other pages.
	evs = postAs(t, s, ana, pid, "/w/"+id+"/history/0/name", map[string]any{"rname": "as imported"})
	if m := find(t, patched(evs)["rev-list-region"], "rev-base-meta"); len(m) != 1 || !strings.Contains(text(m[0]), "as imported") {
		t.Errorf("naming the baseline does not show in the list: %v", keys(patched(evs)))
	}
	live.next(t, "the baseline's new name on another page", func(e event) bool {
		el, ok := patchOf(e, "rev-list-region")
		return ok && strings.Contains(el, "as imported")
	})
}

// sigEvents joins the signal patches of an answer.
func sigEvents(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == "datastar-patch-signals" {
			b.WriteString(strings.Join(e.Data["signals"], ""))
		}
	}
	return b.String()
}

// taskShapeRe finds the task table's version in a page (the tools' shapes use g= too).
var taskShapeRe = regexp.MustCompile(`task\?op=[a-z]+&amp;i=\d+(?:&amp;k=[a-z]+)?&amp;g=(\d+)`)
