package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/listing"
)

// overlapEvents opens the Overlap tab as the page does and returns the region it patches.
func overlapEvents(t testing.TB, s *Server, id string) string {
	t.Helper()
	code, evs := getSSE(t, s, "/w/"+id+"/overlap", sig(0, ""))
	if code != http.StatusOK {
		t.Fatalf("GET overlap: status %d", code)
	}
	el, ok := patched(evs)["overlap"]
	if !ok {
		t.Fatal("GET overlap did not patch the overlap region")
	}
	return el
}

// TestOverlapPanel opens the Overlap tab of the seed's second draft: the heat map has a cell
// with an explaining title for each side of each competing pair, and its strongest pair is the
// one the seed discusses (catalog_get_book against catalog_search).
func TestOverlapPanel(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	el := overlapEvents(t, s, id)
	cells := find(t, el, "ov-0-1")
	if len(find(t, el, "overlap-map")) != 1 || len(cells) != 1 {
		t.Fatalf("no map, or no cell for tools 0 and 1: %s", shown(el))
	}
	title := findTag(cells[0], "title")
	if title == nil || !strings.Contains(text(title), "catalog_get_book / catalog_search") || !strings.Contains(text(title), "strength") {
		t.Errorf("cell 0-1 does not explain itself: %v", title)
	}
	if len(find(t, el, "ov-1-0")) != 1 {
		t.Errorf("the map is not drawn on both sides of the diagonal")
	}
	pairs := find(t, el, "overlap-pairs")
	if len(pairs) != 1 {
		t.Fatalf("no list of pairs")
	}
	first := findTag(pairs[0], "li")
	if got := text(first); !strings.Contains(got, "catalog_get_book") || !strings.Contains(got, "catalog_search") {
		t.Errorf("the strongest pair is %q, want catalog_get_book / catalog_search", got)
	}
}

// TestDamageLive shows the damage test under the task table and patches it after an edit that
// changes what a tool wins.
func TestDamageLive(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	page := getPage(t, s, "/w/"+id)
	if len(find(t, page, "damage")) != 1 || len(find(t, page, "damage-carrier")) == 0 {
		t.Fatalf("no damage table on the page")
	}
	desc := "Show one book's full record (copies, branches, due dates) by its catalog id or its ISBN. Without an id, use catalog_search."
	p := patched(post(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, desc)))
	d, ok := p["damage"]
	if !ok {
		t.Fatalf("the damage table was not patched after an edit that wins task 1; patched: %v", keys(p))
	}
	if len(find(t, d, "damage-0")) != 1 {
		t.Errorf("no row for catalog_get_book after the edit: %s", shown(d))
	}
}

// TestOverlapHostileNames: names that are markup or script reach the map only as text, and no
// Datastar expression or data-* attribute holds any of them.
func TestOverlapHostileNames(t *testing.T) {
	s := newServer(t)
	bad := []string{`<script>alert(1)</script>`, `"onmouseover="alert(2)`, `'); alert(3); ('`, "a\rb</title><svg onload=alert(4)>"}
	var tools []string
	for _, n := range bad {
		q := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(n, `\`, `\\`), `"`, `\"`), "\r", `\r`)
		tools = append(tools, fmt.Sprintf(`{"name": "%s", "description": "Search the catalog of books by title or author and list the matching books.", "inputSchema": {"type": "object"}}`, q))
	}
	id := workspaceFrom(t, s, `{"tools": [`+strings.Join(tools, ",")+`]}`)
	el := overlapEvents(t, s, id)
	for _, raw := range []string{"<script>", "<svg onload", `"onmouseover="`} {
		if strings.Contains(el, raw) {
			t.Errorf("a name reached the HTML unescaped: %q", raw)
		}
	}
	root, err := html.Parse(strings.NewReader(el))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "data-") && strings.Contains(a.Val, "alert") {
				t.Errorf("user text in %s=%q", a.Key, a.Val)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	if !strings.Contains(text(root), "<script>alert(1)</script>") {
		t.Errorf("the hostile name is not shown as text")
	}
}

// BenchmarkOverlapPanel measures the Overlap tab opened after an edit on the GitHub listing with
// 200 tasks: the overlap map recomputed incrementally and its region rendered as SSE.
func BenchmarkOverlapPanel(b *testing.B) {
	s := newServer(b)
	l, err := listing.Parse(githubListing(b), listing.Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	ws, err := s.store.Create(b.Context(), "github", l, benchTasks(l, 200), Author{Name: "bench"}, "")
	if err != nil {
		b.Fatal(err)
	}
	getPage(b, s, "/w/"+ws.ID)
	base := l.Tools[40].Get("description").Str
	var bytes int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		post(b, s, "/w/"+ws.ID+"/edit?t=40&f=description", map[string]any{"pid": strings.Repeat("c", 32), "tool": 40, "val": base + strings.Repeat(" more", i%7+1)})
		code, evs := getSSE(b, s, "/w/"+ws.ID+"/overlap", sig(40, ""))
		if code != http.StatusOK || len(evs) == 0 {
			b.Fatalf("overlap: status %d", code)
		}
		bytes += len(evs[0].elements())
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "html-bytes")
}
