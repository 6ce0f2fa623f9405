package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// seeds pairs each seed fixture with its task file.
var seeds = []struct{ name, tasks string }{
	{"clear", "tasks-clear.json"},
	{"confusing", "tasks-confusing.json"},
	{"draft", "tasks-clear.json"},
}

// TestCheckMatchesCLIGolden sends the CLI's own golden case (cmd/workbench: check
// poisoned.json --format json --tokenizer approx) to the API: the report must be the CLI's,
// byte for byte.
func TestCheckMatchesCLIGolden(t *testing.T) {
	root := testutil.ModuleRoot(t)
	want, err := os.ReadFile(filepath.Join(root, "cmd", "workbench", "testdata", "golden", "check-all-poisoned.json.txt"))
	if err != nil {
		t.Skipf("the CLI's golden report is not here: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(root, "lint", "testdata", "fixtures", "poisoned.json"))
	if err != nil {
		t.Skipf("the lint fixture is not here: %v", err)
	}
	// The golden file ends with the exit code the CLI test appends.
	if i := bytes.LastIndex(want, []byte("[exit ")); i >= 0 {
		want = want[:i]
	}
	e := newRouter(t, Options{})
	req := body("name", quote("../../lint/testdata/fixtures/poisoned.json"), "listing", quote(string(src)), "tokenizer", `"approx"`)
	checkRequest(t, http.MethodPost, Prefix+"/check", req)
	rec := call(e, http.MethodPost, Prefix+"/check", req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodPost, Prefix+"/check", rec)
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Errorf("the API's report differs from the CLI's golden report\n%s", testutil.FirstDifference(rec.Body.Bytes(), want))
	}
}

// TestSeedGolden runs check, cost and export on the seed fixtures, sent as text the way a CI
// script would send a file, against golden files.
func TestSeedGolden(t *testing.T) {
	e := newRouter(t, Options{})
	for _, s := range seeds {
		src := testutil.ReadShared(t, "reference", "fixtures", s.name+"-tools.json")
		tasks := testutil.ReadShared(t, "reference", "fixtures", s.tasks)
		name := s.name + "-tools.json"
		posts := []struct{ path, golden, req string }{
			{"/check", "check-" + s.name + ".json", body("name", quote(name), "listing", quote(string(src)), "tasks", quote(string(tasks)))},
			{"/cost", "cost-" + s.name + ".json", body("name", quote(name), "listing", quote(string(src)), "context", "128000")},
			{"/cost", "cost-" + s.name + ".anthropic.json", body("listing", string(src), "render", `"anthropic"`, "tokenizer", `"cl100k_base"`)},
			{"/export", "export-" + s.name + ".go.json", body("name", quote(name), "listing", string(src), "format", `"go"`, "main", "true")},
		}
		if s.name != "draft" {
			draft := testutil.ReadShared(t, "reference", "fixtures", "draft-tools.json")
			posts = append(posts, struct{ path, golden, req string }{"/export", "export-" + s.name + ".review.json",
				body("name", quote(name), "listing", string(src), "format", `"review"`, "baseline", string(draft), "baselineName", `"draft-tools.json"`, "tasks", string(tasks))})
		}
		for _, p := range posts {
			t.Run(p.golden, func(t *testing.T) {
				checkRequest(t, http.MethodPost, Prefix+p.path, p.req)
				rec := call(e, http.MethodPost, Prefix+p.path, p.req)
				if rec.Code != http.StatusOK {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
				checkResponse(t, http.MethodPost, Prefix+p.path, rec)
				golden(t, p.golden, rec.Body.Bytes())
			})
		}
	}
}

// TestExportJSONKeepsTheListing: the JSON export of an unedited listing is the listing, member
// order and number spelling kept, in each of its forms.
func TestExportJSONKeepsTheListing(t *testing.T) {
	e := newRouter(t, Options{})
	src := `{"tools": [{"name": "z", "zeta": 1.50, "alpha": 1e2, "inputSchema": {"type": "object"}}], "nextCursor": null}`
	for _, c := range []struct {
		opts string
		want string
	}{
		{`"compact": true`, `{"tools":[{"name":"z","zeta":1.50,"alpha":1e2,"inputSchema":{"type":"object"}}],"nextCursor":null}` + "\n"},
		{`"compact": true, "bare": true`, `[{"name":"z","zeta":1.50,"alpha":1e2,"inputSchema":{"type":"object"}}]` + "\n"},
	} {
		rec := call(e, http.MethodPost, Prefix+"/export", `{"listing": `+src+`, `+c.opts+`}`)
		var got exportResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		if got.Content != c.want || got.Filename != "tools.json" || got.MediaType != "application/json" {
			t.Errorf("%s: got %+v, want content %s", c.opts, got, c.want)
		}
	}
	// Pretty output is the same listing.
	rec := call(e, http.MethodPost, Prefix+"/export", `{"listing": `+src+`}`)
	var got exportResponse
	json.Unmarshal(rec.Body.Bytes(), &got)
	a, err1 := listing.ParseJSON([]byte(src))
	b, err2 := listing.ParseJSON([]byte(got.Content))
	if err1 != nil || err2 != nil || !listing.Equal(a, b) || !strings.Contains(got.Content, "\n  ") {
		t.Errorf("pretty export is not the listing: %v %v\n%s", err1, err2, got.Content)
	}
}

// TestExportGoIsTheEngines: the Go export is export.Go's output for the listing, with its
// warnings, so the API adds nothing of its own to the code.
func TestExportGoIsTheEngines(t *testing.T) {
	e := newRouter(t, Options{})
	rec := call(e, http.MethodPost, Prefix+"/export", body("listing", small, "format", `"go"`, "package", `"library"`, "name", `"small.json"`))
	var got exportResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	l, err := listing.Parse([]byte(small), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, warns, err := export.Go(l, export.GoOptions{Package: "library", Source: "small.json"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != string(want) || len(got.Warnings) != len(warns) || got.Filename != "tools.go" {
		t.Errorf("got %s with %d warnings, want export.Go's %d bytes and %d warnings", got.Filename, len(got.Warnings), len(want), len(warns))
	}
	if !strings.HasPrefix(got.Content, "// Code generated") && !strings.Contains(got.Content, "package library") {
		t.Errorf("not Go code of package library:\n%.300s", got.Content)
	}
	for i, w := range warns {
		if got.Warnings[i].Kind != string(w.Kind) || got.Warnings[i].Pointer != w.Pointer {
			t.Errorf("warning %d: %+v, want %+v", i, got.Warnings[i], w)
		}
	}
}

// flawed is small with a tool that has findings.
var flawed = strings.Replace(small, "\n]}", `,
  {"name": "delete_book", "description": "Deletes.", "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}}
]}`, 1)

// TestCheckOptions: tasks, ignore, baseline, merge and failOn change the report as the CLI's
// flags do.
func TestCheckOptions(t *testing.T) {
	e := newRouter(t, Options{})
	report := func(t *testing.T, req string) map[string]any {
		t.Helper()
		checkRequest(t, http.MethodPost, Prefix+"/check", req)
		rec := call(e, http.MethodPost, Prefix+"/check", req)
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		checkResponse(t, http.MethodPost, Prefix+"/check", rec)
		var r map[string]any
		json.Unmarshal(rec.Body.Bytes(), &r)
		return r
	}
	counts := func(r map[string]any) map[string]any { return r["counts"].(map[string]any) }
	base := report(t, body("listing", flawed))
	if base["failed"] != false || base["source"] != "listing" || base["tokenizer"] != "o200k_base" {
		t.Fatalf("plain report: %v", base)
	}
	findings := base["findings"].([]any)
	if len(findings) == 0 {
		t.Fatal("the flawed listing has no findings at all; the option tests need one")
	}
	first := findings[0].(map[string]any)

	t.Run("failOn", func(t *testing.T) {
		r := report(t, body("listing", flawed, "failOn", `"info"`))
		if r["failed"] != true || r["failOn"] != "info" {
			t.Errorf("failOn info with %d findings: failed %v", len(findings), r["failed"])
		}
	})
	t.Run("ignore", func(t *testing.T) {
		ig, _ := json.Marshal([]map[string]string{{"rule": first["rule"].(string), "reason": "tested"}})
		r := report(t, body("listing", flawed, "ignore", string(ig)))
		if counts(r)["ignored"].(float64) < 1 {
			t.Errorf("nothing ignored: %v", counts(r))
		}
		// The same list as text.
		r2 := report(t, body("listing", flawed, "ignore", quote(string(ig))))
		if counts(r2)["ignored"] != counts(r)["ignored"] {
			t.Errorf("ignore as text differs: %v vs %v", counts(r2), counts(r))
		}
	})
	t.Run("baseline", func(t *testing.T) {
		prev, _ := json.Marshal(base)
		r := report(t, body("listing", flawed, "baseline", string(prev), "failOn", `"info"`))
		if r["baseline"] != true || counts(r)["new"].(float64) != 0 || r["failed"] != false {
			t.Errorf("against its own report nothing is new: %v failed %v", counts(r), r["failed"])
		}
	})
	t.Run("tasks", func(t *testing.T) {
		r := report(t, body("listing", flawed, "tasks", `[{"task": "find books by Le Guin", "expect": "search_books"}, {"task": "what time is it", "expect": null}]`))
		if rk, _ := r["ranking"].([]any); len(rk) != 2 {
			t.Errorf("ranking: %v", r["ranking"])
		}
	})
	t.Run("merge", func(t *testing.T) {
		r := report(t, body("listing", flawed, "merge", `[{"name": "other", "listing": [{"name": "get_book"}]}]`))
		hit := false
		for _, f := range r["findings"].([]any) {
			if f := f.(map[string]any); f["rule"] == "name-collision-merged" && f["source"] == "other" && f["tool"] == "get_book" {
				hit = true
			}
		}
		if !hit {
			t.Errorf("no collision with the other server's get_book: %v", r["findings"])
		}
	})
	t.Run("limits", func(t *testing.T) {
		r := report(t, body("listing", flawed, "maxTools", "1", "tokenizer", `"approx"`))
		hit := false
		for _, f := range r["findings"].([]any) {
			if f.(map[string]any)["rule"] == "listing-too-many-tools" {
				hit = true
			}
		}
		if !hit || r["tokenizer"] != "approx" {
			t.Errorf("maxTools 1 on two tools: no listing-too-many-tools finding")
		}
	})
}

// TestCostBaseline: a baseline listing adds the change per tool.
func TestCostBaseline(t *testing.T) {
	e := newRouter(t, Options{})
	req := body("listing", small, "baseline", `[{"name": "search_books"}]`)
	checkRequest(t, http.MethodPost, Prefix+"/cost", req)
	rec := call(e, http.MethodPost, Prefix+"/cost", req)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodPost, Prefix+"/cost", rec)
	var r struct {
		Baseline struct {
			Tools []struct{ Name, Status string }
		}
	}
	json.Unmarshal(rec.Body.Bytes(), &r)
	if len(r.Baseline.Tools) != 2 || r.Baseline.Tools[1].Name != "get_book" || r.Baseline.Tools[1].Status != "added" {
		t.Errorf("baseline: %s", rec.Body)
	}
}

// TestRealListings sends each real listing to every engine endpoint: all answer 200 with a body
// that validates against the document, so the schemas hold for real servers' output too.
func TestRealListings(t *testing.T) {
	e := newRouter(t, Options{})
	for _, name := range []string{"github-mcp-server", "gitlab-mcp-server", "kubernetes-mcp-server",
		"kubernetes-mcp-server-extra-toolsets", "mongodb-mcp-server"} {
		src := testutil.ReadShared(t, "listings", "real", name+".json")
		for _, p := range []struct{ path, req string }{
			{"/check", body("name", quote(name), "listing", quote(string(src)))},
			{"/cost", body("listing", string(src), "render", `"openai"`)},
			{"/export", body("listing", string(src), "format", `"go"`)},
			{"/export", body("listing", string(src), "format", `"review"`, "baseline", `[]`)},
		} {
			rec := call(e, http.MethodPost, Prefix+p.path, p.req)
			if rec.Code != http.StatusOK {
				t.Errorf("%s %s: %d %.300s", name, p.path, rec.Code, rec.Body)
				continue
			}
			checkResponse(t, http.MethodPost, Prefix+p.path, rec)
		}
	}
}
