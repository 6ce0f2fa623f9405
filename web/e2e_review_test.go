package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
)

// reviewListing has one tool whose parameter is described and no error finding: the gate can
// pass on it.
const reviewListing = `{"tools": [{"name": "books_search", "description": "Search the library catalogue by a book's title or author; use books_get for one book by its id.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Words of the title or the author's name."}}, "required": ["q"], "additionalProperties": false}}]}`

// reviewer is one person's browser (its own cookies) on the workspace page.
type reviewer struct {
	name string
	ctx  context.Context
}

// poll waits until js is true on the reviewer's page, saying what it waited for.
func (r reviewer) poll(t *testing.T, what, js string) {
	t.Helper()
	if err := chromedp.Do(r.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		h, _ := chromedp.Run(r.ctx, chromedp.Evaluate[string](`document.getElementById('review')?.innerText.slice(0, 2000) || 'no panel'`))
		t.Fatalf("%s: %s: %v\nthe panel shows:\n%s", r.name, what, err, h)
	}
}

func (r reviewer) do(t *testing.T, what string, acts ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(r.ctx, acts...); err != nil {
		t.Fatalf("%s: %s: %v", r.name, what, err)
	}
}

// openAs opens the workspace at url in ctx, chooses name, and opens the Review tab.
func openAs(t *testing.T, ctx context.Context, url, name string) reviewer {
	t.Helper()
	r := reviewer{name: name, ctx: ctx}
	// The name form's post, sent from the page (its answer sets the name cookie), then the page
	// loaded anew: submitting the form itself navigates under the test's feet.
	r.do(t, "open the workspace and choose a name",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#display-name")),
		chromedp.Evaluate[chromedp.Void](`fetch('/me/name', {method: 'POST', redirect: 'manual', body: new URLSearchParams({name: '`+name+`', next: location.pathname})}).then(() => true)`, chromedp.EvalAwaitPromise),
		chromedp.Navigate(url),
	)
	r.poll(t, "the page after choosing a name", `document.getElementById('display-name')?.value === '`+name+`' && document.querySelector('[data-testid=datastar-missing]').style.display === 'none'`)
	r.do(t, "open the Review tab", chromedp.Click(chromedp.CSS("[data-testid=tab-review]")))
	r.poll(t, "the Review panel", `!!document.getElementById('review-gate')`)
	return r
}

// TestBrowserReview: two reviewers in two browsers. A comments on a parameter (through the
// editor's Comment action), B sees it live and replies (A's reply arriving while B types leaves
// B's text alone), A resolves; A approves and the gate passes; B edits the description, A's
// approval turns stale and the gate fails; A's Approve on the listing as A opened it is refused
// with what changed since; A refreshes the panel, approves again and it passes. A page that
// leaves the Review tab is sent the panel no more. The gate is read
// from both pages, from the review service and through GET /api/v1/workspaces/{id}/review.
func TestBrowserReview(t *testing.T) {
	var svc *review.Service
	ctx, base := browser(t, func(c *Config) { svc = mountReviewAPI(c) })
	pasteListing(t, ctx, base, reviewListing)
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	ws := url[strings.LastIndex(url, "/")+1:]
	a := openAs(t, ctx, url, "Ada")
	bctx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	b := openAs(t, bctx, url, "Ben")
	gate := func(want bool) {
		t.Helper()
		for _, r := range []reviewer{a, b} {
			r.poll(t, fmt.Sprintf("the gate passed=%v", want), fmt.Sprintf(`document.getElementById('review-gate')?.dataset.passed === '%v'`, want))
		}
		st, err := svc.Status(context.Background(), ws, 1)
		if err != nil || st.Passed != want {
			t.Fatalf("the review service says passed=%v (%v), %v; want %v", st.Passed, st.Reasons, err, want)
		}
		got, err := chromedp.Run(a.ctx, chromedp.Evaluate[string](`fetch('/api/v1/workspaces/`+ws+`/review').then((r) => r.json()).then((j) => String(j.status.passed) + " " + j.status.revision)`, chromedp.EvalAwaitPromise))
		if err != nil || got != fmt.Sprintf("%v %d", want, st.Revision) {
			t.Fatalf("GET /api/v1/workspaces/%s/review answers %q (%v); want passed %v at revision %d", ws, got, err, want, st.Revision)
		}
	}
	gate(false) // nobody approved yet

	// A comments on the parameter q; B sees the thread arrive.
	// The editor's Comment action beside the parameter opens the form preset to it.
	a.do(t, "the parameter's Comment action", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=comment-param]').click()`))
	a.poll(t, "the form preset to q", `document.getElementById('review-new-field')?.value === '/inputSchema/properties/q'`)
	a.do(t, "comment on q",
		chromedp.SendKeys(chromedp.CSS("#review-new-body"), "Say whether q matches words of the title only."),
		chromedp.Click(chromedp.CSS("[data-testid=review-new-submit]")),
	)
	b.poll(t, "A's thread, live", `[...document.querySelectorAll('[data-testid=thread]')].some((t) => t.querySelector('[data-testid=thread-label]').textContent.includes('q') && t.querySelector('[data-testid=comment-body]').textContent.includes('title only') && t.querySelector('[data-testid=comment-author]').textContent === 'Ada')`)
	a.poll(t, "the new-thread box emptied", `document.getElementById('review-new-body').value === ''`)
	b.poll(t, "the parameter's open-thread count in the editor", `document.querySelector('[data-testid=review-count-param]')?.textContent.trim() === '1'`)

	// B starts a reply; A's reply arrives meanwhile and leaves B's text alone; B sends it; A
	// sees it and resolves.
	const typed = "Title and author; I will say so."
	b.do(t, "type a reply", chromedp.SendKeys(chromedp.CSS("[data-testid=thread-reply-body]"), typed))
	a.do(t, "reply while B types",
		chromedp.SendKeys(chromedp.CSS("[data-testid=thread-reply-body]"), "Any news?"),
		chromedp.Click(chromedp.CSS("[data-testid=thread-reply]")),
	)
	b.poll(t, "A's reply, live, with B's text kept", `document.querySelectorAll('[data-testid=comment]').length === 2 && document.querySelector('[data-testid=thread-reply-body]').value === '`+typed+`'`)
	b.do(t, "send the reply", chromedp.Click(chromedp.CSS("[data-testid=thread-reply]")))
	a.poll(t, "B's reply, live", `[...document.querySelectorAll('[data-testid=comment]')].some((c) => c.textContent.includes('Ben') && c.textContent.includes('I will say so'))`)
	a.do(t, "resolve", chromedp.Click(chromedp.CSS("[data-testid=thread-resolve]")))
	b.poll(t, "the thread resolved, live", `document.querySelector('[data-testid=thread]').dataset.state === 'resolved'`)
	b.poll(t, "no open-thread count left", `document.querySelector('[data-testid=review-count-param]')?.textContent.trim() === ''`)

	// A approves: the gate passes.
	a.do(t, "approve",
		chromedp.SendKeys(chromedp.CSS("#review-signoff-msg"), "Ready."),
		chromedp.Click(chromedp.CSS("[data-testid=review-approve]")),
	)
	gate(true)
	shootReview(t, a, "passed")

	// B edits the description: A's approval is stale, the gate fails.
	b.do(t, "edit the description",
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Results come 20 to a page."),
	)
	a.poll(t, "the approval stale", `document.querySelector('[data-testid=signoff] [data-testid=signoff-state]')?.textContent.trim() === 'stale'`)
	gate(false)
	// A's sign-off form still names what A opened: beside its buttons, what changed since.
	a.poll(t, "the note beside the sign-off buttons", `document.getElementById('review-signoff-note')?.textContent.includes('changed since you opened the review: 1 change') && document.querySelector('[data-testid=review-signoff-changes]')?.textContent.includes('description changed')`)
	a.do(t, "approve the listing as opened", chromedp.Click(chromedp.CSS("[data-testid=review-approve]")))
	a.poll(t, "the approval refused", `document.getElementById('review-problem')?.textContent.includes('not saved: the listing changed since you opened the review: 1 change')`)
	gate(false)
	shootReview(t, a, "stale")

	// A refreshes the panel (by script: after the screenshots' scrolling a sticky header may
	// cover it) and approves again: it passes.
	a.do(t, "refresh", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=review-refresh]').click()`))
	a.poll(t, "the panel refreshed", `!document.querySelector('[data-testid=review-refresh]') && document.getElementById('review-problem')?.textContent.trim() === ''`)
	a.do(t, "approve again", chromedp.Click(chromedp.CSS("[data-testid=review-approve]")))
	gate(true)
	a.poll(t, "the approval current", `document.querySelector('[data-testid=signoff] [data-testid=signoff-state]')?.textContent.trim() === 'current'`)
	requireTwo(t, a, b, gate)
	leaveReviewTab(t, a, b, gate)
}

// mountReviewAPI gives the server a review service and the JSON API as serve mounts it, with
// that review: the gate a CI job reads.
func mountReviewAPI(c *Config) *review.Service {
	eng := c.Engine
	svc := review.New(c.Store, review.Options{Errors: func(ctx context.Context, _ string, l *listing.Listing) (int, error) {
		res, err := eng.AnalyzeContext(ctx, l, nil)
		if err != nil {
			return 0, err
		}
		return res.Errors, nil
	}})
	c.Review = svc
	jsonAPI := api.New(api.Options{Workspaces: c.Store, Review: svc, Access: func(*http.Request, string, bool) (string, error) { return "test", nil }})
	c.Mount = func(e *echo.Echo) { jsonAPI.Register(e.Group(api.Prefix)) }
	return svc
}

// requireTwo: B requires two approvals; A's panel follows live, and the gate (the API's too)
// waits for B's approval, which B gives after refreshing the panel it opened before its edit.
func requireTwo(t *testing.T, a, b reviewer, gate func(bool)) {
	t.Helper()
	b.do(t, "require two approvals", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('[data-testid=review-require]'); s.value = '2'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`))
	a.poll(t, "two approvals required, live", `document.querySelector('[data-testid=review-require]')?.value === '2' && document.getElementById('review-gate').textContent.includes('1 of 2 required approvals')`)
	b.do(t, "refresh", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=review-refresh]')?.click()`))
	b.poll(t, "the panel refreshed", `!document.querySelector('[data-testid=review-refresh]')`)
	b.do(t, "B approves", chromedp.Click(chromedp.CSS("[data-testid=review-approve]")))
	gate(true)
}

// leaveReviewTab: A leaves the Review tab, and A's page is sent the panel no more (B's next
// edit leaves A's hidden gate as it was, passed); the tab loads it afresh on return.
func leaveReviewTab(t *testing.T, a, b reviewer, gate func(bool)) {
	t.Helper()
	a.do(t, "the Findings tab", chromedp.Evaluate[chromedp.Void](`document.querySelector('[aria-controls=tp-findings]').click()`))
	a.poll(t, "the server told", `performance.getEntriesByType('resource').some((e) => e.name.includes('/review/leave'))`)
	b.do(t, "edit the description again",
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Sorted by title."),
	)
	b.poll(t, "the gate failed", `document.getElementById('review-gate')?.dataset.passed === 'false'`)
	a.poll(t, "B's edit in A's editor", `document.getElementById('f-desc').value.endsWith('Sorted by title.')`)
	if got, err := chromedp.Run(a.ctx, chromedp.Evaluate[string](`document.getElementById('review-gate').dataset.passed`)); err != nil || got != "true" {
		t.Errorf("A's page left the Review tab and was still sent the panel: its gate says passed=%q (%v)", got, err)
	}
	a.do(t, "back to the Review tab", chromedp.Click(chromedp.CSS("[data-testid=tab-review]")))
	gate(false)
}

// shootReview keeps screenshots of a reviewer's Review panel at 1280 px and at a phone's width
// when WORKBENCH_SCREENSHOT_DIR is set.
func shootReview(t *testing.T, r reviewer, name string) {
	t.Helper()
	dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	for _, size := range []viewport{{1280, 800}, {390, 844}} {
		r.do(t, "resize", chromedp.EmulateViewport(size.w, size.h))
		phoneView(t, r.ctx, "results")
		r.do(t, "scroll to the panel", chromedp.Evaluate[chromedp.Void](`document.getElementById('review').scrollIntoView({block: 'start'})`))
		checkLayout(t, r.ctx, "review "+name, size)
		shoot(t, r.ctx, filepath.Join(dir, fmt.Sprintf("review-%s-%d.png", name, size.w)))
		r.do(t, "scroll to the threads", chromedp.Evaluate[chromedp.Void](`document.getElementById('review-threads').scrollIntoView({block: 'start'})`))
		shoot(t, r.ctx, filepath.Join(dir, fmt.Sprintf("review-%s-%d-threads.png", name, size.w)))
	}
	r.do(t, "resize back", chromedp.EmulateViewport(1280, 800))
}
