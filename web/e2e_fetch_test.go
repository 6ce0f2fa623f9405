package web

import (
	"context"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/listing/remote"
)

// TestBrowserFetchAndExport fetches a listing from an in-process MCP server on the start page,
// re-fetches it in the workspace after the server changed (the form is posted by Datastar, the
// token field is emptied afterwards), and copies the Go export with the Copy button.
func TestBrowserFetchAndExport(t *testing.T) {
	ctx, base := browser(t, func(c *Config) { c.Fetch = FetchConfig{Policy: remote.LocalPolicy()} })
	srv, u := mcpServer(t, 3, 2, testToken)
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#hf-url")),
		chromedp.SendKeys(chromedp.CSS("#hf-url"), u),
		chromedp.SendKeys(chromedp.CSS("#hf-bearer"), testToken),
		chromedp.Click(chromedp.CSS("[data-testid=fetch-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")),
		chromedp.Poll[chromedp.Void]("document.querySelectorAll('[data-testid=tool-row]').length === 3",
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("fetch on the start page: %v", err)
	}

	srv.RemoveTools("t2")
	addMCPTool(srv, "t7", "Renews a loan.")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=tab-server]")),
		chromedp.WaitVisible(chromedp.CSS("#wf-bearer")),
		chromedp.SendKeys(chromedp.CSS("#wf-bearer"), testToken),
		chromedp.Click(chromedp.CSS("[data-testid=ws-fetch-submit]")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=changes-previous]')?.dataset.changed === 'true'`,
			chromedp.WithPollingTimeout(15*time.Second)),
	)
	if err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('server-panel')?.outerHTML`))
		t.Fatalf("re-fetch in the workspace: %v\n%s", err, html)
	}
	type after struct {
		Bearer string   `json:"bearer"`
		Tools  []string `json:"tools"`
		Kinds  []string `json:"kinds"`
		Page   bool     `json:"tokenInPage"`
	}
	a, err := chromedp.Run(ctx, chromedp.Evaluate[after](`({
		bearer: document.getElementById('wf-bearer').value,
		tools: [...document.querySelectorAll('[data-testid=tool-row] .tool-name')].map((e) => e.textContent),
		kinds: [...document.querySelectorAll('[data-testid=changes-previous] [data-testid=change]')].map((e) => e.dataset.kind),
		tokenInPage: document.documentElement.outerHTML.includes(`+"`"+testToken+"`"+`)})`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bearer != "" || a.Page {
		t.Errorf("the token stayed in the page: field %q, in the HTML: %v", a.Bearer, a.Page)
	}
	if strings.Join(a.Tools, ",") != "t0,t1,t7" {
		t.Errorf("tools after the re-fetch: %v", a.Tools)
	}
	if strings.Join(a.Kinds, ",") != "removed,added" && strings.Join(a.Kinds, ",") != "added,removed" {
		t.Errorf("changes shown: %v", a.Kinds)
	}

	// Copy the Go export. The listing came from a go-sdk server, so go-sdk answers with it
	// unchanged: the menu's notes say so rather than list differences.
	err = chromedp.Do(ctx,
		grantClipboard(base),
		chromedp.Click(chromedp.CSS("[data-testid=export-menu] > summary")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-notes]').children.length > 0`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("open the export menu: %v", err)
	}
	notes, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=export-notes]').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes, "exactly this listing") {
		t.Errorf("export notes for a listing go-sdk itself served: %q", strings.TrimSpace(notes))
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=copy-go]")),
		chromedp.Poll[chromedp.Void](`document.getElementById('export-status').textContent.startsWith('Copied')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('export-status').textContent`))
		t.Fatalf("copy the Go export: %v (status %q)", err, status)
	}
	clip, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(clip, "// Code generated") || !strings.Contains(clip, `"t7"`) {
		t.Errorf("clipboard holds %q", clip[:min(120, len(clip))])
	}
}

// grantClipboard lets the page at origin read and write the clipboard without a prompt.
func grantClipboard(origin string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		b := chromedp.FromContext(ctx).Browser
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, b, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
				Setting:    cdpbrowser.PermissionSettingGranted, Origin: origin}); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
}

// TestBrowserNarrowScreenFits checks that at 390×844 no part of the workspace (the parameters
// table, the task table, the server panel, the export menu) sticks out sideways or needs a
// horizontal scrollbar.
func TestBrowserNarrowScreenFits(t *testing.T) {
	ctx, base := browser(t)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-3-clear]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=param-row]")),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ name, click string }{
		{"editor", ""},
		{"findings", "[data-testid=view-results]"}, // a phone shows one pane at a time
		{"cost", "#panel-tabs button:nth-child(2)"},
		{"tasks", "[data-testid=tab-tasks]"},
		{"server", "[data-testid=tab-server]"},
		{"export menu", "[data-testid=export-menu] > summary"},
	} {
		if step.click != "" {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(step.click))); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
		}
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			t.Errorf("%s: wider than the screen: %v", step.name, out)
		}
	}
}

// overflowJS lists (up to five) visible elements that stick out past the right edge of the
// screen without a scrolling ancestor, and boxes that scroll sideways.
const overflowJS = `[...document.querySelectorAll('body *')].filter((e) => {
	const r = e.getBoundingClientRect();
	if (r.width === 0 || !e.checkVisibility() || r.right <= document.documentElement.clientWidth + 1) return false;
	for (let p = e.parentElement; p; p = p.parentElement) {
		if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX) && p !== document.body && p !== document.documentElement) return false;
	}
	return true;
}).concat([...document.querySelectorAll('body *')].filter((e) =>
	// A box that scrolls sideways is a horizontal scrollbar: the thing to avoid, but for the
	// parameters table on a wide screen, which scrolls inside its wrapper rather than stack.
	e.checkVisibility() && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1 &&
	!e.matches('#params .table-wrap')
)).slice(0, 5).map((e) => e.tagName + '.' + e.className + (e.id ? '#' + e.id : ''))`
