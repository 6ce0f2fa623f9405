package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/net/html"

	hostilecorpus "github.com/tool-workbench/workbench/internal/hostile"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// The budgets the bounds tests hold the page to: a region of the page, or one patch, at the caps
// of render.go; and the whole page apart from the selected tool's own text (its raw schemas and
// description, which are as large as that tool is).
const (
	regionBudget = 2 << 20
	pageBudget   = 4 << 20
)

// genTools is a listing of n tools, each with params parameters, written to draw findings (terse
// descriptions, parameters without descriptions) as a careless or hostile listing does.
func genTools(n, params int) []byte {
	tools := make([]map[string]any, n)
	for i := range tools {
		props := map[string]any{}
		for p := range params {
			props[fmt.Sprintf("p%05d", p)] = map[string]any{"type": "string"}
		}
		tools[i] = map[string]any{"name": fmt.Sprintf("tool_%05d", i), "description": fmt.Sprintf("Gets record %d.", i),
			"inputSchema": map[string]any{"type": "object", "properties": props}}
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	return b
}

// genTasks is a task file of n tasks, each expecting tool_00000.
func genTasks(n int) []byte {
	tasks := make([]map[string]any, n)
	for i := range tasks {
		tasks[i] = map[string]any{"task": fmt.Sprintf("Get record %d", i), "expect": "tool_00000"}
	}
	b, _ := json.Marshal(tasks)
	return b
}

// importTasks posts a task file to a workspace as its task panel's form does.
func importTaskFile(t testing.TB, s *Server, id string, file []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, _ := w.CreateFormFile("file", "tasks.json")
	fw.Write(file)
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/tasks/import", &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if rec := do(t, s, req); rec.Code != http.StatusSeeOther {
		t.Fatalf("task import: status %d: %s", rec.Code, shown(rec.Body.String()))
	}
}

// byID finds the element of a parsed page with the given id.
func byID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "id") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := byID(c, id); f != nil {
			return f
		}
	}
	return nil
}

// regionSizes measures the HTML of each of the page's regions that list tools, findings,
// parameters or tasks, and of the selected tool's own text.
func regionSizes(t testing.TB, page string) map[string]int {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, id := range []string{"tool-list", "findings", "cost", "params", "tasks", "f-input", "f-output", "f-desc"} {
		if n := byID(root, id); n != nil {
			var b bytes.Buffer
			html.Render(&b, n)
			out[id] = b.Len()
		}
	}
	return out
}

var rowPatchRe = regexp.MustCompile(`^<li id="tool-row-(\d+)"`)

// checkPatches holds each patch to the region budget (plus own, the selected tool's own text,
// which the editor's patches carry), and a tool row patch to a row the page lists (the client
// warns of a patch without a target).
func checkPatches(t testing.TB, what string, evs []event, listed, own int) {
	t.Helper()
	for _, e := range evs {
		el := e.elements()
		if len(el) > regionBudget+own {
			t.Errorf("%s: a patch of %d bytes (budget %d): %.100s", what, len(el), regionBudget+own, el)
		}
		if m := rowPatchRe.FindStringSubmatch(el); m != nil {
			if i, _ := strconv.Atoi(m[1]); i >= listed {
				t.Errorf("%s: a patch of tool row %d, which the list (%d rows) does not show", what, i, listed)
			}
		}
	}
}

// TestPageBounds builds pages of generated listings far beyond the caps and checks that the
// page and every patch stay within budgets that do not grow with the listing, that each cut
// list says what it leaves out, and that what lies past a cap can still be reached and edited.
// boundsCase is a listing (and task file) past the page's budgets, and what its page must show.
type boundsCase struct {
	name     string
	listing  []byte
	tasks    []byte
	rows     int      // tool rows listed
	notices  []string // data-testids of the notices that must show
	selected int      // a tool past the list to open
}

// boundedPage is a workspace opened from a boundsCase, with its first page.
type boundedPage struct {
	c     boundsCase
	s     *Server
	id    string
	page  string
	ws    Workspace
	st    *state
	allow int // the bytes a patch may have: the selected tool's own text and some
}

func TestPageBounds(t *testing.T) {
	cases := []boundsCase{
		{name: "tools-600", listing: genTools(600, 1), rows: 500, notices: []string{"tool-more", "cost-more", "findings-more"}, selected: 550},
		{name: "tools-2000", listing: genTools(2000, 1), rows: 500, notices: []string{"tool-more", "cost-more", "findings-more", "finding-group-more"}, selected: 1999},
		{name: "params-300", listing: genTools(1, 300), rows: 1, notices: []string{"params-more"}},
		{name: "params-20000", listing: genTools(1, 20000), rows: 1, notices: []string{"params-more"}},
		{name: "tasks-600", listing: genTools(3, 1), tasks: genTasks(600), rows: 3, notices: []string{"tasks-more"}},
		{name: "tools-20-tasks-500", listing: genTools(20, 1), tasks: genTasks(500), rows: 20}, // the selects at their budget
		{name: "tools-600-tasks-50", listing: genTools(600, 1), tasks: genTasks(50), rows: 500, notices: []string{"tool-more"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := openBounded(t, c)
			b.checkBudgets(t)
			b.checkCounts(t)
			if c.selected > 0 {
				b.checkPastTheList(t)
				b.checkEditsPastTheList(t)
			}
			if b.st.findings.Hidden > 0 {
				b.checkFindingsNotice(t)
			}
			if e := b.s.editorModel(b.ws, b.st.res, 0); e != nil && e.ParamCount > maxParamRows {
				b.checkParamsNotice(t, e.ParamCount)
			}
			if len(b.ws.Tasks) > 0 {
				b.checkTaskTable(t)
			}
		})
	}
}

// openBounded imports the case's listing and task file and reads the workspace's page.
func openBounded(t *testing.T, c boundsCase) *boundedPage {
	t.Helper()
	s := newServer(t)
	rec := importMultipart(t, s, c.listing)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("paste: status %d: %s", rec.Code, shown(rec.Body.String()))
	}
	id := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
	if c.tasks != nil {
		importTaskFile(t, s, id, c.tasks)
	}
	page := getPage(t, s, "/w/"+id)
	ws, err := s.store.Get(context.Background(), id, Author{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.currentCtx(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return &boundedPage{c: c, s: s, id: id, page: page, ws: ws, st: st}
}

// checkBudgets holds the page and each of its regions to their budgets, and the full set of
// patches a page that connects late gets.
func (b *boundedPage) checkBudgets(t *testing.T) {
	t.Helper()
	sizes := regionSizes(t, b.page)
	t.Logf("%d-byte listing: page %d bytes; regions %v", len(b.c.listing), len(b.page), sizes)
	own := sizes["f-input"] + sizes["f-output"] + sizes["f-desc"]
	b.allow = own + 64<<10 // the edits below grow it a little
	if len(b.page)-own > pageBudget {
		t.Errorf("the page is %d bytes, %d without the selected tool's own text (budget %d)", len(b.page), len(b.page)-own, pageBudget)
	}
	for _, r := range []string{"tool-list", "findings", "cost", "params", "tasks"} {
		if sizes[r] > regionBudget {
			t.Errorf("#%s is %d bytes (budget %d)", r, sizes[r], regionBudget)
		}
	}
	var full []event
	for _, p := range sharedPatches(context.Background(), nil, b.st, true) {
		full = append(full, event{Type: "datastar-patch-elements", Data: map[string][]string{"elements": {p.HTML}}})
	}
	checkPatches(t, "the full set", full, b.c.rows, b.allow)
}

// checkCounts: the rows listed, the notices, and counts that stay exact (the tabs count every
// finding, the summary every task).
func (b *boundedPage) checkCounts(t *testing.T) {
	t.Helper()
	if n := len(find(t, b.page, "tool-row")); n != b.c.rows {
		t.Errorf("%d tool rows, want %d", n, b.c.rows)
	}
	for _, tid := range b.c.notices {
		if len(find(t, b.page, tid)) == 0 {
			t.Errorf("no %s notice", tid)
		}
	}
	if n := len(find(t, b.page, "finding")); n > maxFindingItems {
		t.Errorf("%d findings listed, more than %d", n, maxFindingItems)
	}
	if tabs := text(find(t, b.page, "panel-tabs")[0]); !strings.Contains(tabs, strconv.Itoa(b.st.res.Warnings)) ||
		!strings.Contains(tabs, fmt.Sprintf("/%d clear", len(b.ws.Tasks))) {
		t.Errorf("the tabs %q do not count %d warnings and %d tasks", tabs, b.st.res.Warnings, len(b.ws.Tasks))
	}
}

// checkPastTheList: what the list's notice promises holds: a tool past the list opens in the
// editor, the keyboard's steps are there, and the last listed row can still move down.
func (b *boundedPage) checkPastTheList(t *testing.T) {
	t.Helper()
	c, st, page := b.c, b.st, b.page
	if tl := st.rows; tl.Total != len(b.ws.Listing.Tools) || len(tl.Rows) != c.rows {
		t.Fatalf("rows %d of %d", len(tl.Rows), tl.Total)
	}
	more := find(t, page, "tool-more")[0]
	if got := text(more); !strings.HasPrefix(got, fmt.Sprintf("%d more tools below: ↓ or End in the list", st.rows.Total-c.rows)) {
		t.Errorf("the list's notice reads %q", got)
	}
	for _, want := range []string{`data-step="next"`, `data-step="prev"`, `data-step="first"`, `data-step="last"`, "/tools?step=next"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	// The selected tool's toolbar moves any tool but the last one down.
	if down := find(t, page, "tool-down"); len(down) == 0 || attr(down[0], "data-attr:disabled") != fmt.Sprintf("$tool >= %d", st.rows.Total-1) {
		t.Errorf("the toolbar's move-down is not enabled up to the last tool")
	}
	p := getPage(t, b.s, fmt.Sprintf("/w/%s?tool=%d", b.id, c.selected))
	if f := find(t, p, "editor-form"); len(f) == 0 || attr(f[0], "data-tool") != strconv.Itoa(c.selected) {
		t.Errorf("tool %d does not open in the editor", c.selected)
	}
	evs := post(t, b.s, "/w/"+b.id+"/select?g=-1", sig(c.selected, nil))
	if !strings.Contains(patched(evs)["editor"], fmt.Sprintf(`data-tool="%d"`, c.selected)) {
		t.Errorf("selecting tool %d: %v", c.selected, keys(patched(evs)))
	}
}

// checkEditsPastTheList: an edit past the list patches no row and not the list; an edit of a
// listed tool patches its row alone; adding a tool re-renders the list with one more counted.
func (b *boundedPage) checkEditsPastTheList(t *testing.T) {
	t.Helper()
	c, s, id := b.c, b.s, b.id
	evs := post(t, s, fmt.Sprintf("/w/%s/edit?t=%d&f=description&g=-1", id, c.selected), sig(c.selected, "Gets one record by its id, with every field."))
	checkPatches(t, "an edit past the list", evs, c.rows, b.allow)
	if _, ok := patched(evs)["tool-list"]; ok {
		t.Errorf("an edit of tool %d re-rendered the list", c.selected)
	}
	evs = post(t, s, fmt.Sprintf("/w/%s/edit?t=%d&f=name&g=-1", id, c.selected), sig(c.selected, "renamed_past_the_list"))
	checkPatches(t, "a rename past the list", evs, c.rows, b.allow)
	if _, ok := patched(evs)["tool-list"]; ok {
		t.Errorf("a rename of tool %d re-rendered the list", c.selected)
	}
	evs = post(t, s, "/w/"+id+"/edit?t=3&f=description&g=-1", sig(3, "Gets record three by its id, with every field it holds."))
	checkPatches(t, "an edit of a listed tool", evs, c.rows, b.allow)
	if _, ok := patched(evs)["tool-row-3"]; !ok {
		t.Errorf("an edit of tool 3 did not patch its row: %v", keys(patched(evs)))
	}
	evs = post(t, s, fmt.Sprintf("/w/%s/tool?op=add&i=%d&g=-1", id, b.st.rows.Total), sig(0, nil))
	checkPatches(t, "an added tool", evs, c.rows, b.allow)
	if l := patched(evs)["tool-list"]; !strings.Contains(l, fmt.Sprintf("%d more tools below", b.st.rows.Total+1-c.rows)) {
		t.Errorf("an added tool: the list was not patched with the new count: %v", keys(patched(evs)))
	}
}

// checkFindingsNotice: findingsModel lists the budget exactly, and its notice counts the rest.
func (b *boundedPage) checkFindingsNotice(t *testing.T) {
	t.Helper()
	st := b.st
	if n, all := len(find(t, b.page, "finding")), len(st.res.AllFindings()); n != maxFindingItems || n+st.findings.Hidden != all {
		t.Errorf("%d findings listed and %d left out, of %d", n, st.findings.Hidden, all)
	}
	if got := text(find(t, b.page, "findings-more")[0]); !strings.HasPrefix(got, fmt.Sprintf("%d more findings of %d tools are not shown here.", st.findings.Hidden, st.findings.HiddenTools)) ||
		!strings.Contains(got, "workbench check") {
		t.Errorf("the findings notice reads %q", got)
	}
}

// checkParamsNotice: the table lists its budget and counts the rest; "+ Parameter" appends at
// the true end.
func (b *boundedPage) checkParamsNotice(t *testing.T, count int) {
	t.Helper()
	if n := len(find(t, b.page, "param-row")); n != maxParamRows {
		t.Errorf("%d parameter rows, want %d", n, maxParamRows)
	}
	if got := text(find(t, b.page, "params-more")[0]); got != fmt.Sprintf("%d more parameters: edit them in the raw inputSchema below.", count-maxParamRows) {
		t.Errorf("the parameters notice reads %q", got)
	}
	if add := attr(find(t, b.page, "param-add")[0], "data-on:click"); !strings.Contains(add, fmt.Sprintf("p=%d&", count)) {
		t.Errorf("+ Parameter posts %q, want p=%d", add, count)
	}
	evs := post(t, b.s, fmt.Sprintf("/w/%s/param?op=add&t=0&p=%d&g=-1&gp=-1", b.id, count), sig(0, nil))
	checkPatches(t, "an added parameter", evs, b.c.rows, b.allow)
	if p := patched(evs)["params"]; !strings.Contains(p, fmt.Sprintf("%d more parameters", count+1-maxParamRows)) {
		t.Errorf("an added parameter: the table was not patched with the new count: %.200s", p)
	}
}

// checkTaskTable: the task table lists its budget; past the selects' budget the expected tool
// is typed, with one list of suggestions.
func (b *boundedPage) checkTaskTable(t *testing.T) {
	t.Helper()
	ws, page := b.ws, b.page
	rows := find(t, page, "task-row")
	if want := min(len(ws.Tasks), maxTaskRows); len(rows) != want {
		t.Errorf("%d task rows, want %d", len(rows), want)
	}
	add := find(t, page, "task-add")[0]
	if cut := len(ws.Tasks) > maxTaskRows; cut != hasAttr(add, "disabled") {
		t.Errorf("+ Task disabled: %v, want %v", !cut, cut)
	}
	exp := find(t, page, "task-expect")[0]
	if typed := len(ws.Listing.Tools)*min(len(ws.Tasks), maxTaskRows) > maxTaskOptions || len(ws.Listing.Tools) > maxToolNames; typed {
		if exp.Data != "input" || attr(exp, "list") != "task-tools" || strings.Count(page, "<datalist") != 1 {
			t.Errorf("the expected tool is a %s (list %q), want a text field with the table's suggestions", exp.Data, attr(exp, "list"))
		}
	} else if exp.Data != "select" {
		t.Errorf("the expected tool is a %s, want a select", exp.Data)
	}
}

func TestRealListingRendersWhole(t *testing.T) {
	b := testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")
	s := newServer(t)
	rec := importMultipart(t, s, b)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("paste: status %d: %s", rec.Code, shown(rec.Body.String()))
	}
	id := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
	ws, err := s.store.Get(context.Background(), id, Author{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.currentCtx(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	page := getPage(t, s, "/w/"+id)
	all := len(st.res.AllFindings())
	t.Logf("%d tools, %d findings: page %d bytes", len(ws.Listing.Tools), all, len(page))
	if n := len(find(t, page, "tool-row")); n != len(ws.Listing.Tools) || n != 117 {
		t.Errorf("%d tool rows for %d tools, want 117", n, len(ws.Listing.Tools))
	}
	if n := len(find(t, page, "finding")); n != all {
		t.Errorf("%d findings listed of %d", n, all)
	}
	if n := strings.Count(page, `class="bar-name"`); n != 117 {
		t.Errorf("%d cost bars, want 117", n)
	}
	for _, tid := range []string{"tool-more", "findings-more", "finding-group-more", "cost-more", "params-more", "tasks-more"} {
		if len(find(t, page, tid)) > 0 {
			t.Errorf("a %s notice shows for a listing under the caps", tid)
		}
	}
	// The tool with the most parameters lists them all.
	most, at := 0, 0
	for i := range ws.Listing.Tools {
		if e := s.editorModel(ws, st.res, i); e != nil && e.ParamCount > most {
			most, at = e.ParamCount, i
		}
	}
	p := getPage(t, s, fmt.Sprintf("/w/%s?tool=%d", id, at))
	if n := len(find(t, p, "param-row")); n != most {
		t.Errorf("tool %d: %d parameter rows of %d", at, n, most)
	}
}

// TestHostilePageSizes measures the pages of the hostile corpus's largest listings, region by
// region (go test ./web -run TestHostilePageSizes -v): they hold to the same budgets as
// generated listings, besides the selected tool's own text. Before the caps they were 57 MB
// (tools-20000), 188 MB (params-50000) and 10.5 MB (neardup-3000-tools).
func TestHostilePageSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: listings of several megabytes")
	}
	want := map[string]bool{"tools-20000": true, "params-50000": true, "neardup-3000-tools": true}
	// This test measures sizes, not time: on a loaded machine the first page of 20,000 tools
	// can take longer than the default request deadline, which other tests hold.
	s := newServer(t, func(c *Config) { c.RequestTimeout = -1 })
	for _, c := range hostilecorpus.Corpus() {
		if !want[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			rec := importMultipart(t, s, c.Listing)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("paste: status %d: %s", rec.Code, shown(rec.Body.String()))
			}
			page := getPage(t, s, rec.Header().Get("Location"))
			sizes := regionSizes(t, page)
			t.Logf("%d-byte listing: page %d bytes; regions %v", len(c.Listing), len(page), sizes)
			own := sizes["f-input"] + sizes["f-output"] + sizes["f-desc"]
			if len(page)-own > pageBudget {
				t.Errorf("the page is %d bytes, %d without the selected tool's own text (budget %d)", len(page), len(page)-own, pageBudget)
			}
		})
	}
}

// postListingHTTP pastes a listing into the server at base over HTTP and returns the workspace's
// path (the browser's own paste would carry megabytes through the page).
func postListingHTTP(t testing.TB, base string, listing []byte) string {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("listing", string(listing))
	w.Close()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Post(base+"/workspaces", w.FormDataContentType(), &b)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("paste: status %d", resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

// TestBrowserLongListing opens a listing longer than the tool list shows and moves past the
// listed rows with the keyboard, as the list's notice says: j and Alt+↓ open the next tool in the
// editor, k the previous, back onto the listed rows. WORKBENCH_SCREENSHOT_DIR, when set, makes
// the listing 20,000 tools and keeps screenshots of the notices at 1280×800.
func TestBrowserLongListing(t *testing.T) {
	ctx, base := browser(t)
	n := 600
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir != "" {
		n = 20000
	}
	loc := postListingHTTP(t, base, genTools(n, 1))
	at := func(tool int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid=editor-form]')?.dataset.tool === '%d'`, tool),
			chromedp.WithPollingTimeout(10*time.Second))
	}
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(base+loc),
		chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("[data-testid=pick-499]")), at(499),
		chromedp.KeyEvent("j"), at(500),
		// The list's window moved to the tool opened.
		chromedp.Poll[chromedp.Void](`document.getElementById('tool-row-500')?.classList.contains('selected')`,
			chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.KeyEvent(kb.ArrowDown, chromedp.KeyModifiers(chromedp.ModifierAlt)), at(501),
		chromedp.KeyEvent("k"), at(500),
		chromedp.KeyEvent("k"), at(499),
		chromedp.Poll[chromedp.Void](`document.getElementById('tool-row-499').classList.contains('selected')`, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.KeyEvent("k"), at(498),
	)
	if err != nil {
		h, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('tool-more')?.outerHTML || 'no notice'`))
		t.Fatalf("keyboard past the listed tools: %v\n%s", err, h)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#tool-list .tool-row').length`))
	if err != nil || rows != maxToolRows {
		t.Errorf("%d rows listed (%v), want %d", rows, err, maxToolRows)
	}
	if dir == "" {
		return
	}
	// Past the listed rows, each region scrolled to its notice.
	err = chromedp.Do(ctx, chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), at(501),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('tool-more').scrollIntoView({block: 'end'});
			document.querySelector('[data-testid=findings-more]').scrollIntoView({block: 'end'})`))
	if err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, filepath.Join(dir, "long-listing-1280-findings.png"))
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#panel-tabs [role=tab]:nth-child(2)")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=cost-more]")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=cost-more]').scrollIntoView({block: 'end'})`))
	if err != nil {
		t.Fatal(err)
	}
	shoot(t, ctx, filepath.Join(dir, "long-listing-1280-cost.png"))
}
