package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

const maxRedirects = 5

// newHTTPClient returns the client for one fetch: every dial checked by the policy, no proxy
// from the environment (a proxy would make the connection the policy checks not the one that
// reaches the server), redirects bounded, and target's headers added by roundTripper.
//
// Every request ends when ctx (the fetch's) does, even those the SDK sends on a context of its
// own, such as a cancellation notice after a timeout.
func newHTTPClient(ctx context.Context, u *url.URL, t Target, p Policy, lim Limits, st *state) *http.Client {
	refused := func(err error) {
		st.mu.Lock()
		if st.refused == nil {
			st.refused = err
		}
		st.mu.Unlock()
	}
	base := &http.Transport{
		Proxy:                  nil,
		DialContext:            p.dialer(10*time.Second, refused),
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  lim.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        5 * time.Second,
	}
	rt := &roundTripper{fetchCtx: ctx, base: base, scheme: u.Scheme, host: u.Host, headers: t.Headers.Clone(), st: st}
	if t.Bearer != "" {
		rt.auth = "Bearer " + t.Bearer
	}
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			st.mu.Lock()
			st.redirects++
			st.mu.Unlock()
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
}

// roundTripper adds the target's headers and token to requests for the target's origin only,
// sets the negotiated protocol revision header, and caps every response body.
type roundTripper struct {
	fetchCtx     context.Context
	base         *http.Transport
	scheme, host string
	headers      http.Header
	auth         string
	st           *state
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(rt.fetchCtx, cancel)
	end := func() { stop(); cancel() }
	req = req.Clone(ctx)
	if req.URL.Scheme == rt.scheme && strings.EqualFold(req.URL.Host, rt.host) {
		for k, vs := range rt.headers {
			req.Header[k] = append([]string(nil), vs...)
		}
		if rt.auth != "" {
			req.Header.Set("Authorization", rt.auth)
		}
	}
	// The SDK sets this header itself when its connection learns the session's revision; our
	// recording wrapper hides that from it, so set it from the initialize result we recorded.
	if req.Header.Get("Mcp-Protocol-Version") == "" {
		if pv := rt.st.protocolVersion(); pv != "" {
			req.Header.Set("Mcp-Protocol-Version", pv)
		}
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		end()
		return nil, err
	}
	rt.st.mu.Lock()
	rt.st.status = resp.StatusCode
	rt.st.ctype = resp.Header.Get("Content-Type")
	rt.st.mu.Unlock()
	resp.Body = &cappedBody{rc: resp.Body, left: rt.st.limits.ResponseBytes, st: rt.st, end: end}
	return resp, nil
}

// errTooLarge ends a response body that goes over Limits.ResponseBytes.
var errTooLarge = errors.New("response over the size limit")

type cappedBody struct {
	rc   io.ReadCloser
	left int64
	st   *state
	end  func()
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.st.mu.Lock()
		b.st.tooLarge = true
		b.st.mu.Unlock()
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.end()
	return err
}

// classify turns whatever ended a fetch into an *Error that says what went wrong and what would
// work, from the facts the fetch recorded before the error text the SDK composed.
func classify(ctx context.Context, err error, st *state, kind TransportKind, endpoint string, lim Limits) error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	st.mu.Lock()
	refused, tooLarge, status, ctype, readErr := st.refused, st.tooLarge, st.status, st.ctype, st.readErr
	st.mu.Unlock()
	var re *RefusedError
	switch {
	case errors.As(refused, &re):
		return &Error{Kind: ErrRefused, Err: re,
			Msg:  fmt.Sprintf("fetching from %s: %v", endpoint, re),
			Hint: fmt.Sprintf("if this server is meant to be reached, allow it with --fetch-allow %s", re.Addr)}
	case tooLarge:
		return &Error{Kind: ErrTooLarge, Err: err,
			Msg:  fmt.Sprintf("%s sent more than %d bytes in one response", endpoint, lim.ResponseBytes),
			Hint: "a tools/list this large is almost certainly a server fault; the limit can be raised if it is not"}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Kind: ErrAuth, Status: status, Err: err,
			Msg:  fmt.Sprintf("%s answered %d %s", endpoint, status, http.StatusText(status)),
			Hint: "the server needs credentials: send a bearer token or an Authorization header"}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: ErrTimeout, Err: err,
			Msg:  fmt.Sprintf("%s did not finish answering within %s", endpoint, lim.Timeout),
			Hint: "check that the server is up and answers MCP requests, or allow more time"}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: ErrTimeout, Err: err, Msg: fmt.Sprintf("fetching from %s was cancelled", endpoint)}
	}
	if kind == Stdio {
		var ee *exec.Error
		var pe *fs.PathError
		switch {
		case errors.As(err, &ee):
			return &Error{Kind: ErrConnect, Err: err, Msg: fmt.Sprintf("cannot launch %s: %v", endpoint, ee.Err),
				Hint: "check the command's name and PATH"}
		case errors.As(err, &pe) && pe.Op == "fork/exec":
			return &Error{Kind: ErrConnect, Err: err, Msg: fmt.Sprintf("cannot launch %s: %v", endpoint, pe.Err),
				Hint: "check the command's path and that it is executable"}
		}
		if readErr != nil {
			return &Error{Kind: ErrProtocol, Err: err,
				Msg:  fmt.Sprintf("%s stopped or sent something that is not an MCP message: %v", endpoint, readErr),
				Hint: "a stdio server writes one JSON-RPC message per line on stdout and its logs on stderr"}
		}
		return &Error{Kind: ErrProtocol, Err: err, Msg: fmt.Sprintf("fetching from %s: %v", endpoint, err)}
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Kind: ErrConnect, Err: err, Msg: fmt.Sprintf("%s refused the connection", endpoint),
			Hint: "is the server running, and on that port?"}
	case errors.As(err, &dnsErr):
		return &Error{Kind: ErrConnect, Err: err, Msg: fmt.Sprintf("cannot resolve the host of %s: %v", endpoint, dnsErr.Err),
			Hint: "check the host name"}
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return &Error{Kind: ErrConnect, Err: err, Msg: fmt.Sprintf("the TLS certificate of %s is not trusted: %v", endpoint, err),
			Hint: "the server's certificate must be valid for its host name"}
	}
	var wire *jsonrpc.Error
	// -32005 is the SDK's own "rejected by transport", which wraps HTTP failures, not an
	// answer from the server.
	if errors.As(err, &wire) && wire.Code != -32005 {
		return &Error{Kind: ErrProtocol, Err: err,
			Msg:  fmt.Sprintf("%s answered with a JSON-RPC error %d: %q", endpoint, wire.Code, wire.Message),
			Hint: "the server refused the request; its message may say why"}
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	switch {
	case status >= 300 && status < 400:
		return &Error{Kind: ErrHTTP, Status: status, Err: err,
			Msg:  fmt.Sprintf("%s answered with a redirect the fetch did not follow (%d)", endpoint, status),
			Hint: "use the URL the server redirects to"}
	case status >= 400:
		return &Error{Kind: ErrHTTP, Status: status, Err: err,
			Msg:  fmt.Sprintf("%s answered %d %s", endpoint, status, http.StatusText(status)),
			Hint: hintForStatus(status, kind)}
	case (status == http.StatusOK || status == http.StatusCreated) && mt != "application/json" && mt != "text/event-stream":
		return &Error{Kind: ErrNotMCP, Err: err,
			Msg:  fmt.Sprintf("%s answered with %s, not an MCP message", endpoint, describeType(ctype)),
			Hint: "is this the server's MCP endpoint (often ending in /mcp, or /sse for the older transport)?"}
	case readErr != nil:
		return &Error{Kind: ErrProtocol, Err: err,
			Msg:  fmt.Sprintf("%s sent something that is not a valid JSON-RPC message: %v", endpoint, readErr),
			Hint: "the server is not speaking MCP correctly"}
	}
	return &Error{Kind: ErrProtocol, Err: err, Msg: fmt.Sprintf("fetching from %s: %v", endpoint, err)}
}

func hintForStatus(status int, kind TransportKind) string {
	switch {
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		if kind == Streamable {
			return "is this the MCP endpoint? a server on the older HTTP+SSE transport needs --transport sse"
		}
		return "is this the server's SSE endpoint?"
	case status >= 500:
		return "the server failed; try again later or read its logs"
	}
	return "the server refused the request"
}

func describeType(ctype string) string {
	if ctype == "" {
		return "no content type"
	}
	return fmt.Sprintf("%q", ctype)
}
