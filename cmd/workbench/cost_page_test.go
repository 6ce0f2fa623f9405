package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestCostTabAgreesWithCLI holds the browser's Cost tab to `workbench cost`: for every
// tokenizer and rendering, on the GitHub server's listing and an example, the region a page gets
// for that choice shows the CLI's JSON figures (totals, frame, share of the window, each tool,
// each part summed over the tools, the dearest tools part by part), and on the example the
// tab's downloads are byte for byte what the CLI prints with --baseline (the workspace's
// baseline is the listing as imported).
func TestCostTabAgreesWithCLI(t *testing.T) {
	ex, ok := examples.Get("library-2-draft")
	if !ok {
		t.Fatal("no example library-2-draft")
	}
	exPath := filepath.Join(t.TempDir(), "library.json")
	if err := os.WriteFile(exPath, ex.Listing, 0o644); err != nil {
		t.Fatal(err)
	}
	listings := map[string]string{
		"github":  testutil.Shared(t, "listings", "real", "github-mcp-server.json"),
		"example": exPath,
	}
	// Every tokenizer with every rendering, and the estimates with other models' constants.
	var choices []costOpts
	for _, tok := range cost.Encodings {
		for _, render := range cost.RenderingNames() {
			choices = append(choices, costOpts{tok: tok, render: render})
		}
	}
	choices = append(choices, costOpts{"o200k_base", "openai", "gpt-4o-mini", ""}, costOpts{"cl100k_base", "openai", "gpt-3.5-turbo", ""},
		costOpts{"o200k_base", "anthropic", "claude-3-opus", "any"}, costOpts{"o200k_base", "anthropic", "claude-3-5-haiku", "tool"})
	h := newAgreementPage(t)
	for name, path := range listings {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ws := importWorkspace(t, h, src)
		for _, o := range choices {
			t.Run(name+"/"+o.String(), func(t *testing.T) {
				out, errs, code := runCostCmd(t, "", append([]string{path, "--format", "json"}, o.flags()...)...)
				if code != 0 {
					t.Fatalf("workbench cost: exit %d: %s", code, errs)
				}
				var want cost.Report
				if err := json.Unmarshal([]byte(out), &want); err != nil {
					t.Fatal(err)
				}
				compareCostRegion(t, costRegion(t, h, ws, o), want)
				if name != "example" {
					return // the downloads count afresh, as the CLI does: the small listing serves
				}
				for _, f := range []struct{ format, flags string }{{"json", "--format json"}, {"text", "--format text --parts"}} {
					cli, errs, code := runCostCmd(t, "", append(append([]string{path, "--baseline", path}, o.flags()...), strings.Fields(f.flags)...)...)
					if code != 0 {
						t.Fatalf("workbench cost %s: exit %d: %s", f.flags, code, errs)
					}
					q := url.Values{"format": {f.format}, "tokenizer": {o.tok}, "render": {o.render}, "context": {strconv.Itoa(costWindow)},
						"model": {o.model}, "tool-choice": {o.choice}}
					if got := get(t, h, "/w/"+ws+"/cost/report?"+q.Encode()); got != cli {
						t.Errorf("the %s download differs from workbench cost %s:\n%.2000s\n--- CLI:\n%.2000s", f.format, f.flags, got, cli)
					}
				}
			})
		}
	}
}

// costWindow is the context window the agreement test chooses.
const costWindow = 200000

// costOpts is one choice of the Cost tab and of `workbench cost`.
type costOpts struct{ tok, render, model, choice string }

func (o costOpts) String() string {
	return strings.Join(slices.DeleteFunc([]string{o.tok, o.render, o.model, o.choice}, func(s string) bool { return s == "" }), "/")
}

// flags are the CLI's flags for o.
func (o costOpts) flags() []string {
	f := []string{"--tokenizer", o.tok, "--render", o.render, "--context", strconv.Itoa(costWindow)}
	if o.model != "" {
		f = append(f, "--model", o.model)
	}
	if o.choice != "" {
		f = append(f, "--tool-choice", o.choice)
	}
	return f
}

// importWorkspace pastes src on the start page and returns the new workspace's id.
func importWorkspace(t *testing.T, h http.Handler, src []byte) string {
	t.Helper()
	form := url.Values{"listing": {string(src)}}
	req := httptest.NewRequest(http.MethodPost, "/workspaces", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("import: status %d: %.500s", rec.Code, rec.Body)
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
}

func get(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.500s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// costRegion asks for the Cost region as a page that chose o does (its
// signals in the query, as the Datastar client sends them with a GET) and parses it.
func costRegion(t *testing.T, h http.Handler, ws string, o costOpts) *html.Node {
	t.Helper()
	sig, _ := json.Marshal(map[string]any{"pid": strings.Repeat("c", 32), "costtok": o.tok, "costrender": o.render, "costwin": costWindow,
		"costmodel": o.model, "costchoice": o.choice})
	body := get(t, h, "/w/"+ws+"/cost?"+url.Values{"datastar": {string(sig)}}.Encode())
	// The SSE events: each element patch's "elements" lines make one fragment.
	var frag []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if l, ok := strings.CutPrefix(sc.Text(), "data: elements "); ok {
			frag = append(frag, l)
		}
	}
	doc, err := html.Parse(strings.NewReader(strings.Join(frag, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	region := find(doc, func(n *html.Node) bool { return attr(n, "id") == "cost" })
	if region == nil {
		t.Fatalf("no Cost region in the answer:\n%.2000s", body)
	}
	return region
}

// compareCostRegion checks every figure of the region against the CLI's report.
func compareCostRegion(t *testing.T, region *html.Node, want cost.Report) {
	t.Helper()
	texts := map[string][]string{}
	walk(region, func(n *html.Node) {
		if id := attr(n, "data-testid"); id != "" {
			texts[id] = append(texts[id], strings.TrimSpace(text(n)))
		}
	})
	one := func(id string) string {
		if len(texts[id]) != 1 {
			t.Fatalf("%d elements %s in the region", len(texts[id]), id)
		}
		return texts[id][0]
	}
	figures := []struct {
		what, got, want string
	}{
		{"tokens", one("cost-tokens"), strconv.Itoa(want.Total.Tokens)},
		{"bytes", one("cost-bytes"), strconv.Itoa(want.Total.Bytes)},
		{"frame tokens", one("cost-overhead-tokens"), strconv.Itoa(want.Overhead.Tokens)},
		{"frame bytes", one("cost-overhead-bytes"), strconv.Itoa(want.Overhead.Bytes)},
		{"share of the window", one("cost-share"), strconv.FormatFloat(100*want.ContextShare, 'f', 2, 64) + "%"},
		{"tools' tokens", strings.Join(texts["cost-bar-tokens"], " "), toolTokens(want.Tools)},
		{"parts", strings.Join(texts["cost-part"], "; "), partSums(want)},
		{"dearest tools", strings.Join(texts["cost-top-row"], "; "), dearest(want)},
		{"cheapest tools", strings.Join(texts["cost-cheapest"], ", "), cheapest(want)},
	}
	for _, f := range figures {
		if f.got != f.want {
			t.Errorf("%s: the page shows %q, workbench cost %q", f.what, f.got, f.want)
		}
	}
}

func toolTokens(tools []cost.ToolCost) string {
	s := make([]string, len(tools))
	for i, tl := range tools {
		s[i] = strconv.Itoa(tl.Tokens)
	}
	return strings.Join(s, " ")
}

// partSums is the parts table as the CLI's report gives it: each part's tokens, bytes and share
// summed over the tools, then the frame.
func partSums(r cost.Report) string {
	type sum struct{ tokens, bytes int }
	sums := map[string]*sum{}
	for _, tl := range r.Tools {
		for _, p := range tl.Parts {
			if sums[p.Name] == nil {
				sums[p.Name] = &sum{}
			}
			sums[p.Name].tokens += p.Tokens
			sums[p.Name].bytes += p.Bytes
		}
	}
	row := func(name string, tokens, bytes int) string {
		return fmt.Sprintf("%s%d%d%s%%", name, tokens, bytes, strconv.FormatFloat(100*float64(tokens)/float64(r.Total.Tokens), 'f', 1, 64))
	}
	var rows []string
	for _, n := range cost.PartNames() {
		if s := sums[n]; s != nil {
			rows = append(rows, row(n, s.tokens, s.bytes))
		}
	}
	return strings.Join(append(rows, row("frame", r.Overhead.Tokens, r.Overhead.Bytes)), "; ")
}

// dearest is the table of the dearest tools (the CLI's order by tokens, ties in listing order):
// name, total, then each part of the listing's in order.
func dearest(r cost.Report) string {
	parts := map[string]bool{}
	for _, tl := range r.Tools {
		for _, p := range tl.Parts {
			parts[p.Name] = true
		}
	}
	idx := make([]int, len(r.Tools))
	for i := range idx {
		idx[i] = i
	}
	for i := 1; i < len(idx); i++ { // a stable insertion sort, dearest first
		for j := i; j > 0 && r.Tools[idx[j]].Tokens > r.Tools[idx[j-1]].Tokens; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	var rows []string
	for _, i := range idx[:min(len(idx), 10)] {
		tl := r.Tools[i]
		row := tl.Name + strconv.Itoa(tl.Tokens)
		for _, n := range cost.PartNames() {
			if !parts[n] {
				continue
			}
			v := 0
			for _, p := range tl.Parts {
				if p.Name == n {
					v = p.Tokens
				}
			}
			row += strconv.Itoa(v)
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "; ")
}

// cheapest is the CLI's list of the cheapest tools, as its text format writes it.
func cheapest(r cost.Report) string {
	s := make([]string, len(r.Cheapest))
	for i, x := range r.Cheapest {
		s[i] = fmt.Sprintf("%s (%d)", x.Name, x.Tokens)
	}
	return strings.Join(s, ", ")
}
