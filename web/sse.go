package web

import (
	"bytes"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
)

// Every Datastar answer and the live stream leave through sseWriter, so one place decides what
// bytes reach the page's event-stream parser.
//
// The SSE specification ends a line at CR, LF or CRLF, and so does the Datastar client.
// datastar-go splits an event's data into lines at LF only and prefixes each with "data: ", and
// templ leaves CR unescaped: a CR inside a tool's text would end the line there and let the text
// after it start a field of its own ("event: datastar-patch-signals", then "data: signals …",
// which the client evaluates as an expression when it is not JSON). sseWriter writes each CR as
// the character reference &#13;: every event's data is HTML (element patches, where the
// reference reads back as the CR it stands for) or JSON (signals, which encoding/json never
// writes a raw CR into), so nothing the server meant changes, and the only line ends left on
// the wire are the generator's own LFs.

// newSSE starts the Datastar answer of c.
func newSSE(c echo.Context) *datastar.ServerSentEventGenerator {
	return newSSEOn(c.Response().Writer, c.Request())
}

// newSSEOn starts a Datastar answer on w (the live stream passes its held flusher).
func newSSEOn(w http.ResponseWriter, r *http.Request) *datastar.ServerSentEventGenerator {
	return datastar.NewSSE(sseWriter{w}, r)
}

type sseWriter struct{ w http.ResponseWriter }

var crRef = []byte("&#13;")

func (s sseWriter) Header() http.Header { return s.w.Header() }

func (s sseWriter) WriteHeader(code int) { s.w.WriteHeader(code) }

// Write writes p with every CR as &#13;. The generator writes each event in one call; a CR can
// only have come from content, never from its framing.
func (s sseWriter) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\r') < 0 {
		return s.w.Write(p)
	}
	if _, err := s.w.Write(bytes.ReplaceAll(p, []byte{'\r'}, crRef)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// FlushError lets the generator's http.ResponseController flush the writer underneath (the
// live stream's held flusher decides when).
func (s sseWriter) FlushError() error { return http.NewResponseController(s.w).Flush() }

// Unwrap gives http.ResponseController the writer underneath for everything else.
func (s sseWriter) Unwrap() http.ResponseWriter { return s.w }

// heldFlusher lets a stream write several SSE events and flush once: the Datastar generator
// flushes after every event, and while hold is set those flushes wait for flush.
type heldFlusher struct {
	http.ResponseWriter
	hold bool // only the stream's own goroutine touches it
}

// Flush is what the generator calls after each event.
func (h *heldFlusher) Flush() {
	if !h.hold {
		_ = h.flush()
	}
}

func (h *heldFlusher) flush() error {
	return http.NewResponseController(h.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the connection's own writer for everything else.
func (h *heldFlusher) Unwrap() http.ResponseWriter { return h.ResponseWriter }
