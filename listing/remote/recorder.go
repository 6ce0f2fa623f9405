package remote

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tool-workbench/workbench/listing"
)

// state is what one fetch learns on the way, shared by the recorder, the HTTP client and the
// error classifier (the SDK flattens some errors into text, so facts are kept here instead).
type state struct {
	limits Limits

	mu       sync.Mutex
	pending  map[jsonrpc.ID]string // calls in flight that we record: id -> method
	init     []byte                // raw initialize or server/discover result
	protocol string                // protocol revision from the initialize result
	page     []byte                // the last tools/list result, until taken
	pageErr  error                 // why that result was refused
	total    int64                 // bytes of tools/list results so far
	readErr  error                 // the first error reading from the transport

	refused   error  // the first address the policy refused
	tooLarge  bool   // a response went over Limits.ResponseBytes
	status    int    // status of the last HTTP response
	ctype     string // content type of the last HTTP response
	redirects int
}

func (s *state) protocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol
}

// takePage returns the tools/list result recorded since the last call, or why it was refused.
func (s *state) takePage() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.page, s.pageErr
	s.page, s.pageErr = nil, nil
	return p, err
}

// recorder is an mcp.Transport whose connection keeps the raw result of every initialize,
// server/discover and tools/list call as the transport decoded it from the wire, and passes
// the SDK a tools/list result with an empty tools array: the SDK still drives pagination from
// nextCursor, while the tools never go through its typed decoding.
type recorder struct {
	inner mcp.Transport
	st    *state
}

func (r *recorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{inner: c, st: r.st}, nil
}

type recordingConn struct {
	inner mcp.Connection
	st    *state
}

func (c *recordingConn) SessionID() string { return c.inner.SessionID() }
func (c *recordingConn) Close() error      { return c.inner.Close() }

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		switch req.Method {
		case "initialize", "server/discover", "tools/list":
			c.st.mu.Lock()
			if c.st.pending == nil {
				c.st.pending = map[jsonrpc.ID]string{}
			}
			c.st.pending[req.ID] = req.Method
			c.st.mu.Unlock()
		}
	}
	return c.inner.Write(ctx, msg)
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.inner.Read(ctx)
	if err != nil {
		c.st.mu.Lock()
		if c.st.readErr == nil {
			c.st.readErr = err
		}
		c.st.mu.Unlock()
		return msg, err
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg, nil
	}
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	method, ok := c.st.pending[resp.ID]
	if !ok {
		return msg, nil
	}
	delete(c.st.pending, resp.ID)
	if resp.Error != nil {
		return msg, nil
	}
	raw := bytes.Clone(resp.Result)
	switch method {
	case "initialize", "server/discover":
		c.st.init = raw
		if v, err := listing.ParseJSON(raw); err == nil {
			if pv := v.Get("protocolVersion"); pv.IsString() {
				c.st.protocol = pv.Str
			}
		}
	case "tools/list":
		c.st.total += int64(len(raw))
		var sdkView []byte
		c.st.page, sdkView, c.st.pageErr = c.st.checkPage(raw)
		// A copy: the transport may still hold the message it decoded.
		r := *resp
		r.Result = sdkView
		return &r, nil
	}
	return msg, nil
}

// checkPage vets one raw tools/list result and returns what the SDK should see of it: an empty
// tools array and the nextCursor, all it needs to go on paging (so it cannot choke on a member
// it would decode differently); for a page refused, an empty last page, so the SDK's call ends
// and the refusal is reported instead.
func (s *state) checkPage(raw []byte) (page, sdkView []byte, err error) {
	stop := []byte(`{"tools":[]}`)
	if s.total > s.limits.TotalBytes {
		return nil, stop, &Error{Kind: ErrTooLarge,
			Msg:  fmt.Sprintf("the server's tools/list results come to more than %d bytes", s.limits.TotalBytes),
			Hint: "a listing this large is almost certainly a server fault; raise the limit if it is not"}
	}
	v, perr := listing.ParseJSON(raw)
	if perr != nil {
		// listing.Parse on the raw page gives the precise complaint.
		return raw, stop, nil
	}
	if next := v.Get("nextCursor"); next.IsString() {
		return raw, listing.Marshal(listing.NewObject(
			listing.Member{Key: "tools", Value: listing.NewArray(), KeyPos: -1},
			listing.Member{Key: "nextCursor", Value: next, KeyPos: -1}), ""), nil
	}
	return raw, stop, nil
}
