package web

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tool-workbench/workbench/store"
)

// TestBrowserHistoryFollowsItsAuthor (issue 21, point 1): tab A restores the baseline and
// edits twice more with its History panel open; A's list, the second tab's and the store agree
// on every revision, the head, the Compare default and the Restore buttons, and neither tab's
// console shows a Datastar patch that found no target.
func TestBrowserHistoryFollowsItsAuthor(t *testing.T) {
	var st store.Store
	ctxA, base := browser(t, func(c *Config) { st = c.Store })
	logA := consoleOf(t, ctxA)
	ctxB := openSecondTab(t, ctxA, base)
	logB := consoleOf(t, ctxB)
	id := workspaceID(t, ctxA)
	head := func(want int) {
		t.Helper()
		waitStoreHead(t, st, id, want)
	}
	if err := typeAtEndOf(ctxA, " One."); err != nil {
		t.Fatal(err)
	}
	head(1)
	for _, ctx := range []context.Context{ctxA, ctxB} {
		openHistoryTab(t, ctx, 1)
	}
	if err := chromedp.Do(ctxA, chromedp.Click(chromedp.CSS(`#revisions [data-testid=rev][data-number="0"] [data-testid=rev-restore]`))); err != nil {
		t.Fatalf("restore the baseline: %v", err)
	}
	head(2)
	if err := chromedp.Do(ctxA, chromedp.Poll[chromedp.Void](`!document.getElementById('f-desc').value.includes('One.')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("tab A's editor does not show the restored baseline: %v", err)
	}
	if err := typeAtEndOf(ctxA, " Two."); err != nil {
		t.Fatal(err)
	}
	head(3)
	if err := chromedp.Do(ctxA, chromedp.Click(chromedp.CSS("#f-title")), chromedp.KeyEvent("Three")); err != nil {
		t.Fatal(err)
	}
	head(4)
	want := storeHistory(t, st, id)
	for _, tab := range []struct {
		name string
		ctx  context.Context
	}{{"tab A (the author)", ctxA}, {"tab B", ctxB}} {
		if got := waitHistoryShown(tab.ctx, want); !got.equal(want) {
			t.Errorf("%s's History shows %+v; the store has %+v", tab.name, got, want)
		}
	}
	// Compare, as the author's list offers it, compares the baseline with the head.
	if err := chromedp.Do(ctxA, chromedp.Click(chromedp.CSS("[data-testid=rev-compare]")),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid=rev-diff]')?.dataset.b === '%d'`, want.Head),
			chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		b, _ := chromedp.Run(ctxA, chromedp.Evaluate[string](`document.querySelector('[data-testid=rev-diff]')?.dataset.b`))
		t.Errorf("tab A's Compare compared with revision %s; the head is %d (%v)", b, want.Head, err)
	}
	for name, log := range map[string]func() []string{"A": logA, "B": logB} {
		for _, m := range log() {
			if strings.Contains(m, "NoTargetsFound") {
				t.Errorf("tab %s's console: %s", name, m)
			}
		}
	}
}

// consoleOf collects the console messages of ctx's page from now on; the func returns them so
// far.
func consoleOf(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var msgs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			text := m.String()
			for _, a := range m.Args {
				if a.Preview != nil {
					for _, p := range a.Preview.Properties {
						text += fmt.Sprintf(" %s=%s", p.Name, p.Value)
						if p.ValuePreview != nil {
							for _, q := range p.ValuePreview.Properties {
								text += fmt.Sprintf(" %s.%s=%s", p.Name, q.Name, q.Value)
							}
						}
					}
				}
			}
			mu.Lock()
			msgs = append(msgs, text)
			mu.Unlock()
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(msgs)
	}
}

// workspaceID is the ID of the workspace ctx's page shows.
func workspaceID(t *testing.T, ctx context.Context) string {
	t.Helper()
	path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(path, "/w/")
}

// waitStoreHead waits until the store's head of workspace id is revision n.
func waitStoreHead(t *testing.T, st store.Store, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := st.Workspace(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if w.Head == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store's head is revision %d; want %d", w.Head, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openHistoryTab opens the History tab and waits for at least n+1 revisions.
func openHistoryTab(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("[data-testid=tab-history]")),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll('#revisions [data-testid=rev]').length > %d`, n),
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("open History: %v", err)
	}
}

// historyShown is what a History list says: its revisions newest first, the head it marks,
// the revision Compare compares with by default, and those offered for restoring.
type historyShown struct {
	Rows     []int `json:"rows"`
	Head     int   `json:"head"`
	Compare  int   `json:"compare"`
	Restores []int `json:"restores"`
}

func (h historyShown) equal(o historyShown) bool {
	return slices.Equal(h.Rows, o.Rows) && h.Head == o.Head && h.Compare == o.Compare && slices.Equal(h.Restores, o.Restores)
}

const readHistoryShown = `(() => {
	const rows = [...document.querySelectorAll('#revisions [data-testid=rev]')];
	return {rows: rows.map(r => +r.dataset.number),
		head: +(document.getElementById('rev-list-region')?.dataset.head ?? -1),
		compare: +(document.getElementById('rev-b')?.selectedOptions[0]?.textContent.match(/#(\d+)/)?.[1] ?? -1),
		restores: rows.filter(r => r.querySelector('[data-testid=rev-restore]')).map(r => +r.dataset.number)};
})()`

// waitHistoryShown waits for ctx's History list to show want, and returns what it shows.
func waitHistoryShown(ctx context.Context, want historyShown) historyShown {
	var got historyShown
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if got, err = chromedp.Run(ctx, chromedp.Evaluate[historyShown](readHistoryShown)); err == nil && got.equal(want) {
			break
		}
	}
	return got
}

// storeHistory is what every History list should say, from the store.
func storeHistory(t *testing.T, st store.Store, id string) historyShown {
	t.Helper()
	revs, err := st.Revisions(context.Background(), id, store.RevisionPage{})
	if err != nil {
		t.Fatal(err)
	}
	h := historyShown{Head: revs[0].Number, Compare: revs[0].Number}
	for _, r := range revs {
		h.Rows = append(h.Rows, r.Number)
		if r.Number != h.Head {
			h.Restores = append(h.Restores, r.Number)
		}
	}
	return h
}
