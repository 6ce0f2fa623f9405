package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestReviewSignoffNamesWhatWasShown: the sign-off form names the listing's hash as the Review
// panel showed it when opened; an edit elsewhere leaves the form's hash alone (the gate,
// sign-offs and threads stay live) and says beside the buttons what changed; Approve with the
// form as it stands is refused with that; Refresh gives the form the new hash, and Approve
// then holds.
func TestReviewSignoffNamesWhatWasShown(t *testing.T) {
	db := newTestStore(t)
	s := serverOn(t, db)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	id := openExample(t, s, "library-2-draft")
	pid := strings.Repeat("1", 32)
	st := openStreamSignals(t, ts.URL, id, bo, fmt.Sprintf(`{"pid":%q,"tool":3,"ver":-1}`, pid))
	st.waitFor(t, "the first render", func(s string) bool { return strings.Contains(s, "tool-list") })
	openPanel := func() string {
		t.Helper()
		q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":3,"panel":"review"}`, pid))
		rec := do(t, s, bo.cookies(httptest.NewRequest(http.MethodGet, "/w/"+id+"/review?datastar="+q, nil)))
		if rec.Code != http.StatusOK {
			t.Fatalf("open the Review panel: %d", rec.Code)
		}
		return rec.Body.String()
	}
	before, err := s.review.Status(context.Background(), id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if panel := openPanel(); !strings.Contains(panel, `name="hash" value="`+before.Hash+`"`) {
		t.Fatalf("the panel's form does not name the head's hash %s: %.500s", before.Hash, panel)
	}
	st.reset()
	postAs(t, s, ana, strings.Repeat("e", 32), "/w/"+id+"/edit?t=0&f=description", map[string]any{"tool": 0, "val": "Now deletes everything."})
	body := st.waitFor(t, "the note beside the buttons", func(s string) bool {
		return strings.Contains(s, "review-signoff-note") && strings.Contains(s, "review-gate")
	})
	if strings.Contains(body, `name="hash"`) {
		t.Errorf("a live update sent the sign-off form's hash: %.500s", body)
	}
	if !strings.Contains(body, "changed since you opened the review: 1 change") || !strings.Contains(body, "description changed") || !strings.Contains(body, "review-refresh") {
		t.Errorf("the note does not say what changed: %.1500s", body)
	}
	signoff := func(hash string) string {
		t.Helper()
		v := url.Values{"hash": {hash}, "pid": {pid}, "message": {"ok"}}
		req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/review/signoff?verdict=approved", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Datastar-Request", "true")
		return do(t, s, bo.cookies(req)).Body.String()
	}
	if got := signoff(before.Hash); !strings.Contains(got, "not saved: the listing changed since you opened the review: 1 change") || !strings.Contains(got, "Refresh") {
		t.Errorf("Approve on the form as opened: %.600s", got)
	}
	if sos, _ := db.Signoffs(context.Background(), id); len(sos) != 0 {
		t.Fatalf("the refused sign-off was stored: %+v", sos)
	}
	after, err := s.review.Status(context.Background(), id, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The editor's Comment action draws the panel again, preset to a field: the form still names
	// what the page was shown, and the note still says what changed.
	q := url.QueryEscape(fmt.Sprintf(`{"pid":%q,"tool":3,"panel":"review"}`, pid))
	rec := do(t, s, bo.cookies(httptest.NewRequest(http.MethodGet, "/w/"+id+"/review?t=3&at=desc&datastar="+q, nil)))
	if got := rec.Body.String(); !strings.Contains(got, `name="hash" value="`+before.Hash+`"`) || !strings.Contains(got, "changed since you opened the review: 1 change") {
		t.Errorf("the Comment action moved the sign-off form to the head (%s) or dropped the note: %.800s", after.Hash, got)
	}
	if panel := openPanel(); !strings.Contains(panel, `name="hash" value="`+after.Hash+`"`) { // Refresh
		t.Fatalf("the refreshed panel's form does not name the new head's hash: %.500s", panel)
	}
	if got := signoff(after.Hash); strings.Contains(got, "not saved") {
		t.Errorf("Approve after Refresh: %.600s", got)
	}
	if sos, _ := db.Signoffs(context.Background(), id); len(sos) != 1 || sos[0].Hash != after.Hash {
		t.Errorf("the sign-offs after Refresh and Approve: %+v", sos)
	}
}
