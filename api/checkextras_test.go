package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// TestCheckExtras sends check's damage, minDrop, orderBias and overlap members on the clear
// seed: the damage member is the CLI's golden one (check --min-drop 50%), the order bias and
// the overlap map are what the engines compute for the same listing and tasks, the report
// fails as the CLI's exits 1, and all of it validates against the document.
func TestCheckExtras(t *testing.T) {
	root := testutil.ModuleRoot(t)
	wantDamage, err := os.ReadFile(filepath.Join(root, "cmd", "workbench", "testdata", "golden", "check-damage-clear-min-drop.json.txt"))
	if err != nil {
		t.Skipf("the CLI's golden damage member is not here: %v", err)
	}
	wantDamage = wantDamage[:bytes.LastIndex(wantDamage, []byte("[exit "))]
	src := testutil.ReadShared(t, "reference", "fixtures", "clear-tools.json")
	tasksText := testutil.ReadShared(t, "reference", "fixtures", "tasks-clear.json")
	e := newRouter(t, Options{})
	req := body("listing", quote(string(src)), "tasks", quote(string(tasksText)), "tokenizer", `"approx"`,
		"minDrop", `"50%"`, "orderBias", "true", "overlap", "true")
	checkRequest(t, http.MethodPost, Prefix+"/check", req)
	rec := call(e, http.MethodPost, Prefix+"/check", req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	checkResponse(t, http.MethodPost, Prefix+"/check", rec)
	var got struct {
		Failed    bool
		Damage    json.RawMessage
		OrderBias json.RawMessage
		Overlap   json.RawMessage
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, got.Damage, "", "  "); err != nil {
		t.Fatalf("no damage member: %v\n%s", err, rec.Body)
	}
	b.WriteByte('\n')
	if !bytes.Equal(b.Bytes(), wantDamage) {
		t.Errorf("the damage member differs from the CLI's\n%s", testutil.FirstDifference(b.Bytes(), wantDamage))
	}
	if !got.Failed {
		t.Error("tools under minDrop 50% did not fail the report")
	}
	l, err := listing.Parse(src, listing.Options{Name: "listing"})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks(tasksText, false)
	if err != nil {
		t.Fatal(err)
	}
	ob := selection.OrderBiasOf(l, tasks)
	m, err := selection.Overlap(context.Background(), l, tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  json.RawMessage
		want any
	}{{"orderBias", got.OrderBias, ob}, {"overlap", got.Overlap, analysis.NewOverlapReport(m, analysis.OverlapTop)}} {
		want, _ := json.Marshal(c.want)
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.got); err != nil || !bytes.Equal(compact.Bytes(), want) {
			t.Errorf("%s member (%v):\n%s\nwant\n%s", c.name, err, c.got, want)
		}
	}
}

// TestCheckExtrasOff: without the members (or with them false) the report has none of theirs,
// and the overlap map needs no tasks.
func TestCheckExtrasOff(t *testing.T) {
	e := newRouter(t, Options{})
	for _, tt := range []struct {
		req  string
		want map[string]bool
	}{
		{body("listing", small, "tasks", `[{"task": "find a book by title", "expect": "search_books"}]`),
			map[string]bool{"damage": false, "orderBias": false, "overlap": false}},
		{body("listing", small, "damage", "false", "orderBias", "false", "overlap", "true"),
			map[string]bool{"damage": false, "orderBias": false, "overlap": true}},
		{body("listing", small, "tasks", `[{"task": "find a book by title", "expect": "search_books"}]`, "damage", "true", "orderBias", "true"),
			map[string]bool{"damage": true, "orderBias": true, "overlap": false}},
		// An empty task file is a task file, as check --tasks takes one: an empty damage table.
		{body("listing", small, "tasks", `[]`, "damage", "true"), map[string]bool{"damage": true, "overlap": false}},
	} {
		rec := call(e, http.MethodPost, Prefix+"/check", tt.req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tt.req, rec.Code, rec.Body)
		}
		checkResponse(t, http.MethodPost, Prefix+"/check", rec)
		var r map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		for k, want := range tt.want {
			if _, has := r[k]; has != want {
				t.Errorf("%s: member %s present %v, want %v", tt.req, k, has, want)
			}
		}
	}
}

// TestCheckExtrasRefused: the members' mistakes are refused with the member named.
func TestCheckExtrasRefused(t *testing.T) {
	e := newRouter(t, Options{})
	tasks := `[{"task": "find a book", "expect": "search_books"}]`
	for _, tt := range []struct {
		name, req, field string
		schemaToo        bool
	}{
		{"damage without tasks", body("listing", small, "damage", "true"), "damage", false},
		{"minDrop without tasks", body("listing", small, "minDrop", "0.5"), "minDrop", false},
		{"orderBias without tasks", body("listing", small, "orderBias", "true"), "orderBias", false},
		{"damage as string", body("listing", small, "tasks", tasks, "damage", `"yes"`), "damage", true},
		{"overlap as number", body("listing", small, "overlap", "1"), "overlap", true},
		{"minDrop above 1", body("listing", small, "tasks", tasks, "minDrop", "1.5"), "minDrop", true},
		{"minDrop negative", body("listing", small, "tasks", tasks, "minDrop", "-0.1"), "minDrop", true},
		{"minDrop percentage above 100", body("listing", small, "tasks", tasks, "minDrop", `"150%"`), "minDrop", false},
		{"minDrop words", body("listing", small, "tasks", tasks, "minDrop", `"half"`), "minDrop", true},
		{"minDrop NaN", body("listing", small, "tasks", tasks, "minDrop", `"NaN"`), "minDrop", true},
		{"minDrop boolean", body("listing", small, "tasks", tasks, "minDrop", "true"), "minDrop", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(e, http.MethodPost, Prefix+"/check", tt.req)
			got := apiError(t, rec)
			if got.Code != CodeInvalidField || got.Field != tt.field || got.Hint == "" {
				t.Fatalf("got %s on %q (%s, hint %q), want invalid_field on %q with a hint", got.Code, got.Field, got.Message, got.Hint, tt.field)
			}
			checkResponse(t, http.MethodPost, Prefix+"/check", rec)
			if err := requestSchemaError(t, http.MethodPost, Prefix+"/check", tt.req); tt.schemaToo && err == nil {
				t.Error("the request schema accepts what the handler refuses")
			}
		})
	}
}
