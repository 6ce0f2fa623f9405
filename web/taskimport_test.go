package web

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// postTaskFile posts a task file to a workspace as its task panel's form does, as the one
// person post() speaks for.
func postTaskFile(t testing.TB, s *Server, id, name, content, format, mode string) *httptest.ResponseRecorder {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, _ := w.CreateFormFile("file", name)
	fw.Write([]byte(content))
	for k, v := range map[string]string{"format": format, "mode": mode} {
		if v != "" {
			w.WriteField(k, v)
		}
	}
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/w/"+id+"/tasks/import", &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.AddCookie(&http.Cookie{Name: cookieAuthor, Value: strings.Repeat("f", 32)})
	return do(t, s, req)
}

// tefFile is an mcp-tef test case file whose second case and unknown members cannot all be
// carried, with markup where a loss quotes the file.
const tefFile = `[
 {"name": "Renew", "query": "Renew my borrowed book", "available_mcp_servers": ["${MCP_SERVER_URL}"],
  "expected_tool_calls": [{"mcp_server_url": "${MCP_SERVER_URL}", "tool_name": "loans_renew", "parameters": {"book_id": "b-1"}}]},
 {"name": "Both", "query": "List my loans and pay the fines", "<b>bold</b>": 1,
  "expected_tool_calls": [{"tool_name": "loans_list"}, {"tool_name": "fines_pay"}]}
]`

// TestTaskImportOtherFormats: another tool's task file imports as the workbench's tasks, by
// shape or as the form says; the page that follows lists what was not carried over, as text,
// bounded; a file that cannot be used is refused saying what would work.
func TestTaskImportOtherFormats(t *testing.T) {
	many := `{"query": "q", "expected_tool_calls": null`
	for i := range 20 {
		many += fmt.Sprintf(`, "extra_%02d": %d`, i, i)
	}
	many += "}"
	checker := "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: a}\nspec: {prompt: {inline: renew}}\n"
	tests := []struct {
		name, file, content, format string
		status, tasks               int
		want, not                   []string
	}{
		{"mcp-tef detected", "cases.json", tefFile, "", http.StatusOK, 2,
			[]string{"Imported 2 tasks from cases.json, read as Stacklok mcp-tef test cases", "&lt;b&gt;bold&lt;/b&gt;", "kept loans_list", "panel: &#39;tasks&#39;"}, []string{"<b>bold</b>"}},
		{"many losses", "many.json", many, "mcptef", http.StatusOK, 1,
			[]string{"extra_00", "extra_11", "and 8 more."}, []string{"extra_12"}},
		{"mcpchecker detected", "task.yaml", checker, "detect", http.StatusOK, 1, []string{"read as mcpchecker Task and Eval YAML"}, nil},
		{"unknown shape", "x.json", `{"foo": 1}`, "", http.StatusBadRequest, 0,
			[]string{"It should be a JSON array such as", "mcptest tool-bench spec", "choose its format in the Format list"}, nil},
		{"wrong format named", "cases.json", tefFile, "mcptest", http.StatusBadRequest, 0,
			[]string{"reading it as mcptest tool-bench spec (YAML)", "Choose the format it has"}, nil},
		{"no such format", "cases.json", tefFile, "nope", http.StatusBadRequest, 0, []string{"No task file format is named &#34;nope&#34;"}, nil},
		{"converted tasks refused", "two.yaml", checker + "---\n" + checker, "", http.StatusBadRequest, 0,
			[]string{"its tasks could not be used", "Fix that in the file"}, nil},
		{"the workbench's own file", "tasks.json", `[{"task": "Renew my loan", "expect": null}]`, "", http.StatusSeeOther, 1, nil, []string{"task-import-losses"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			id := openExample(t, s, "library-2-draft")
			before, err := s.store.Read(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			rec := postTaskFile(t, s, id, tt.file, tt.content, tt.format, "")
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, shown(body))
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page does not say %q", w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(body, n) {
					t.Errorf("the page says %q", n)
				}
			}
			after, err := s.store.Read(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.tasks; tt.status == http.StatusBadRequest {
				if len(after.Tasks) != len(before.Tasks) {
					t.Errorf("a refused import changed the tasks")
				}
			} else if len(after.Tasks) != want {
				t.Errorf("%d tasks after the import, want %d", len(after.Tasks), want)
			}
		})
	}
}

// TestTaskImportConvertedIsOneEdit: appending another tool's file is one edit, which one Undo
// takes back.
func TestTaskImportConvertedIsOneEdit(t *testing.T) {
	s := newServer(t)
	id := openExample(t, s, "library-2-draft")
	before, err := s.store.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	rec := postTaskFile(t, s, id, "cases.json", tefFile, "", "append")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Appended 2 tasks") {
		t.Fatalf("append: status %d: %s", rec.Code, shown(rec.Body.String()))
	}
	mid, _ := s.store.Read(context.Background(), id)
	if len(mid.Tasks) != len(before.Tasks)+2 || mid.Version != before.Version+1 {
		t.Fatalf("the append made version %d with %d tasks, from version %d with %d", mid.Version, len(mid.Tasks), before.Version, len(before.Tasks))
	}
	post(t, s, "/w/"+id+"/undo", sig(0, ""))
	after, _ := s.store.Read(context.Background(), id)
	if len(after.Tasks) != len(before.Tasks) {
		t.Errorf("after one undo the workspace has %d tasks, want %d", len(after.Tasks), len(before.Tasks))
	}
}
