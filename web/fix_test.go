package web

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// fixDraft is a first draft with findings the quick fixes repair: an invisible character and
// trailing whitespace in a description, parameters without a required list, and a get_ tool
// without behaviour hints.
func fixDraft(name string) string {
	b, _ := json.Marshal(map[string]any{"tools": []any{
		map[string]any{"name": name, "description": "Get the weather\u200b forecast for a city by name.  ",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"city": map[string]any{"type": "string", "description": "The city name."}}}},
		map[string]any{"name": "list_cities", "description": "List the cities the weather service knows, by country.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"country": map[string]any{"type": "string", "description": "The country code."}}, "required": []any{"country"}}},
	}})
	return string(b)
}

var fixRefRe = regexp.MustCompile(`\?((?:r=[0-9a-f.]+)|all=1)'`)

// fixQueries returns the selection each element with data-testid tid posts, in page order.
func fixQueries(t *testing.T, doc, tid string) []string {
	t.Helper()
	var out []string
	for _, n := range find(t, doc, tid) {
		m := fixRefRe.FindStringSubmatch(attr(n, "data-on:click"))
		if m == nil {
			t.Fatalf("%s posts %q; want a fix selection", tid, attr(n, "data-on:click"))
		}
		out = append(out, m[1])
	}
	return out
}

// fixButtonsOf returns the Fix buttons of the findings of rule in doc, as their selections.
func fixButtonsOf(t *testing.T, doc, rule string) []string {
	t.Helper()
	var out []string
	for _, li := range find(t, doc, "finding") {
		if attr(li, "data-rule") != rule {
			continue
		}
		var b strings.Builder
		_ = html.Render(&b, li)
		out = append(out, fixQueries(t, b.String(), "fix-button")...)
	}
	return out
}

func revisionMessages(t *testing.T, s *Server, id string) []string {
	t.Helper()
	revs, err := s.db.Revisions(context.Background(), id, store.RevisionPage{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range revs {
		out = append(out, r.Message)
	}
	return out
}

// TestFixPreviewThenApply: each finding with a repair has its Fix buttons (a behaviour hint
// too); a preview shows the word and JSON diffs and stores nothing; Apply stores one revision
// "fix: RULE" and the finding goes; "Fix all safe" stores one revision per rule; Undo takes
// back the last; and a fix that no longer applies is refused, saying so.
func TestFixPreviewThenApply(t *testing.T) {
	s := newServer(t)
	id := workspaceFrom(t, s, fixDraft("get_weather"))
	page := getPage(t, s, "/w/"+id)
	for _, rule := range []string{"hidden-unicode", "description-whitespace", "params-required", "annotations-missing"} {
		if len(fixButtonsOf(t, page, rule)) == 0 {
			t.Errorf("the %s finding has no Fix button", rule)
		}
	}
	if q := fixQueries(t, page, "fix-all-safe"); len(q) != 1 || q[0] != "all=1" {
		t.Errorf("Fix all safe posts %q; want all=1", q)
	}
	hidden := fixButtonsOf(t, page, "hidden-unicode")[0]

	preview := patched(post(t, s, "/w/"+id+"/fix?"+hidden, sig(0, nil)))["fix-preview"]
	del, add := find(t, preview, "fix-word-diff"), find(t, preview, "fix-json-diff")
	if len(del) != 1 || !strings.Contains(text(del[0]), "weather<U+200B>") || len(add) != 1 ||
		!strings.Contains(text(add[0]), `- "description": "Get the weather<U+200B> forecast`) || !strings.Contains(text(add[0]), `+ "description": "Get the weather forecast`) {
		t.Errorf("the preview does not show the invisible character going:\n%s", preview)
	}
	if msgs := revisionMessages(t, s, id); len(msgs) != 1 {
		t.Fatalf("a preview stored a revision: %q", msgs)
	}

	evs := post(t, s, "/w/"+id+"/fix/apply?"+hidden, sig(0, nil))
	if msgs := revisionMessages(t, s, id); len(msgs) != 2 || msgs[0] != "fix: hidden-unicode" {
		t.Fatalf("after Apply the revisions are %q; want fix: hidden-unicode on top", msgs)
	}
	if f := patched(evs)["findings"]; f == "" || strings.Contains(f, `data-rule="hidden-unicode"`) || len(find(t, patched(evs)["fix-preview"], "fix-done")) != 1 {
		t.Errorf("Apply's answer still shows the finding, or does not close the preview:\n%s", f)
	}

	// The same fix again: it no longer applies, and nothing is stored.
	again := patched(post(t, s, "/w/"+id+"/fix/apply?"+hidden, sig(0, nil)))["fix-preview"]
	if p := find(t, again, "fix-problem"); len(p) != 1 || !strings.Contains(text(p[0]), "no longer applies") {
		t.Errorf("a fix applied twice is not refused with a clear message:\n%s", again)
	}

	// A second fix of the same field, at once: a revision of its own, not one extended.
	post(t, s, "/w/"+id+"/fix/apply?"+fixButtonsOf(t, page, "description-whitespace")[0], sig(0, nil))
	if msgs := revisionMessages(t, s, id); len(msgs) != 3 || msgs[0] != "fix: description-whitespace" {
		t.Fatalf("after a second fix of the description the revisions are %q; want fix: description-whitespace on top of fix: hidden-unicode", msgs)
	}

	// Fix all safe on a fresh draft: one revision per rule, each undone on its own.
	id = workspaceFrom(t, s, fixDraft("get_weather"))
	before := headListing(t, s, id)
	post(t, s, "/w/"+id+"/fix/apply?all=1", sig(0, nil))
	msgs := revisionMessages(t, s, id)
	rules := map[string]bool{}
	for _, m := range msgs[:len(msgs)-1] {
		rules[strings.TrimPrefix(m, "fix: ")] = strings.HasPrefix(m, "fix: ")
	}
	if len(msgs) != 4 || !rules["hidden-unicode"] || !rules["description-whitespace"] || !rules["params-required"] {
		t.Fatalf("after Fix all safe the revisions are %q; want one fix: RULE for each of the three rules", msgs)
	}
	if fixed := headListing(t, s, id).Tools[0]; fixed.Get("description").Str != "Get the weather forecast for a city by name." ||
		fixed.Get("inputSchema").Get("required") == nil || fixed.Get("annotations") != nil {
		t.Errorf("Fix all safe left %s; want the description cleaned, required added, and no suggested hint", listing.Marshal(fixed, ""))
	}
	for range 2 {
		post(t, s, "/w/"+id+"/undo", sig(0, nil))
	}
	if got := headListing(t, s, id).Tools[0]; listing.Equal(got, before.Tools[0]) || len(revisionMessages(t, s, id)) != 6 {
		t.Errorf("two undos leave %s; want one fix left", listing.Marshal(got, ""))
	}
	post(t, s, "/w/"+id+"/undo", sig(0, nil))
	if got := headListing(t, s, id).Tools[0]; !listing.Equal(got, before.Tools[0]) {
		t.Errorf("three undos leave %s; want the draft", listing.Marshal(got, ""))
	}
}

// TestFixMadeFromTheHead: a fix previewed before someone's edit applies to the listing with
// that edit (made again from the head); one whose finding someone fixed meanwhile, even between
// the server's read and its write, is refused, and nothing is stored.
func TestFixMadeFromTheHead(t *testing.T) {
	base := newTestStore(t)
	rt := &interject{Store: base, method: "AppendEdit", when: func(a any) bool { return strings.HasPrefix(a.(store.Edit).Message, "fix: ") }}
	s := serverOn(t, rt)
	id := workspaceFrom(t, s, fixDraft("get_weather"))
	page := getPage(t, s, "/w/"+id)
	hidden, trim := fixButtonsOf(t, page, "hidden-unicode")[0], fixButtonsOf(t, page, "description-whitespace")[0]
	post(t, s, "/w/"+id+"/fix?"+hidden, sig(0, nil))

	post(t, s, "/w/"+id+"/edit?t=0&f=title", sig(0, "Weather"))
	post(t, s, "/w/"+id+"/fix/apply?"+hidden, sig(0, nil))
	tool := headListing(t, s, id).Tools[0]
	if tool.Get("title").String() != "Weather" || strings.ContainsRune(tool.Get("description").String(), '\u200b') {
		t.Fatalf("the fix did not apply to the newer head, or lost its edit: %s", listing.Marshal(tool, ""))
	}

	// Between the server's read and its write, someone trims the description by hand.
	rt.arm(func(st store.Store) {
		_, err := st.AppendEdit(context.Background(), store.Edit{Workspace: id, Author: "bo", Message: "typed",
			Ops: []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString("Get the weather forecast.")}}})
		if err != nil {
			t.Error(err)
		}
	})
	n := len(revisionMessages(t, s, id))
	answer := patched(post(t, s, "/w/"+id+"/fix/apply?"+trim, sig(0, nil)))["fix-preview"]
	if p := find(t, answer, "fix-problem"); len(p) != 1 || !strings.Contains(text(p[0]), "no longer applies") {
		t.Errorf("a fix overtaken under the lock is not refused with a clear message:\n%s", answer)
	}
	if msgs := revisionMessages(t, s, id); len(msgs) != n+1 || msgs[0] != "typed" {
		t.Errorf("the revisions are %q; want only bo's edit added", msgs)
	}
}

// TestFixRenameFollowsTasks: a rename to the listing's naming style, previewed, shows the task
// whose expected tool it renames; applied, the task file follows (a second record, with the
// same message), and the task verdicts stay as they were.
func TestFixRenameFollowsTasks(t *testing.T) {
	s := newServer(t)
	tool := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "description": desc, "inputSchema": map[string]any{"type": "object"}}
	}
	b, _ := json.Marshal(map[string]any{"tools": []any{
		tool("get_weather", "Get the weather forecast for a city."), tool("list_cities", "List the cities the service knows."),
		tool("find_station", "Find the weather station nearest a place."), tool("getAlerts", "Get the storm alerts for a region.")}})
	id := workspaceFrom(t, s, string(b))
	importTaskFile(t, s, id, []byte(`[{"task": "Are there storm alerts for the coast?", "expect": "getAlerts"}]`))
	page := getPage(t, s, "/w/"+id)
	refs := fixButtonsOf(t, page, "name-style")
	if len(refs) != 1 {
		t.Fatalf("the name-style finding offers %d fixes; want the rename", len(refs))
	}
	preview := patched(post(t, s, "/w/"+id+"/fix?"+refs[0], sig(3, nil)))["fix-preview"]
	if d := find(t, preview, "fix-task-diff"); len(d) != 1 || !strings.Contains(text(d[0]), "task 1 getAlerts") || !strings.HasSuffix(text(d[0]), "get_alerts") {
		t.Fatalf("the preview does not show the task's expected tool renamed:\n%s", preview)
	}
	post(t, s, "/w/"+id+"/fix/apply?"+refs[0], sig(3, nil))
	if n := headListing(t, s, id).Tools[3].Get("name").String(); n != "get_alerts" {
		t.Errorf("the tool is named %q after the fix", n)
	}
	tf, err := s.db.Tasks(context.Background(), id)
	if err != nil || !strings.Contains(string(tf.Body), `"expect":"get_alerts"`) && !strings.Contains(string(tf.Body), `"expect": "get_alerts"`) {
		t.Errorf("the task file after the rename: %s (%v)", tf.Body, err)
	}
	if msgs := revisionMessages(t, s, id); len(msgs) < 2 || msgs[0] != "fix: name-style" || msgs[1] != "fix: name-style" {
		t.Errorf("the revisions are %q; want the rename and its task file, both fix: name-style", msgs)
	}
}

// TestFixHostileTextStaysText: a tool whose name and description are hostile markup and
// Datastar expressions gets Fix buttons, a preview and an Apply whose answers hold that text only
// as escaped text: never in an attribute, never as an element.
func TestFixHostileTextStaysText(t *testing.T) {
	s := newServer(t)
	b, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": hostile, "description": hostile + "\u200b  ",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{hostile: map[string]any{"type": "string"}}}}}})
	id := workspaceFrom(t, s, string(b))
	page := getPage(t, s, "/w/"+id)
	docs := []string{page}
	for _, q := range append(fixQueries(t, page, "fix-button"), "all=1") {
		for _, e := range post(t, s, "/w/"+id+"/fix?"+q, sig(0, nil)) {
			docs = append(docs, e.elements())
		}
	}
	for _, e := range post(t, s, "/w/"+id+"/fix/apply?all=1", sig(0, nil)) {
		docs = append(docs, e.elements())
	}
	if len(docs) < 4 {
		t.Fatalf("the hostile tool offers no fixes")
	}
	for i, doc := range docs {
		root, err := html.Parse(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				if n.Data == "script" && attr(n, "src") == "" || n.Data == "img" || n.Data == "b" {
					t.Errorf("doc %d: user markup became a <%s> element", i, n.Data)
				}
				for _, a := range n.Attr {
					if strings.Contains(a.Val, "pwned") && !isPlainValue(n, a.Key) || strings.Contains(a.Val, "/evil") && strings.HasPrefix(a.Key, "data-") {
						t.Errorf("doc %d: user text inside attribute %s of <%s>: %.120q", i, a.Key, n.Data, a.Val)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(root)
	}
}

// TestFixSafePerTool: a tool's "Fix safe" applies that tool's safe repairs and leaves the other
// tools' alone.
func TestFixSafePerTool(t *testing.T) {
	s := newServer(t)
	tool := func(name string) map[string]any {
		return map[string]any{"name": name, "description": "Get the weather\u200b forecast for a city by its name.  ",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string", "description": "The city."}}}}
	}
	b, _ := json.Marshal(map[string]any{"tools": []any{tool("get_weather"), tool("get_forecast")}})
	id := workspaceFrom(t, s, string(b))
	page := getPage(t, s, "/w/"+id)
	perTool := fixQueries(t, page, "fix-tool-safe")
	if len(perTool) != 2 || perTool[0] == perTool[1] {
		t.Fatalf("the tools' Fix safe buttons post %q; want one selection per tool", perTool)
	}
	preview := patched(post(t, s, "/w/"+id+"/fix?"+perTool[1], sig(1, nil)))["fix-preview"]
	if d := find(t, preview, "fix-tool-diff"); len(d) != 1 || !strings.Contains(text(d[0]), "get_forecast") {
		t.Errorf("the second tool's Fix safe previews other tools:\n%s", preview)
	}
	post(t, s, "/w/"+id+"/fix/apply?"+perTool[1], sig(1, nil))
	head := headListing(t, s, id)
	if strings.ContainsRune(head.Tools[1].Get("description").Str, '\u200b') ||
		!strings.ContainsRune(head.Tools[0].Get("description").Str, '\u200b') || head.Tools[1].Get("inputSchema").Get("required") == nil {
		t.Errorf("after the second tool's Fix safe: %s", head.Marshal(""))
	}
	if msgs := revisionMessages(t, s, id); len(msgs) != 4 {
		t.Errorf("the revisions are %q; want one per rule of the second tool's three", msgs)
	}
}
