package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A room of people behind one NAT shares one address. Joining is bounded per address, so that
// one anonymous client holding the projector's code cannot take every seat by joining again
// and again with fresh cookies; the bound is wide enough for a whole room behind one NAT.
func TestJoinBudgetPerAddress(t *testing.T) {
	w := newWorkshop(t)
	const room = "203.0.113.5:1234"
	for i := 0; i < joinBurst; i++ {
		b := w.visitor() // a fresh cookie jar each time, from the same address
		b.remote = room
		w.join(t, b, fmt.Sprintf("Seat %d", i))
	}
	b := w.visitor()
	b.remote = room
	rec := b.form(t, "/join/"+w.ch.Code, url.Values{"name": {"One too many"}})
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("join %d from one address: %d, Retry-After %q", joinBurst+1, rec.Code, rec.Header().Get("Retry-After"))
	}
	if !strings.Contains(rec.Body.String(), "ask your teacher") {
		t.Errorf("the refusal does not say what to do: %.600s", rec.Body.String())
	}
	// The join page still opens (only a new seat spends), and another address still joins.
	if rec := b.get(t, "/join/"+w.ch.Code); rec.Code != http.StatusOK {
		t.Errorf("the join page past the budget: %d", rec.Code)
	}
	other := w.visitor()
	other.remote = "198.51.100.20:1234"
	w.join(t, other, "Elsewhere")
}

// Wrong join codes spend from a bucket of their own: a few typos in the room (one address
// behind a NAT) neither refuse the right code to the classmates nor the teacher's sign-in.
func TestWrongCodesSpareTheRoomAndTheTeacher(t *testing.T) {
	w := newWorkshop(t)
	const room = "198.51.100.77"
	typo := w.visitor()
	typo.remote = room + ":1000"
	for i := 0; i < loginBurst; i++ {
		if rec := typo.get(t, "/join/ZZZZZZ"); rec.Code != http.StatusNotFound {
			t.Fatalf("wrong code %d: %d", i, rec.Code)
		}
	}
	classmate := w.visitor()
	classmate.remote = room + ":2000"
	if rec := classmate.get(t, "/join/"+w.ch.Code); rec.Code != http.StatusOK {
		t.Errorf("the right code from the same address after %d typos: %d", loginBurst, rec.Code)
	}
	classmate.remote = room + ":2000"
	w.join(t, classmate, "Classmate")
	teacher := w.visitor()
	teacher.remote = room + ":3000"
	if rec := teacher.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Teacher"}}); rec.Code != http.StatusSeeOther {
		t.Errorf("the teacher's sign-in from the same address after %d typos: %d", loginBurst, rec.Code)
	}
}

// boardClients serves the handler with the client address each request names in X-Test-Client,
// as if from many machines.
func boardClients(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	h := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("X-Test-Client"); a != "" {
			r.RemoteAddr = a
		}
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// openBoard opens a leaderboard stream from client; the caller closes the answer's body.
func openBoard(t *testing.T, ts *httptest.Server, cid, client string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/board/"+cid+"/stream", nil)
	req.Header.Set("X-Test-Client", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// The projector's stream needs no sign-in, so open streams are bounded: per client address
// (a few projectors and tabs) and per challenge (a room's worth of phones). A refused stream
// is answered 429 with what to do, and a closed stream gives its place back.
func TestBoardStreamsAreBounded(t *testing.T) {
	w := newWorkshop(t)
	w.s.boards.perChallenge = boardStreamsPerClient + 2
	ts := boardClients(t, w.s)
	const one = "192.0.2.50:1000"
	var open []*http.Response
	for i := 0; i < boardStreamsPerClient; i++ {
		resp := openBoard(t, ts, w.ch.ID, one)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d from one client: %d", i, resp.StatusCode)
		}
		open = append(open, resp)
	}
	refused := openBoard(t, ts, w.ch.ID, one)
	if refused.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream %d from one client: %d", boardStreamsPerClient+1, refused.StatusCode)
	}
	if body := readAll(t, refused); !strings.Contains(body, "close") {
		t.Errorf("the refusal does not say what to do: %.300s", body)
	}
	// Another client is still served, up to the challenge's bound.
	for i := 0; i < 2; i++ {
		if resp := openBoard(t, ts, w.ch.ID, fmt.Sprintf("192.0.2.%d:1000", 60+i)); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream from another client %d: %d", i, resp.StatusCode)
		}
	}
	if resp := openBoard(t, ts, w.ch.ID, "192.0.2.70:1000"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream past the challenge's bound: %d", resp.StatusCode)
	}
	// Closing a stream releases its place, for its client and its challenge.
	open[0].Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for w.s.boards.open(w.ch.ID) > boardStreamsPerClient+1 {
		if time.Now().After(deadline) {
			t.Fatal("a closed stream still holds its place")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp := openBoard(t, ts, w.ch.ID, one); resp.StatusCode != http.StatusOK {
		t.Fatalf("a stream after one closed: %d", resp.StatusCode)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// A participant's copy is scored as it is: its edit link (the only thing a participant holds)
// may not fork it, share it or start model runs on it with the server's endpoints. Forks would
// be unscored workspaces that stay editable after the freeze, and runs spend the server's key.
// A signed-in teacher may still do each.
func TestParticipantCopyRefusesForkShareAndRuns(t *testing.T) {
	w := newWorkshop(t)
	b := w.visitor()
	ws := w.join(t, b, "Ada")
	run := strings.Repeat("a", 32)
	for _, tt := range []struct {
		name, path string
		form       url.Values
	}{
		{"fork", "/w/" + ws + "/fork", url.Values{}},
		{"share link", "/w/" + ws + "/share", url.Values{"capability": {"edit"}}},
		{"start a run", "/w/" + ws + "/runs", url.Values{"endpoint": {"any"}}},
		{"resume a run", "/w/" + ws + "/runs/" + run + "/resume", url.Values{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := b.form(t, tt.path, tt.form)
			if rec.Code != http.StatusForbidden {
				t.Fatalf("%s on a participant's copy with its link: %d", tt.name, rec.Code)
			}
			body := rec.Body.String()
			if tt.name != "share link" && !strings.Contains(body, "forks and model runs are for the teacher") {
				t.Errorf("the refusal does not say why: %.800s", body)
			}
		})
	}
	// The copy's page offers the participant no Fork button.
	if page := b.get(t, "/w/"+ws).Body.String(); strings.Contains(page, `data-testid="fork"`) {
		t.Errorf("the participant's page offers a fork")
	}
	// The teacher, signed in, may fork the copy (to show it to the room, say).
	teacher := w.visitor()
	if rec := teacher.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Teacher"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d", rec.Code)
	}
	if page := teacher.get(t, "/w/"+ws).Body.String(); !strings.Contains(page, `data-testid="fork"`) {
		t.Errorf("the teacher's page of a copy offers no fork")
	}
	if rec := teacher.form(t, "/w/"+ws+"/fork", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Errorf("the signed-in teacher's fork of a copy: %d", rec.Code)
	}
}
