package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/challenge"
	"github.com/tool-workbench/workbench/store"
)

// hiddenBooks are hidden tasks for the auth rig's one-tool listing (books_search); each text
// is one no page of a participant may carry.
const hiddenBooks = `[
  {"task": "SECRET-LIVE-7f3a novels set on the moon", "expect": "books_search"},
  {"task": "SECRET-FINAL-9c1d poems about rivers", "expect": "books_search"}
]`

// TestChallengeTokenModeAccess: in token mode a participant's share-link cookie opens their
// copy and the projector's leaderboard, and nothing of the teacher's: the view, its stream,
// the controls and the exports hold the hidden tasks. The leaderboard and its stream need no
// sign-in and carry no hidden task.
func TestChallengeTokenModeAccess(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	teacher := r.visitor()
	if rec := teacher.form(t, "/login", url.Values{"token": {adminToken}, "name": {"Tess"}, "next": {"/"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d", rec.Code)
	}
	rec := challengePost(t, r.s, r.ws, challengeFields(hiddenBooks), func(req *http.Request) {
		for _, c := range teacher.cookies {
			req.AddCookie(c)
		}
	})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("the signed-in teacher could not make a challenge: %d %s", rec.Code, rec.Body.String())
	}
	cid := strings.TrimPrefix(rec.Header().Get("Location"), "/c/")
	ctx := context.Background()
	ch, err := r.s.challenges.Get(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	j, err := r.s.challenges.Join(ctx, ch, "Pat")
	if err != nil {
		t.Fatal(err)
	}
	pat := r.visitor()
	pat.cookies[cookieLink+j.Participant.Workspace] = &http.Cookie{Name: cookieLink + j.Participant.Workspace, Value: j.Token}
	if rec := pat.get(t, "/w/"+j.Participant.Workspace); rec.Code != http.StatusOK {
		t.Fatalf("the participant cannot open their copy: %d", rec.Code)
	}
	for _, path := range []string{"/c/" + cid, "/c/" + cid + "/stream", "/c/" + cid + "/results.csv", "/c/" + cid + "/results.json",
		"/c/" + cid + "/challenge.json", "/w/" + r.ws + "/challenge"} {
		rec := pat.get(t, path)
		if rec.Code != http.StatusForbidden && rec.Code != http.StatusSeeOther || strings.Contains(rec.Body.String(), "SECRET") {
			t.Errorf("a participant's GET %s: %d %s", path, rec.Code, rec.Header().Get("Location"))
		}
	}
	for _, path := range []string{"freeze", "unfreeze", "reveal"} {
		if rec := pat.form(t, "/c/"+cid+"/"+path, nil); rec.Code != http.StatusForbidden {
			t.Errorf("a participant's POST %s: %d", path, rec.Code)
		}
	}
	if rec := pat.form(t, "/w/"+r.ws+"/challenge", challengeFields(hiddenBooks)); rec.Code != http.StatusForbidden {
		t.Errorf("a participant made a challenge: %d", rec.Code)
	}
	nobody := r.visitor()
	board := nobody.get(t, "/board/"+cid)
	if board.Code != http.StatusOK || len(find(t, board.Body.String(), "board-rows")) != 1 {
		t.Fatalf("the leaderboard without sign-in: %d", board.Code)
	}
	if strings.Contains(board.Body.String(), "SECRET") || strings.Contains(board.Body.String(), j.Participant.Workspace) {
		t.Errorf("the open leaderboard carries a hidden task or a participant's workspace")
	}
	if rec := teacher.get(t, "/c/"+cid); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "SECRET-LIVE-7f3a") {
		t.Errorf("the teacher's view: %d, or no heat map row for the live task", rec.Code)
	}

	ts := httptest.NewServer(r.s.Handler())
	t.Cleanup(ts.Close)
	st := dialURL(t, ts.URL+"/board/"+cid+"/stream", nil)
	if err := r.s.challenges.Rescore(ctx, j.Participant.Workspace); err != nil {
		t.Fatal(err)
	}
	st.next(t, "a patch with Pat's score", func(e event) bool {
		el, ok := patchOf(e, "board-rows")
		return ok && strings.Contains(el, "Pat") && !strings.Contains(el, "…</span>")
	})
	if raw := st.raw.String(); strings.Contains(raw, "SECRET") || strings.Contains(raw, j.Participant.Workspace) {
		t.Errorf("the open leaderboard's stream carries a hidden task or a participant's workspace")
	}
}

// hostileTask is a hidden task's text that would add markup, an attribute or an SSE event of
// its own if it were ever written raw.
const hostileTask = `</th><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> data-on:click="@post('/evil')"` +
	"\r\nevent: datastar-patch-signals\r\ndata: signals {pwned: 3}\r\n\r\n"

// TestChallengeHostileText: hostile participant names and task text are escaped text on the
// teacher's view and in its stream, and no CR or LF of theirs splits an event.
func TestChallengeHostileText(t *testing.T) {
	s := newServer(t)
	ws := workspaceFrom(t, s, authListing)
	hidden := `[{"task": ` + jsonString(hostileTask) + `, "expect": "books_search"}, {"task": "poems", "expect": "books_search"}]`
	cid := newChallenge(t, s, ws, hidden)
	ctx := context.Background()
	ch, err := s.challenges.Get(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	name := `<img src=x onerror="window.pwned=4">Eve`
	j, err := s.challenges.Join(ctx, ch, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.challenges.Rescore(ctx, j.Participant.Workspace); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	st := dialURL(t, ts.URL+"/c/"+cid+"/stream", nil)
	heat := st.next(t, "the heat map", func(e event) bool { _, ok := patchOf(e, "heat-map"); return ok })
	docs := map[string]string{"teacher's view": getPage(t, s, "/c/"+cid), "board": getPage(t, s, "/board/"+cid), "heat patch": heat.elements()}
	for what, doc := range docs {
		if strings.Contains(doc, "<img") || strings.Contains(doc, "<script>") {
			t.Errorf("%s: user text became markup", what)
		}
		checkNoInjection(t, what, doc)
	}
	if !strings.Contains(heat.elements(), "&lt;/th&gt;&lt;script&gt;") {
		t.Errorf("the heat map does not show the task as text")
	}
	for _, e := range st.seen {
		if e.Type != "datastar-patch-elements" && e.Type != commentEvent {
			t.Errorf("the stream carried a %s event: the task's line breaks split an event", e.Type)
		}
	}
	if raw := st.raw.String(); strings.Contains(raw, "\r") || strings.Contains(raw, "\ndata: signals {pwned") {
		t.Errorf("the stream's bytes carry the task's line breaks raw")
	}
}

// checkNoInjection walks doc: no element or attribute may come from user text.
func checkNoInjection(t *testing.T, what, doc string) {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "img" || n.Data == "script" && attr(n, "src") == "" {
				t.Errorf("%s: user markup became a <%s> element", what, n.Data)
			}
			for _, a := range n.Attr {
				if a.Key == "onerror" || strings.Contains(a.Val, "/evil") && strings.HasPrefix(a.Key, "data-") {
					t.Errorf("%s: injected attribute %s=%q", what, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
}

// TestBoardStreamFollowsAnEdit: a participant's edit re-scores their copy, and the open
// leaderboard gets a patch with the new score.
func TestBoardStreamFollowsAnEdit(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	cid := newChallenge(t, s, id, hiddenLibrary)
	ctx := context.Background()
	ch, err := s.challenges.Get(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.challenges.Join(ctx, ch, "Ada")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.challenges.Rescore(ctx, j.Participant.Workspace); err != nil {
		t.Fatal(err)
	}
	before := boardScore(t, s, cid)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	st := dialURL(t, ts.URL+"/board/"+cid+"/stream", nil)
	st.next(t, "the board's first patch", func(e event) bool { _, ok := patchOf(e, "board-rows"); return ok })
	// The edit a participant's page makes: a description that names every hidden task's words.
	desc := "Search the catalogue for books about any subject, volcanoes say, for a school project or for fun."
	post(t, s, "/w/"+j.Participant.Workspace+"/edit?t=1&f=description", sig(1, desc))
	if err := s.challenges.Rescore(ctx, j.Participant.Workspace); err != nil {
		t.Fatal(err)
	}
	after := boardScore(t, s, cid)
	if after == before {
		t.Fatalf("the edit did not change the score (%s); the test needs one that does", after)
	}
	st.next(t, "a board patch with the score "+after, func(e event) bool {
		el, ok := patchOf(e, "board-rows")
		return ok && len(find(t, el, "board-points")) == 1 && text(find(t, el, "board-points")[0]) == after
	})
}

// boardScore is the one row's score cell on the projector's page.
func boardScore(t *testing.T, s *Server, cid string) string {
	t.Helper()
	cells := find(t, getPage(t, s, "/board/"+cid), "board-points")
	if len(cells) != 1 {
		t.Fatalf("%d score cells, want 1", len(cells))
	}
	return text(cells[0])
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestBoardStreamCoalescesABurst: a burst of score events (a room typing) reaches an open
// leaderboard as far fewer renders than events, and the last score is in the last one.
func TestBoardStreamCoalescesABurst(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	cid := newChallenge(t, s, id, hiddenLibrary)
	ctx := context.Background()
	ch, err := s.challenges.Get(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.challenges.Join(ctx, ch, "Ada")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	st := dialURL(t, ts.URL+"/board/"+cid+"/stream", nil)
	st.next(t, "the board's first patch", func(e event) bool { _, ok := patchOf(e, "board-rows"); return ok })
	const burst = 200
	for i := 1; i <= burst; i++ {
		doc, _ := json.Marshal(challenge.Result{Split: challenge.Live, Score: i % 100, Tasks: 2, Tokens: 700, Budget: 940})
		if i == burst {
			doc, _ = json.Marshal(challenge.Result{Split: challenge.Live, Score: 4321, Tasks: 2, Tokens: 700, Budget: 940})
		}
		_, err := s.db.PutScore(ctx, store.ScoreUpdate{Challenge: cid, Participant: j.Participant.ID, Seq: int64(1000 + i), Score: doc, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
	}
	st.next(t, "the burst's last score", func(e event) bool {
		el, ok := patchOf(e, "board-rows")
		return ok && strings.Contains(el, ">4321<")
	})
	renders := 0
	for _, e := range st.seen {
		if _, ok := patchOf(e, "board-rows"); ok {
			renders++
		}
	}
	if renders > burst/5 {
		t.Errorf("%d score events made %d renders of the leaderboard: a burst should be rendered a few times, not once per event", burst, renders)
	}
	t.Logf("%d events, %d renders", burst, renders)
}
