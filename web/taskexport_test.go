package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/taskformat"
	"github.com/tool-workbench/workbench/store"
)

// exportTaskFile is the workbench's own task file the export tests start from: an id with
// markup, arguments and tags that some formats cannot carry, and a task expecting no tool.
const exportTaskFile = `[
 {"id": "<i>renew</i>", "task": "Renew <b>my</b> loan", "expect": "loans_renew", "args": {"book_id": "b-1"}, "tags": ["loans"]},
 {"id": "hello", "task": "Say hello", "expect": null}
]`

// exportWorkspace is a workspace whose tasks are content, imported as a person would.
func exportWorkspace(t *testing.T, content string) (*Server, string) {
	t.Helper()
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	if rec := postTaskFile(t, s, id, "tasks.json", content, "workbench", "replace"); rec.Code != http.StatusSeeOther {
		t.Fatalf("import the tasks: %d %.300s", rec.Code, rec.Body.String())
	}
	return s, id
}

// TestTaskExportFormats: every format downloads under its own file name and media type, and
// what it downloads reads back as that format with the workspace's tasks; the format choice
// patches in the link to exactly that download and, before it, what the format leaves out.
func TestTaskExportFormats(t *testing.T) {
	s, id := exportWorkspace(t, exportTaskFile)
	tests := []struct {
		format, file, ctype string
		cases               int // the cases the file reads back as (mcptest leaves out a case expecting no tool)
		losses              bool
	}{
		{"", "tasks.json", "application/json", 2, false},
		{"workbench", "tasks.json", "application/json", 2, false},
		{"mcpjam", "tasks.mcpjam.yaml", "application/yaml", 2, true},
		{"promptfoo", "promptfooconfig.yaml", "application/yaml", 2, false},
		{"mcpchecker", "tasks.mcpchecker.yaml", "application/yaml", 2, true},
		{"mcptest", "tasks.mcptest.yaml", "application/yaml", 1, true},
		{"MCPTEF", "tasks.mcptef.json", "application/json", 2, true},
	}
	tested := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			name := strings.ToLower(tc.format)
			if name == "" {
				name = taskformat.Workbench
			}
			tested[name] = true
			href := "/w/" + id + "/tasks.json"
			if tc.format != "" {
				href += "?format=" + tc.format
			}
			rec := do(t, s, httptest.NewRequest(http.MethodGet, href, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", href, rec.Code, rec.Body.String())
			}
			if got := rec.Header().Get("Content-Disposition"); got != `attachment; filename="`+tc.file+`"` {
				t.Errorf("Content-Disposition %q, want the file %s", got, tc.file)
			}
			if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, tc.ctype) {
				t.Errorf("Content-Type %q, want %s", got, tc.ctype)
			}
			f, err := taskformat.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			cases, _, err := f.Read(rec.Body.Bytes())
			if err != nil {
				t.Fatalf("the download does not read as %s: %v\n%s", name, err, rec.Body.String())
			}
			if len(cases) != tc.cases || cases[0].Query != "Renew <b>my</b> loan" {
				t.Errorf("the download reads back as %d cases (first %+v), want %d", len(cases), cases[0], tc.cases)
			}
			// The panel's choice: the link to this download, and what it leaves out, as text.
			x := patched(post(t, s, "/w/"+id+"/tasks/export", map[string]any{"val": tc.format}))["task-export"]
			links := find(t, x, "task-export-download")
			if len(links) != 1 || text(links[0]) != "Download "+tc.file {
				t.Fatalf("the region links no download of %s: %s", tc.file, x)
			}
			// The link is the download above, with the digest of the losses the notice shows.
			if got, want := attr(links[0], "href"), "/w/"+id+"/tasks.json"; name != taskformat.Workbench && !strings.HasPrefix(got, want+"?format="+name+"&seen=") || name == taskformat.Workbench && got != want {
				t.Errorf("the link's href %q is not the %s download", got, name)
			} else if rec := do(t, s, httptest.NewRequest(http.MethodGet, got, nil)); rec.Code != http.StatusOK {
				t.Errorf("the link's download: %d %s", rec.Code, rec.Body.String())
			}
			if sel := find(t, x, "task-export-format"); len(sel) != 1 || !strings.Contains(x, `value="`+name+`" selected`) {
				t.Errorf("the select does not show %s chosen: %s", name, x)
			}
			notice := find(t, x, "task-export-losses")
			if (len(notice) == 1) != tc.losses {
				t.Fatalf("loss notice shown %v, want %v: %s", len(notice) == 1, tc.losses, x)
			}
			if tc.losses {
				if !strings.Contains(text(notice[0]), "Exporting as "+f.Title()+" leaves out") {
					t.Errorf("the notice does not name the format: %s", text(notice[0]))
				}
				if strings.Contains(x, "<i>renew</i>") {
					t.Errorf("a task's id reached the page as markup: %s", x)
				}
			}
		})
	}
	for _, n := range taskformat.Names() {
		if !tested[n] {
			t.Errorf("the format %s has no export test (and maybe no file name in exportFiles)", n)
		}
	}
}

// TestTaskExportWorkbenchUnchanged: the workbench's own download is the tasks as stored, as
// the export always gave them, so a file exported before still compares equal.
func TestTaskExportWorkbenchUnchanged(t *testing.T) {
	s, id := exportWorkspace(t, exportTaskFile)
	got := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json?format=workbench", nil)).Body.String()
	tasks, err := selection.ParseTasks([]byte(exportTaskFile), false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(tasks, "", "  ")
	if got != string(want)+"\n" {
		t.Errorf("the workbench export changed:\n%s\nwant\n%s", got, want)
	}
}

// TestTaskExportBadFormat: a format no one has is a 400 that names the formats there are, on
// the download and on the panel's choice alike.
func TestTaskExportBadFormat(t *testing.T) {
	s, id := exportWorkspace(t, exportTaskFile)
	rec := do(t, s, httptest.NewRequest(http.MethodGet, "/w/"+id+"/tasks.json?format=%3Cscript%3E", nil))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("unknown format: %d, want 400", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{"No task file format is named", strings.Join(taskformat.Names(), ", "), "?format=NAME"} {
		if !strings.Contains(body, want) {
			t.Errorf("the refusal does not say %q: %s", want, body)
		}
	}
	if strings.Contains(body, "<script>") {
		t.Errorf("the refusal echoes the format as markup: %s", body)
	}
	b, _ := json.Marshal(map[string]any{"val": "yaml"})
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/tasks/export", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	if rec := do(t, s, req); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "No task file format is named") {
		t.Errorf("the panel's unknown format: %d %s", rec.Code, rec.Body.String())
	}
}

// TestTaskExportLossesBounded: the notice lists the first losses and counts the rest.
func TestTaskExportLossesBounded(t *testing.T) {
	var tasks []string
	for i := range 20 {
		tasks = append(tasks, fmt.Sprintf(`{"id": "t%02d", "task": "Task %d", "expect": "loans_renew", "tags": ["x"]}`, i, i))
	}
	s, id := exportWorkspace(t, "["+strings.Join(tasks, ",")+"]")
	x := patched(post(t, s, "/w/"+id+"/tasks/export", map[string]any{"val": "mcptest"}))["task-export"]
	notice := find(t, x, "task-export-losses")
	if len(notice) != 1 {
		t.Fatalf("no loss notice: %s", x)
	}
	// Each task loses its id and its tags; the file, its catalog.
	if n := strings.Count(x, "<li>"); n != maxLossesShown {
		t.Errorf("%d losses listed, want the first %d", n, maxLossesShown)
	}
	if more := find(t, x, "task-export-losses-more"); len(more) != 1 || text(more[0]) != fmt.Sprintf("and %d more.", 41-maxLossesShown) {
		t.Errorf("the rest is not counted: %s", x)
	}
	if !strings.Contains(text(notice[0]), "(41)") {
		t.Errorf("the summary does not count every loss: %s", text(notice[0]))
	}
}

// TestTaskExportViewLink: a view link may export the tasks in any format and see what a format
// leaves out, which changes nothing.
func TestTaskExportViewLink(t *testing.T) {
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken})
	view := r.link(t, store.CanView)
	b := r.visitor()
	if rec := b.get(t, "/s/"+view.Token); rec.Code != http.StatusSeeOther {
		t.Fatalf("open view link: %d", rec.Code)
	}
	before := r.head(t)
	if rec := b.get(t, "/w/"+r.ws+"/tasks.json?format=promptfoo"); rec.Code != http.StatusOK || rec.Header().Get("Content-Disposition") != `attachment; filename="promptfooconfig.yaml"` {
		t.Errorf("a viewer's export: %d %s", rec.Code, rec.Body.String())
	}
	rec := b.datastar(t, http.MethodPost, "/w/"+r.ws+"/tasks/export", map[string]any{"val": "promptfoo"})
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Download promptfooconfig.yaml") {
		t.Errorf("a viewer's format choice: %d %s", rec.Code, rec.Body.String())
	}
	// The rig's workspace has no tasks, which an MCPJam suite file cannot be: the panel says
	// so in place of a link, and the download is refused alike.
	rec = b.datastar(t, http.MethodPost, "/w/"+r.ws+"/tasks/export", map[string]any{"val": "mcpjam"})
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, "task-export-problem") || strings.Contains(body, "task-export-download") {
		t.Errorf("a format that cannot hold the tasks: %d %s", rec.Code, body)
	}
	if rec := b.get(t, "/w/"+r.ws+"/tasks.json?format=mcpjam"); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "at least one case") {
		t.Errorf("the download of a format that cannot hold the tasks: %d %s", rec.Code, rec.Body.String())
	}
	if after := r.head(t); after.Seq != before.Seq {
		t.Errorf("a viewer's export changed the workspace: seq %d → %d", before.Seq, after.Seq)
	}
}

// TestTaskExportStaleLosses: a download whose format leaves out something else than the panel
// showed (the tasks changed since) is refused saying what it leaves out now; chosen again, the
// format downloads.
func TestTaskExportStaleLosses(t *testing.T) {
	s, id := exportWorkspace(t, exportTaskFile)
	hrefOf := func() string {
		x := patched(post(t, s, "/w/"+id+"/tasks/export", map[string]any{"val": "mcptest"}))["task-export"]
		links := find(t, x, "task-export-download")
		if len(links) != 1 {
			t.Fatalf("no download link: %s", x)
		}
		return attr(links[0], "href")
	}
	shown := hrefOf()
	// Task 1 now expects no tool, which an mcptest intent cannot say: the case is left out.
	post(t, s, "/w/"+id+"/task?op=set&i=0&k=expect", map[string]any{"val": ""})
	rec := do(t, s, httptest.NewRequest(http.MethodGet, shown, nil))
	if rec.Code != http.StatusConflict {
		t.Fatalf("a download with losses the panel did not show: %d, want 409: %s", rec.Code, rec.Body.String())
	}
	for _, want := range []string{"The tasks changed since the task panel listed what mcptest", "now leaves out", "Choose the format in the task panel again"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the refusal does not say %q: %s", want, rec.Body.String())
		}
	}
	// A change that leaves the losses as they were does not stop the download.
	post(t, s, "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"val": "Say hello again"})
	again := hrefOf()
	if again == shown {
		t.Fatalf("the link did not change with the losses: %s", again)
	}
	post(t, s, "/w/"+id+"/task?op=set&i=1&k=task", map[string]any{"val": "Say hello once more"})
	if rec := do(t, s, httptest.NewRequest(http.MethodGet, again, nil)); rec.Code != http.StatusOK {
		t.Errorf("the format chosen again: %d %s", rec.Code, rec.Body.String())
	}
}

// BenchmarkTaskExportModel is the work of one format choice in the task panel on 5,000 tasks,
// each with an id and a tag that the format cannot carry.
func BenchmarkTaskExportModel(b *testing.B) {
	tasks := make([]selection.Task, 5000)
	tool := "loans_renew"
	for i := range tasks {
		tasks[i] = selection.Task{ID: fmt.Sprintf("t%d", i), Task: fmt.Sprintf("Renew loan %d", i), Expect: &tool, Tags: []string{"loans"}}
	}
	for _, name := range []string{"mcptest", "promptfoo", "mcptef"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := taskExportModel("w", tasks, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
