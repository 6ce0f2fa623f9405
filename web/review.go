package web

// The Review panel (issue 22): comment threads anchored to a tool, a field of it or a finding,
// sign-offs on the head revision and the release gate, as package review answers them. Reads
// need the view capability; comments, replies, resolutions and sign-offs need edit, and the
// approvals required needs a signed-in editor (the guard decides it from the route:
// manageRoutes). The author is always the request's
// identity, never a field of the form. A refused action answers with a message in the panel
// and leaves the form as it was, so nothing typed is lost.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

func (s *Server) reviewRoutes(w *echo.Group) {
	w.GET("/review", s.reviewPanel)
	w.GET("/review/leave", s.reviewLeave)
	w.POST("/review/comment", s.reviewComment)
	w.POST("/review/reply", s.reviewReply)
	w.POST("/review/resolve", s.reviewResolve)
	w.POST("/review/signoff", s.reviewSignoff)
	w.POST("/review/require", s.reviewRequire)
}

// ReviewErrors counts the error findings of workspace ws's listing l as its pages show them:
// with the workspace's lint profile (the release gate's "no error findings").
func (s *Server) ReviewErrors(ctx context.Context, ws string, l *listing.Listing) (int, error) {
	eng, err := s.engineFor(s.profileOf(ctx, ws))
	if err != nil {
		return 0, err
	}
	res, err := eng.AnalyzeContext(ctx, l, nil)
	if err != nil {
		return 0, fmt.Errorf("count the error findings of workspace %s: %w", ws, err)
	}
	return res.Errors, nil
}

// reviewModel is the shared part of the panel: the gate, the sign-offs and the threads (read
// through cache: once per notice, or per request; nil reads them).
func (s *Server) reviewModel(ctx context.Context, ws string, cache *renders) (views.Review, []review.Thread) {
	m := views.Review{WS: ws}
	st, err := s.review.Status(ctx, ws, 0) // the workspace's approvals-required setting
	if err != nil {
		s.log.Warn("review: read the gate", "ws", ws, "err", err)
		m.Problem = "The review could not be read: " + reviewErrText(err) + ". Reload the page to try again."
		return m, nil
	}
	threads, err := s.threadsOf(ctx, ws, cache)
	if err != nil {
		s.log.Warn("review: read the threads", "ws", ws, "err", err)
		m.Problem = "The review's threads could not be read: " + reviewErrText(err) + ". Reload the page to try again."
		return m, nil
	}
	m.Revision, m.Hash, m.Passed, m.Reasons, m.Require = st.Revision, st.Hash, st.Passed, st.Reasons, st.Require
	m.Approvals, m.Errors, m.Open = st.Approvals, st.Errors, st.OpenThreads
	for _, a := range st.Signoffs {
		m.Signoffs = append(m.Signoffs, views.ReviewSignoff{Who: a.Author, Approved: a.Verdict == store.Approved, Message: a.Message,
			Revision: a.Revision, When: a.Created.UTC().Format(time.RFC3339), WhenText: whenText(a.Created), Current: a.Current, Changed: a.Changed})
	}
	for _, t := range threads {
		vt := views.ReviewThread{ID: t.ID, Label: t.Label, Resolved: t.Resolved, ResolvedBy: t.ResolvedBy, Gone: t.Gone,
			Outdated: t.Outdated, Was: t.Anchor.Text, Now: t.Now}
		for _, c := range append([]store.Comment{t.First}, t.Replies...) {
			vt.Comments = append(vt.Comments, views.ReviewComment{Author: c.Author, Body: c.Body, Revision: c.Revision,
				When: c.Created.UTC().Format(time.RFC3339), WhenText: whenText(c.Created)})
		}
		m.Threads = append(m.Threads, vt)
	}
	return m, threads
}

func whenText(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// reviewNew is the new-thread form for tool t of the state st, preset to chosen.
func reviewNew(st *state, t int, threads []review.Thread, chosen string) views.ReviewNew {
	ws := st.ws
	n := views.ReviewNew{WS: ws.ID, Tool: -1, Chosen: chosen}
	if len(ws.Listing.Tools) == 0 {
		return n
	}
	t = min(max(t, 0), len(ws.Listing.Tools)-1)
	n.Tool = t
	tool := ws.Listing.Tools[t]
	n.Name = tool.Get("name").String()
	open := map[string]int{}
	for _, th := range threads {
		if !th.Resolved && !th.Gone && th.Index == t {
			open[anchorValue(th.Anchor.Field, th.Anchor.Finding)]++
		}
	}
	add := func(value, label string) {
		n.Fields = append(n.Fields, views.ReviewField{Value: value, Label: label, Open: open[value]})
	}
	add("", "The whole tool")
	add("/description", "Description")
	if tool.Get("title") != nil {
		add("/title", "Title")
	}
	for _, m := range tool.Get("inputSchema").Get("properties").Fields() {
		add("/inputSchema/properties/"+pointerToken(m.Key), "Parameter "+clip(m.Key, 80))
	}
	add("/annotations", "Annotations")
	if t < len(st.res.Tools) {
		prefix := "/tools/" + strconv.Itoa(t)
		for _, f := range st.res.Tools[t].Findings {
			add(anchorValue(strings.TrimPrefix(f.Pointer, prefix), f.Rule), "Finding "+f.Rule+": "+clip(f.Message, 80))
		}
	}
	return n
}

// findingMessage is the message of tool t's finding of rule at field ("" if it has none).
func findingMessage(st *state, t int, field, rule string) string {
	if t >= len(st.res.Tools) {
		return ""
	}
	prefix := "/tools/" + strconv.Itoa(t)
	for _, f := range st.res.Tools[t].Findings {
		if f.Rule == rule && strings.TrimPrefix(f.Pointer, prefix) == field {
			return f.Message
		}
	}
	return ""
}

// anchorValue is a field picker's value: the pointer, or "!RULE POINTER" for a finding.
func anchorValue(field, rule string) string {
	if rule == "" {
		return field
	}
	return "!" + rule + " " + field
}

// parseAnchor reads a field picker's value back.
func parseAnchor(v string) (field, rule string, err error) {
	if !strings.HasPrefix(v, "!") {
		if v != "" && !strings.HasPrefix(v, "/") {
			return "", "", errors.New("the field to comment on is not one the form offers; pick it again")
		}
		return v, "", nil
	}
	rule, field, _ = strings.Cut(v[1:], " ")
	if rule == "" || (field != "" && !strings.HasPrefix(field, "/")) {
		return "", "", errors.New("the finding to comment on is not one the form offers; pick it again")
	}
	return field, rule, nil
}

func pointerToken(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// clip shortens s to n characters for a label.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// reviewErrText is what a person is told of a refused review action.
func reviewErrText(err error) string {
	var se *store.Error
	if errors.As(err, &se) && se.Msg != "" {
		return se.Msg
	}
	var we *Error
	if errors.As(err, &we) {
		return we.Msg
	}
	return err.Error()
}

// refusable reports whether err is the request's fault (shown in the panel) rather than an
// outage (a 500).
func refusable(err error) bool {
	switch store.KindOf(err) {
	case store.NotFound, store.Conflict, store.Invalid, store.Forbidden:
		return true
	}
	var we *Error
	return errors.As(err, &we) && we.Kind.Status() < 500
}

// reviewPanel renders the panel for a page, its new-thread form on the page's tool (or the one
// and field the editor's Comment action asks for).
func (s *Server) reviewPanel(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	st, err := s.currentCtx(ctx, ws)
	if err != nil {
		return err
	}
	tool, chosen := sg.Tool, ""
	if q := c.QueryParam("t"); q != "" {
		if tool, err = strconv.Atoi(q); err != nil || tool < 0 || tool >= len(ws.Listing.Tools) {
			return fail(Conflict, "that tool no longer exists; reload the page")
		}
		chosen = editorAnchor(st, tool, c.QueryParam("at"), atoiOr(c.QueryParam("n"), -1))
	}
	m, threads := s.reviewModel(ctx, ws.ID, nil)
	var note *views.ReviewChanged
	if p := s.hub.lookup(ws.ID, sg.PID); p != nil {
		if hash, shown := p.reviewShownAt(); c.QueryParam("t") != "" && hash != "" && hash != m.Hash {
			// The editor's Comment action on a page that opened the panel on an older listing:
			// the sign-off form keeps naming what the page was shown (Refresh moves it on), and
			// the note beside its buttons keeps saying what changed since.
			m.FormHash = hash
			n := signoffNote(ws.ID, hash, shown, st.ws.Listing)
			note = &n
		} else {
			// The sign-off form names m.Hash: the listing as the page has it now, when it is that.
			var shown *listing.Listing
			if review.Hash(st.ws.Listing) == m.Hash {
				shown = st.ws.Listing
			}
			p.showReview(m.Hash, shown)
		}
	}
	sse := newSSE(c)
	if err := sse.PatchElementTempl(views.ReviewPanel(m, reviewNew(st, tool, threads, chosen)), datastar.WithModeReplace()); err != nil || note == nil {
		return err
	}
	return sse.PatchElementTempl(views.ReviewSignoffNote(*note))
}

// reviewLeave hears that a page left its Review panel for another tab (the panel signal): live
// updates stop rendering the panel for it, and it loads the panel afresh when it comes back.
func (s *Server) reviewLeave(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	if p := s.hub.lookup(c.Param("id"), sg.PID); p != nil && sg.Panel != "review" {
		p.leaveReview()
	}
	return c.NoContent(http.StatusNoContent)
}

// editorAnchor is the field picker's value for the editor's Comment actions: at is "desc",
// "param" (the n-th parameter) or "finding" (the tool's n-th finding).
func editorAnchor(st *state, t int, at string, n int) string {
	tool := st.ws.Listing.Tools[t]
	switch at {
	case "desc":
		return "/description"
	case "param":
		if fs := tool.Get("inputSchema").Get("properties").Fields(); n >= 0 && n < len(fs) {
			return "/inputSchema/properties/" + pointerToken(fs[n].Key)
		}
	case "finding":
		if t < len(st.res.Tools) && n >= 0 && n < len(st.res.Tools[t].Findings) {
			f := st.res.Tools[t].Findings[n]
			return anchorValue(strings.TrimPrefix(f.Pointer, "/tools/"+strconv.Itoa(t)), f.Rule)
		}
	}
	return ""
}

// reviewForm reads a review form (small: a comment is at most store.MaxCommentBody characters).
func reviewForm(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 64<<10)
	// Datastar sends a form url-encoded, or as multipart when the form says so. Each is read by
	// its own parser: ParseMultipartForm drops ParseForm's error (the size limit's among them)
	// when the body is not multipart, which would leave an oversized comment read as empty.
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		err = r.ParseMultipartForm(64 << 10)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return fail(BadRequest, fmt.Sprintf("the form could not be read (over 64 KiB? a comment holds at most %d characters); send it as the page does", store.MaxCommentBody))
	}
	return nil
}

// commentBody checks a comment's text: not empty, not too long.
func commentBody(c echo.Context) (string, error) {
	body := lineEnds(c.Request().PostFormValue("body"))
	switch n := utf8.RuneCountInString(body); {
	case strings.TrimSpace(body) == "":
		return "", errors.New("the comment is empty: write something first")
	case n > store.MaxCommentBody:
		return "", fmt.Errorf("the comment is %d characters long; a comment holds at most %d. Shorten it (your text is still in the box)", n, store.MaxCommentBody)
	}
	return body, nil
}

// lineEnds turns the CR LF a browser sends for a textarea's line breaks (and any lone CR) into
// LF: the store keeps no CR, and none may reach the event stream.
func lineEnds(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// refuse answers a refused review action: the message in the panel, the form untouched.
func refuse(c echo.Context, msg string) error {
	return newSSE(c).PatchElementTempl(views.ReviewProblem(msg))
}

// reviewDone answers an accepted review action: the shared regions as they now stand, the
// problem cleared, and the box that was sent (replace: a morph keeps typed text) empty again.
func (s *Server) reviewDone(c echo.Context, box templ.Component) error {
	sse := newSSE(c)
	m, _ := s.reviewModel(c.Request().Context(), c.Param("id"), nil)
	if m.Problem != "" {
		return sse.PatchElementTempl(views.ReviewProblem(m.Problem))
	}
	if err := sse.PatchElementTempl(views.ReviewLive(m)); err != nil {
		return nil
	}
	if err := sse.PatchElementTempl(views.ReviewProblem("")); err != nil {
		return nil
	}
	if box != nil {
		_ = sse.PatchElementTempl(box, datastar.WithModeReplace())
	}
	return nil
}

func (s *Server) reviewComment(c echo.Context) error {
	if err := reviewForm(c); err != nil {
		return err
	}
	r := c.Request()
	body, err := commentBody(c)
	if err != nil {
		return refuse(c, err.Error())
	}
	field, rule, err := parseAnchor(r.PostFormValue("field"))
	if err != nil {
		return refuse(c, err.Error())
	}
	idx, err := strconv.Atoi(r.PostFormValue("tool"))
	if err != nil {
		return refuse(c, "the form names no tool; reload the page")
	}
	t := review.Target{Index: idx, Tool: r.PostFormValue("name"), Field: field, Finding: rule}
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	if idx < 0 || idx >= len(ws.Listing.Tools) || ws.Listing.Tools[idx].Get("name").String() != t.Tool {
		return refuse(c, "The comment was not saved: someone renamed, moved or removed this tool since the form was drawn. Select the tool again (your text is still in the box).")
	}
	if rule != "" {
		// The review does not lint: the finding's message comes from the analysis the pages show.
		st, err := s.currentCtx(r.Context(), ws)
		if err != nil {
			return err
		}
		if t.Text = findingMessage(st, idx, field, rule); t.Text == "" {
			return refuse(c, "The comment was not saved: the tool no longer has that finding (someone fixed it since the form was drawn). Pick another field (your text is still in the box).")
		}
	}
	if _, err := s.review.Comment(r.Context(), c.Param("id"), t, body, s.reviewAuthor(c)); err != nil {
		if refusable(err) {
			return refuse(c, "The comment was not saved: "+reviewErrText(err)+" (your text is still in the box).")
		}
		return fmt.Errorf("comment: %w", err)
	}
	return s.reviewDone(c, views.ReviewNewBody())
}

func (s *Server) reviewReply(c echo.Context) error {
	if err := reviewForm(c); err != nil {
		return err
	}
	r := c.Request()
	id := r.PostFormValue("thread")
	body, err := commentBody(c)
	if err != nil {
		return refuse(c, err.Error())
	}
	if _, err := s.review.Reply(r.Context(), c.Param("id"), id, body, s.reviewAuthor(c)); err != nil {
		if refusable(err) {
			return refuse(c, "The reply was not saved: "+reviewErrText(err)+" (your text is still in the box).")
		}
		return fmt.Errorf("reply: %w", err)
	}
	return s.reviewDone(c, views.ReviewReplyBody(id))
}

func (s *Server) reviewResolve(c echo.Context) error {
	if err := reviewForm(c); err != nil {
		return err
	}
	r := c.Request()
	resolved, err := strconv.ParseBool(c.QueryParam("resolved"))
	if err != nil {
		return fail(BadRequest, "say resolved=true or resolved=false")
	}
	if err := s.review.Resolve(r.Context(), c.Param("id"), r.PostFormValue("thread"), resolved, s.reviewAuthor(c)); err != nil {
		if refusable(err) {
			return refuse(c, "The thread was not changed: "+reviewErrText(err)+".")
		}
		return fmt.Errorf("resolve: %w", err)
	}
	return s.reviewDone(c, nil)
}

func (s *Server) reviewSignoff(c echo.Context) error {
	if err := reviewForm(c); err != nil {
		return err
	}
	r := c.Request()
	v := store.Verdict(c.QueryParam("verdict"))
	if v != store.Approved && v != store.ChangesRequested {
		return fail(BadRequest, "a sign-off approves (verdict=approved) or requests changes (verdict=changes)")
	}
	msg := lineEnds(r.PostFormValue("message"))
	if why := signoffTooLong(msg); why != "" {
		return refuse(c, why)
	}
	// The hash of the listing the panel showed when it was opened or refreshed: a sign-off
	// names what its author read, and is refused when someone changed the listing since.
	want := r.PostFormValue("hash")
	if note, ok := s.changedSinceShown(c, want); ok && note.Count != 0 {
		sse := newSSE(c)
		if sse.PatchElementTempl(views.ReviewSignoffNote(note)) != nil {
			return nil
		}
		_ = sse.PatchElementTempl(views.ReviewProblem("The sign-off was not saved: " + changedText(note) + " (your message is still in the box)."))
		return nil
	}
	if _, err := s.review.SignOffAt(r.Context(), c.Param("id"), v, msg, s.reviewAuthor(c), want); err != nil {
		if refusable(err) {
			return refuse(c, "The sign-off was not saved: "+reviewErrText(err)+" (your message is still in the box).")
		}
		return fmt.Errorf("sign off: %w", err)
	}
	return s.reviewDone(c, views.ReviewSignoffMessage())
}

// forwardReview shows a page whose Review panel is open the review as it now stands: the
// shared regions, rendered once per notice for the pages of one capability.
func (s *Server) forwardReview(sse *datastar.ServerSentEventGenerator, p *page, n Notice) error {
	if !(n.Review || n.History || n.Full) || !p.showsReview() {
		return nil
	}
	key := reviewKey
	if views.ReadOnly(sse.Context()) {
		key--
	}
	// The notice's reads are shared by its pages: one page leaving must not cut them short.
	ctx := context.WithoutCancel(sse.Context())
	html, err := n.cache.render(key, func() (string, error) {
		m, _ := s.reviewModel(ctx, p.ws, n.cache)
		if m.Problem != "" {
			return render(sse.Context(), views.ReviewProblem(m.Problem)), nil
		}
		return render(sse.Context(), views.ReviewLive(m)), nil
	})
	if err != nil {
		return err
	}
	if err := sse.PatchElements(html); err != nil {
		return err
	}
	if key == reviewKey && (n.History || n.Full) {
		if err := s.forwardSignoffNote(ctx, sse, p, n); err != nil {
			return err
		}
	}
	// The new-thread form names the page's tool by its place and lists its parameters: drawn
	// again when the tools or that tool's parameters were added, removed or moved, not on
	// every edit of it (a morph would reset the field someone picked; a field or finding gone
	// since is refused with a message when the comment is sent).
	sel := p.selected()
	if n.Full || !(n.Structure || slices.Contains(n.ParamsMoved, sel)) {
		return nil
	}
	st, err := s.noticeState(sse, p, n)
	if err != nil {
		return err
	}
	html, err = n.cache.render(reviewNewKey(sel, key != reviewKey), func() (string, error) {
		threads, err := s.threadsOf(ctx, p.ws, n.cache)
		if err != nil {
			s.log.Warn("review: read the threads", "ws", p.ws, "err", err)
		}
		return render(sse.Context(), views.ReviewNewForm(reviewNew(st, sel, threads, ""))), nil
	})
	if err != nil {
		return err
	}
	return sse.PatchElements(html)
}

// patchReviewNew draws the new-thread form of a page whose Review panel is open on the tool it
// just selected (its threads read through cache, which the editor's counts share).
func (s *Server) patchReviewNew(sse *datastar.ServerSentEventGenerator, p *page, st *state, tool int, cache *renders) {
	if p == nil || !p.showsReview() {
		return
	}
	threads, err := s.threadsOf(sse.Context(), p.ws, cache)
	if err != nil {
		s.log.Warn("review: read the threads", "ws", p.ws, "err", err)
	}
	_ = sse.PatchElementTempl(views.ReviewNewForm(reviewNew(st, tool, threads, "")))
}

// reviewKey is the review regions' key in a notice's renders (tools are 0…, the revision list
// -1, task rows -2…; the review's two, edit and view, far below them).
const reviewKey = -1 << 30

// reviewNewKey is the key of the new-thread form of tool t (ro: for view links).
func reviewNewKey(t int, ro bool) int {
	k := reviewKey + 2 + 2*t
	if ro {
		k++
	}
	return k
}

// threadsOf reads the review's threads of workspace ws through cache: once per notice for all
// its pages and tools, or once per request for the panel and the counts together.
func (s *Server) threadsOf(ctx context.Context, ws string, cache *renders) ([]review.Thread, error) {
	return cache.reviewThreads(func() ([]review.Thread, error) { return s.review.Threads(ctx, ws) })
}

// reviewCountsHTML renders the open-thread counts of tool t's description and listed
// parameters, for the editor's Comment actions (the threads read through cache); any tells
// whether one is not zero (the page was drawn with none).
func (s *Server) reviewCountsHTML(ctx context.Context, st *state, t int, cache *renders) (html string, any bool) {
	ws := st.ws
	if t < 0 || t >= len(ws.Listing.Tools) {
		return "", false
	}
	threads, err := s.threadsOf(ctx, ws.ID, cache)
	if err != nil {
		s.log.Warn("review: read the threads", "ws", ws.ID, "err", err)
		return "", false
	}
	fields := ws.Listing.Tools[t].Get("inputSchema").Get("properties").Fields()
	params := make([]int, min(len(fields), maxParamRows))
	at := map[string]int{}
	for i := range params {
		at["/inputSchema/properties/"+pointerToken(fields[i].Key)] = i
	}
	desc := 0
	for _, th := range threads {
		if th.Resolved || th.Gone || th.Index != t || th.Anchor.Finding != "" {
			continue
		}
		if th.Anchor.Field == "/description" {
			desc++
			any = true
		} else if i, ok := at[th.Anchor.Field]; ok {
			params[i]++
			any = true
		}
	}
	return render(ctx, views.ReviewCounts(desc, params)), any
}

// countsMayChange tells whether notice n may change the open-thread counts the editor shows
// for tool sel. They count the threads that are open, not Gone, whose tool is at sel (a
// thread's Index) and whose anchor is the description or a parameter, numbered by the
// parameter's place among the tool's keys. So they change with the threads themselves (a
// comment, a resolution: n.Review), with where the threads' tools are (a tool added,
// removed or moved, or a whole-listing commit, restore or undo: Structure; missed notices:
// Full), with the keys and places of sel's parameters (ParamsMoved, or an edit that sets
// the whole tool, its schema or its properties) and, to be safe, with a rename (a thread
// follows its tool by name where ops set every tool). A plain value edit — one field of one
// tool set, not its name nor its schema above a parameter — cannot change them, nor can a
// notice about no tool (presence, runs, the task file, a revision's name).
func countsMayChange(n Notice, sel int) bool {
	if n.Review || n.Full || n.Structure || slices.Contains(n.ParamsMoved, sel) {
		return true
	}
	if n.EditorTool != sel && !slices.Contains(n.Tools, sel) {
		return false
	}
	for _, t := range n.Tools {
		if t != n.EditorTool {
			return true // brought in from elsewhere: its field is not known
		}
	}
	return !valueEdit(n.Field)
}

// valueEdit reports whether field (a notice's: the one pointer an edit set) is a value
// inside a tool that no thread's place or anchor key depends on.
func valueEdit(field string) bool {
	toks, err := listing.SplitPointer(field)
	if err != nil || len(toks) < 3 || toks[0] != "tools" {
		return false
	}
	switch toks[2] {
	case "name":
		return false
	case "inputSchema":
		// Inside one parameter (its description, type…): its key and place stay.
		return len(toks) >= 6 && toks[3] == "properties"
	}
	return true
}

// forwardReviewCounts shows a page the open-thread counts of its tool after a change that may
// move them (countsMayChange): the threads read once per notice, the counts rendered once per
// notice and tool, for all the pages.
func (s *Server) forwardReviewCounts(sse *datastar.ServerSentEventGenerator, p *page, n Notice) error {
	sel := p.selected()
	if !countsMayChange(n, sel) {
		return nil
	}
	ctx := context.WithoutCancel(sse.Context()) // shared by the notice's pages (forwardReview)
	html, err := n.cache.render(reviewKey-2-sel, func() (string, error) {
		st, err := s.noticeState(sse, p, n)
		if err != nil {
			return "", err
		}
		html, _ := s.reviewCountsHTML(ctx, st, sel, n.cache)
		return html, nil
	})
	if err != nil || html == "" {
		return err
	}
	return sse.PatchElements(html)
}

// reopenReview keeps live the Review panel of a page whose stream (re)connects with the panel
// shown, and shows it the review as it stands: it may have missed changes while away. The
// threads are read through cache (the stream's counts share them).
func (s *Server) reopenReview(sse *datastar.ServerSentEventGenerator, p *page, cache *renders) error {
	p.openReview()
	m, _ := s.reviewModel(sse.Context(), p.ws, cache)
	if m.Problem != "" {
		return sse.PatchElementTempl(views.ReviewProblem(m.Problem))
	}
	return sse.PatchElementTempl(views.ReviewLive(m))
}

// signoffNote is what changed from the listing shown (of content hash hash; nil when not
// known) to the listing head.
func signoffNote(ws, hash string, shown, head *listing.Listing) views.ReviewChanged {
	note := views.ReviewChanged{WS: ws}
	if hash == "" || review.Hash(head) == hash {
		return note
	}
	if shown == nil {
		note.Count = -1
		return note
	}
	note.Lines, note.Count = review.Changes(shown, head)
	return note
}

// changedText is the note's text in one sentence, for a refused sign-off.
func changedText(n views.ReviewChanged) string {
	if n.Count < 0 {
		return "the listing changed since you opened the review. Refresh to see it and approve what is there now"
	}
	changes := strconv.Itoa(n.Count) + " changes"
	if n.Count == 1 {
		changes = "1 change"
	}
	return "the listing changed since you opened the review: " + changes + " (" + strings.Join(n.Lines, "; ") +
		") — look at them, then Refresh to approve what is there now"
}

// changedSinceShown is what changed since the sign-off form's page opened its Review panel on
// the listing of content hash want (the form names the page: pid); ok is false when want is
// empty or the page is not this server's, and SignOffAt decides alone.
func (s *Server) changedSinceShown(c echo.Context, want string) (views.ReviewChanged, bool) {
	p := s.hub.lookup(c.Param("id"), c.Request().PostFormValue("pid"))
	if want == "" || p == nil {
		return views.ReviewChanged{}, false
	}
	ws, err := s.getWS(c)
	if err != nil {
		return views.ReviewChanged{}, false
	}
	hash, shown := p.reviewShownAt()
	if hash != want {
		shown = nil // the form is not the one the page was last sent
	}
	return signoffNote(ws.ID, want, shown, ws.Listing), true
}

// forwardSignoffNote tells a page whose Review panel is open, beside its sign-off buttons,
// whether the listing changed since it opened the panel: rendered once per notice for the
// pages that opened it on the same listing.
func (s *Server) forwardSignoffNote(ctx context.Context, sse *datastar.ServerSentEventGenerator, p *page, n Notice) error {
	hash, shown := p.reviewShownAt()
	if hash == "" {
		return nil // opened before this stream (a reconnect): its form's hash is not known here
	}
	key := "signoff-note " + hash
	if shown == nil {
		key += " unknown"
	}
	html, err := n.cache.renderNamed(key, func() (string, error) {
		st, err := s.noticeState(sse, p, n)
		if err != nil {
			return "", err
		}
		return render(ctx, views.ReviewSignoffNote(signoffNote(p.ws, hash, shown, st.ws.Listing))), nil
	})
	if err != nil {
		return err
	}
	return sse.PatchElements(html)
}

// startReview sends a stream that starts the review as it stands: the Review panel when the
// page shows it (panel), and the editor's open-thread counts, which the page was drawn
// without; the threads are read once for both.
func (s *Server) startReview(sse *datastar.ServerSentEventGenerator, p *page, st *state, panel string) error {
	reads := &renders{}
	if panel == "review" {
		if err := s.reopenReview(sse, p, reads); err != nil {
			return err
		}
	} else {
		p.leaveReview() // a page that reconnects on another tab is sent no panel
	}
	if html, any := s.reviewCountsHTML(sse.Context(), st, p.selected(), reads); any {
		return sse.PatchElements(html)
	}
	return nil
}
