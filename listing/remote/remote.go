// Package remote fetches a tool listing from a live MCP server with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): over Streamable HTTP, the older HTTP+SSE transport,
// or a local command's stdio.
//
// The SDK does all the protocol work (transports, version negotiation, sessions, pagination
// requests, server-initiated pings), while the tools themselves are taken from the raw JSON-RPC
// results the transport received, before the SDK decodes them: the SDK's typed Tool would turn
// an absent readOnlyHint into false, re-order schema keys and drop tools it finds invalid, and
// the workbench must review what the server really said. See recorder.go.
//
// Every fetch is bounded (time, bytes per response, bytes and tools and pages in all) and, for
// HTTP, policed by a Policy applied to every connection as it is dialled.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tool-workbench/workbench/listing"
)

// TransportKind names how to reach a server.
type TransportKind string

// The transports.
const (
	Streamable TransportKind = "streamable" // Streamable HTTP, the current HTTP transport
	SSE        TransportKind = "sse"        // HTTP+SSE, the transport of protocol 2024-11-05
	Stdio      TransportKind = "stdio"      // a local command speaking on stdin/stdout
)

// Target is the server to fetch from.
type Target struct {
	// URL is the MCP endpoint of an HTTP server.
	URL string
	// Transport is Streamable (the default for a URL), SSE or Stdio (the default with Command).
	Transport TransportKind
	// Headers are sent with every request to the endpoint's origin (never to another origin a
	// redirect or an SSE endpoint event points at).
	Headers http.Header
	// Bearer, if set, is sent as "Authorization: Bearer …" like Headers. It is held for this
	// fetch only: it is not kept in the Result, and no error or log line contains it.
	Bearer string
	// Command is the program and its arguments for Stdio.
	Command []string
	// Dir is the command's working directory; empty means the current one.
	Dir string
	// Env is the command's environment. Nil inherits this process's, secrets included: a
	// server launching commands for others should pass only what the command needs.
	Env []string
	// Stderr receives the command's standard error; nil discards it.
	Stderr io.Writer
}

// Limits bound a fetch. Zero fields take the defaults in DefaultLimits.
type Limits struct {
	Timeout       time.Duration // the whole fetch, from connecting to the last page
	ResponseBytes int64         // one HTTP response body (an SSE stream counts as one); the SDK caps a stdio message at 16 MiB
	TotalBytes    int64         // all tools/list results together
	Pages         int           // tools/list pages
	Tools         int           // tools in all
}

// DefaultLimits are far above any real server's listing (the largest public ones hold a few
// hundred tools in a few hundred kilobytes) and low enough that a hostile server cannot exhaust
// memory or hold a request open for long.
var DefaultLimits = Limits{
	Timeout:       30 * time.Second,
	ResponseBytes: 32 << 20,
	TotalBytes:    int64(listing.DefaultLimits.Bytes),
	Pages:         1000,
	Tools:         listing.DefaultLimits.Tools,
}

// Options tune a fetch.
type Options struct {
	// Policy decides which addresses HTTP fetches may connect to. The zero Policy refuses
	// every non-public address; pass LocalPolicy() for local mode.
	Policy Policy
	// AllowStdio must be set to launch Target.Command (a server only sets it with
	// --allow-stdio, and never when it serves a team).
	AllowStdio bool
	Limits     Limits
	// ClientName and ClientVersion identify the workbench to the server.
	ClientName, ClientVersion string
}

// ServerInfo is how the server described itself.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Result is a fetched listing and where it came from.
type Result struct {
	// Listing holds the tools of every page, parsed from the raw results.
	Listing *listing.Listing `json:"-"`
	Server  ServerInfo       `json:"server"`
	// ProtocolVersion is the protocol revision the SDK negotiated with the server.
	ProtocolVersion string        `json:"protocolVersion"`
	Transport       TransportKind `json:"transport"`
	// Endpoint is the URL with any password masked, or the command line.
	Endpoint  string    `json:"endpoint"`
	FetchedAt time.Time `json:"fetchedAt"`
	// Pages holds each tools/list result exactly as the server sent it.
	Pages []json.RawMessage `json:"pages"`
	// Init is the initialize (or server/discover) result as the server sent it.
	Init json.RawMessage `json:"init,omitempty"`
}

// ErrorKind classifies a failed fetch.
type ErrorKind string

// The kinds of Error.
const (
	ErrTarget   ErrorKind = "target"    // the target itself is wrong (bad URL, no command, stdio off)
	ErrRefused  ErrorKind = "refused"   // the fetch policy refused the address
	ErrConnect  ErrorKind = "connect"   // no connection (refused, unknown host, TLS, command not started)
	ErrTimeout  ErrorKind = "timeout"   // over Limits.Timeout
	ErrAuth     ErrorKind = "auth"      // 401 or 403
	ErrHTTP     ErrorKind = "http"      // another HTTP error status
	ErrNotMCP   ErrorKind = "not-mcp"   // the endpoint answers, but not as an MCP server
	ErrTooLarge ErrorKind = "too-large" // over a size, page or tool limit
	ErrProtocol ErrorKind = "protocol"  // malformed JSON-RPC, or a JSON-RPC error answer
	ErrListing  ErrorKind = "listing"   // a tools/list result that is not a listing
)

// Error is a failed fetch: what went wrong, and what would work.
type Error struct {
	Kind   ErrorKind
	Msg    string
	Hint   string
	Status int // the HTTP status, for ErrAuth and ErrHTTP
	Err    error
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + " (" + e.Hint + ")"
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Fetch connects to the target, lists every page of its tools and returns them with the
// server's details. On any error it returns nil and an *Error: nothing is half-fetched.
func Fetch(ctx context.Context, t Target, opts Options) (*Result, error) {
	lim := opts.Limits
	def := DefaultLimits
	if lim.Timeout <= 0 {
		lim.Timeout = def.Timeout
	}
	if lim.ResponseBytes <= 0 {
		lim.ResponseBytes = def.ResponseBytes
	}
	if lim.TotalBytes <= 0 {
		lim.TotalBytes = def.TotalBytes
	}
	if lim.Pages <= 0 {
		lim.Pages = def.Pages
	}
	if lim.Tools <= 0 {
		lim.Tools = def.Tools
	}
	kind, endpoint, err := checkTarget(&t, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()

	st := &state{limits: lim}
	var tr mcp.Transport
	switch kind {
	case Stdio:
		cmd := exec.CommandContext(ctx, t.Command[0], t.Command[1:]...)
		cmd.Dir = t.Dir
		cmd.Env = t.Env
		cmd.Stderr = t.Stderr
		tr = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	default:
		u, _ := url.Parse(t.URL) // checked by checkTarget
		hc := newHTTPClient(ctx, u, t, opts.Policy, lim, st)
		defer hc.CloseIdleConnections()
		if kind == SSE {
			tr = &mcp.SSEClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxEventSize: int(lim.ResponseBytes)}
		} else {
			// No reconnection and no standalone GET stream: a fetch is one short exchange.
			tr = &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxRetries: -1,
				DisableStandaloneSSE: true, MaxEventSize: int(lim.ResponseBytes)}
		}
	}
	t.Bearer = "" // the HTTP client holds its own copy for this fetch; drop ours

	res, err := fetch(ctx, tr, st, opts)
	if err != nil {
		return nil, classify(ctx, err, st, kind, endpoint, lim)
	}
	res.Transport, res.Endpoint = kind, endpoint
	return res, nil
}

// checkTarget validates t, fills in its transport, and returns the endpoint to report.
func checkTarget(t *Target, opts Options) (TransportKind, string, error) {
	kind := t.Transport
	if kind == "" {
		kind = Streamable
		if len(t.Command) > 0 && t.URL == "" {
			kind = Stdio
		}
	}
	switch kind {
	case Stdio:
		if !opts.AllowStdio {
			return "", "", &Error{Kind: ErrTarget, Msg: "launching a local command (stdio) is turned off",
				Hint: "fetch from a URL, or start the workbench with --allow-stdio on a machine only you use"}
		}
		if len(t.Command) == 0 || t.Command[0] == "" {
			return "", "", &Error{Kind: ErrTarget, Msg: "no command to launch for stdio",
				Hint: "give the server's command and its arguments, e.g. -- npx -y @modelcontextprotocol/server-everything"}
		}
		return kind, strings.Join(quoteArgs(t.Command), " "), nil
	case Streamable, SSE:
	default:
		return "", "", &Error{Kind: ErrTarget, Msg: fmt.Sprintf("unknown transport %q", kind),
			Hint: "use streamable (the default), sse or stdio"}
	}
	u, err := url.Parse(t.URL)
	if err != nil || t.URL == "" {
		return "", "", &Error{Kind: ErrTarget, Msg: fmt.Sprintf("%q is not a URL", t.URL), Err: err,
			Hint: "give the server's MCP endpoint, e.g. https://example.com/mcp"}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", &Error{Kind: ErrTarget, Msg: fmt.Sprintf("%s is not an http or https URL", u.Redacted()),
			Hint: "give the server's MCP endpoint, e.g. https://example.com/mcp; for a local command use stdio"}
	}
	for k, vs := range t.Headers {
		if !validHeaderName(k) {
			return "", "", &Error{Kind: ErrTarget, Msg: fmt.Sprintf("%q is not a valid HTTP header name", k),
				Hint: "header names are letters, digits and -"}
		}
		for _, v := range vs {
			if !validHeaderValue(v) {
				return "", "", &Error{Kind: ErrTarget, Msg: fmt.Sprintf("the value of header %s holds a line break or control character", k)}
			}
		}
	}
	if !validHeaderValue(t.Bearer) {
		return "", "", &Error{Kind: ErrTarget, Msg: "the bearer token holds a line break or control character",
			Hint: "check the environment variable holding it for a trailing newline"}
	}
	return kind, u.Redacted(), nil
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return out
}

// fetch runs the session: the SDK connects and negotiates, then pages through tools/list while
// the recorder keeps each raw result.
func fetch(ctx context.Context, tr mcp.Transport, st *state, opts Options) (*Result, error) {
	name, version := opts.ClientName, opts.ClientVersion
	if name == "" {
		name = "tool-workbench"
	}
	if version == "" {
		version = "dev"
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: version}, nil)
	cs, err := client.Connect(ctx, &recorder{inner: tr, st: st}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	init := cs.InitializeResult()
	res := &Result{FetchedAt: time.Now().UTC(), Init: st.init}
	if init != nil {
		res.ProtocolVersion = init.ProtocolVersion
		if si := init.ServerInfo; si != nil {
			res.Server = ServerInfo{Name: si.Name, Title: si.Title, Version: si.Version}
		}
	}

	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		if n > st.limits.Pages {
			return nil, &Error{Kind: ErrTooLarge, Msg: fmt.Sprintf("the server's tools/list goes on past %d pages", st.limits.Pages),
				Hint: "a server that keeps returning nextCursor has a pagination bug"}
		}
		_, callErr := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		page, perr := st.takePage()
		if perr != nil {
			return nil, perr
		}
		if callErr != nil {
			return nil, callErr
		}
		if page == nil {
			return nil, &Error{Kind: ErrProtocol, Msg: "the SDK listed tools without a tools/list answer from the server"}
		}
		l, err := listing.Parse(page, listing.Options{Name: fmt.Sprintf("page %d of the server's tools/list result", n)})
		if err != nil {
			return nil, &Error{Kind: ErrListing, Msg: err.Error(), Err: err, Hint: "the server sent a tools/list result the workbench cannot read"}
		}
		if l.Shape != listing.ShapeResult {
			return nil, &Error{Kind: ErrListing, Msg: fmt.Sprintf("page %d of the server's tools/list result is not an object with a tools array", n)}
		}
		res.Pages = append(res.Pages, page)
		next := l.NextCursor()
		if next == nil || next.Kind == listing.Null || next.IsString() && next.Str == "" {
			break
		}
		if !next.IsString() {
			return nil, &Error{Kind: ErrListing, Msg: fmt.Sprintf("page %d of the server's tools/list result has a nextCursor that is a %s, not a string", n, next.Kind)}
		}
		if seen[next.Str] {
			return nil, &Error{Kind: ErrListing, Msg: fmt.Sprintf("page %d of the server's tools/list result repeats an earlier nextCursor", n),
				Hint: "the server's pagination loops"}
		}
		seen[next.Str] = true
		cursor = next.Str
	}
	l, err := merge(res.Pages, st.limits)
	if err != nil {
		return nil, err
	}
	res.Listing = l
	return res, nil
}

// merge parses the pages as one listing: the page itself when there is one, an array of pages
// (listing.ShapePages) otherwise, so tool positions point into one source.
func merge(pages []json.RawMessage, lim Limits) (*listing.Listing, error) {
	src := pages[0]
	if len(pages) > 1 {
		n := 2
		for _, p := range pages {
			n += len(p) + 1
		}
		b := make([]byte, 0, n)
		b = append(b, '[')
		for i, p := range pages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, p...)
		}
		src = append(b, ']')
	}
	l, err := listing.Parse(src, listing.Options{Name: "the server's tools/list result",
		Limits: listing.Limits{Bytes: int(lim.TotalBytes) + len(pages) + 2, Tools: lim.Tools}})
	if err != nil {
		var le *listing.Error
		if errors.As(err, &le) && le.Kind == listing.ErrLimit {
			return nil, &Error{Kind: ErrTooLarge, Msg: le.Msg, Hint: le.Hint, Err: err}
		}
		return nil, &Error{Kind: ErrListing, Msg: err.Error(), Err: err}
	}
	if len(pages) > 1 && l.Shape != listing.ShapePages {
		// A page envelope with a "name" member reads as a tool; refuse rather than guess.
		return nil, &Error{Kind: ErrListing, Msg: "the server's tools/list pages do not read as pages of one listing (a page result has a \"name\" member)"}
	}
	return l, nil
}

// validHeaderName reports whether k is an HTTP token (RFC 9110 §5.6.2), checked here so that a
// bad --header is a clear error before anything is sent.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validHeaderValue reports whether v holds no control character but tab (RFC 9110 §5.5), which
// rules out a line break smuggling another header.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
