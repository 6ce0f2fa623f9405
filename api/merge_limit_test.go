package api

import (
	"net/http"
	"strings"
	"testing"
)

// TestMergeLimit: a check merges at most MaxMerge other listings, and says so.
func TestMergeLimit(t *testing.T) {
	e := newRouter(t, Options{})
	entry := `{"name": "s", "listing": {"tools": [{"name": "a", "description": "Get a thing."}]}}`
	merge := "[" + strings.TrimSuffix(strings.Repeat(entry+", ", MaxMerge+1), ", ") + "]"
	rec := call(e, http.MethodPost, Prefix+"/check", body("listing", `{"tools": [{"name": "b", "description": "Get b."}]}`, "merge", merge))
	if rec.Code == http.StatusOK {
		t.Fatalf("a check merging %d listings was accepted", MaxMerge+1)
	}
	if er := apiError(t, rec); er.Code != CodeTooLarge || er.Field != "merge" || !strings.Contains(er.Message, "the limit is 64") {
		t.Errorf("error = %+v", er)
	}
	ok := "[" + strings.TrimSuffix(strings.Repeat(entry+", ", MaxMerge), ", ") + "]"
	if rec := call(e, http.MethodPost, Prefix+"/check", body("listing", `{"tools": [{"name": "b", "description": "Get b."}]}`, "merge", ok)); rec.Code != http.StatusOK {
		t.Errorf("a check merging %d listings: %d %s", MaxMerge, rec.Code, rec.Body.String())
	}
}

// TestRevisionMustBeADate: a revision is compared as a date, so anything else is refused.
func TestRevisionMustBeADate(t *testing.T) {
	e := newRouter(t, Options{})
	rec := call(e, http.MethodPost, Prefix+"/check", body("listing", `{"tools": [{"name": "b", "description": "Get b."}]}`, "revision", `"garbage"`))
	if er := apiError(t, rec); er.Code != CodeInvalidField || er.Field != "revision" {
		t.Errorf("error = %+v", er)
	}
}
