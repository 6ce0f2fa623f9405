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
	return openStreamSignals(t, base, id, who, fmt.Sprintf(`{"pid":%q,"tool":%d,"ver":-1}`, pid, tool))
}

// openStreamSignals is openStream with the page's signals as JSON.
func openStreamSignals(t testing.TB, base, id string, who person, signals string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q := url.QueryEscape(signals)
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

// twoReplicas serves one example workspace from two web servers on two PostgreSQL store
// instances: ana's page on the first, bo's on the second. It returns the first server, the
// workspace and bo's stream, once bo's page has seen ana's presence cross over.
func twoReplicas(t *testing.T) (s1 *Server, id string, sb *stream) {
	t.Helper()
	sts := postgresStores(t, 2)
	s1, s2 := serverOn(t, sts[0]), serverOn(t, sts[1])
	ts2 := httptest.NewServer(s2.Handler())
	t.Cleanup(ts2.Close)
	ts1 := httptest.NewServer(s1.Handler())
	t.Cleanup(ts1.Close)
	id = openExample(t, s1, "library-2-draft")
	sb = openStream(t, ts2.URL, id, bo, strings.Repeat("b", 32), 0)
	openStream(t, ts1.URL, id, ana, strings.Repeat("a", 32), 1)
	sb.waitFor(t, "ana's presence from the other replica", func(s string) bool { return strings.Contains(s, ">ana<") })
	return s1, id, sb
}

// TestReplicasDeliverEachOthersEdits: two web servers on two PostgreSQL store instances (two
// replicas); an edit made through one arrives on a page of the other, and presence crosses too.
func TestReplicasDeliverEachOthersEdits(t *testing.T) {
	s1, id, sb := twoReplicas(t)
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

// TestPageShowsItsOwnPersonAtOnce: the page names the person who opened it before its stream
// joins the roster, so the header does not grow (and move the page under their pointer) a
// moment after it appears.
func TestPageShowsItsOwnPersonAtOnce(t *testing.T) {
	s := serverOn(t, newTestStore(t))
	id := openExample(t, s, "library-2-draft")
	page := getPageAs(t, s, ana, "/w/"+id+"?tool=2")
	_, roster, _ := strings.Cut(page, `data-testid="presence"`)
	roster, _, _ = strings.Cut(roster, "</div>")
	if !strings.Contains(roster, ">ana<") || !strings.Contains(roster, "loans_check_out") {
		t.Errorf("the first paint's roster does not name ana on tool 2: %q", roster)
	}
}
