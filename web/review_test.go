package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/store"
)

// reviewPost posts a review form as the page's Datastar client does (form-encoded).
func (b *visitor) reviewPost(t *testing.T, path string, v url.Values) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Datastar-Request", "true")
	req.Header.Set("Origin", "http://example.com")
	return b.do(t, req)
}

// newComment is the new-thread form on the rig's parameter q, with a forged author besides.
func newComment(body string) url.Values {
	return url.Values{"tool": {"0"}, "name": {"books_search"}, "field": {"/inputSchema/properties/q"},
		"body": {body}, "author": {"Mallory"}, "authorId": {"session:mallory"}}
}

// TestReviewAccess: a view link reads the Review panel but cannot comment, reply, resolve or
// sign off (403 saying why, nothing stored); an edit link can, and whatever the form says, the
// author is the request's identity: the name a link visitor chose, or in header mode the name
// the proxy authenticated.
func TestReviewAccess(t *testing.T) {
	ctx := context.Background()
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	base := "/w/" + r.ws + "/review"
	viewer := r.visitor()
	viewer.get(t, "/s/"+r.link(t, store.CanView).Token)
	editor := r.visitor()
	editor.get(t, "/s/"+r.link(t, store.CanEdit).Token)
	if rec := editor.form(t, "/me/name", url.Values{"name": {"Grace"}, "next": {"/w/" + r.ws}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("choose a name: %d", rec.Code)
	}
	rec := editor.reviewPost(t, base+"/comment", newComment("Say what q matches: titles, authors or both?"))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("comment with an edit link: %d %.400s", rec.Code, rec.Body.String())
	}
	cs, err := r.st.Comments(ctx, r.ws)
	if err != nil || len(cs) != 1 {
		t.Fatalf("comments after one: %v, %v", cs, err)
	}
	if cs[0].Author != "Grace (edit link)" || !strings.HasPrefix(cs[0].AuthorID, "link:") {
		t.Errorf("comment stored as %q (%q); want Grace (edit link) under the link, whatever the form said", cs[0].Author, cs[0].AuthorID)
	}
	if rec := editor.reviewPost(t, base+"/signoff?verdict=approved", url.Values{"message": {"ok"}, "author": {"Mallory"}}); rec.Code != http.StatusOK {
		t.Fatalf("sign off with an edit link: %d %.300s", rec.Code, rec.Body.String())
	}
	sos, err := r.st.Signoffs(ctx, r.ws)
	if err != nil || len(sos) != 1 || sos[0].Author != "Grace (edit link)" {
		t.Fatalf("sign-offs: %+v, %v; want one by Grace (edit link)", sos, err)
	}
	// The viewer reads all of it.
	rec = viewer.datastar(t, http.MethodGet, base, nil)
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, "Say what q matches") || !strings.Contains(body, `data-testid="signoff"`) {
		t.Fatalf("the panel for a view link: %d %.400s", rec.Code, body)
	}
	writes := []struct {
		path string
		form url.Values
	}{
		{"/comment", newComment("from a viewer")},
		{"/reply", url.Values{"thread": {cs[0].ID}, "body": {"from a viewer"}}},
		{"/resolve?resolved=true", url.Values{"thread": {cs[0].ID}}},
		{"/signoff?verdict=approved", url.Values{"message": {"from a viewer"}}},
		{"/signoff?verdict=changes", url.Values{"message": {"from a viewer"}}},
	}
	for _, w := range writes {
		rec := viewer.reviewPost(t, base+w.path, w.form)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "read-only") {
			t.Errorf("POST %s with a view link: %d %q; want 403 saying the link is read-only", w.path, rec.Code, rec.Body.String())
		}
	}
	if cs, _ := r.st.Comments(ctx, r.ws); len(cs) != 1 || cs[0].Resolved {
		t.Errorf("a viewer changed the threads: %+v", cs)
	}
	if sos, _ := r.st.Signoffs(ctx, r.ws); len(sos) != 1 {
		t.Errorf("a viewer signed off: %+v", sos)
	}
}

// TestReviewAuthorHeaderMode: behind an authenticating proxy the author of a comment and a
// sign-off is the name the proxy sent.
func TestReviewAuthorHeaderMode(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthHeader, Header: "X-Forwarded-User", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}})
	b := r.visitor()
	b.remote = "10.0.0.1:4000"
	b.header.Set("X-Forwarded-User", "alice")
	base := "/w/" + r.ws + "/review"
	if rec := b.reviewPost(t, base+"/comment", newComment("Needs an example.")); rec.Code != http.StatusOK {
		t.Fatalf("comment: %d %.300s", rec.Code, rec.Body.String())
	}
	if rec := b.reviewPost(t, base+"/signoff?verdict=changes", url.Values{"message": {"see the thread"}, "author": {"bob"}}); rec.Code != http.StatusOK {
		t.Fatalf("sign off: %d %.300s", rec.Code, rec.Body.String())
	}
	cs, _ := r.st.Comments(context.Background(), r.ws)
	sos, _ := r.st.Signoffs(context.Background(), r.ws)
	if len(cs) != 1 || cs[0].Author != "alice" || cs[0].AuthorID != "header:alice" {
		t.Errorf("comments: %+v; want one by alice (header:alice)", cs)
	}
	if len(sos) != 1 || sos[0].Author != "alice" || sos[0].Verdict != store.ChangesRequested {
		t.Errorf("sign-offs: %+v; want alice requesting changes", sos)
	}
}

// TestReviewBadInput: every refused action answers 200 with a message in the panel's problem
// region and no patch of the box that was typed in (the text stays), and stores nothing.
func TestReviewBadInput(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	base := "/w/" + r.ws + "/review"
	long := strings.Repeat("é", store.MaxCommentBody+1)
	with := func(k, v string) url.Values {
		f := newComment("fine")
		f.Set(k, v)
		return f
	}
	tests := []struct {
		name, path string
		form       url.Values
		want       string
	}{
		{"empty comment", "/comment", with("body", " \n\t"), "empty"},
		{"comment too long", "/comment", with("body", long), "at most 4000"},
		{"stale tool name", "/comment", with("name", "books_find"), "not saved"},
		{"tool index out of range", "/comment", with("tool", "7"), "not saved"},
		{"tool index not a number", "/comment", with("tool", "x"), "no tool"},
		{"field not offered", "/comment", with("field", "description"), "pick it again"},
		{"reply to no thread", "/reply", url.Values{"thread": {"0123456789abcdef0123456789abcdef"}, "body": {"hi"}}, "not saved"},
		{"control character", "/comment", with("body", "a\x00b"), "not saved"},
		{"empty reply", "/reply", url.Values{"thread": {"x"}, "body": {""}}, "empty"},
		{"resolve no thread", "/resolve?resolved=true", url.Values{"thread": {"nope"}}, "not changed"},
		{"sign-off on a listing changed since", "/signoff?verdict=approved", url.Values{"hash": {"sha256:00"}}, "changed since"},
		{"sign-off message too long", "/signoff?verdict=approved", url.Values{"message": {strings.Repeat("é", store.MaxMessage+1)}}, "holds at most 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := b.reviewPost(t, base+tt.path, tt.form)
			body := rec.Body.String()
			if rec.Code != http.StatusOK || !strings.Contains(body, `id="review-problem"`) || !strings.Contains(body, tt.want) {
				t.Fatalf("%d %.400s; want the problem region saying %q", rec.Code, body, tt.want)
			}
			for _, box := range []string{`id="review-new-body"`, `id="reply-`, `id="review-signoff-msg"`} {
				if strings.Contains(body, box) {
					t.Errorf("the answer replaces %s: what was typed would be lost", box)
				}
			}
		})
	}
	if rec := b.reviewPost(t, base+"/signoff?verdict=maybe", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("an unknown verdict: %d, want 400", rec.Code)
	}
	// A form over the 64 KiB a request may bring is refused as too large, not read as empty.
	if rec := b.reviewPost(t, base+"/comment", newComment(strings.Repeat("x", 70<<10))); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "over 64 KiB") {
		t.Errorf("a 70 KiB comment: %d %.300s; want 400 saying the form is too large", rec.Code, rec.Body.String())
	}
	cs, _ := r.st.Comments(context.Background(), r.ws)
	sos, _ := r.st.Signoffs(context.Background(), r.ws)
	if len(cs)+len(sos) != 0 {
		t.Errorf("refused actions stored %d comments and %d sign-offs", len(cs), len(sos))
	}
}

// TestReviewHostileText: comment bodies, names and replies that look like markup, attributes
// or Datastar expressions come back as text: escaped in the panel, never in an attribute, and
// no CR on the wire.
func TestReviewHostileText(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	base := "/w/" + r.ws + "/review"
	hostile := "<script>alert(1)</script>\"' data-on:click=\"@post('/x')\" data-init=\"$x=1\"\r\nline\u2028sep\u2029para\rlone CR"
	if rec := b.reviewPost(t, base+"/comment", newComment(hostile)); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("comment: %d %.300s", rec.Code, rec.Body.String())
	}
	cs, _ := r.st.Comments(context.Background(), r.ws)
	if len(cs) != 1 {
		t.Fatalf("comments: %d", len(cs))
	}
	if rec := b.reviewPost(t, base+"/reply", url.Values{"thread": {cs[0].ID}, "body": {hostile}}); rec.Code != http.StatusOK {
		t.Fatalf("reply: %d", rec.Code)
	}
	if rec := b.reviewPost(t, base+"/signoff?verdict=approved", url.Values{"message": {hostile}}); rec.Code != http.StatusOK {
		t.Fatalf("sign off: %d", rec.Code)
	}
	rec := b.datastar(t, http.MethodGet, base, nil)
	body := rec.Body.String()
	if strings.ContainsRune(body, '\r') {
		t.Error("a CR reached the event stream")
	}
	for _, bad := range []string{"<script>alert", `data-on:click="@post('/x')"`, `data-init="$x=1"`} {
		if strings.Contains(body, bad) {
			t.Errorf("the panel carries %q unescaped", bad)
		}
	}
	var elements strings.Builder
	for _, ev := range parseSSE(t, body) {
		elements.WriteString(ev.elements())
	}
	for _, n := range find(t, elements.String(), "comment-body") {
		if !strings.Contains(text(n), "<script>alert(1)</script>") {
			t.Errorf("a comment's text is %q; want the hostile text shown as text", text(n))
		}
	}
	if got := len(find(t, elements.String(), "comment-body")); got != 2 {
		t.Errorf("%d comment bodies shown, want 2", got)
	}
	// The live stream of a page with the panel shown carries the same text, framed alike.
	ts := httptest.NewServer(r.s.Handler())
	t.Cleanup(ts.Close)
	st := openStreamSignals(t, ts.URL, r.ws, bo, `{"pid":"`+strings.Repeat("9", 32)+`","tool":0,"ver":-1,"panel":"review"}`)
	wire := st.waitFor(t, "the review", func(s string) bool { return strings.Count(s, "lone CR") >= 3 })
	if strings.ContainsRune(wire, '\r') || strings.Contains(wire, "<script>alert") || strings.Contains(wire, `data-init="$x=1"`) {
		t.Errorf("the live stream carries a CR or the hostile text unescaped: %.600q", wire)
	}
}

// TestReviewFindingComment: the field picker offers the tool's findings; a comment on one is
// anchored to its rule with the finding's message as the pages show it, and the picker then
// counts an open thread on it.
func TestReviewFindingComment(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	base := "/w/" + r.ws + "/review"
	options := func() []*html.Node {
		var els strings.Builder
		for _, ev := range parseSSE(t, b.datastar(t, http.MethodGet, base, nil).Body.String()) {
			els.WriteString(ev.elements())
		}
		sel := find(t, els.String(), "review-new-field")
		if len(sel) != 1 {
			t.Fatalf("the panel has %d field pickers", len(sel))
		}
		var out []*html.Node
		for o := sel[0].FirstChild; o != nil; o = o.NextSibling {
			if o.Type == html.ElementNode && o.Data == "option" {
				out = append(out, o)
			}
		}
		return out
	}
	var value, label string
	for _, o := range options() {
		if v := attr(o, "value"); strings.HasPrefix(v, "!") {
			value, label = v, text(o)
			break
		}
	}
	if value == "" {
		t.Fatal("the picker offers no finding of books_search (its parameter q has no description)")
	}
	f := newComment("Worth fixing before the release.")
	f.Set("field", value)
	if rec := b.reviewPost(t, base+"/comment", f); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("comment on %s: %d %.300s", label, rec.Code, rec.Body.String())
	}
	cs, _ := r.st.Comments(context.Background(), r.ws)
	rule, _, _ := strings.Cut(value[1:], " ")
	if len(cs) != 1 || cs[0].Anchor.Finding != rule || cs[0].Anchor.Text == "" || !strings.Contains(label, cs[0].Anchor.Text[:min(20, len(cs[0].Anchor.Text))]) {
		t.Fatalf("stored %+v; want an anchor on rule %s with the message the picker showed (%q)", cs, rule, label)
	}
	for _, o := range options() {
		if attr(o, "value") == value && !strings.Contains(text(o), "1 open thread") {
			t.Errorf("after a comment the picker shows %q; want it to count 1 open thread", text(o))
		}
	}
}

// TestReviewPanelPreset: the editor's and the findings' Comment actions open the new-thread
// form preset to their field; a tool index the listing no longer has is refused.
func TestReviewPanelPreset(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	tests := []struct {
		query, want string
	}{
		{"", ""},
		{"?t=0&at=desc&n=0", "/description"},
		{"?t=0&at=param&n=0", "/inputSchema/properties/q"},
		{"?t=0&at=param&n=9", ""},
		{"?t=0&at=finding&n=0", "!"},
		{"?t=0&at=bogus&n=0", ""},
	}
	for _, tt := range tests {
		rec := b.datastar(t, http.MethodGet, "/w/"+r.ws+"/review"+tt.query, nil)
		var els strings.Builder
		for _, ev := range parseSSE(t, rec.Body.String()) {
			els.WriteString(ev.elements())
		}
		sel := find(t, els.String(), "review-new-field")
		if rec.Code != http.StatusOK || len(sel) != 1 {
			t.Fatalf("GET review%s: %d, %d pickers", tt.query, rec.Code, len(sel))
		}
		got := ""
		for o := sel[0].FirstChild; o != nil; o = o.NextSibling {
			if o.Type == html.ElementNode && o.Data == "option" {
				if _, ok := attrOK(o, "selected"); ok {
					got = attr(o, "value")
				}
			}
		}
		if got != tt.want && !(tt.want == "!" && strings.HasPrefix(got, "!")) {
			t.Errorf("GET review%s: the picker is preset to %q, want %q", tt.query, got, tt.want)
		}
	}
	if rec := b.datastar(t, http.MethodGet, "/w/"+r.ws+"/review?t=5&at=desc", nil); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "no longer exists") {
		t.Errorf("a tool past the listing: %d %q; want 409 saying it no longer exists", rec.Code, rec.Body.String())
	}
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// TestReviewOutdatedAndGone: a thread on the description says "outdated" once the description
// changes, with the text as it was and as it is; a thread whose tool is removed stays listed.
func TestReviewOutdatedAndGone(t *testing.T) {
	r := newAuthRig(t, AuthConfig{})
	b := r.visitor()
	base := "/w/" + r.ws + "/review"
	f := newComment("Too short.")
	f.Set("field", "/description")
	if rec := b.reviewPost(t, base+"/comment", f); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "not saved") {
		t.Fatalf("comment: %d %.300s", rec.Code, rec.Body.String())
	}
	panel := func() string {
		var els strings.Builder
		for _, ev := range parseSSE(t, b.datastar(t, http.MethodGet, base, nil).Body.String()) {
			els.WriteString(ev.elements())
		}
		return els.String()
	}
	if got := find(t, panel(), "thread-outdated"); len(got) != 0 {
		t.Fatal("a thread is outdated before anything changed")
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Search the catalogue by title, author or subject."}); rec.Code != http.StatusOK {
		t.Fatalf("edit: %d %s", rec.Code, rec.Body.String())
	}
	doc := panel()
	was := find(t, doc, "thread-was")
	if len(find(t, doc, "thread-outdated")) != 1 || len(was) != 1 || !strings.Contains(text(was[0]), "Search the catalogue by title or author.") ||
		!strings.Contains(text(was[0]), "or subject") {
		t.Fatalf("after the edit the thread does not say it is outdated with the text as it was and is: %.1500s", doc)
	}
	if rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/tool?op=del&i=0&g=-1", map[string]any{"tool": 0}); rec.Code != http.StatusOK {
		t.Fatalf("remove the tool: %d %s", rec.Code, rec.Body.String())
	}
	doc = panel()
	if th := find(t, doc, "thread"); len(th) != 1 || !strings.Contains(text(th[0]), "tool removed") || !strings.Contains(text(th[0]), "Too short.") {
		t.Errorf("after removing its tool the thread is not listed as removed: %.1500s", doc)
	}
}
