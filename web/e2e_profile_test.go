package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserProfileSwitch: choosing a profile in the findings panel turns on its rules live, on
// this page and on another page of the workspace (the profile is the workspace's); a reload keeps
// it; choosing none turns them off again everywhere.
func TestBrowserProfileSwitch(t *testing.T) {
	ctx, base := browser(t)
	ready := chromedp.Poll[chromedp.Void]("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'",
		chromedp.WithPollingTimeout(10*time.Second))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=findings-profile]")), ready); err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	other, cancel := chromedp.NewContext(ctx) // a second page of the workspace
	t.Cleanup(cancel)
	if err := chromedp.Do(other, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("[data-testid=findings-profile]")), ready); err != nil {
		t.Fatalf("open the second page: %v", err)
	}
	const profileFindings = `document.querySelectorAll('#findings .finding[data-rule^="profile-"]').length`
	count := func(c context.Context, js string) int {
		t.Helper()
		n, err := chromedp.Run(c, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(ctx, profileFindings); n != 0 {
		t.Fatalf("without a profile the panel lists %d profile findings", n)
	}
	before := count(ctx, `Number(document.querySelector('[data-testid=count-error]').textContent)`)

	choose := func(c context.Context, name string) {
		t.Helper()
		if err := chromedp.Do(c, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('[data-testid=findings-profile]');
		  s.value = '`+name+`'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`)); err != nil {
			t.Fatal(err)
		}
	}
	// Both pages show the profile's findings, and the selector says which profile it is.
	shows := func(c context.Context, name string, want bool) {
		t.Helper()
		cond := profileFindings + ` > 0`
		if !want {
			cond = profileFindings + ` === 0`
		}
		js := `document.querySelector('[data-testid=findings-profile]').value === '` + name + `' && ` + cond +
			` && (` + boolJS(want) + ` ? document.querySelector('#findings .finding[data-rule=profile-title-missing]') !== null : true)`
		if err := chromedp.Do(c, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			got, _ := chromedp.Run(c, chromedp.Evaluate[[]string](`[document.querySelector('[data-testid=findings-profile]').value,
			  String(`+profileFindings+`)]`))
			t.Fatalf("the page does not show profile %q (findings shown: %v): [selector, profile findings] = %v", name, want, got)
		}
	}
	choose(ctx, "claude-connectors")
	shows(ctx, "claude-connectors", true)
	shows(other, "claude-connectors", true)
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		shoot(t, ctx, filepath.Join(dir, "findings-profile-1280.png"))
	}
	if after := count(ctx, `Number(document.querySelector('[data-testid=count-error]').textContent)`); after <= before {
		t.Errorf("the error count went from %d to %d: the profile's errors are not counted", before, after)
	}
	// Stored with the workspace: a reload shows it.
	if err := chromedp.Do(other, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("[data-testid=findings-profile]")), ready); err != nil {
		t.Fatal(err)
	}
	shows(other, "claude-connectors", true)
	// None, chosen on the other page, turns the rules off on both.
	choose(other, "")
	shows(other, "", false)
	shows(ctx, "", false)
	if n := count(ctx, `Number(document.querySelector('[data-testid=count-error]').textContent)`); n != before {
		t.Errorf("back to no profile, the error count is %d, was %d", n, before)
	}
}

func boolJS(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
