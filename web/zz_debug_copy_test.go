package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/listing/remote"
)

func TestZZDebugFetchCopy(t *testing.T) {
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

	// Copy the Go export.
	err = chromedp.Do(ctx,
		grantClipboard(base),
		chromedp.Evaluate[chromedp.Void](`window.__log = []; for (const ev of ['pointerdown','mousedown','focusin','focusout','mouseup','click','toggle']) document.addEventListener(ev, (e) => window.__log.push(ev + ':' + (e.target.dataset?.testid || e.target.id || e.target.tagName) + ':' + (document.getElementById('export-menu')?.open)), true);
		new MutationObserver((ms) => { for (const m of ms) window.__log.push('mut:' + m.type + ':' + (m.target.id || m.target.tagName) + ':' + m.attributeName); }).observe(document.body, {subtree: true, childList: true, attributes: true});`),
		chromedp.Click(chromedp.CSS("[data-testid=export-menu] > summary")),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid=export-notes]').children.length > 0`,
			chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate[chromedp.Void](`window.__log = []; for (const ev of ['pointerdown','mousedown','focusin','focusout','mouseup','click','toggle']) document.addEventListener(ev, (e) => window.__log.push(ev + ':' + (e.target.dataset?.testid || e.target.tagName) + ':' + (document.getElementById('export-menu')?.open)), true);
		new MutationObserver((ms) => { for (const m of ms) window.__log.push('mut:' + m.type + ':' + (m.target.id || m.target.tagName) + ':' + m.attributeName); }).observe(document.body, {subtree: true, childList: true, attributes: true});`),
		chromedp.Evaluate[chromedp.Void](`window.__log.push('---click---' + JSON.stringify(document.querySelector('[data-testid=copy-go]').getBoundingClientRect()) + document.elementFromPoint(1025, 324)?.outerHTML.slice(0,120))`),
		chromedp.Click(chromedp.CSS("[data-testid=copy-go]")),
		chromedp.Poll[chromedp.Void](`document.getElementById('export-status').textContent.startsWith('Copied')`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('export-status').textContent`))
		log, e2 := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => [await (await fetch(location.pathname + '/export?format=json&shape=result')).text(), document.getElementById('export-menu').open + document.getElementById('export-notes').outerHTML.slice(0,300), String(window.__log && window.__log.length)].concat(window.__log || []))()`, chromedp.EvalAwaitPromise)); t.Log(e2); for _, l := range log { t.Log(l) }; t.Fatalf("copy the Go export: %v (status %q)", err, status)
	}
	clip, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(clip, "// Code generated") || !strings.Contains(clip, `"t7"`) {
		t.Errorf("clipboard holds %q", clip[:min(120, len(clip))])
	}
}

