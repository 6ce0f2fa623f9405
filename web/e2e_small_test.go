package web

// Browser tests of issue 21's smaller points: the name asked at the first edit, renaming a
// workspace, a task import that asks before replacing, explained verdicts, notices that count
// tools from 1, and a broken paste that shows its message once with the caret at the error.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/store"
)

// versionAbove waits for the page's version to pass v (an edit was saved).
func versionAbove(v int) chromedp.Action[chromedp.Void] {
	return poll(`Number(document.querySelector('[data-testid=history]').dataset.version) > ` + strconv.Itoa(v))
}

// extraHeaders makes the page send headers h with every request (as a proxy in front would).
func extraHeaders(h network.Headers) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: h})
		return chromedp.Void{}, err
	}
}

// threeTools is a small listing whose second tool the notice test edits.
const threeTools = `{"tools": [
 {"name": "a_one", "description": "First tool.", "inputSchema": {"type": "object"}},
 {"name": "b_two", "description": "Second tool.", "inputSchema": {"type": "object"}},
 {"name": "c_three", "description": "Third tool.", "inputSchema": {"type": "object"}}]}`

// TestBrowserAskNameAtFirstEdit: an anonymous person is asked for a name at the first edit, in a
// box that neither takes the focus nor loses the edit; the name is kept, and the next edits are
// recorded under it. Asked once. A person whom a proxy names is never asked.
func TestBrowserAskNameAtFirstEdit(t *testing.T) {
	var st store.Store
	ctx, base := browser(t, func(c *Config) { st = c.Store })
	pasteListing(t, ctx, base, threeTools)
	// checkVisibility: the box is fixed in place, so it has no offsetParent even when shown.
	hidden := `!document.getElementById('name-ask')?.checkVisibility()`
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](hidden)); err != nil || !ok {
		t.Fatalf("the name is asked before any edit (%v)", err)
	}
	err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Edited."), versionAbove(0),
		poll(`document.getElementById('name-ask')?.checkVisibility() === true`))
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById('name-ask')?.outerHTML ?? 'none') + ' ' + localStorage.getItem('workbench.name-asked')`))
		t.Fatalf("no name asked at the first edit: %v (%s)", err, got)
	}
	if id, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "f-desc" {
		t.Errorf("the name box took the focus from the description (focus on %q)", id)
	}
	err = chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#name-ask input[name=name]"), "Ada\n"),
		poll(hidden+` && document.getElementById('display-name').value === 'Ada'`),
		chromedp.Evaluate[chromedp.Void](`(() => { const d = document.getElementById('f-desc'); d.focus(); d.setSelectionRange(d.value.length, d.value.length); })()`),
		chromedp.KeyEvent(" Again."), versionAbove(1),
		poll(`document.getElementById('f-desc').value === 'First tool. Edited. Again.'`))
	if err != nil {
		t.Fatalf("after naming: %v", err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	revs, err := st.Revisions(context.Background(), loc[strings.LastIndex(loc, "/")+1:], store.RevisionPage{})
	if err != nil || len(revs) == 0 || revs[0].Author != "Ada" {
		t.Errorf("the head revision's author is not the name given: %+v, %v", revs, err)
	}
	// Asked once: another page and another edit do not ask again.
	err = chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#f-desc")),
		poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('f-desc').focus()`), chromedp.KeyEvent(" Third."), versionAbove(2))
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](hidden)); !ok {
		t.Error("the name was asked again after it was given")
	}

	t.Run("header mode", func(t *testing.T) {
		ctx, base := browser(t, func(c *Config) {
			c.Auth = AuthConfig{Mode: AuthHeader, Header: "X-Forwarded-User", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		})
		if err := chromedp.Do(ctx, extraHeaders(network.Headers{"X-Forwarded-User": "grace"})); err != nil {
			t.Fatal(err)
		}
		pasteListing(t, ctx, base, threeTools)
		err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('f-desc').focus()`),
			chromedp.KeyEvent(" Edited."), versionAbove(0))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the box would show at once; give the page a moment
		if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](hidden)); !ok {
			t.Error("a person the proxy names was asked for a name")
		}
	})
}

// TestBrowserRenameWorkspace: the workspace name in the header is a field; Enter saves it, and
// another page shows the new name at once and after a reload.
func TestBrowserRenameWorkspace(t *testing.T) {
	ctxA, base := browser(t)
	ctxB := openSecondTab(t, ctxA, base)
	const name = "Library, renamed ✓"
	err := chromedp.Do(ctxA, chromedp.Click(chromedp.CSS("#ws-name")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('ws-name').select()`),
		chromedp.KeyEvent(name+"\r"))
	if err != nil {
		t.Fatalf("rename: %v", err)
	}
	want := `document.getElementById('ws-name')?.value === ` + jsString(name)
	if err := chromedp.Do(ctxB, poll(want+` && document.title.startsWith(`+jsString(name)+`)`)); err != nil {
		got, _ := chromedp.Run(ctxB, chromedp.Evaluate[string](`document.querySelector('[data-testid=ws-name]')?.outerHTML`))
		t.Fatalf("the other page does not show the new name: %v (%s)", err, got)
	}
	if err := chromedp.Do(ctxA, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#ws-name")), poll(want)); err != nil {
		t.Fatalf("the new name is not kept: %v", err)
	}
	if title, _ := chromedp.Run(ctxA, chromedp.Title()); !strings.HasPrefix(title, name) {
		t.Errorf("the page title is %q", title)
	}
}

// TestBrowserTaskImportAsks: importing a task file over tasks asks first, saying how many it
// replaces; it can append instead; and Undo takes a replacement back.
func TestBrowserTaskImportAsks(t *testing.T) {
	ctx, base := browser(t)
	file := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(file, []byte(`[{"task": "Renew my loan", "expect": null}, {"task": "Find a book", "expect": null}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := `document.querySelectorAll('[data-testid=task-row]').length`
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")))
	if err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](rows))
	if err != nil || n == 0 {
		t.Fatalf("the example has %d tasks (%v)", n, err)
	}
	importAs := func(mode string) error {
		err := chromedp.Do(ctx,
			poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'"),
			chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
			chromedp.SetUploadFiles("#task-file", []string{file}),
			chromedp.Click(chromedp.CSS("[data-testid=task-import-submit]")),
			chromedp.WaitVisible(chromedp.CSS("[data-testid=task-import-confirm]")),
			chromedp.Evaluate[chromedp.Void](`window.__before = true`),
			chromedp.Click(chromedp.CSS("[data-testid=task-import-"+mode+"]")))
		if err != nil {
			return err
		}
		return postedPage(ctx)
	}
	if err := importAs("append"); err != nil {
		t.Fatalf("import asking first: %v", err)
	}
	ask, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=task-import-confirm]').textContent`))
	if !strings.Contains(ask, strconv.Itoa(n+2)+" tasks") {
		t.Errorf("after appending, the question does not say %d tasks: %q", n+2, ask)
	}
	if err := chromedp.Do(ctx, poll(rows+` === `+strconv.Itoa(n+2))); err != nil {
		t.Fatalf("append did not add the file's 2 tasks to %d: %v", n, err)
	}
	if err := importAs("replace"); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, poll(rows+` === 2`),
		poll("document.querySelector('[data-testid=datastar-missing]').style.display === 'none'"),
		chromedp.Click(chromedp.CSS("[data-testid=undo]")), poll(rows+` === `+strconv.Itoa(n+2)))
	if err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[int](rows))
		t.Fatalf("replace, then undo: %v (%d rows)", err, got)
	}
}

// postedPage waits for the page a form's post led to (window.__before marks the old one); the
// evaluations fail while the browser moves from one to the other.
func postedPage(ctx context.Context) error {
	const loaded = `window.__before !== true && document.readyState === 'complete' && !!document.querySelector('[data-testid=workspace]')`
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](loaded))
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no new page after the form was posted (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBrowserVerdictsExplained: the Tasks tab explains every verdict, and each verdict badge
// says what it means.
func TestBrowserVerdictsExplained(t *testing.T) {
	ctx, base := browser(t)
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.Click(chromedp.CSS("[data-testid=example-library-2-draft]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=workspace]")), chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")))
	if err != nil {
		t.Fatal(err)
	}
	legend, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('[data-testid=verdict-legend] [data-status]')].map((e) => [e.dataset.status, e.textContent]))`))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"clear", "ambiguous", "wrong", "rejected", "missing", "no-words", "none", "none-risk"} {
		if len(legend[st]) < 30 {
			t.Errorf("the legend does not explain %q: %q", st, legend[st])
		}
	}
	if !strings.Contains(legend["no-words"], "ranker cannot choose") {
		t.Errorf("no-words is explained as %q", legend["no-words"])
	}
	type badge struct{ Status, Title string }
	badges, err := chromedp.Run(ctx, chromedp.Evaluate[[]badge](`[...document.querySelectorAll('[data-testid=verdict-status]')].map((b) => ({Status: b.textContent, Title: b.title}))`))
	if err != nil || len(badges) == 0 {
		t.Fatalf("no verdict badges: %v", err)
	}
	for _, b := range badges {
		if b.Title == "" || !strings.HasPrefix(legend[b.Status], b.Status) {
			t.Errorf("badge %q has title %q", b.Status, b.Title)
		}
	}
}

// TestBrowserNoticesCountFromOne: a notice names the second tool "tool 2".
func TestBrowserNoticesCountFromOne(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, threeTools)
	err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#tool-list .tool-pick')[1].click()`),
		poll(`document.getElementById('f-desc').value === 'Second tool.'`))
	if err != nil {
		t.Fatal(err)
	}
	if err := typeAtEndOf(ctx, " Mine."); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, versionAbove(0)); err != nil {
		t.Fatal(err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	ver, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.querySelector('[data-testid=history]').dataset.version)`))
	b, _ := json.Marshal(map[string]any{"pid": strings.Repeat("e", 32), "tool": 1, "val": "Theirs.", "ver": ver})
	req, _ := http.NewRequest(http.MethodPost, base+"/w/"+loc[strings.LastIndex(loc, "/")+1:]+"/edit?t=1&f=description", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := chromedp.Do(ctx, poll(`document.getElementById('field-notice').textContent.includes('tool')`)); err != nil {
		t.Fatalf("no notice: %v", err)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('field-notice').textContent`))
	if !strings.Contains(text, "description of tool 2)") {
		t.Errorf("the notice on the second tool reads %q, want it to name tool 2", text)
	}
}

// TestBrowserBrokenPasteCaret: a paste that is not JSON comes back with its message once and the
// caret at the error, also past characters that take two UTF-16 units.
func TestBrowserBrokenPasteCaret(t *testing.T) {
	ctx, base := browser(t)
	src := "{\"tools\": [\n  {\"name\": \"a\",\n   \"description\": \"é 😀\" \"inputSchema\": {}}\n]}"
	b, _ := json.Marshal(src)
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#paste")),
		chromedp.Evaluate[chromedp.Void]("document.getElementById('paste').value = "+string(b)),
		chromedp.Click(chromedp.CSS("[data-testid=import-submit]")),
		chromedp.WaitVisible(chromedp.CSS("[data-testid=parse-problem]")))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=parse-problem]').innerText`))
	if c := strings.Count(text, "Expecting ','"); c != 1 {
		t.Errorf("the message shows %d times: %q", c, text)
	}
	type caret struct {
		Active     string
		Start, End int
		Want       int
	}
	c, err := chromedp.Run(ctx, chromedp.Evaluate[caret](`(() => { const p = document.getElementById('paste');
		return {Active: document.activeElement.id, Start: p.selectionStart, End: p.selectionEnd, Want: p.value.indexOf('"inputSchema"')}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Active != "paste" || c.Start != c.Want || c.End < c.Start || c.End > c.Start+1 {
		t.Errorf("caret: %+v, want the focus in the paste at %d", c, c.Want)
	}
}
