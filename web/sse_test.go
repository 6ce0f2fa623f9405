package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// sseLines splits an event stream into lines as the SSE specification does (and the Datastar
// client with it): a line ends at CR, LF or CRLF. A CR at the end of what has arrived so far
// waits for the next byte, which may be the LF of a CRLF.
func sseLines(data []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0 && atEOF && len(data) > 0:
		return len(data), data, nil
	case i < 0:
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	default:
		return 0, nil, nil // a CR last: is an LF next?
	}
}

// field records one non-blank line of an event as the specification reads it: the field name
// up to the first colon, the value after it less one space. Datastar's data lines are
// "data: KEY VALUE". A field the stream should never carry is kept under "?name".
func (e *event) field(ln string) {
	if strings.HasPrefix(ln, ":") {
		return // a comment
	}
	name, value, _ := strings.Cut(ln, ":")
	value = strings.TrimPrefix(value, " ")
	switch name {
	case "event":
		e.Type = value
	case "data":
		k, v, _ := strings.Cut(value, " ")
		e.Data[k] = append(e.Data[k], v)
	default:
		e.Data["?"+name] = append(e.Data["?"+name], value)
	}
}

// datastarKeys are the data keys Datastar v1's events take.
var datastarKeys = map[string]map[string]bool{
	"datastar-patch-elements": {"selector": true, "mode": true, "elements": true, "useViewTransition": true, "namespace": true},
	"datastar-patch-signals":  {"signals": true, "onlyIfMissing": true},
}

// checkFraming fails the test unless body is a stream of well-formed Datastar events whose every
// line ends where the server ended it: no CR on the wire (any CR would end a line for the
// client), only Datastar's event types, only their data keys, no other fields, and no signals
// patch that is not a JSON object.
func checkFraming(t testing.TB, what, body string) []event {
	t.Helper()
	if i := strings.IndexByte(body, '\r'); i >= 0 {
		t.Errorf("%s: the stream carries a CR at byte %d: …%q…", what, i, body[max(i-60, 0):min(i+60, len(body))])
	}
	evs := parseSSE(t, body)
	for _, e := range evs {
		keys, ok := datastarKeys[e.Type]
		if !ok {
			t.Errorf("%s: an event of type %q", what, e.Type)
			continue
		}
		for k := range e.Data {
			if !keys[k] {
				t.Errorf("%s: a %s event with data key or field %q", what, e.Type, k)
			}
		}
		if e.Type == "datastar-patch-signals" {
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.Join(e.Data["signals"], "\n")), &m); err != nil {
				t.Errorf("%s: a signals patch that is not a JSON object: %v", what, err)
			}
		}
	}
	return evs
}

// lineBreakers are the characters that end or could be taken to end a line somewhere: every
// C0 control, DEL, NEL, the Unicode line and paragraph separators, and CR/LF combinations.
func lineBreakers() []string {
	var out []string
	for c := rune(0); c < 0x20; c++ {
		out = append(out, string(c))
	}
	return append(out, "\x7f", "\u0085", "\u2028", "\u2029", "\r\n", "\n\r", "\r\r", "\r\n\r\n")
}

// forged is the attack: text that, were its CRs line ends, would end the event and start a
// signals event the client evaluates as an expression.
func forged(brk string) string {
	return "Harmless." + brk + brk + "event: datastar-patch-signals" + brk + "data: signals {pwn: (window.__pwned = 1337)}" + brk + brk + "tail"
}

// hostileListing puts text in every field of a tool that the page shows.
func hostileListing(text string) string {
	b, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "t_" + fmt.Sprint(len(text)), "title": text, "description": text,
		"annotations": map[string]any{"title": text},
		"inputSchema": map[string]any{"type": "object", "required": []any{text}, "properties": map[string]any{
			text: map[string]any{"type": "string", "description": text, "enum": []any{text}, "default": text}}},
		"outputSchema": map[string]any{"type": "object", "description": text}}}})
	return string(b)
}

// TestStreamFramingHoldsForEveryLineEnd sends a listing holding each line-ending and control
// character, in every field a page shows, through the answers that patch a page (an edit, a
// parameter edit, a tool selection, a task edit) and the live stream of another page, and
// requires every byte on the wire to frame only the events the server sent.
func TestStreamFramingHoldsForEveryLineEnd(t *testing.T) {
	s := newServer(t)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	for _, brk := range lineBreakers() {
		t.Run(fmt.Sprintf("%U", []rune(brk)), func(t *testing.T) {
			in := forged(brk)
			id := workspaceFrom(t, s, hostileListing(in))
			st := dialSSE(t, ts.URL, id, strings.Repeat("c", 32), 0, 0, nil)
			answers := map[string]string{}
			for _, p := range []struct{ path, val string }{
				{"/w/" + id + "/edit?t=0&f=description", in + " again"},
				{"/w/" + id + "/edit?t=0&f=title", in},
				{"/w/" + id + "/task?op=add&i=0", ""},
				{"/w/" + id + "/task?op=set&i=0&k=task", in},
				{"/w/" + id + "/task?op=set&i=0&k=expect", in},
			} {
				answers[p.path] = postRaw(t, s, p.path, sig(0, p.val))
			}
			answers["select"] = postRaw(t, s, "/w/"+id+"/select", sig(0, nil))
			// The task export's choice lists what a format leaves out of the tasks: ids and tags
			// (from an imported file, since the table edits neither) are named in it.
			file, _ := json.Marshal([]map[string]any{{"id": in, "task": in, "expect": "t_1", "tags": []string{in}}})
			if rec := postTaskFile(t, s, id, "t.json", string(file), "workbench", "replace"); rec.Code >= 400 {
				t.Fatalf("importing the hostile task file: %d %s", rec.Code, rec.Body)
			}
			for _, f := range []string{"mcptest", "mcptef"} {
				body := postRaw(t, s, "/w/"+id+"/tasks/export", sig(0, f))
				if !strings.Contains(body, "Harmless") {
					t.Errorf("export as %s: the answer does not name the task's id or tags, so it tests nothing", f)
				}
				answers["export "+f] = body
			}
			for what, body := range answers {
				checkFraming(t, what, body)
			}
			// The live stream: the other page gets the description edit's patches.
			ev := st.next(t, "the editor patch with the edited description", func(e event) bool {
				el, ok := patchOf(e, "editor")
				return ok && strings.Contains(el, "again")
			})
			checkFraming(t, "live stream", st.raw.String())
			if t.Failed() {
				return
			}
			// The text arrives as the person wrote it: the page's description field holds it.
			el, _ := patchOf(ev, "editor")
			ta := find(t, el, "f-desc")
			if len(ta) != 1 {
				t.Fatalf("the live editor patch has %d description fields, want 1", len(ta))
			}
			if got, want := rawText(ta[0]), asShown(in+" again"); got != want {
				t.Errorf("the description field holds %q, want %q", got, want)
			}
		})
	}
}

// postRaw posts signals as a page does and returns the raw body of the answer.
func postRaw(t testing.TB, s *Server, path string, sig map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(sig)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	rec := do(t, s, req)
	if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
		t.Fatalf("POST %s: status %d: %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// TestSSEWriterOnlyPlace holds every Datastar answer to the one writer that keeps CRs off the
// wire: no file of the package starts a generator of its own.
func TestSSEWriterOnlyPlace(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`datastar\.NewSSE\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "sse.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if re.Match(b) {
			t.Errorf("%s starts a Datastar generator itself: use newSSE, which keeps CRs off the wire", f)
		}
	}
}

// FuzzStreamFraming: any text, in every field of a tool, patched to a page, parses under the
// SSE specification into only the events the server sent, and the description arrives intact.
func FuzzStreamFraming(f *testing.F) {
	for _, brk := range lineBreakers() {
		f.Add(forged(brk))
	}
	f.Add(hostile)
	s := newServer(f)
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		// The workbench keeps text as valid UTF-8 (JSON does): compare with what it keeps.
		in = strings.ToValidUTF8(in, "\uFFFD")
		rec := importPaste(t, s, hostileListing(in))
		switch rec.Code {
		case http.StatusSeeOther:
		case http.StatusBadRequest, http.StatusUnprocessableEntity:
			return // a listing the import refuses patches nothing
		default:
			t.Fatalf("import: status %d: %.300s", rec.Code, rec.Body)
		}
		id := strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
		checkFraming(t, "edit answer", postRaw(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, in)))
		// Selecting the tool renders its form, as a page opening it sees it.
		evs := checkFraming(t, "select answer", postRaw(t, s, "/w/"+id+"/select", sig(0, nil)))
		ta := find(t, patched(evs)["editor"], "f-desc")
		if len(ta) != 1 {
			t.Fatalf("the select answer has %d description fields, want 1", len(ta))
		}
		// The description as the workbench keeps it (an edit may tidy what was typed).
		var kept struct {
			Tools []struct {
				Description string `json:"description"`
			} `json:"tools"`
		}
		lj := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/listing.json", nil))
		if err := json.Unmarshal(lj.Body.Bytes(), &kept); err != nil || len(kept.Tools) != 1 {
			t.Fatalf("listing.json: %v: %.200s", err, lj.Body)
		}
		if got, want := rawText(ta[0]), asShown(kept.Tools[0].Description); got != want {
			t.Errorf("the description field holds %q, want %q (typed %q)", got, want, in)
		}
	})
}

// rawText is the text of n as the page holds it, whitespace and all.
func rawText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// asShown is what a text field holds of s once parsed (by x/net/html, as the tests do), under
// rules the server cannot change: a NUL reads as U+FFFD, and a line end right after <textarea>
// is dropped (x/net/html drops a CR there too, even one written as &#13;, which browsers keep).
func asShown(s string) string {
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	s = strings.TrimPrefix(s, "\r")
	return strings.TrimPrefix(s, "\n")
}
