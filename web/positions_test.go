package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// sixParams is a listing whose first tool has six parameters, for edits of several at once.
const sixParams = `{"tools": [
 {"name": "find_books", "description": "Find books.", "inputSchema": {"type": "object", "properties": {
  "p0": {"type": "string"}, "p1": {"type": "string"}, "p2": {"type": "string"},
  "p3": {"type": "string"}, "p4": {"type": "string"}, "p5": {"type": "string"}}, "required": []}},
 {"name": "hold_book", "description": "Hold a book.", "inputSchema": {"type": "object"}}
]}`

func headListing(t testing.TB, s *Server, id string) *listing.Listing {
	t.Helper()
	rev, err := s.db.Revision(context.Background(), id, -1)
	if err != nil {
		t.Fatal(err)
	}
	return rev.Listing
}

// TestConcurrentParamEditsKeepAll: six people each edit another parameter of one tool at the
// same time, through two servers on one store (two replicas), while a seventh toggles which
// parameters are required and renames one. Every edit stands: a parameter's field is one member
// of the schema, and a rename or a required list is made from the schema as it is when the
// store accepts it, not as it was read.
func TestConcurrentParamEditsKeepAll(t *testing.T) {
	st := newTestStore(t)
	servers := []*Server{serverOn(t, st), serverOn(t, st)}
	id := workspaceFrom(t, servers[0], sixParams)
	const rounds = 15
	send := func(s *Server, who person, pid, path, val string) error {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(sigJSON(map[string]any{"pid": pid, "tool": 0, "val": val})))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Datastar-Request", "true")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, who.cookies(req))
		if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
			return fmt.Errorf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for p := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := person{fmt.Sprintf("editor%d", p), fmt.Sprintf("%032x", p+1)}
			for k := range rounds {
				path := fmt.Sprintf("/w/%s/edit?t=0&f=param&p=%d&k=description", id, p)
				if err := send(servers[p%2], who, fmt.Sprintf("%032x", 100+p), path, fmt.Sprintf("param %d, edit %d", p, k)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		who := person{"cy", strings.Repeat("c3", 16)}
		for k := range rounds {
			path := fmt.Sprintf("/w/%s/edit?t=0&f=param&p=%d&k=required", id, k%6)
			if err := send(servers[k%2], who, strings.Repeat("c", 32), path, "true"); err != nil {
				errs <- err
				return
			}
		}
		path := fmt.Sprintf("/w/%s/edit?t=0&f=param&p=5&k=name", id)
		if err := send(servers[0], who, strings.Repeat("c", 32), path, "renamed"); err != nil {
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	props := headListing(t, servers[0], id).Tools[0].Get("inputSchema").Get("properties").Fields()
	want := []string{"p0", "p1", "p2", "p3", "p4", "renamed"}
	for p, f := range props {
		if f.Key != want[p] {
			t.Errorf("parameter %d is %q, want %q", p, f.Key, want[p])
		}
		if got, w := f.Value.Get("description").String(), fmt.Sprintf("param %d, edit %d", p, rounds-1); got != w {
			t.Errorf("parameter %s: description %q, want the last edit %q", f.Key, got, w)
		}
	}
	var req []string
	for _, r := range headListing(t, servers[0], id).Tools[0].Get("inputSchema").Get("required").Items {
		req = append(req, r.String())
	}
	slices.Sort(req) // each toggle moves its name to the end
	if strings.Join(req, " ") != "p0 p1 p2 p3 p4 renamed" {
		t.Errorf("required %v: a toggle was lost (or the rename did not follow)", req)
	}
}

var shapeRe = regexp.MustCompile(`f=description&amp;g=(\d+)`)
var paramShapeRe = regexp.MustCompile(`&amp;g=(\d+)&amp;gp=(\d+)`)

// shapesIn reads the shapes an editor was rendered at (from its description field's action and
// its parameters table's): [tools, params], -1 when absent.
func shapesIn(t testing.TB, html string) [2]int {
	t.Helper()
	out := [2]int{-1, -1}
	if m := shapeRe.FindStringSubmatch(html); m != nil {
		out[0], _ = strconv.Atoi(m[1])
	}
	if m := paramShapeRe.FindStringSubmatch(html); m != nil {
		out[0], _ = strconv.Atoi(m[1])
		out[1], _ = strconv.Atoi(m[2])
	}
	return out
}

// TestStaleToolPositionsRefused: an edit sent from a page rendered before someone moved a tool
// or a parameter names it by a position that may hold another one now: it is refused on every
// server, the page gets the listing as it stands and its text back, and from there it goes
// through. Renames and a page's own changes keep its positions.
func TestStaleToolPositionsRefused(t *testing.T) {
	st := newTestStore(t)
	s := serverOn(t, st)
	id := workspaceFrom(t, s, sixParams)
	pa, pb := strings.Repeat("a", 32), strings.Repeat("b", 32)
	g := shapesIn(t, getPageAs(t, s, ana, "/w/"+id))
	if g[0] < 0 || g[1] < 0 {
		t.Fatal("the editor's actions carry no shapes")
	}
	q := func(sh [2]int) string { return fmt.Sprintf("&g=%d&gp=%d", sh[0], sh[1]) }

	// Bo moves find_books below hold_book: position 0 is hold_book now.
	evs := postAs(t, s, bo, pb, "/w/"+id+"/tool?op=down&i=0"+q(g), map[string]any{"tool": 0})
	g2 := shapesIn(t, patched(evs)["editor"])
	if g2[0] <= g[0] {
		t.Fatalf("Bo's move re-rendered his editor at shape %v, want tools past %d", g2, g[0])
	}
	if !strings.Contains(patched(evs)["tool-list"], fmt.Sprintf("g=%d", g2[0])) {
		t.Errorf("the tool list was not rendered again at the new shape")
	}
	// Ana's description for find_books (position 0 on her page) reaches another server.
	s2 := serverOn(t, st)
	evs = postAs(t, s2, ana, pa, "/w/"+id+"/edit?t=0&f=description"+q(g), map[string]any{"tool": 0, "val": "Ana's words for find_books"})
	p := patched(evs)
	if n := p["field-notice"]; !strings.Contains(n, "was not saved") || !strings.Contains(n, "Ana&#39;s words for find_books") {
		t.Errorf("the stale edit's notice should give the text back: %q", n)
	}
	if got := shapesIn(t, p["editor"]); got[0] != g2[0] {
		t.Errorf("the refusal rendered the editor at %v, want the current %v", got, g2)
	}
	l := headListing(t, s, id)
	if d := l.Tools[0].Get("description").String(); d != "Hold a book." || l.Tools[1].Get("description").String() != "Find books." {
		t.Fatalf("the stale edit was applied: %q", d)
	}
	// From the listing as it stands, it goes through.
	postAs(t, s, ana, pa, "/w/"+id+"/edit?t=1&f=description"+q(g2), map[string]any{"tool": 1, "val": "Ana's words"})
	if d := headListing(t, s, id).Tools[1].Get("description").String(); d != "Ana's words" {
		t.Errorf("an edit from the current positions: description %q", d)
	}

	// A parameter moved through the raw schema moves the parameters' shape only: Bo swaps p0
	// and p1. His own page's table is rendered again; his raw schema field stays valid.
	schema := `{"type": "object", "properties": {"p1": {"type": "string"}, "p0": {"type": "string"}, "p2": {"type": "string"}, "p3": {"type": "string"}, "p4": {"type": "string"}, "p5": {"type": "string"}}, "required": []}`
	evs = postAs(t, s, bo, pb, "/w/"+id+"/edit?t=1&f=inputSchema"+q(g2), map[string]any{"tool": 1, "val": schema})
	g3 := shapesIn(t, patched(evs)["params"])
	if g3[0] != g2[0] || g3[1] <= g2[1] {
		t.Fatalf("Bo's own parameters table after his swap is at %v, want tools %d and parameters past %d", g3, g2[0], g2[1])
	}
	evs = postAs(t, s, ana, pa, "/w/"+id+"/edit?t=1&f=param&p=0&k=description"+q(g2), map[string]any{"tool": 1, "val": "for p0"})
	if !strings.Contains(patched(evs)["field-notice"], "was not saved") {
		t.Errorf("a parameter edit from before the parameters moved was not refused")
	}
	if d := headListing(t, s, id).Tools[1].Get("inputSchema").Get("properties").Get("p1").Get("description"); d != nil {
		t.Errorf("the stale parameter edit landed on p1: %v", d)
	}
	// A description from before the swap still lands: no tool moved.
	postAs(t, s, ana, pa, "/w/"+id+"/edit?t=1&f=description"+q(g2), map[string]any{"tool": 1, "val": "Ana again"})
	if d := headListing(t, s, id).Tools[1].Get("description").String(); d != "Ana again" {
		t.Errorf("a tool field from before a parameter moved: description %q", d)
	}
	// Bo's next edits, from his own updated page, go through; a rename in place and a
	// description keep the shape.
	for _, e := range []struct{ path, val string }{
		{"/w/" + id + "/edit?t=1&f=param&p=0&k=description", "Bo's p1"},
		{"/w/" + id + "/edit?t=1&f=param&p=0&k=name", "first"},
		{"/w/" + id + "/edit?t=1&f=param&p=1&k=description", "Bo's p0"},
		{"/w/" + id + "/edit?t=1&f=name", "find_book"},
	} {
		evs = postAs(t, s, bo, pb, e.path+q(g3), map[string]any{"tool": 1, "val": e.val})
		if n := patched(evs)["field-notice"]; strings.Contains(n, "not saved") {
			t.Fatalf("%s from the current shape was refused: %s", e.path, n)
		}
	}
	props := headListing(t, s, id).Tools[1].Get("inputSchema").Get("properties")
	if props.Fields()[0].Key != "first" || props.Get("first").Get("description").String() != "Bo's p1" || props.Get("p0").Get("description").String() != "Bo's p0" {
		t.Errorf("Bo's edits of his parameters: %s", listing.Marshal(props, ""))
	}
	// A malformed shape is a 400, never a silent "unchecked".
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/edit?t=1&f=description&g=x", strings.NewReader(sigJSON(map[string]any{"pid": pa, "tool": 1, "val": "v"})))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	if rec := do(t, s, ana.cookies(req)); rec.Code != http.StatusBadRequest {
		t.Errorf("g=x: status %d", rec.Code)
	}
}

// TestToolMovedWhileEditIsMade: Bo moves a tool between Ana's read of the listing (fresh, so
// her page's shape passes the first check) and the store accepting her edit: the store refuses
// it, and she gets her text back, never written into the tool that moved into her position.
func TestToolMovedWhileEditIsMade(t *testing.T) {
	base := newTestStore(t)
	re := &interject{Store: base, method: "AppendEdit", when: func(a any) bool { return a.(store.Edit).ToolsBase != nil }}
	s := serverOn(t, re)
	id := workspaceFrom(t, s, sixParams)
	g := shapesIn(t, getPageAs(t, s, ana, "/w/"+id))
	re.arm(func(st store.Store) {
		if _, err := st.AppendEdit(context.Background(), store.Edit{Workspace: id, Author: "bo", AuthorID: bo.id,
			Ops: []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 0, To: 1}}}); err != nil {
			t.Error(err)
		}
	})
	evs := postAs(t, s, ana, strings.Repeat("a", 32), fmt.Sprintf("/w/%s/edit?t=0&f=description&g=%d", id, g[0]), map[string]any{"tool": 0, "val": "Ana's words"})
	if n := patched(evs)["field-notice"]; !strings.Contains(n, "was not saved") || !strings.Contains(n, "Ana&#39;s words") {
		t.Errorf("the refused edit's notice should give the text back: %q", n)
	}
	l := headListing(t, s, id)
	if l.Tools[0].Get("name").String() != "hold_book" || l.Tools[0].Get("description").String() != "Hold a book." {
		t.Errorf("Ana's edit landed on the tool that moved into her position: %s", listing.Marshal(l.Tools[0], ""))
	}
}

// paramsMovedReachesOthers: Ana, on servers[0], adds a property to hold_book's raw schema and a
// parameter to find_books. Bo's edit of find_books' parameters from before the first is accepted
// (another tool's parameters moved); Cy, on servers[1] and looking at find_books, gets its
// parameters table again at the new shape after the second, and his edit from that render is
// accepted while one from before is refused.
func paramsMovedReachesOthers(t *testing.T, servers []*Server) {
	ts := httptest.NewServer(servers[1].Handler())
	t.Cleanup(ts.Close)
	id := workspaceFrom(t, servers[0], sixParams)
	pa, pb, pc := strings.Repeat("a", 32), strings.Repeat("b", 32), strings.Repeat("c", 32)
	cy := person{"cy", strings.Repeat("c3", 16)}
	g := shapesIn(t, getPageAs(t, servers[1], cy, "/w/"+id))
	sc := openStream(t, ts.URL, id, cy, pc, 0) // Cy looks at find_books
	sc.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	postAs(t, servers[0], ana, pa, fmt.Sprintf("/w/%s/edit?t=1&f=inputSchema&g=%d", id, g[0]),
		map[string]any{"tool": 1, "val": `{"type": "object", "properties": {"z": {"type": "string"}}}`})
	evs := postAs(t, servers[1], bo, pb, fmt.Sprintf("/w/%s/edit?t=0&f=param&p=0&k=description&g=%d&gp=%d", id, g[0], g[1]), map[string]any{"tool": 0, "val": "Bo's p0"})
	if n := patched(evs)["field-notice"]; strings.Contains(n, "not saved") {
		t.Fatalf("another tool's parameters moving refused Bo's edit: %s", n)
	}
	sc.reset()
	postAs(t, servers[0], ana, pa, fmt.Sprintf("/w/%s/param?op=add&t=0&p=0&g=%d", id, g[0]), map[string]any{"tool": 0})
	body := sc.waitFor(t, "find_books' parameters at a new shape", func(s string) bool {
		i := strings.LastIndex(s, `value="param_7"`) // its row in the table, then its cells
		return i >= 0 && shapesIn(t, s[i:])[1] > g[1]
	})
	g2 := shapesIn(t, body[strings.LastIndex(body, `value="param_7"`):])
	evs = postAs(t, servers[1], cy, pc, fmt.Sprintf("/w/%s/edit?t=0&f=param&p=6&k=description&g=%d&gp=%d", id, g2[0], g2[1]), map[string]any{"tool": 0, "val": "Cy's new parameter"})
	if n := patched(evs)["field-notice"]; strings.Contains(n, "not saved") {
		t.Fatalf("Cy's edit from the table he was sent was refused: %s", n)
	}
	if d := headListing(t, servers[0], id).Tools[0].Get("inputSchema").Get("properties").Get("param_7").Get("description").String(); d != "Cy's new parameter" {
		t.Errorf("the added parameter's description is %q", d)
	}
	evs = postAs(t, servers[1], bo, pb, fmt.Sprintf("/w/%s/edit?t=0&f=param&p=0&k=description&g=%d&gp=%d", id, g[0], g[1]), map[string]any{"tool": 0, "val": "stale"})
	if n := patched(evs)["field-notice"]; !strings.Contains(n, "not saved") {
		t.Errorf("an edit from before find_books' parameters moved was accepted")
	}
}

func TestParamsMovedReachesOtherPages(t *testing.T) {
	s := serverOn(t, newTestStore(t))
	paramsMovedReachesOthers(t, []*Server{s, s})
}

func TestParamsMovedReachesOtherReplicas(t *testing.T) {
	sts := postgresStores(t, 2)
	paramsMovedReachesOthers(t, []*Server{serverOn(t, sts[0]), serverOn(t, sts[1])})
}

// heldEvents is a store whose edit events reach this server only once release is closed: a
// replica whose notification arrives late.
type heldEvents struct {
	store.Store
	release chan struct{}
}

func (h *heldEvents) Subscribe(ctx context.Context, ws string) (<-chan store.Event, error) {
	in, err := h.Store.Subscribe(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make(chan store.Event, 64)
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Kind != store.EventPresence {
				select {
				case <-h.release:
				case <-ctx.Done():
					return
				}
			}
			out <- ev
		}
	}()
	return out, nil
}

// TestLateEventStillReachesPages: Ana's change, made on another server, is read on this one
// (a selection renders the new head) before its event arrives here. The event still reaches
// Bo's page: reading a newer head is not showing it.
func TestLateEventStillReachesPages(t *testing.T) {
	st := newTestStore(t)
	held := &heldEvents{Store: st, release: make(chan struct{})}
	there, here := serverOn(t, st), serverOn(t, held)
	ts := httptest.NewServer(here.Handler())
	t.Cleanup(ts.Close)
	id := workspaceFrom(t, there, sixParams)
	sb := openStream(t, ts.URL, id, bo, strings.Repeat("b", 32), 0)
	sb.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	postAs(t, there, ana, strings.Repeat("a", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Ana's words, made elsewhere."})
	postAs(t, here, person{"cy", strings.Repeat("c3", 16)}, strings.Repeat("c", 32), "/w/"+id+"/select", map[string]any{"tool": 0})
	close(held.release)
	sb.waitFor(t, "Ana's change", func(s string) bool { return strings.Contains(s, "Ana&#39;s words, made elsewhere.") })
}

// rowAction finds the tools' shape the row of tool i was rendered at, for its "move up" button.
func rowAction(t testing.TB, html string, i int) (int, bool) {
	t.Helper()
	m := regexp.MustCompile(fmt.Sprintf(`\$tool = %d; @post\([^)]*/select\?focus=&amp;g=(\d+)`, i)).FindStringSubmatch(html)
	if m == nil {
		return 0, false
	}
	g, _ := strconv.Atoi(m[1])
	return g, true
}

// TestReadsPairListingWithItsShape: a tool moves on another server between this server's read
// of the workspace and its read of the head. The page is still rendered with the shape of the
// listing it shows, so its buttons work at once (an older shape would be refused, and, cached,
// refused again on every retry).
func TestReadsPairListingWithItsShape(t *testing.T) {
	st := newTestStore(t)
	race := &interject{Store: st, method: "Revision", when: func(a any) bool { return a.(int) == -1 }}
	here, there := serverOn(t, race), serverOn(t, st)
	id := workspaceFrom(t, here, sixParams)
	getPageAs(t, here, ana, "/w/"+id)
	// Someone elsewhere edits, so that this server's head cache is behind and reads the head.
	postAs(t, there, bo, strings.Repeat("b", 32), "/w/"+id+"/edit?t=1&f=description", map[string]any{"tool": 1, "val": "x"})
	race.arm(func(store.Store) {
		postAs(t, there, bo, strings.Repeat("b", 32), "/w/"+id+"/tool?op=down&i=0", map[string]any{"tool": 0})
	})
	page := getPageAs(t, here, ana, "/w/"+id)
	g, ok := rowAction(t, page, 1)
	if !ok {
		t.Fatal("no row 1 in the page")
	}
	rec, _ := st.Workspace(context.Background(), id)
	if rec.ToolsShape == 0 {
		t.Fatal("the tool never moved: the race did not happen")
	}
	if int64(g) != rec.ToolsShape {
		t.Errorf("the page's rows carry tools' shape %d; the listing they show is at %d", g, rec.ToolsShape)
	}
}

// TestTaskEditCarriesToolsShape: a tool moves while Ana's task edit is being stored. Her answer
// renders the tool rows at their new places, with the shape of those places, so they work.
func TestTaskEditCarriesToolsShape(t *testing.T) {
	st := newTestStore(t)
	race := &interject{Store: st, method: "PutTasks"}
	here, there := serverOn(t, race), serverOn(t, st)
	id := workspaceFrom(t, here, sixParams)
	g0 := shapesIn(t, getPageAs(t, here, ana, "/w/"+id))
	race.arm(func(store.Store) {
		postAs(t, there, bo, strings.Repeat("b", 32), fmt.Sprintf("/w/%s/tool?op=down&i=0&g=%d", id, g0[0]), map[string]any{"tool": 0})
	})
	evs := postAs(t, here, ana, strings.Repeat("a", 32), "/w/"+id+"/task?op=add&i=0", map[string]any{"tool": 0})
	g, ok := rowAction(t, patched(evs)["tool-list"], 1)
	if !ok {
		t.Fatalf("the answer did not render the moved tools: %v", keys(patched(evs)))
	}
	rec, _ := st.Workspace(context.Background(), id)
	if int64(g) != rec.ToolsShape {
		t.Errorf("the rows were rendered with tools' shape %d; they show the listing at %d", g, rec.ToolsShape)
	}
}

// TestBurstFromElsewhereReachesEveryTool: Ana edits find_books, then hold_book, on another
// server; this server reads both with the first event (the second is then already shown). Bo,
// looking at hold_book, still gets hold_book's new text, not only the first event's tool.
func TestBurstFromElsewhereReachesEveryTool(t *testing.T) {
	st := newTestStore(t)
	held := &heldEvents{Store: st, release: make(chan struct{})}
	there, here := serverOn(t, st), serverOn(t, held)
	ts := httptest.NewServer(here.Handler())
	t.Cleanup(ts.Close)
	id := workspaceFrom(t, there, sixParams)
	sb := openStream(t, ts.URL, id, bo, strings.Repeat("b", 32), 1) // Bo looks at hold_book
	sb.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	pa := strings.Repeat("a", 32)
	postAs(t, there, ana, pa, "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Ana on find_books."})
	postAs(t, there, ana, pa, "/w/"+id+"/edit?t=1&f=description", map[string]any{"tool": 1, "val": "Ana on hold_book."})
	close(held.release)
	sb.waitFor(t, "hold_book's new text", func(s string) bool { return strings.Contains(s, "Ana on hold_book.") })
}

// TestTypistToldParametersMoved: Bo is typing in a parameter of find_books when Ana adds a
// parameter to it. His form is left alone, and the notice says that a parameter change made in
// it now will not be saved (rather than that his next keystroke wins).
func TestTypistToldParametersMoved(t *testing.T) {
	s := serverOn(t, newTestStore(t))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := workspaceFrom(t, s, sixParams)
	pb := strings.Repeat("b", 32)
	g := shapesIn(t, getPageAs(t, s, bo, "/w/"+id))
	sb := openStream(t, ts.URL, id, bo, pb, 0)
	sb.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	postAs(t, s, bo, pb, fmt.Sprintf("/w/%s/edit?t=0&f=param&p=0&k=description&g=%d&gp=%d", id, g[0], g[1]), map[string]any{"tool": 0, "val": "Bo types"})
	sb.reset()
	postAs(t, s, ana, strings.Repeat("a", 32), fmt.Sprintf("/w/%s/param?op=add&t=0&p=0&g=%d", id, g[0]), map[string]any{"tool": 0})
	body := sb.waitFor(t, "the notice", func(s string) bool { return strings.Contains(s, `data-testid="field-notice"`) })
	if !strings.Contains(body, "added, removed or moved a parameter of this tool") {
		t.Errorf("the notice does not say the parameters moved: %.600s", body)
	}
	if strings.Contains(body, `id="editor"`) {
		t.Errorf("Bo's form was replaced while he typed")
	}
}
