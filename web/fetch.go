package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/remote"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// FetchConfig says what the server may fetch from on a person's behalf.
type FetchConfig struct {
	// Policy decides which addresses fetches may connect to. The zero Policy is the strict
	// one (public addresses only); local mode passes remote.LocalPolicy().
	Policy remote.Policy
	// AllowStdio lets a page launch a local command (--allow-stdio). cmd never sets it when the
	// server listens beyond loopback or serves a team.
	AllowStdio bool
	// Limits bound each fetch; zero fields take remote.DefaultLimits, except that the listing
	// may not exceed Config.MaxListingBytes.
	Limits remote.Limits
	// StdioEnv is the environment of launched commands; nil passes PATH, HOME, LANG and TMPDIR
	// only, so that the server's own secrets do not reach them.
	StdioEnv []string
}

// fetchInfo is what a workspace keeps of its last fetch: where from and who answered, never
// the token or the headers. The store keeps it beside the workspace (fetchMetaKey), so that it
// outlives restarts, reaches every replica and goes with a fork.
type fetchInfo struct {
	Form   views.FetchForm   `json:"form"`
	Report views.FetchReport `json:"report"`
}

// fetchMetaKey is the workspace metadata key of the last fetch.
const fetchMetaKey = "fetch"

// maxChangeRows bounds the changes listed in the page; the review report has all of them.
const maxChangeRows = 200

// maxHashRows bounds the tool hashes listed in the page, the changed tools first; `workbench
// fetch --compare PIN --format json` lists every one.
const maxHashRows = 500

// fetchRequest is a fetch form as posted.
type fetchRequest struct {
	form    views.FetchForm
	target  remote.Target
	problem *views.FetchProblem
}

// readFetchForm reads the fetch form's fields. The bearer token and headers go into the target
// only; the returned form (shown again) holds neither.
func (s *Server) readFetchForm(c echo.Context) fetchRequest {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, 256<<10)
	var fr fetchRequest
	if err := r.ParseForm(); err != nil {
		fr.problem = &views.FetchProblem{Kind: string(remote.ErrTarget), Message: "The fetch form could not be read: " + err.Error(),
			Hint: "Give the server's URL, and optionally a bearer token and a few headers."}
		return fr
	}
	fr.form = views.FetchForm{URL: strings.TrimSpace(r.PostFormValue("url")), Transport: r.PostFormValue("transport"),
		Command: strings.TrimSpace(r.PostFormValue("command")), AllowStdio: s.fetch.AllowStdio, StdioToken: s.stdioToken}
	fr.target = remote.Target{URL: fr.form.URL, Bearer: strings.TrimSpace(r.PostFormValue("bearer"))}
	switch fr.form.Transport {
	case "", "streamable":
		fr.form.Transport = string(remote.Streamable)
		fr.target.Transport = remote.Streamable
	case "sse":
		fr.target.Transport = remote.SSE
	case "stdio":
		if s.fetch.AllowStdio && !s.stdioTokenOK(r.PostFormValue("stdio_token")) {
			fr.problem = &views.FetchProblem{Kind: string(remote.ErrTarget),
				Message: "This launch form is not from this server's page (its stdio token is missing or stale).",
				Hint:    "Reload the page and launch from it; a restart issues a new token."}
			return fr
		}
		fr.target = remote.Target{Transport: remote.Stdio, Command: strings.Fields(fr.form.Command), Env: s.fetch.StdioEnv}
		if fr.target.Env == nil {
			fr.target.Env = stdioEnv()
		}
	default:
		fr.problem = &views.FetchProblem{Kind: string(remote.ErrTarget), Message: fmt.Sprintf("Unknown transport %q.", fr.form.Transport),
			Hint: "Choose Streamable HTTP or HTTP+SSE."}
		fr.form.Transport = string(remote.Streamable)
		return fr
	}
	if fr.target.Transport != remote.Stdio && fr.form.URL == "" {
		fr.problem = &views.FetchProblem{Kind: string(remote.ErrTarget), Message: "No server URL was given.",
			Hint: "Give the server's MCP endpoint, for example https://example.com/mcp."}
		return fr
	}
	h, err := parseHeaders(r.PostFormValue("headers"))
	if err != nil {
		fr.problem = &views.FetchProblem{Kind: string(remote.ErrTarget), Message: err.Error(),
			Hint: "Write one header per line as Name: value, for example X-Api-Version: 2."}
		return fr
	}
	fr.target.Headers = h
	return fr
}

// parseHeaders reads "Name: value" lines. The error names the line, never its value (it may
// hold a key).
func parseHeaders(text string) (http.Header, error) {
	var h http.Header
	for i, ln := range strings.Split(text, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		name, val, ok := strings.Cut(ln, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, failf(BadRequest, "Header line %d is not of the form Name: value.", i+1) // a sentence the form shows
		}
		if h == nil {
			h = http.Header{}
		}
		h.Add(name, strings.TrimSpace(val))
	}
	return h, nil
}

// stdioEnv is the environment a launched server gets: enough to find and run a program.
func stdioEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// doFetch runs one fetch. The log line names the endpoint (its password masked by remote) and
// the outcome, never the token or the headers.
func (s *Server) doFetch(ctx context.Context, t remote.Target) (*remote.Result, *views.FetchProblem) {
	opts := remote.Options{Policy: s.fetch.Policy, AllowStdio: s.fetch.AllowStdio, Limits: s.fetch.Limits,
		ClientName: "tool-workbench", ClientVersion: "1"}
	if opts.Limits.TotalBytes <= 0 || opts.Limits.TotalBytes > int64(s.max) {
		opts.Limits.TotalBytes = int64(s.max)
	}
	res, err := remote.Fetch(ctx, t, opts)
	t.Bearer, t.Headers = "", nil
	if err != nil {
		// Messages name the URL; its query (which may hold a key) goes to no log. The page,
		// which the person who typed it sees, keeps it.
		quiet := func(msg string) string { return msg }
		if u, perr := url.Parse(t.URL); perr == nil && u.RawQuery != "" {
			quiet = func(msg string) string { return strings.ReplaceAll(msg, "?"+u.RawQuery, "?…") }
		}
		var fe *remote.Error
		if errors.As(err, &fe) {
			s.log.Info("fetch failed", "kind", fe.Kind, "msg", quiet(fe.Msg))
			return nil, &views.FetchProblem{Kind: string(fe.Kind), Message: fe.Msg, Hint: fe.Hint}
		}
		s.log.Warn("fetch failed", "err", quiet(err.Error()))
		return nil, &views.FetchProblem{Kind: "error", Message: "The fetch failed: " + err.Error()}
	}
	if res.Transport != remote.Stdio {
		// From here on (logs, revision messages, the kept report) the endpoint has no query.
		res.Endpoint, _ = keptURL(res.Endpoint)
	}
	s.log.Info("fetched", "endpoint", res.Endpoint, "transport", res.Transport, "tools", len(res.Listing.Tools), "pages", len(res.Pages))
	return res, nil
}

// fetchKinds are the kinds of failure of a fetch; any other is the server's (BadGateway).
var fetchKinds = map[remote.ErrorKind]Kind{remote.ErrTarget: BadRequest, remote.ErrRefused: Forbidden, remote.ErrTimeout: GatewayTimeout}

// fetchStatus maps a failed fetch to an HTTP status for the start page, which shows the
// problem in its fetch form rather than as an error page.
func fetchStatus(kind string) int {
	if k, ok := fetchKinds[remote.ErrorKind(kind)]; ok {
		return k.Status()
	}
	return BadGateway.Status()
}

func reportOf(res *remote.Result) views.FetchReport {
	return views.FetchReport{Endpoint: res.Endpoint, Transport: string(res.Transport), Server: res.Server.Name,
		Title: res.Server.Title, Version: res.Server.Version, Protocol: res.ProtocolVersion,
		FetchedAt: res.FetchedAt.UTC().Format(time.RFC3339), Tools: len(res.Listing.Tools), Pages: len(res.Pages)}
}

// formOf is the form shown again after a fetch, and kept with the workspace: where it came
// from, nothing secret.
func (s *Server) formOf(f views.FetchForm) views.FetchForm {
	f.AllowStdio, f.StdioToken = s.fetch.AllowStdio, s.stdioToken
	f.URL, f.QueryDropped = keptURL(f.URL)
	return f
}

// keptURL is a URL as the workspace keeps it: without a user and password, and without its
// query and fragment, where hosted MCP servers often take a key (?api_key=…); dropped says the
// query or fragment went.
func keptURL(raw string) (kept string, dropped bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", raw != ""
	}
	dropped = u.RawQuery != "" || u.ForceQuery || u.Fragment != ""
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String(), dropped
}

// fetchHome fetches a listing from the start page's form and opens it as a new workspace.
func (s *Server) fetchHome(c echo.Context) error {
	fr := s.readFetchForm(c)
	h := s.homeModel()
	h.Fetch = s.formOf(fr.form)
	if fr.problem != nil {
		h.FetchProblem = fr.problem
		return htmlPage(c, fetchStatus(fr.problem.Kind), views.HomePage(h))
	}
	res, prob := s.doFetch(c.Request().Context(), fr.target)
	if prob != nil {
		h.FetchProblem = prob
		return htmlPage(c, fetchStatus(prob.Kind), views.HomePage(h))
	}
	name := res.Server.Name
	if name == "" {
		name = res.Endpoint
	}
	ws, err := s.store.Create(c.Request().Context(), name, res.Listing, nil, s.who(c), "fetched from "+res.Endpoint)
	if err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	s.setFetch(c.Request().Context(), ws.ID, &fetchInfo{Form: s.formOf(fr.form), Report: reportOf(res)})
	s.log.Info("workspace created", "id", ws.ID, "tools", len(res.Listing.Tools), "from", res.Endpoint)
	return c.Redirect(http.StatusSeeOther, "/w/"+ws.ID)
}

// setFetch stores a workspace's last fetch. The fetch itself has succeeded by then, so a
// failure to store its report is logged, not shown: the listing is safe in history.
func (s *Server) setFetch(ctx context.Context, id string, fi *fetchInfo) {
	b, err := json.Marshal(fi)
	if err == nil {
		err = s.db.PutMeta(ctx, id, fetchMetaKey, b)
	}
	if err != nil {
		s.log.Warn("store the last fetch", "ws", id, "err", err)
	}
}

// getFetch reads a workspace's last fetch; nil if it was never fetched (or its record is
// unreadable, which is logged).
func (s *Server) getFetch(ctx context.Context, id string) *fetchInfo {
	b, err := s.db.Meta(ctx, id, fetchMetaKey)
	if err != nil {
		if store.KindOf(err) != store.NotFound {
			s.log.Warn("read the last fetch", "ws", id, "err", err)
		}
		return nil
	}
	var fi fetchInfo
	if err := json.Unmarshal(b, &fi); err != nil {
		s.log.Warn("read the last fetch", "ws", id, "err", err)
		return nil
	}
	return &fi
}

// serverPanel is the workspace's Server panel model.
func (s *Server) serverPanel(ctx context.Context, id string, prob *views.FetchProblem) views.ServerPanel {
	p := views.ServerPanel{WS: id, Form: views.FetchForm{AllowStdio: s.fetch.AllowStdio, StdioToken: s.stdioToken}, Problem: prob}
	if fi := s.getFetch(ctx, id); fi != nil {
		p.Form = fi.Form
		p.Form.AllowStdio, p.Form.StdioToken = s.fetch.AllowStdio, s.stdioToken // this server's, not the fetching one's
		r := fi.Report
		p.Report = &r
	}
	return p
}

// fetchWorkspace re-fetches into a workspace: the fetched tools become a new revision (an edit,
// so undo takes it back), and the Server panel says what changed against the previous revision
// and against the baseline. Every page of the workspace gets the new panel.
func (s *Server) fetchWorkspace(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	pid := c.QueryParam("pid")
	if pid != "" && !wsIDPattern.MatchString(pid) {
		return fail(BadRequest, "malformed page id")
	}
	tool, _ := strconv.Atoi(c.QueryParam("tool"))
	sg := signals{PID: pid, Tool: tool}
	fr := s.readFetchForm(c)
	showProblem := func(p *views.FetchProblem) error {
		sse := newSSE(c)
		_ = sse.PatchElementTempl(views.FetchStatus(p))
		return nil
	}
	if fr.problem != nil {
		return showProblem(fr.problem)
	}
	res, prob := s.doFetch(c.Request().Context(), fr.target)
	if prob != nil {
		return showProblem(prob)
	}
	rep := reportOf(res)
	rep.Refetched = true
	prev := listing.Compare(ws.Listing, res.Listing)
	rep.Previous = changeSet(prev, "the previous revision")
	rep.Baseline = changeSet(listing.Compare(ws.Baseline, res.Listing), "the baseline (the listing this workspace started from)")
	rep.Unchanged = !prev.Changed()
	fi := &fetchInfo{Form: s.formOf(fr.form), Report: rep}
	// The panel is rendered from this fetch in hand (a concurrent re-fetch may store another).
	panel := func(version int) string {
		p := views.ServerPanel{WS: ws.ID, Form: fi.Form, Report: &fi.Report}
		return render(c.Request().Context(), views.ServerPanelRegion(p, version))
	}
	if rep.Unchanged {
		// Nothing to apply: only the panel changes, on every page.
		s.setFetch(c.Request().Context(), ws.ID, fi)
		html := panel(ws.Version)
		patch := Patch{HTML: html, Mode: string(datastar.ElementPatchModeReplace)}
		sse := newSSE(c)
		_ = sendPatches(sse, []Patch{patch})
		s.hub.Publish(ws.ID, Notice{Version: ws.Version, From: pid, Shared: []Patch{patch}, EditorTool: -1})
		return nil
	}
	ops := []listing.Op{{Kind: listing.OpSet, Path: "/tools", Value: listing.NewArray(res.Listing.Tools...)}}
	sel := min(max(tool, 0), max(len(res.Listing.Tools)-1, 0))
	return s.commit(c, sg, change{edit: &Edit{Ops: ops}, tool: sel, structure: true, tasks: true, select_: sel,
		extra: func(ws Workspace) []Patch {
			// Kept once the new revision is: a report of a change that was never applied is not.
			s.setFetch(c.Request().Context(), ws.ID, fi)
			// Replace, not morph: a morph keeps the token field's typed value.
			return []Patch{{HTML: panel(ws.Version), Mode: string(datastar.ElementPatchModeReplace)}}
		}})
}

// changeSet turns a diff into the panel's model.
func changeSet(d *listing.Diff, against string) views.ChangeSet {
	cs := views.ChangeSet{Against: against, Changed: d.Changed()}
	counts := d.Count()
	for _, k := range []listing.ChangeKind{listing.ToolAdded, listing.ToolRemoved, listing.ToolRenamed, listing.ToolMoved,
		listing.DescriptionChanged, listing.TitleChanged, listing.InputSchemaChanged, listing.OutputSchemaChanged,
		listing.AnnotationChanged, listing.FieldChanged, listing.FormatChanged} {
		if n := counts[k]; n > 0 {
			cs.Counts = append(cs.Counts, views.ChangeCount{Kind: string(k), N: n})
			delete(counts, k)
		}
	}
	for k, n := range counts { // kinds added to listing later
		cs.Counts = append(cs.Counts, views.ChangeCount{Kind: string(k), N: n})
	}
	changed := map[string]bool{}
	for i, ch := range d.Changes {
		if ch.Kind != listing.ToolMoved {
			changed[ch.Tool] = true
		}
		if i >= maxChangeRows {
			cs.More++
			continue
		}
		row := views.ChangeRow{Kind: string(ch.Kind), Tool: ch.Tool, OldName: ch.OldName, Path: ch.Path}
		if ch.Path != "" {
			row.Old, row.HasOld = shortValue(ch.Old)
			row.New, row.HasNew = shortValue(ch.New)
		}
		cs.Rows = append(cs.Rows, row)
	}
	cs.Hashes, cs.HashesMore = hashRows(d.New, changed)
	return cs
}

// hashRows lists the tools' hashes, the changed tools first (in listing order), then the others,
// up to maxHashRows; more counts those left out. A server with 20,000 tools must not make a
// page of 20,000 rows.
func hashRows(hashes []listing.ToolHash, changed map[string]bool) (rows []views.HashRow, more int) {
	for _, first := range []bool{true, false} {
		for _, h := range hashes {
			if changed[h.Name] != first {
				continue
			}
			if len(rows) == maxHashRows {
				more++
				continue
			}
			short := strings.TrimPrefix(h.Hash, "sha256:")
			rows = append(rows, views.HashRow{Tool: h.Name, Hash: h.Hash, Short: short[:min(12, len(short))], Changed: first})
		}
	}
	return rows, more
}

// shortValue renders a changed value for the page: text as it is, other values as compact JSON,
// cut at 300 characters. The page escapes it.
func shortValue(v *listing.Value) (string, bool) {
	if v == nil {
		return "", false
	}
	s := string(listing.Marshal(v, ""))
	if v.IsString() {
		s = v.Str
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s, true
}
