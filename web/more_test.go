package web

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing/remote"
)

func TestStreamKeepAlive(t *testing.T) {
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: newTestStore(t), Engine: eng, KeepAlive: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	errLog := &syncBuf{}
	ts.Config.ErrorLog = log.New(errLog, "", 0)
	ts.Start()
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	st := dialSSE(t, ts.URL, id, strings.Repeat("c", 32), 0, 0, nil)
	// The page's own arrival shows in the presence region, once (presenceDelay after it
	// joined); keep-alive comments come meanwhile.
	st.next(t, "the presence patch of the page's own arrival", func(e event) bool {
		if e.Type == commentEvent {
			return false
		}
		el, ok := patchOf(e, "presence")
		if !ok || !strings.Contains(el, `data-testid="person"`) {
			t.Errorf("an idle stream sent an event beyond its own presence: %s %.200s", e.Type, e.elements())
			return false
		}
		return true
	})
	// Heartbeats send nothing more. Counting comments rather than sleeping: each is one
	// heartbeat announced, and 2*presenceDelay worth of them leaves time for any presence
	// patch a heartbeat wrongly caused to arrive.
	quiet := int(2*presenceDelay/(10*time.Millisecond)) + 1
	comments := 0
	st.next(t, fmt.Sprintf("%d keep-alive comments after the presence patch", quiet), func(e event) bool {
		if e.Type != commentEvent {
			t.Errorf("an idle stream sent an event beyond its own presence: %s %.200s", e.Type, e.elements())
			return false
		}
		if txt := strings.Join(e.Data["text"], ""); txt != "keep-alive" {
			t.Errorf("comment %q, want keep-alive", txt)
		}
		comments++
		return comments == quiet
	})
	// The keep-alive goes on the writer the SSE headers went on: through echo's Response it
	// would send the headers again, which net/http refuses and logs.
	if l := errLog.String(); l != "" {
		t.Errorf("the server logged while streaming: %s", l)
	}
}

func TestTaskExpectIsASelect(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	page := getPage(t, s, "/w/"+id)
	sels := find(t, page, "task-expect")
	if len(sels) == 0 || sels[0].Data != "select" {
		t.Fatalf("the expected tool is not a select")
	}
	var opts []string
	selected := ""
	for o := sels[0].FirstChild; o != nil; o = o.NextSibling {
		if o.Type == html.ElementNode && o.Data == "option" {
			opts = append(opts, attr(o, "value"))
			for _, a := range o.Attr {
				if a.Key == "selected" {
					selected = attr(o, "value")
				}
			}
		}
	}
	// "no tool" and the example's 8 tools.
	if len(opts) != 9 || opts[0] != "" {
		t.Errorf("options %q, want no tool and the 8 tool names", opts)
	}
	if selected == "" {
		t.Errorf("no tool is selected for task 1, which expects one")
	}
	// Renaming a tool re-renders the task table, so the selects offer the new name.
	p := patched(post(t, s, "/w/"+id+"/edit?t=0&f=name", sig(0, "catalog_lookup")))
	if !strings.Contains(p["tasks"], `value="catalog_lookup"`) {
		t.Errorf("the task table was not patched with the new name: %v", keys(p))
	}
	// A task expecting a tool the listing no longer has keeps it, marked.
	post(t, s, "/w/"+id+"/task?op=set&i=0&k=expect", sig(0, "gone_tool"))
	post(t, s, "/w/"+id+"/task?op=add&i=0", sig(0, ""))
	page = getPage(t, s, "/w/"+id)
	if !strings.Contains(page, "gone_tool (not in the listing)") {
		t.Errorf("an expected tool missing from the listing is not shown as such")
	}
}

func TestFetchReportHostileTextStaysText(t *testing.T) {
	s := fetchServer(t, remote.LocalPolicy(), nil)
	srv, u := mcpServer(t, 1, 10, "")
	form := url.Values{"url": {u}}
	rec := fetchHome(t, s, form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	id := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
	srv.RemoveTools("t0")
	addMCPTool(srv, "t0", hostile)
	addMCPTool(srv, `<img src=x onerror="window.pwned=9">`, hostile)
	_, evs := refetch(t, s, id, form)
	panel := patched(evs)["server-panel"]
	if panel == "" {
		t.Fatal("no server panel patched")
	}
	root, err := html.Parse(strings.NewReader(panel))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "img", "b":
				t.Errorf("hostile text became a <%s> element", n.Data)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "data-init" || a.Key == "data-on:load" || a.Key == "data-on:click" && !strings.HasPrefix(a.Val, "@post('/w/") {
					t.Errorf("hostile text became attribute %s=%q", a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	if !strings.Contains(panel, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
		t.Errorf("the hostile description is not shown as text")
	}
}

func TestMountAndAPIErrors(t *testing.T) {
	eng, err := analysis.New(analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: newTestStore(t), Engine: eng,
		Mount: func(e *echo.Echo) {
			e.GET("/api/v1/ping", func(c echo.Context) error { return c.String(http.StatusOK, "pong") })
		},
		APIErrors: func(err error, c echo.Context) {
			_ = c.JSON(http.StatusTeapot, map[string]string{"error": err.Error()})
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := do(t, s, httptest.NewRequest(http.MethodGet, "/api/v1/ping", nil)); rec.Body.String() != "pong" {
		t.Errorf("mounted route: %d %q", rec.Code, rec.Body.String())
	}
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/api/v1/nothing", nil))
	if rec.Code != http.StatusTeapot || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("API error: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	rec = do(t, s, httptest.NewRequest(http.MethodGet, "/nothing", nil))
	if rec.Code != http.StatusNotFound || len(find(t, rec.Body.String(), "error-page")) != 1 {
		t.Errorf("page error: %d", rec.Code)
	}
}
