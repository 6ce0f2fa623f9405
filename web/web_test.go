package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
)

func newServer(t testing.TB, configure ...func(*Config)) *Server {
	t.Helper()
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: newTestStore(t), Engine: eng, DatastarJS: []byte("// test client")}
	for _, f := range configure {
		f(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func do(t testing.TB, s *Server, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

// importPaste posts a paste as the home page's form does.
func importPaste(t testing.TB, s *Server, text string) *httptest.ResponseRecorder {
	t.Helper()
	form := url.Values{"listing": {text}}
	req := httptest.NewRequest(http.MethodPost, "/workspaces", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, s, req)
}

func workspaceFrom(t testing.TB, s *Server, text string) string {
	t.Helper()
	rec := importPaste(t, s, text)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("import: status %d: %s", rec.Code, rec.Body.String())
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
}

func openExample(t testing.TB, s *Server, id string) string {
	t.Helper()
	rec := do(t, s, httptest.NewRequest(http.MethodPost, "/examples/"+id, nil))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("example: status %d: %s", rec.Code, rec.Body.String())
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
}

// event is one SSE event.
type event struct {
	Type string
	Data map[string][]string // "elements", "selector", "mode", "signals" → lines
}

func (e event) elements() string { return strings.Join(e.Data["elements"], "\n") }

// parseSSE reads body as the SSE specification and the Datastar client do: a line ends at CR,
// LF or CRLF (sseLines), a blank line ends an event, and a line holds "field: value".
func parseSSE(t testing.TB, body string) []event {
	t.Helper()
	var out []event
	cur := event{Data: map[string][]string{}}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	sc.Split(sseLines)
	for sc.Scan() {
		ln := sc.Text()
		if ln == "" {
			if cur.Type != "" {
				out = append(out, cur)
			}
			cur = event{Data: map[string][]string{}}
			continue
		}
		cur.field(ln)
	}
	if cur.Type != "" {
		out = append(out, cur)
	}
	return out
}

// post sends Datastar signals to path and returns the SSE events of the answer.
func post(t testing.TB, s *Server, path string, sig map[string]any) []event {
	t.Helper()
	b, _ := json.Marshal(sig)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	// One person makes all of a test's edits: undo is per person.
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	rec := do(t, s, req)
	if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
		t.Fatalf("POST %s: status %d: %s", path, rec.Code, rec.Body.String())
	}
	return parseSSE(t, rec.Body.String())
}

var idRe = regexp.MustCompile(`^<[a-z]+ id="([^"]+)"`)

// patched maps the id of each patched root element to its HTML.
func patched(evs []event) map[string]string {
	out := map[string]string{}
	for _, e := range evs {
		if e.Type != "datastar-patch-elements" {
			continue
		}
		el := e.elements()
		if m := idRe.FindStringSubmatch(el); m != nil {
			out[m[1]] = el
		} else if sel := e.Data["selector"]; len(sel) > 0 {
			out[sel[0]] = el
		}
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// find returns the elements of doc with data-testid tid.
func find(t testing.TB, doc string, tid string) []*html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "data-testid") == tid {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func getPage(t testing.TB, s *Server, path string) string {
	t.Helper()
	rec := do(t, s, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d: %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

func sig(tool int, val any) map[string]any {
	return map[string]any{"pid": strings.Repeat("a", 32), "tool": tool, "val": val, "ver": 0}
}

func TestExampleWorkspacePage(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	page := getPage(t, s, "/w/"+id)
	if n := len(find(t, page, "tool-row")); n != 8 {
		t.Errorf("tool rows: %d, want 8", n)
	}
	if n := len(find(t, page, "verdict")); n != 9 {
		t.Errorf("verdicts: %d, want 9", n)
	}
	for _, tid := range []string{"editor", "findings", "cost", "tasks", "history", "export-menu", "datastar-missing", "f-desc", "params"} {
		if len(find(t, page, tid)) == 0 {
			t.Errorf("no element with data-testid %q", tid)
		}
	}
	st := find(t, page, "verdict-status")
	if got := text(st[0]); got != "wrong" {
		t.Errorf("task 1 verdict in draft 2 = %q, want wrong (catalog_search wins)", got)
	}
	if !strings.Contains(page, `src="/static/`) || strings.Contains(page, "cdn.jsdelivr") {
		t.Errorf("with --datastar-js the page should load the local client")
	}
}

// TestEditDescriptionFlipsRanking edits a description the way the page does and checks that the
// answer patches the verdict, the counts and the finding regions, and never the editor.
func TestEditDescriptionFlipsRanking(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	desc := "Show one book's full record (copies, branches, due dates) by its catalog id or its ISBN. Without an id, use catalog_search."
	evs := post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, desc))
	p := patched(evs)
	v, ok := p["verdict-0"]
	if !ok {
		t.Fatalf("verdict-0 not patched; patched: %v", keys(p))
	}
	if !strings.Contains(v, `data-status="clear"`) || !strings.Contains(v, "catalog_get_book") {
		t.Errorf("verdict-0 after the edit: %s", v)
	}
	if _, ok := p["verdict-4"]; ok {
		t.Errorf("verdict-4 (no word of it changed weight) was patched")
	}
	// The Cost region's figures and the edited tool's bar, not the whole region.
	for _, want := range []string{"desc-count", "history", "task-summary", "cost-head", "cost-bar-0"} {
		if _, ok := p[want]; !ok {
			t.Errorf("%s not patched; patched: %v", want, keys(p))
		}
	}
	for _, whole := range []string{"cost", "cost-bar-1"} {
		if _, ok := p[whole]; ok {
			t.Errorf("%s patched: an edit of tool 0 re-sends only the Cost figures and its bar", whole)
		}
	}
	for _, never := range []string{"editor", "f-desc", "tasks"} {
		if _, ok := p[never]; ok {
			t.Errorf("%s patched during a description edit: it would reset the field being typed in", never)
		}
	}
	if !strings.Contains(p["desc-count"], "23 words") {
		t.Errorf("desc-count: %s", p["desc-count"])
	}
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/listing.json", nil))
	if !strings.Contains(rec.Body.String(), "Without an id, use catalog_search.") {
		t.Errorf("download does not hold the edit: %s", rec.Body.String()[:200])
	}
}

func TestSchemaTextMessages(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-3-clear")
	tests := []struct {
		name, val, want string
		applied         bool
	}{
		{"syntax", "{\n  \"type\": \"object\",\n  \"properties\": {", "Line 3, column", false},
		{"not an object", "[1, 2]", "must be a JSON object", false},
		{"valid", `{"type": "object", "properties": {"book_id": {"type": "string", "description": "Catalog id."}, "branch": {"type": "string", "description": "Branch name."}}, "required": ["book_id"]}`, "Valid JSON", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := post(t, s, "/w/"+id+"/edit?t=0&f=inputSchema", sig(0, tc.val))
			p := patched(evs)
			msg, ok := p["msg-f-input"]
			if !ok || !strings.Contains(msg, tc.want) {
				t.Fatalf("msg-f-input = %q (patched %v), want it to contain %q", msg, keys(p), tc.want)
			}
			_, tableShown := p["params"]
			if tableShown != tc.applied {
				t.Errorf("params table patched = %v, want %v", tableShown, tc.applied)
			}
			if tc.applied && !strings.Contains(p["params"], `value="branch"`) {
				t.Errorf("params table does not show the new parameter: %s", p["params"])
			}
			if _, ok := p["f-input"]; ok {
				t.Errorf("the schema text being typed in was patched")
			}
		})
	}
}

func TestParamEdits(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-3-clear")
	// Rename book_id of catalog_get_book: the raw schema and required follow.
	p := patched(post(t, s, "/w/"+id+"/edit?t=0&f=param&p=0&k=name", sig(0, "catalog_id")))
	schema := html.UnescapeString(p["f-input"])
	if !strings.Contains(schema, `"catalog_id"`) || strings.Contains(schema, `"book_id"`) {
		t.Fatalf("schema after rename: %s", schema)
	}
	for _, bad := range []string{"ten", "Inf", "NaN", "0x1p3"} {
		p = patched(post(t, s, "/w/"+id+"/edit?t=0&f=param&p=0&k=maximum", sig(0, bad)))
		if !strings.Contains(p["msg-f-params"], "must be a JSON number") {
			t.Errorf("maximum %q: %v", bad, p)
		}
	}
	if rec := do(t, s, func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/edit?t=0&f=param&p=x&k=maximum", strings.NewReader(sigJSON(sig(0, "1"))))
		req.Header.Set("Datastar-Request", "true")
		req.Header.Set("Content-Type", "application/json")
		return req
	}()); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "malformed index") {
		t.Errorf("a malformed parameter index: %d %s", rec.Code, rec.Body.String())
	}
	p = patched(post(t, s, "/w/"+id+"/param?op=add&t=0&p=0", sig(0, "")))
	if !strings.Contains(p["params"], `value="param_2"`) {
		t.Errorf("added parameter not shown: %v", keys(p))
	}
	p = patched(post(t, s, "/w/"+id+"/edit?t=0&f=param&p=1&k=required", sig(0, "true")))
	if !strings.Contains(html.UnescapeString(p["f-input"]), `"param_2"`) {
		t.Errorf("required: %s", p["f-input"])
	}
	req := html.UnescapeString(p["f-input"])
	if !regexp.MustCompile(`"required": \[\s*"catalog_id",\s*"param_2"\s*\]`).MatchString(req) {
		t.Errorf("required list: %s", req)
	}
}

func TestToolOpsAndUndo(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-3-clear")
	names := func(evs []event) []string {
		list := patched(evs)["tool-list"]
		var out []string
		for _, n := range find(t, list, "tool-row") {
			out = append(out, text(n.FirstChild.FirstChild))
		}
		return out
	}
	got := names(post(t, s, "/w/"+id+"/tool?op=dup&i=1", sig(1, "")))
	if len(got) != 9 || got[2] != "catalog_search_copy" {
		t.Fatalf("after dup: %v", got)
	}
	got = names(post(t, s, "/w/"+id+"/tool?op=up&i=2", sig(2, "")))
	if got[1] != "catalog_search_copy" || got[2] != "catalog_search" {
		t.Fatalf("after move up: %v", got)
	}
	got = names(post(t, s, "/w/"+id+"/tool?op=del&i=1", sig(1, "")))
	if len(got) != 8 || got[1] != "catalog_search" {
		t.Fatalf("after delete: %v", got)
	}
	got = names(post(t, s, "/w/"+id+"/undo", sig(1, "")))
	if len(got) != 9 || got[1] != "catalog_search_copy" {
		t.Fatalf("after undo: %v", got)
	}
	got = names(post(t, s, "/w/"+id+"/redo", sig(1, "")))
	if len(got) != 8 {
		t.Fatalf("after redo: %v", got)
	}
	// Typing into one field coalesces into one undo step.
	for _, v := range []string{"L", "Le", "Len", "Lend"} {
		post(t, s, "/w/"+id+"/edit?t=2&f=description", sig(2, v))
	}
	post(t, s, "/w/"+id+"/undo", sig(2, ""))
	ws, _ := s.store.Get(context.Background(), id, Author{})
	if d := ws.Listing.Tools[2].Get("description").Str; !strings.HasPrefix(d, "Lend one copy") {
		t.Errorf("one undo after a burst of typing should restore the description, got %q", d)
	}
}

func TestTaskEdits(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-3-clear")
	p := patched(post(t, s, "/w/"+id+"/task?op=set&i=0&k=expect", sig(0, "catalog_search")))
	if !strings.Contains(p["verdict-0"], `data-status="wrong"`) {
		t.Errorf("expect changed to a losing tool: %s", p["verdict-0"])
	}
	p = patched(post(t, s, "/w/"+id+"/task?op=set&i=0&k=expect", sig(0, "")))
	if !strings.Contains(p["verdict-0"], `data-status="none-risk"`) {
		t.Errorf("no tool expected but words match: %s", p["verdict-0"])
	}
	p = patched(post(t, s, "/w/"+id+"/task?op=add&i=9", sig(0, "")))
	if n := len(find(t, p["tasks"], "task-row")); n != 10 {
		t.Errorf("rows after add: %d", n)
	}
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json", nil))
	if !strings.Contains(rec.Body.String(), `"expect": null`) {
		t.Errorf("export: %s", rec.Body.String())
	}
}

func TestImportInvalidJSONKeepsPaste(t *testing.T) {
	s := newServer(t)
	paste := "{\"tools\": [\n  {\"name\": \"a\", \"description\": \"x\",}\n]}"
	rec := importPaste(t, s, paste)
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	pos := find(t, body, "parse-position")
	if len(pos) != 1 || text(pos[0]) != "Line 2, column 36:" {
		t.Errorf("position: %v", body)
	}
	ta := find(t, body, "paste")
	if len(ta) != 1 || ta[0].FirstChild == nil || ta[0].FirstChild.Data != paste {
		t.Errorf("the pasted text was not kept")
	}
}

func TestImportBadInputs(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name  string
		paste string
		code  int
		want  string
	}{
		{"empty", "  ", http.StatusBadRequest, "Nothing was pasted"},
		{"no tools", `{"result": {}}`, http.StatusBadRequest, "no tools array"},
		{"tool without name", `[{"description": "x"}]`, http.StatusBadRequest, "no string `name`"},
		{"ten megabytes", `{"tools": [{"name": "a", "description": "` + strings.Repeat("x", 10<<20) + `"}]}`, http.StatusRequestEntityTooLarge, "larger than 4 MB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := importPaste(t, s, tc.paste)
			if rec.Code != tc.code {
				t.Fatalf("status %d, want %d", rec.Code, tc.code)
			}
			msg := find(t, rec.Body.String(), "parse-problem")
			if len(msg) != 1 || !strings.Contains(text(msg[0]), tc.want) {
				t.Errorf("problem shown: %v", rec.Body.String()[:min(400, rec.Body.Len())])
			}
			if rec.Body.Len() > 1<<20 {
				t.Errorf("the answer echoes %d bytes", rec.Body.Len())
			}
		})
	}
}

// hostile is a description that would run code or add attributes if it were ever treated as
// markup or as a Datastar expression.
const hostile = `</textarea><script>window.pwned=1</script><img src=x onerror="window.pwned=2">` +
	`" data-on:click="@post('/evil')" data-init="window.pwned=3" {{ $tool = 99 }} ${window.pwned=4} <b data-on:load="window.pwned=5">bold</b>`

func TestHostileTextStaysText(t *testing.T) {
	s := newServer(t)
	listingJSON, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "evil_tool", "title": hostile, "description": hostile,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			hostile: map[string]any{"type": "string", "description": hostile}}}}}})
	id := workspaceFrom(t, s, string(listingJSON))
	page := getPage(t, s, "/w/"+id)
	evs := post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, hostile+" again"))
	docs := []string{page}
	for _, e := range evs {
		docs = append(docs, e.elements())
	}
	for i, doc := range docs {
		root, err := html.Parse(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				if n.Data == "script" && attr(n, "src") == "" {
					t.Errorf("doc %d: an inline script element appeared", i)
				}
				if n.Data == "img" || n.Data == "b" {
					t.Errorf("doc %d: user markup became a <%s> element", i, n.Data)
				}
				for _, a := range n.Attr {
					if strings.Contains(a.Val, "pwned") && !isPlainValue(n, a.Key) {
						t.Errorf("doc %d: user text inside attribute %s of <%s>", i, a.Key, n.Data)
					}
					if a.Key == "onerror" || strings.Contains(a.Val, "/evil") && strings.HasPrefix(a.Key, "data-") {
						t.Errorf("doc %d: injected attribute %s=%q", i, a.Key, a.Val)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(root)
	}
	ta := find(t, page, "f-desc")
	if len(ta) != 1 || ta[0].FirstChild == nil || ta[0].FirstChild.Data != hostile {
		t.Errorf("the description is not shown as its own text")
	}
}

// isPlainValue reports whether an attribute only ever holds data, never code: input values,
// labels and titles. Datastar reads data-* attributes as expressions, so user text must never
// be in one.
func isPlainValue(n *html.Node, key string) bool {
	switch key {
	case "value", "aria-label", "title", "placeholder":
		return true
	}
	return false
}

func TestSameOriginCheck(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-3-clear")
	tests := []struct {
		name, header, value string
		code                int
	}{
		{"other origin", "Origin", "http://evil.example", http.StatusForbidden},
		{"cross site", "Sec-Fetch-Site", "cross-site", http.StatusForbidden},
		{"same origin", "Origin", "http://example.com", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/undo", strings.NewReader(`{"pid":"","tool":0}`))
			req.Header.Set(tc.header, tc.value)
			if rec := do(t, s, req); rec.Code != tc.code {
				t.Errorf("status %d, want %d", rec.Code, tc.code)
			}
		})
	}
}

func TestUnknownWorkspace(t *testing.T) {
	s := newServer(t)
	for _, path := range []string{"/w/" + strings.Repeat("0", 32), "/w/not-an-id"} {
		rec := do(t, s, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound || len(find(t, rec.Body.String(), "error-page")) != 1 {
			t.Errorf("%s: %d", path, rec.Code)
		}
	}
}

// TestStreamBroadcast opens a page's stream over real HTTP and checks that an edit made by
// another page arrives on it as patches.
func TestStreamBroadcast(t *testing.T) {
	s := newServer(t)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close) // after the stream's cleanup: Close waits for open requests
	id := openExample(t, s, "library-2-draft")
	// dialSSE returns once the response headers arrive, which the stream sends after joining
	// the hub: the edit below cannot precede the page's subscription.
	st := dialSSE(t, ts.URL, id, strings.Repeat("b", 32), 0, 0, nil)
	post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, "Show one book by its catalog id or ISBN."))
	// The notice's patches come in order (shared regions, then the editor); presence patches
	// may come before or between notices, so the test waits for each patch it expects rather
	// than reading up to a marker (a read can end inside an event).
	st.next(t, "the verdict-0 patch with the new verdict", func(e event) bool {
		el, ok := patchOf(e, "verdict-0")
		return ok && strings.Contains(el, `data-status="clear"`)
	})
	st.next(t, "the editor patch with the new description", func(e event) bool {
		el, ok := patchOf(e, "editor")
		return ok && strings.Contains(el, "Show one book by its catalog id or ISBN.")
	})
}
