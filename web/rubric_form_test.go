package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The rubric's form is read as the other drafting forms are, up to 16 KiB: a body of a MiB
// is refused with words that say so, read no further, and asks no model.
func TestRubricFormBounded(t *testing.T) {
	m := &fakemodel.Server{}
	e := newDraftEnv(t, m)
	ws := openExample(t, e.s, "library-2-draft")
	form := url.Values{"endpoint": {"fake"}, "junk": {strings.Repeat("A", 1<<20)}}.Encode()
	body := &countingReader{r: strings.NewReader(form)}
	req := httptest.NewRequest(http.MethodPost, "/w/"+ws+"/rubric?t=0", body)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Datastar-Request", "true")
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	if body.n > 64<<10 {
		t.Errorf("the rubric read %d KiB of a %d KiB form", body.n>>10, len(form)>>10)
	}
	if m.Requests() != 0 {
		t.Errorf("the model was asked %d times for an unreadable form", m.Requests())
	}
	if got := rec.Body.String(); !strings.Contains(got, "The form could not be read") {
		t.Errorf("HTTP %d, the answer does not say the form could not be read:\n%s", rec.Code, got)
	}
}
