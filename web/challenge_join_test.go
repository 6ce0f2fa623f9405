package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

// hiddenTasks are a workshop's hidden tasks, each with a word found nowhere else, so that a
// participant's traffic can be searched for them.
var hiddenTasks = []struct{ text, expect, split string }{
	{"Quaggled zephyr: show the pamphlet whose ISBN is 9781111111111", "catalog_get_book", "live"},
	{"Flumoxed ledger: extend my borrowing of Dune until the equinox", "loans_renew", "live"},
	{"Wobblecrank reserve the next free Pratchett copy for me", "holds_place", "live"},
	{"Snorkelvane: which patron is called Ifeoma Bright", "members_find", "final"},
	{"Glimmerquist borrowings that are late at the Eastgate branch", "reports_overdue", "final"},
	{"Tromblewick: I am giving back my copy of Beloved", "loans_return", "final"},
}

// hiddenMarkers are the words no page may carry.
var hiddenMarkers = []string{"Quaggled", "Flumoxed", "Wobblecrank", "Snorkelvane", "Glimmerquist", "Tromblewick"}

// workshop is a token-mode server with a teacher's workspace (the library draft example and
// its tasks as the practice tasks) and a challenge made from it.
type workshop struct {
	*authRig
	ch      *challenge.Challenge
	teacher string // the workspace the challenge was made from
}

func newWorkshop(t *testing.T) *workshop {
	t.Helper()
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	ch, teacher := makeWorkshop(t, r.s.challenges, r.s.store)
	return &workshop{authRig: r, ch: ch, teacher: teacher}
}

// makeWorkshop makes the library workshop (hiddenTasks) from a new teacher's workspace, and
// returns it and that workspace.
func makeWorkshop(t *testing.T, svc *challenge.Service, wsvc *workspace.Service) (*challenge.Challenge, string) {
	t.Helper()
	ctx := context.Background()
	ex, _ := examples.Get("library-2-draft")
	l, err := listing.Parse(ex.Listing, listing.Options{Name: "library"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(ex.Tasks, false)
	if err != nil {
		t.Fatal(err)
	}
	teacher := workspace.Author{Name: "Teacher", ID: "session:teacher"}
	ws, err := wsvc.Create(ctx, "Library desk", l, tasks, teacher, "the workshop's start")
	if err != nil {
		t.Fatal(err)
	}
	var hidden []map[string]any
	for _, h := range hiddenTasks {
		hidden = append(hidden, map[string]any{"task": h.text, "expect": h.expect, "tags": []string{h.split}})
	}
	src, _ := json.Marshal(hidden)
	c, err := svc.Create(ctx, ws.ID, challenge.Draft{Title: "Library desk workshop", Hidden: src}, teacher)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := svc.Get(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ch, ws.ID
}

// join joins the workshop as name from browser b and returns the copy's workspace ID.
func (w *workshop) join(t *testing.T, b *visitor, name string) string {
	t.Helper()
	rec := b.form(t, "/join/"+w.ch.Code, url.Values{"name": {name}})
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/w/") {
		t.Fatalf("join as %q: %d %s: %.500s", name, rec.Code, loc, rec.Body.String())
	}
	return strings.TrimPrefix(loc, "/w/")
}

// participant is the store's record of the copy ws.
func (w *workshop) participant(t *testing.T, ws string) store.Participant {
	t.Helper()
	p, err := w.st.ParticipantOf(context.Background(), ws)
	if err != nil {
		t.Fatalf("participant of %s: %v", ws, err)
	}
	return p
}

func TestJoinGivesACopyWithTheBar(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	// The code as someone types it off a projector.
	typed := strings.ToLower(w.ch.Code[:3]) + "-" + strings.ToLower(w.ch.Code[3:])
	if rec := b.get(t, "/join?code="+url.QueryEscape(typed)); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/join/"+w.ch.Code {
		t.Fatalf("GET /join?code=: %d %s", rec.Code, rec.Header().Get("Location"))
	}
	if rec := b.form(t, "/join", url.Values{"code": {" " + typed + " "}}); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/join/"+w.ch.Code {
		t.Fatalf("POST /join: %d %s", rec.Code, rec.Header().Get("Location"))
	}
	page := b.get(t, "/join/"+w.ch.Code)
	body := page.Body.String()
	for _, want := range []string{"Library desk workshop", `data-testid="join-name"`, "your own copy", "No account, no key", "Each tool keeps its place"} {
		if page.Code != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("join page: %d, missing %q", page.Code, want)
		}
	}
	ws := w.join(t, b, "Ada")
	if ws == w.teacher {
		t.Fatal("the join opened the teacher's workspace")
	}
	p := w.participant(t, ws)
	for _, name := range []string{cookieLink + ws, cookieJoin + w.ch.ID, cookieName} {
		ck := b.cookies[name]
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
			t.Fatalf("cookie %s: %+v", name, ck)
		}
	}
	if b.cookies[cookieLink+ws].Value != b.cookies[cookieJoin+w.ch.ID].Value {
		t.Error("the join cookie holds another token than the copy's link")
	}
	if n, _ := base64.RawURLEncoding.DecodeString(b.cookies[cookieName].Value); string(n) != p.Name {
		t.Errorf("name cookie %q, participant %q", n, p.Name)
	}
	cp := b.get(t, "/w/"+ws)
	body = cp.Body.String()
	for _, want := range []string{`id="challenge-bar"`, "catalog_get_book", "reports_overdue", "Which books by the author Ursula Le Guin",
		"Library desk workshop", ">Ada<", "/board/" + w.ch.ID, "started as <code>catalog_search</code>"} {
		if cp.Code != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("copy page: %d, missing %q", cp.Code, want)
		}
	}
	noHidden(t, "copy page", body)
	// Over https the cookies are Secure.
	tls := w.visitor()
	req := httptest.NewRequest(http.MethodPost, "https://example.com/join/"+w.ch.Code, strings.NewReader(url.Values{"name": {"Bo"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://example.com")
	if rec := tls.do(t, req); rec.Code != http.StatusSeeOther {
		t.Fatalf("join over https: %d", rec.Code)
	}
	for name, ck := range tls.cookies {
		if !ck.Secure {
			t.Errorf("cookie %s over https is not Secure", name)
		}
	}
	// The teacher's own workspace has no bar.
	teacher := w.visitor()
	teacher.header.Set("Authorization", "Bearer "+adminToken)
	if strings.Contains(teacher.get(t, "/w/"+w.teacher).Body.String(), `id="challenge-bar"`) {
		t.Error("the teacher's workspace shows a participant's bar")
	}
}

// noHidden fails if text carries any hidden task's text, a word of one, or a verdict's fields.
func noHidden(t *testing.T, what, text string) {
	t.Helper()
	for _, h := range hiddenTasks {
		if strings.Contains(text, h.text) {
			t.Errorf("%s carries the hidden task %q", what, h.text)
		}
	}
	lower := strings.ToLower(text)
	for _, m := range hiddenMarkers {
		if strings.Contains(lower, strings.ToLower(m)) {
			t.Errorf("%s carries the hidden task word %q", what, m)
		}
	}
	for _, key := range []string{`"verdicts"`, `"picked"`, `"win":`, `"half":`, "&#34;verdicts&#34;"} {
		if strings.Contains(lower, strings.ToLower(key)) {
			t.Errorf("%s carries a verdict's field %s", what, key)
		}
	}
}

func TestRejoinGivesTheSameCopy(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	// The tab closed; the link cookie lost; the join page knows the browser.
	delete(b.cookies, cookieLink+ws)
	page := b.get(t, "/join/"+w.ch.Code).Body.String()
	if !strings.Contains(page, "Welcome back, <strong>Ada</strong>") || strings.Contains(page, `data-testid="join-name"`) {
		t.Fatalf("join page for a browser that joined: %.3000s", page)
	}
	if got := w.join(t, b, ""); got != ws { // the "Open my copy" button posts no name
		t.Fatalf("rejoin: copy %s, want %s", got, ws)
	}
	if b.cookies[cookieLink+ws] == nil {
		t.Fatal("rejoining did not give the link cookie back")
	}
	// Typing a name again gives the same copy, never a second one.
	if got := w.join(t, b, "Ada again"); got != ws {
		t.Fatalf("second join from one browser: copy %s, want %s", got, ws)
	}
	// Another browser with the same name is another participant with another name.
	other := w.visitor()
	ws2 := w.join(t, other, "ada")
	if ws2 == ws {
		t.Fatal("two browsers got one copy")
	}
	p1, p2 := w.participant(t, ws), w.participant(t, ws2)
	if strings.EqualFold(p1.Name, p2.Name) {
		t.Fatalf("two participants named %q and %q", p1.Name, p2.Name)
	}
	if !strings.Contains(other.get(t, "/w/"+ws2).Body.String(), ">"+p2.Name+"<") {
		t.Errorf("the second copy's bar does not show %q", p2.Name)
	}
	// Neither browser opens the other's copy.
	if rec := other.get(t, "/w/"+ws); rec.Code == http.StatusOK {
		t.Error("a participant opened another's copy")
	}
	ps, err := w.st.Participants(context.Background(), w.ch.ID)
	if err != nil || len(ps) != 2 {
		t.Fatalf("participants: %d, %v", len(ps), err)
	}
}

func TestJoinRefusedWhenClosed(t *testing.T) {
	w := newWorkshop(t)
	early := w.visitor()
	ws := w.join(t, early, "Early")
	if err := w.s.challenges.Freeze(context.Background(), w.ch.ID); err != nil {
		t.Fatal(err)
	}
	b := w.visitor()
	page := b.get(t, "/join/"+w.ch.Code)
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), `data-testid="join-closed"`) ||
		strings.Contains(page.Body.String(), `data-testid="join-name"`) {
		t.Fatalf("frozen join page: %d %.2000s", page.Code, page.Body.String())
	}
	rec := b.form(t, "/join/"+w.ch.Code, url.Values{"name": {"Ada"}})
	if rec.Code == http.StatusSeeOther || b.cookies[cookieJoin+w.ch.ID] != nil {
		t.Fatalf("joined a frozen challenge: %d", rec.Code)
	}
	if ps, _ := w.st.Participants(context.Background(), w.ch.ID); len(ps) != 1 {
		t.Fatalf("a frozen challenge has %d participants, want the one who joined before", len(ps))
	}
	// Who joined before the freeze still finds their copy (read-only).
	page = early.get(t, "/join/"+w.ch.Code)
	if !strings.Contains(page.Body.String(), `data-testid="join-closed"`) || !strings.Contains(page.Body.String(), "Welcome back") {
		t.Fatalf("frozen join page for one who joined: %.2000s", page.Body.String())
	}
	if got := w.join(t, early, ""); got != ws {
		t.Fatalf("rejoin a frozen challenge: %s, want %s", got, ws)
	}
}

func TestJoinBadCodeIsThrottled(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	b.remote = "192.0.2.7:4000"
	wrong := "ZZZZZZ"
	if wrong == w.ch.Code {
		wrong = "YYYYYY"
	}
	var last *httptest.ResponseRecorder
	for i := 0; i < codeBurst; i++ {
		last = b.get(t, "/join/"+wrong)
		if last.Code != http.StatusNotFound || !strings.Contains(last.Body.String(), "No workshop has this code") {
			t.Fatalf("wrong code %d: %d", i, last.Code)
		}
	}
	for _, rec := range []*httptest.ResponseRecorder{
		b.get(t, "/join/"+wrong),
		b.form(t, "/join/"+wrong, url.Values{"name": {"Ada"}}),
		b.get(t, "/join/"+w.ch.Code), // the right code too, while the bucket is empty
	} {
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("past the burst: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	// Another address is not locked out, and a right code spends nothing.
	c := w.visitor()
	c.remote = "198.51.100.9:4000"
	for i := 0; i < codeBurst+2; i++ {
		if rec := c.get(t, "/join/"+w.ch.Code); rec.Code != http.StatusOK {
			t.Fatalf("right code %d from another address: %d", i, rec.Code)
		}
	}
	// A malformed code is refused without reaching a URL.
	if rec := c.form(t, "/join", url.Values{"code": {"<b>ab/../c</b>"}}); rec.Code != http.StatusBadRequest || strings.Contains(rec.Body.String(), "<b>ab") {
		t.Fatalf("malformed code: %d", rec.Code)
	}
}

func TestJoinHostileNameIsCleanedAndEscaped(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "<script>alert(1)</script>\u202eEve\r\nSet-Cookie: x=1")
	p := w.participant(t, ws)
	if strings.ContainsAny(p.Name, "\r\n\u202e") {
		t.Fatalf("stored name %q keeps a control or bidi character", p.Name)
	}
	page := b.get(t, "/w/"+ws).Body.String()
	if strings.Contains(page, "<script>alert(1)") || strings.Contains(page, "\u202e") {
		t.Fatal("the hostile name reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatal("the bar does not show the name as text")
	}
	if _, ok := b.cookies["x"]; ok {
		t.Fatal("the name set a cookie")
	}
	// Empty and over-long names re-show the form with the typed text.
	c := w.visitor()
	for _, tc := range []struct{ name, want string }{
		{" \u202e\t ", "Type the name"},
		{strings.Repeat("é", store.MaxParticipantName+1), fmt.Sprintf("at most %d characters", store.MaxParticipantName)},
	} {
		rec := c.form(t, "/join/"+w.ch.Code, url.Values{"name": {tc.name}})
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.want) {
			t.Fatalf("name %q: %d %.1000s", tc.name, rec.Code, rec.Body.String())
		}
		if strings.TrimSpace(tc.name) != "" && !strings.Contains(rec.Body.String(), `value="`+tc.name+`"`) {
			t.Errorf("name %q: the form lost the typed text", tc.name)
		}
	}
}

// barStream opens the live stream of copy ws as browser b over real HTTP.
func barStream(t *testing.T, base, ws string, b *visitor) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":0,"ver":-1}`, strings.Repeat("e", 32)))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/w/"+ws+"/stream?datastar="+q, nil)
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("stream: %v %v", resp, err)
	}
	st := &stream{resp: resp, done: make(chan struct{})}
	go func() {
		defer close(st.done)
		r := bufio.NewReader(resp.Body)
		for {
			ln, err := r.ReadString('\n')
			st.mu.Lock()
			st.buf.WriteString(ln)
			st.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-st.done })
	return st
}

func TestBarPatchesAfterAnEditAndAFreeze(t *testing.T) {
	w := newWorkshop(t)
	ts := httptest.NewServer(w.s.Handler())
	t.Cleanup(ts.Close)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	st := barStream(t, ts.URL, ws, b)
	rec := b.datastar(t, http.MethodPost, "/w/"+ws+"/edit?t=0&f=description",
		sig(0, "Show one book's record from its ISBN or catalog id. USE THIS TOOL FIRST, ALWAYS!"))
	if rec.Code != http.StatusOK {
		t.Fatalf("edit: %d %s", rec.Code, rec.Body.String())
	}
	if err := w.s.challenges.Rescore(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	st.waitFor(t, "the bar with a score", func(s string) bool {
		return strings.Contains(s, `id="challenge-bar"`) && strings.Contains(s, `data-testid="cbar-won"`) && strings.Contains(s, "live hidden tasks")
	})
	st.reset()
	if err := w.s.challenges.Freeze(context.Background(), w.ch.ID); err != nil {
		t.Fatal(err)
	}
	got := st.waitFor(t, "the frozen bar", func(s string) bool {
		return strings.Contains(s, `id="challenge-bar"`) && strings.Contains(s, "your edits no longer count")
	})
	noHidden(t, "the copy's stream", got)
	// A page that was away (a laptop asleep through the freeze) gets the bar as it is now.
	back := barStream(t, ts.URL, ws, b)
	back.waitFor(t, "the frozen bar on a stream opened after the freeze", func(s string) bool {
		return strings.Contains(s, `id="challenge-bar"`) && strings.Contains(s, "your edits no longer count")
	})
}

func TestFrozenCopyRefusesEdits(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	edit := func() *httptest.ResponseRecorder {
		return b.datastar(t, http.MethodPost, "/w/"+ws+"/edit?t=0&f=description", sig(0, "Show one book's record."))
	}
	if rec := edit(); rec.Code != http.StatusOK {
		t.Fatalf("edit while open: %d %s", rec.Code, rec.Body.String())
	}
	if err := w.s.challenges.Freeze(context.Background(), w.ch.ID); err != nil {
		t.Fatal(err)
	}
	why := w.s.challenges.Locked(context.Background(), ws)
	if why == "" {
		t.Fatal("a frozen challenge's copy is not locked")
	}
	if rec := edit(); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), why) {
		t.Fatalf("edit while frozen: %d %s", rec.Code, rec.Body.String())
	}
	// The API with the link's token: reads work, writes are refused with the reason.
	api := w.visitor()
	api.header.Set("Authorization", "Bearer "+b.cookies[cookieLink+ws].Value)
	if rec := api.get(t, "/api/v1/workspaces/"+ws+"/listing"); rec.Code != http.StatusOK {
		t.Fatalf("API read of a frozen copy: %d %s", rec.Code, rec.Body.String())
	}
	req := httptest.NewRequest(http.MethodPut, "/api/v1/workspaces/"+ws+"/tasks", strings.NewReader(`{"tasks":[]}`))
	req.Header.Set("Content-Type", "application/json")
	if rec := api.do(t, req); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), why) {
		t.Fatalf("API write to a frozen copy: %d %s", rec.Code, rec.Body.String())
	}
	// The page still opens, and its bar says why.
	if page := b.get(t, "/w/"+ws).Body.String(); !strings.Contains(page, "your edits no longer count") {
		t.Fatal("the frozen copy's bar does not say so")
	}
	// The teacher's own workspace is no copy: it stays editable.
	if why := w.s.challenges.Locked(context.Background(), w.teacher); why != "" {
		t.Fatalf("the teacher's workspace is locked: %s", why)
	}
}

// FuzzJoinCode: whatever is typed, a code that is read is letters and digits only (it becomes
// a path), and reading is idempotent.
func FuzzJoinCode(f *testing.F) {
	for _, s := range []string{"ab3-def", " AB3 DEF ", "", "-", "ab/../c", "ÄB3DEF", "ab3\u202edef", strings.Repeat("A", 21)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		code, ok := normalCode(typed)
		if !ok {
			return
		}
		if code == "" || len(code) > maxCodeInput || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			t.Fatalf("%q read as %q", typed, code)
		}
		if again, ok := normalCode(code); !ok || again != code {
			t.Fatalf("%q read again as %q, %v", code, again, ok)
		}
	})
}

// FuzzJoinName: a name that is taken is non-empty, at most MaxParticipantName characters,
// and holds no control or bidirectional character.
func FuzzJoinName(f *testing.F) {
	for _, s := range []string{"Ada", " ", "\u202e", "<script>", "a\r\nb", strings.Repeat("é", 61), "\xff\xfe", "\u2066x\u2069"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		name, problem := joinName(typed)
		if problem != "" {
			if name != "" {
				t.Fatalf("%q: a problem and a name %q", typed, name)
			}
			return
		}
		if strings.TrimSpace(name) == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > store.MaxParticipantName {
			t.Fatalf("%q taken as %q", typed, name)
		}
		if err := store.CheckText("join", "name", name, store.MaxParticipantName, true, false); err != nil {
			t.Fatalf("%q taken as %q, which the store refuses: %v", typed, name, err)
		}
	})
}

// TestJoinClosedSaysWhy: the join page names what closed the workshop; a challenge past its
// end is frozen by the end, and says it ended.
func TestJoinClosedSaysWhy(t *testing.T) {
	s := newServer(t)
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	s.auth.cfg.Now = func() time.Time { return now }
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	for _, tc := range []struct {
		name   string
		state  store.ChallengeState
		window challenge.Window
		want   string
	}{
		{"open", store.ChallengeOpen, challenge.Window{End: future}, ""},
		{"frozen by the teacher", store.ChallengeFrozen, challenge.Window{End: future}, "frozen"},
		{"frozen by its end", store.ChallengeFrozen, challenge.Window{End: past}, "has ended: it closed at 09:59 UTC"},
		{"revealed after its end", store.ChallengeRevealed, challenge.Window{End: past}, "final ranking has been revealed"},
		{"not started", store.ChallengeOpen, challenge.Window{Start: future}, "has not started yet"},
	} {
		ch := &challenge.Challenge{Challenge: store.Challenge{State: tc.state}, File: &challenge.File{Window: tc.window}}
		got := s.closedReason(ch)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, got, tc.want)
		}
	}
}
