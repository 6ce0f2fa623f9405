package web

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	hostilecorpus "github.com/tool-workbench/workbench/internal/hostile"
	"github.com/tool-workbench/workbench/listing/remote"
)

// TestHostileCorpus takes every hostile listing in as a person would (a paste, and a fetch from
// a malicious MCP server that lists it verbatim), opens its page, selects and edits its first
// tool while another page listens on the live stream. Every answer is a page or a clear refusal,
// never an internal error; pages are bounded by their input (3,000 near-identical tools once
// made 112 MB of HTML); and every event on the wire frames only what the server sent.
func TestHostileCorpus(t *testing.T) {
	s := fetchServer(t, remote.LocalPolicy(), nil)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	for _, c := range hostilecorpus.Corpus() {
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Large {
				t.Skip("skipped in -short: a large case")
			}
			ids := map[string]string{}
			rec := importMultipart(t, s, c.Listing)
			// A case within the page's paste limit is taken in (the page shows what is wrong with
			// it); a larger one is refused saying the limit.
			switch {
			case len(c.Listing) > s.max:
				if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "MB") {
					t.Fatalf("paste of %d bytes: status %d, want 413 naming the limit: %s", len(c.Listing), rec.Code, shown(rec.Body.String()))
				}
			case rec.Code != http.StatusSeeOther:
				t.Fatalf("paste: status %d: %s", rec.Code, shown(rec.Body.String()))
			default:
				ids["paste"] = strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
			}
			mcp := httptest.NewServer(hostilecorpus.Server(c.Listing))
			defer mcp.Close()
			rec = fetchHome(t, s, url.Values{"url": {mcp.URL}, "transport": {"streamable"}})
			switch {
			case rec.Code == http.StatusSeeOther:
				ids["fetch"] = strings.TrimPrefix(rec.Header().Get("Location"), "/w/")
			case rec.Code == http.StatusInternalServerError || len(find(t, rec.Body.String(), "fetch-problem")) == 0:
				t.Fatalf("fetch: status %d without a problem shown: %s", rec.Code, shown(rec.Body.String()))
			default:
				t.Logf("fetch refused: %s", text(find(t, rec.Body.String(), "fetch-problem")[0]))
			}
			for how, id := range ids {
				page := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id, nil))
				if page.Code != http.StatusOK {
					t.Fatalf("%s: the page answers %d: %.300s", how, page.Code, page.Body)
				}
				if limit := 8*len(c.Listing) + 2<<20; page.Body.Len() > limit {
					t.Errorf("%s: the page is %d bytes for a %d-byte listing (bound %d)", how, page.Body.Len(), len(c.Listing), limit)
				}
				if c.Large {
					continue
				}
				st := dialSSE(t, ts.URL, id, strings.Repeat("d", 32), 0, 0, nil)
				checkFraming(t, how+" select", postRaw(t, s, "/w/"+id+"/select", sig(0, nil)))
				checkFraming(t, how+" edit", postRaw(t, s, "/w/"+id+"/edit?t=0&f=description", sig(0, "Edited: "+forged("\r"))))
				st.next(t, "the edit on the live stream", func(e event) bool {
					el, ok := patchOf(e, "editor")
					return ok && strings.Contains(el, "Edited: ")
				})
				checkFraming(t, how+" live stream", st.raw.String())
			}
		})
	}
}

// shown is the text a person reads on an answer's page, for failure messages.
func shown(page string) string {
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return page
	}
	if m := findTag(root, "main"); m != nil {
		root = m
	}
	s := text(root)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

func findTag(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findTag(c, tag); f != nil {
			return f
		}
	}
	return nil
}

// importMultipart posts a listing as the start page's form does (multipart, which unlike a
// URL-encoded form does not grow the text it carries).
func importMultipart(t testing.TB, s *Server, listing []byte) *httptest.ResponseRecorder {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.WriteField("listing", string(listing)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/workspaces", &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return do(t, s, req)
}
