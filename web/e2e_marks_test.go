package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tool-workbench/workbench/lint"
)

// marksListing holds hidden characters in every kind of editor field: the name (a bidi
// override), the title (a soft hyphen), the description (two zero-width spaces, next to markup
// that must stay text), a parameter's description (a word joiner, shown in the table and in the
// raw inputSchema), and a second tool's Unicode tag characters spelling "Ign".
func marksListing(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tools": []any{
		map[string]any{"name": "add\u202enumbers", "title": "Add\u00adition",
			"description": "Adds two\u200b numbers.\u200b <img src=x onerror=\"window.pwned=1\">",
			"inputSchema": map[string]any{"type": "object", "required": []string{"a"}, "properties": map[string]any{
				"a": map[string]any{"type": "number", "description": "first\u2060 number"}}}},
		map[string]any{"name": "echo", "description": "Echoes the text back.\U000E0049\U000E0067\U000E006E",
			"inputSchema": map[string]any{"type": "object", "additionalProperties": false}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// marksOf lists, for each field id, the marks shown under it (the strip right after the field).
const marksOf = `((ids) => Object.fromEntries(ids.map((id) => {
  const f = document.getElementById(id), s = f && f.nextElementSibling;
  return [id, s && s.classList.contains('marks') ? [...s.querySelectorAll('.mark')].map((m) => m.textContent) : []];
})))`

// selectedJS is the focused field and the text it has selected.
const selectedJS = `(() => { const a = document.activeElement;
  return {id: a.id, sel: a.value === undefined ? '' : a.value.slice(a.selectionStart, a.selectionEnd), start: a.selectionStart ?? -1}; })()`

type fieldSelection struct {
	ID    string `json:"id"`
	Sel   string `json:"sel"`
	Start int    `json:"start"`
}

// TestBrowserHiddenCharsMarked: hidden characters show as marks under every editor field that
// holds them; a mark selects its character; the hidden-unicode finding's "Go to field" selects
// the first one, so that Delete removes it; the text around the marks stays text.
func TestBrowserHiddenCharsMarked(t *testing.T) {
	ctx, base := browser(t)
	pasteListing(t, ctx, base, marksListing(t))
	want := map[string][]string{"f-name": {"RLO U+202E"}, "f-title": {"SHY U+00AD"},
		"f-desc": {"ZWSP U+200B", "ZWSP U+200B"}, "f-p0-description": {"WJ U+2060"}, "f-input": {"WJ U+2060"},
		"f-output": {}, "f-p0-name": {}}
	ids, _ := json.Marshal(mapsKeys(want))
	got, err := chromedp.Run(ctx, chromedp.Poll[map[string][]string](
		marksOf+"("+string(ids)+")['f-desc'].length === 2 && "+marksOf+"("+string(ids)+")",
		chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		got, _ = chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](marksOf+"("+string(ids)+")"))
		t.Fatalf("no marks under the description: %v (marks: %v)", err, got)
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("marks under #%s = %q, want %q", id, got[id], w)
		}
	}
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		for _, scheme := range []string{"light", "dark"} {
			if err := chromedp.Do(ctx, colorScheme(scheme)); err != nil {
				t.Fatal(err)
			}
			shoot(t, ctx, filepath.Join(dir, "marks-1280-"+scheme+".png"))
		}
	}
	inert, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned === undefined && !document.querySelector('img') &&
		document.getElementById('f-desc').nextElementSibling.textContent.includes('<img')`))
	if err != nil || !inert {
		t.Errorf("the text around the marks is not shown as text: %v", err)
	}

	// A mark selects its character: the second zero-width space.
	sel, err := chromedp.Run(ctx, chromedp.Evaluate[fieldSelection](
		`document.getElementById('f-desc').nextElementSibling.querySelectorAll('.mark')[1].click(), `+selectedJS))
	if err != nil || sel.ID != "f-desc" || sel.Sel != "\u200b" || sel.Start != len([]rune("Adds two\u200b numbers.")) {
		t.Errorf("the second mark selected %+v, %v; want the second U+200B of f-desc", sel, err)
	}

	gotoHidden(t, ctx)

	// The tag characters of the second tool show as one mark that spells them.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#fg-1 h3 button")),
		chromedp.Poll[chromedp.Void](`document.getElementById('f-name').value === 'echo'`, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Poll[chromedp.Void](marksOf+`(['f-desc'])['f-desc'].length === 1`, chromedp.WithPollingTimeout(5*time.Second)))
	tags, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](marksOf+`(['f-desc'])`))
	if err != nil || len(tags["f-desc"]) != 1 || tags["f-desc"][0] != "TAG “Ign” U+E0049…" {
		t.Errorf("marks of the tag characters: %q, %v; want one mark spelling Ign", tags["f-desc"], err)
	}

	// A task's text shows its marks as it is typed (before any answer from the server).
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("[data-testid=tab-tasks]")),
		chromedp.Click(chromedp.CSS("[data-testid=task-add]")),
		chromedp.WaitVisible(chromedp.CSS("#t-0-task")),
		chromedp.Evaluate[chromedp.Void](`(() => { const f = document.getElementById('t-0-task'); f.focus();
			f.value = 'find\ufeff it'; f.dispatchEvent(new Event('input', {bubbles: true})); })()`),
		chromedp.Poll[chromedp.Void](marksOf+`(['t-0-task'])['t-0-task'][0] === 'BOM U+FEFF'`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		task, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](marksOf+`(['t-0-task'])`))
		t.Errorf("marks under the task text: %v, %v", task, err)
	}

	// Many hidden characters: the strip draws the first marks and counts the rest.
	many, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => { const f = document.getElementById('t-0-task');
		f.value = 'x\u200b'.repeat(100); f.dispatchEvent(new Event('input', {bubbles: true}));
		const s = f.nextElementSibling;
		return [s.querySelector('.marks-head').textContent, String(s.querySelectorAll('.mark').length), s.querySelector('.marks-more').textContent]; })()`))
	if err != nil || !slices.Equal(many, []string{"100 hidden characters:", "60", "and 40 more"}) {
		t.Errorf("a task of 100 hidden characters shows %q (%v); want 60 marks and 40 counted", many, err)
	}

	// On a phone the strips fit the screen.
	err = chromedp.Do(ctx, chromedp.EmulateViewport(390, 844),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('t-0-task').scrollIntoView({block: 'center'})`))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS)); err != nil || len(out) > 0 {
		t.Errorf("at 390 px wide, wider than the screen: %v (%v)", out, err)
	}
	if dir := os.Getenv("WORKBENCH_SCREENSHOT_DIR"); dir != "" {
		shoot(t, ctx, filepath.Join(dir, "marks-390-tasks.png"))
		_ = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('f-desc').scrollIntoView({block: 'start'})`))
		shoot(t, ctx, filepath.Join(dir, "marks-390-editor.png"))
	}
}

// gotoHidden clicks "Go to field" on the description's hidden-unicode finding: the field is
// focused with its first hidden character selected, and Delete removes it (the marks follow).
func gotoHidden(t *testing.T, ctx context.Context) {
	t.Helper()
	click := `(() => { const f = [...document.querySelectorAll('.finding[data-rule=hidden-unicode]')]
	  .find((f) => f.querySelector('[data-testid=finding-pointer]').textContent === '/tools/0/description');
	  document.getElementById('f-desc').blur(); f.querySelector('.goto').click(); return true; })()`
	for range 2 { // a second click works as the first
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](click)); err != nil {
			t.Fatal(err)
		}
		sel, err := chromedp.Run(ctx, chromedp.Poll[fieldSelection](`(() => { const s = `+selectedJS+`; return s.id === 'f-desc' && s.sel !== '' && s; })()`,
			chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			sel, _ = chromedp.Run(ctx, chromedp.Evaluate[fieldSelection](selectedJS))
		}
		if sel.ID != "f-desc" || sel.Sel != "\u200b" || sel.Start != len([]rune("Adds two")) {
			t.Fatalf("after Go to field the focus and selection are %+v (%v); want the first U+200B of f-desc selected", sel, err)
		}
	}
	err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Delete),
		chromedp.Poll[chromedp.Void](marksOf+`(['f-desc'])['f-desc'].length === 1`, chromedp.WithPollingTimeout(5*time.Second)),
		// The edit reaches the server: the description's finding counts one character now.
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('.finding[data-rule=hidden-unicode] .msg')].some((m) => m.textContent.includes('1 invisible'))`,
			chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('f-desc').value`))
		t.Fatalf("Delete after Go to field: %v (the description is %q)", err, v)
	}
}

func mapsKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestBrowserMarksMatchLint: the page marks exactly the characters the hidden-unicode rule
// flags, of the same kinds, over all of Unicode.
func TestBrowserMarksMatchLint(t *testing.T) {
	ctx, base := browser(t)
	// Runs of code points of one kind, as "lo-hi kind".
	const runsJS = `(() => { const k = window.workbenchMarks.kind, out = []; let lo = 0, cur = k(0);
	  for (let c = 1; c <= 0x110000; c++) { const n = c <= 0x10FFFF ? k(c) : null;
	    if (n !== cur) { if (cur) out.push(lo.toString(16) + '-' + (c - 1).toString(16) + ' ' + cur); lo = c; cur = n; } }
	  return out; })()`
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](runsJS))
	if err != nil {
		t.Fatalf("the page's kinds of hidden characters: %v", err)
	}
	var want []string
	lo, cur := 0, lint.HiddenKind(0)
	for c := 1; c <= 0x110000; c++ {
		n := "-"
		if c <= 0x10FFFF {
			n = lint.HiddenKind(rune(c))
		}
		if n != cur {
			if cur != "" {
				want = append(want, fmt.Sprintf("%x-%x %s", lo, c-1, cur))
			}
			lo, cur = c, n
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the page marks\n%q\nthe rule flags\n%q", got, want)
	}
}
