package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// commentEvent is the Type sseReader gives an SSE comment line (the stream's keep-alive).
const commentEvent = ":comment"

// liveWait bounds how long a test waits for one expected event: a correctness bound for a
// loaded CI machine, not a timing claim.
const liveWait = 10 * time.Second

// sseReader is one page's live stream over real HTTP, parsed into whole SSE events as they
// arrive. Tests wait for the event they expect instead of for bytes: a read can end anywhere
// in an event (the server's writes reach the client in pieces), so a test that stops reading
// on a marker may look at half an event.
type sseReader struct {
	events chan event
	seen   []event  // consumed by next, for failure messages
	raw    *syncBuf // every byte the stream carried, for framing checks
}

// dialSSE opens the stream of workspace id as page pid showing tool at version ver; mod may
// set headers (cookies). The stream is closed when the test ends.
func dialSSE(t testing.TB, base, id, pid string, tool, ver int, mod func(*http.Request)) *sseReader {
	t.Helper()
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":%d,"ver":%d}`, pid, tool, ver))
	return dialURL(t, base+"/w/"+id+"/stream?datastar="+q, mod)
}

// dialURL opens any live stream (a workspace's, a challenge's) as dialSSE does.
func dialURL(t testing.TB, u string, mod func(*http.Request)) *sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if mod != nil {
		mod(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		t.Fatalf("stream: status %d", resp.StatusCode)
	}
	r := &sseReader{events: make(chan event, 256), raw: new(syncBuf)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(r.events)
		sc := bufio.NewScanner(io.TeeReader(resp.Body, r.raw))
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		sc.Split(sseLines)
		cur := event{Data: map[string][]string{}}
		for sc.Scan() {
			ln := sc.Text()
			var out *event
			switch {
			case ln == "":
				if cur.Type != "" {
					out = &cur
				}
			case strings.HasPrefix(ln, ":"):
				out = &event{Type: commentEvent, Data: map[string][]string{"text": {strings.TrimSpace(ln[1:])}}}
			default:
				cur.field(ln)
			}
			if out == nil {
				continue
			}
			select {
			case r.events <- *out:
			case <-ctx.Done():
				return
			}
			if ln == "" {
				cur = event{Data: map[string][]string{}}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	return r
}

// next consumes events until one satisfies ok and returns it; it fails the test if the stream
// ends or liveWait passes first.
func (r *sseReader) next(t testing.TB, what string, ok func(event) bool) event {
	t.Helper()
	timer := time.NewTimer(liveWait)
	defer timer.Stop()
	for {
		select {
		case e, open := <-r.events:
			if !open {
				t.Fatalf("the stream ended before %s; it carried:\n%s", what, r.summary())
			}
			r.seen = append(r.seen, e)
			if ok(e) {
				return e
			}
		case <-timer.C:
			t.Fatalf("waited %s for %s in vain; the stream carried:\n%s", liveWait, what, r.summary())
		}
	}
}

// summary lists the events consumed so far, one line each.
func (r *sseReader) summary() string {
	var b strings.Builder
	for _, e := range r.seen {
		el := e.elements()
		if e.Type == commentEvent {
			el = strings.Join(e.Data["text"], "")
		}
		if len(el) > 160 {
			el = el[:160] + "…"
		}
		fmt.Fprintf(&b, "  %s %q\n", e.Type, el)
	}
	return b.String()
}

// patchOf reports whether e patches the element whose id is id, and its HTML.
func patchOf(e event, id string) (string, bool) {
	if e.Type != "datastar-patch-elements" {
		return "", false
	}
	el := e.elements()
	m := idRe.FindStringSubmatch(el)
	return el, m != nil && m[1] == id
}

// gapStore runs hook once, right after the first task-file read made once it is armed. That
// read is the last store call of reading a workspace (workspaces.Get), so an edit made there
// lands between a stream's read of the workspace and whatever the stream does next.
type gapStore struct {
	store.Store
	armed atomic.Bool
	hook  func()
}

func (g *gapStore) Tasks(ctx context.Context, id string) (store.TaskFile, error) {
	tf, err := g.Store.Tasks(ctx, id)
	if g.armed.CompareAndSwap(true, false) {
		g.hook()
	}
	return tf, err
}

// TestStreamGetsEditMadeWhileConnecting: an edit accepted while a page's stream is being set up
// (after the stream has read the workspace) still reaches the page, as a notice or as a full
// refresh. The stream used to read the workspace before joining the hub, and such an edit
// reached it neither way: the page showed the old description until the next edit.
func TestStreamGetsEditMadeWhileConnecting(t *testing.T) {
	g := &gapStore{Store: newTestStore(t)}
	s := serverOn(t, g)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	const desc = "Edited while the other page was connecting."
	g.hook = func() {
		// This runs on the stream's handler goroutine, where t.Fatal may not be called.
		b, _ := json.Marshal(sig(0, desc))
		req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/edit?t=0&f=description", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Datastar-Request", "true")
		if rec := do(t, s, req); rec.Code != http.StatusOK {
			t.Errorf("the edit made while connecting: status %d: %s", rec.Code, rec.Body.String())
		}
	}
	g.armed.Store(true)
	// The page was rendered at version 0, before the edit.
	st := dialSSE(t, ts.URL, id, strings.Repeat("b", 32), 0, 0, nil)
	st.next(t, "an editor patch with the edit made while connecting", func(e event) bool {
		el, ok := patchOf(e, "editor")
		return ok && strings.Contains(el, desc)
	})
	if g.armed.Load() {
		t.Fatal("the edit was never made: the stream did not read the workspace")
	}
}
