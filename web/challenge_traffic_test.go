package web

// The judge of the workshop's security rule: one participant's whole session, driven through
// the real router over HTTP, with every byte of every answer (headers, pages, streams,
// downloads, API answers) collected and searched for the hidden tasks and their verdicts.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// tap keeps every byte the participant's browser receives.
type tap struct {
	mu  sync.Mutex
	buf bytes.Buffer
	rt  http.RoundTripper
}

func (tp *tap) write(p []byte) {
	tp.mu.Lock()
	tp.buf.Write(p)
	tp.mu.Unlock()
}

func (tp *tap) String() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.buf.String()
}

func (tp *tap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tp.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "\n=== %s %s → %d\n", req.Method, req.URL.Path, resp.StatusCode)
	_ = resp.Header.Write(&head)
	tp.write(head.Bytes())
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, tapWriter{tp}), resp.Body}
	return resp, nil
}

type tapWriter struct{ tp *tap }

func (w tapWriter) Write(p []byte) (int, error) { w.tp.write(p); return len(p), nil }

// session is the participant's browser over real HTTP: a cookie jar and the tap.
type session struct {
	t    *testing.T
	base string
	c    *http.Client
	tap  *tap
	bear string // the API's bearer token, when set
}

func newSession(t *testing.T, base string) *session {
	jar, _ := cookiejar.New(nil)
	tp := &tap{rt: http.DefaultTransport}
	return &session{t: t, base: base, tap: tp, c: &http.Client{Jar: jar, Transport: tp}}
}

// send makes a request and reads its whole answer; want is the status it must have (0: any).
func (se *session) send(method, path, ctype string, body io.Reader, want int) string {
	se.t.Helper()
	req, _ := http.NewRequest(method, se.base+path, body)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if ctype == "application/json" && !strings.HasPrefix(path, "/api/") {
		req.Header.Set("Datastar-Request", "true")
	}
	if se.bear != "" {
		req.Header.Set("Authorization", "Bearer "+se.bear)
	}
	resp, err := se.c.Do(req)
	if err != nil {
		se.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if want != 0 && resp.StatusCode != want {
		se.t.Fatalf("%s %s: %d, want %d: %.500s", method, path, resp.StatusCode, want, b)
	}
	return string(b)
}

func (se *session) get(path string, want int) string {
	return se.send(http.MethodGet, path, "", nil, want)
}

func (se *session) signals(method, path string, sig map[string]any, want int) string {
	b, _ := json.Marshal(sig)
	return se.send(method, path, "application/json", bytes.NewReader(b), want)
}

// open starts a long GET (a stream) whose answer the tap collects until the test ends.
func (se *session) open(path string) {
	se.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, se.base+path, nil)
	resp, err := se.c.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		se.t.Fatalf("stream %s: %v %v", path, resp, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, bufio.NewReader(resp.Body))
	}()
	se.t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
}

// waitTap waits until the collected traffic holds s (a correctness bound, not a timing claim).
func (se *session) waitTap(what, s string) {
	se.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(se.tap.String(), s) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	se.t.Fatalf("the participant never received %s", what)
}

func TestParticipantTrafficHoldsNoHiddenTask(t *testing.T) {
	w := newWorkshop(t)
	ts := httptest.NewServer(w.s.Handler())
	t.Cleanup(ts.Close)
	ctx := context.Background()
	se := newSession(t, ts.URL)
	if !strings.Contains(string(w.ch.Settings), hiddenTasks[0].text) {
		t.Fatal("the hidden tasks are not kept as written: searching the traffic for them would prove nothing")
	}

	// Joining, the copy's page, its live stream.
	se.get("/join", http.StatusOK)
	se.get("/join/"+w.ch.Code, http.StatusOK)
	page := se.send(http.MethodPost, "/join/"+w.ch.Code, "application/x-www-form-urlencoded",
		strings.NewReader(url.Values{"name": {"Ada"}}.Encode()), http.StatusOK)
	if !strings.Contains(page, `id="challenge-bar"`) {
		t.Fatal("the join did not end on the copy's page")
	}
	ws := ""
	for _, ck := range se.c.Jar.Cookies(mustURL(t, ts.URL)) {
		if strings.HasPrefix(ck.Name, cookieLink) {
			ws = strings.TrimPrefix(ck.Name, cookieLink)
		}
	}
	if ws == "" {
		t.Fatal("no link cookie after joining")
	}
	se.get("/join/"+w.ch.Code, http.StatusOK) // welcome back
	pid := strings.Repeat("d", 32)
	se.open("/w/" + ws + "/stream?datastar=" + url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":0,"ver":-1}`, pid)))
	se.open("/board/" + w.ch.ID + "/stream")
	se.get("/board/"+w.ch.ID, http.StatusOK)

	// Edits (a description, a rename, a task) and their scoring.
	edit := func(tool int, field string, val any, want int) {
		se.signals(http.MethodPost, "/w/"+ws+"/edit?t="+fmt.Sprint(tool)+"&f="+field,
			map[string]any{"pid": pid, "tool": tool, "val": val, "ver": 0}, want)
	}
	edit(0, "description", "Show one book's record from its ISBN or its catalog id. USE THIS TOOL FIRST!", http.StatusOK)
	edit(4, "name", "loans_extend", http.StatusOK)
	if err := w.s.challenges.Rescore(ctx, ws); err != nil {
		t.Fatal(err)
	}
	se.waitTap("the scored bar", "live hidden tasks")
	edit(1, "description", "Find books by title, author, subject or ISBN.", http.StatusOK)
	if err := w.s.challenges.Rescore(ctx, ws); err != nil {
		t.Fatal(err)
	}

	// Everything the copy offers to read.
	w.participantReads(se, ws)

	// The teacher's side is closed to the participant.
	for _, p := range []string{"/c/" + w.ch.ID, "/c/" + w.ch.ID + "/challenge.json", "/c/" + w.ch.ID + "/results.json",
		"/c/" + w.ch.ID + "/results.csv", "/w/" + w.teacher, "/w/" + w.teacher + "/tasks.json"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+p, nil)
		resp, err := (&http.Client{Jar: se.c.Jar, Transport: se.tap, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("the participant opened the teacher's %s", p)
		}
	}

	// Freeze, an edit refused, reveal: the bar follows each.
	if err := w.s.challenges.Freeze(ctx, w.ch.ID); err != nil {
		t.Fatal(err)
	}
	se.waitTap("the frozen bar", "Frozen: your edits no longer count")
	edit(0, "description", "Too late.", http.StatusForbidden)
	if err := w.s.challenges.Reveal(ctx, w.ch.ID); err != nil {
		t.Fatal(err)
	}
	se.waitTap("the revealed bar", "Revealed:")
	w.participantReads(se, ws)
	se.get("/board/"+w.ch.ID, http.StatusOK)
	time.Sleep(50 * time.Millisecond) // let the board's stream carry the reveal too (what it sends is checked, not when)

	got := se.tap.String()
	for _, want := range []string{"catalog_get_book", "loans_extend", "started as <code>loans_renew</code>", "Library desk workshop"} {
		if !strings.Contains(got, want) {
			t.Errorf("the collected traffic lacks %q: the session did not run as meant", want)
		}
	}
	noHidden(t, "the participant's traffic", got)
	t.Logf("collected %d bytes of the participant's traffic", len(got))
}

// participantReads fetches every read the copy offers: downloads, exports, panels, the API
// with the link's token.
func (w *workshop) participantReads(se *session, ws string) {
	se.t.Helper()
	sg := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":0,"ver":0,"panel":"history"}`, strings.Repeat("d", 32)))
	for _, p := range []string{"/w/" + ws, "/w/" + ws + "/listing.json", "/w/" + ws + "/tasks.json",
		"/w/" + ws + "/export?format=json", "/w/" + ws + "/export?format=go", "/w/" + ws + "/export?format=review",
		"/w/" + ws + "/history?datastar=" + sg, "/w/" + ws + "/history/1", "/w/" + ws + "/history/1/listing.json",
		"/w/" + ws + "/review?datastar=" + sg, "/w/" + ws + "/cost?datastar=" + sg, "/w/" + ws + "/tasks/panel?datastar=" + sg,
		"/w/" + ws + "/overlap?datastar=" + sg} {
		se.get(p, http.StatusOK)
	}
	var tok string
	for _, ck := range se.c.Jar.Cookies(mustURL(se.t, se.base)) {
		if ck.Name == cookieLink+ws {
			tok = ck.Value
		}
	}
	api := &session{t: se.t, base: se.base, c: &http.Client{Transport: se.tap}, tap: se.tap, bear: tok}
	for _, p := range []string{"listing", "tasks", "revisions"} {
		api.get("/api/v1/workspaces/"+ws+"/"+p, http.StatusOK)
	}
	api.get("/api/v1/workspaces/"+w.teacher+"/listing", http.StatusForbidden)
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
