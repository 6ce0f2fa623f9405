package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tool-workbench/workbench/listing"
)

// measure wraps the page's fetch: when an edit's request leaves (after the debounce) it notes
// the time, and every change after it to the findings, cost or task panels (and their tab
// counts) notes the time of the last one and which regions changed; when the answer's body
// has been read whole it notes that too.
const measure = `(() => {
  const m = window.__m = {sent: 0, last: 0, ended: 0, regions: {}};
  const f = window.fetch;
  window.fetch = async function (u, o) {
    const edit = String(u).includes('/edit?');
    if (edit) { m.sent = performance.now(); m.last = 0; m.ended = 0; m.regions = {}; }
    const r = await f.apply(this, arguments);
    if (!edit || !r.body) return r;
    const [a, b] = r.body.tee();
    (async () => { const rd = b.getReader(); while (!(await rd.read()).done) {} m.ended = performance.now(); })();
    return new Response(a, {status: r.status, statusText: r.statusText, headers: r.headers});
  };
  for (const id of ['tp-findings', 'tp-cost', 'tp-tasks', 'panel-tabs']) {
    const el = document.getElementById(id);
    new MutationObserver(() => { if (m.sent) { m.last = performance.now(); m.regions[id] = true; } })
      .observe(id === 'panel-tabs' ? el.parentNode : el, {subtree: true, childList: true, characterData: true, attributes: true});
  }
  return true;
})()`

// importTasks posts a task file to a workspace as the Tasks panel's form does.
func importTasks(b testing.TB, base, loc string, tasks []byte) {
	b.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", "tasks.json")
	fw.Write(tasks)
	w.Close()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Post(base+loc+"/tasks/import", w.FormDataContentType(), &body)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("import tasks: status %d", resp.StatusCode)
	}
}

// BenchmarkBrowserKeystroke measures, in Chromium, one keystroke in a description: from its
// request leaving the page (after the 150 ms debounce) to the last update of the findings,
// cost and task panels it brings, on GitHub's listing (117 tools) and on the benchmark
// generator's 2,000 tools, each with 200 tasks. Each keystroke alternately types a U+200B
// (a hidden character: a new finding, more tokens) and deletes it, so that findings and cost
// change every time. It reports p50 and p95; run with -benchtime 30x or so.
func BenchmarkBrowserKeystroke(b *testing.B) {
	b.Run("github", func(b *testing.B) {
		src := githubListing(b)
		l, err := listing.Parse(src, listing.Options{Name: "github"})
		if err != nil {
			b.Fatal(err)
		}
		var tasks []map[string]any
		for _, t := range benchTasks(l, 200) {
			tasks = append(tasks, map[string]any{"task": t.Task, "expect": t.Expect})
		}
		tj, _ := json.Marshal(tasks)
		benchKeystroke(b, src, tj, 40)
	})
	b.Run("gen2000", func(b *testing.B) {
		src, tj := genListing(b, 2000, 200)
		benchKeystroke(b, src, tj, 40)
	})
}

func benchKeystroke(b *testing.B, src, tasks []byte, tool int) {
	ctx, base := browser(b)
	loc := postListingHTTP(b, base, src)
	importTasks(b, base, loc, tasks)
	t0 := time.Now()
	err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s%s?tool=%d", base, loc, tool)),
		chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		b.Fatal(err)
	}
	type size struct{ Bytes, Elements int }
	sz, _ := chromedp.Run(ctx, chromedp.Evaluate[size](`({bytes: document.documentElement.outerHTML.length, elements: document.getElementsByTagName('*').length})`))
	b.Logf("page opened in %v: %d bytes of HTML, %d elements", time.Since(t0).Round(time.Millisecond), sz.Bytes, sz.Elements)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](measure)); err != nil {
		b.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`)); err != nil {
		b.Fatal(err)
	}
	type result struct {
		Sent, Last, Ended float64
		Regions           map[string]bool
	}
	var lat, answer []float64
	seen := map[string]int{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := "x"
		if i%2 == 1 {
			key = kb.Backspace
		}
		err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__m.sent = 0`), chromedp.KeyEvent(key),
			chromedp.Poll[chromedp.Void](`window.__m.sent > 0 && window.__m.ended > 0 && performance.now() - Math.max(window.__m.ended, window.__m.last) > 50`,
				chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil {
			b.Fatalf("keystroke %d: %v", i, err)
		}
		r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`window.__m`))
		if err != nil {
			b.Fatal(err)
		}
		for k := range r.Regions {
			seen[k]++
		}
		lat = append(lat, max(r.Last, r.Ended)-r.Sent)
		answer = append(answer, r.Ended-r.Sent)
	}
	b.StopTimer()
	sort.Float64s(lat)
	sort.Float64s(answer)
	q := func(xs []float64, p float64) float64 { return xs[int(p*float64(len(xs)-1))] }
	b.ReportMetric(q(lat, 0.5), "p50-ms")
	b.ReportMetric(q(lat, 0.95), "p95-ms")
	// The answer read whole: the server's part and the wire's, without the page's.
	b.ReportMetric(q(answer, 0.5), "answer-p50-ms")
	var rs []string
	for k, n := range seen {
		rs = append(rs, fmt.Sprintf("%s %d/%d", k, n, b.N))
	}
	sort.Strings(rs)
	b.Logf("regions updated: %s", strings.Join(rs, ", "))
}
