package selection

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTasksExtended(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr string // substring of the error; "" for none
		pointer string
	}{
		{"reference", `[{"task": "a", "expect": "t"}]`, "", ""},
		{"null expect", `[{"task": "a", "expect": null}]`, "", ""},
		{"all fields", `[{"id": "x", "task": "a", "expect": "t", "args": {"n": 1}, "tags": ["p", "q"]}]`, "", ""},
		{"id number", `[{"task": "a", "expect": "t", "id": 3}]`, `"id" is a number`, "/0/id"},
		{"id empty", `[{"task": "a", "expect": "t", "id": ""}]`, `"id" is empty`, "/0/id"},
		{"id long", `[{"task": "a", "expect": "t", "id": "` + strings.Repeat("x", MaxIDLength+1) + `"}]`, "bytes long", "/0/id"},
		{"id repeated", `[{"task": "a", "expect": "t", "id": "x"}, {"task": "b", "expect": "t", "id": "x"}]`, `repeats task 1's`, "/1/id"},
		{"args array", `[{"task": "a", "expect": "t", "args": []}]`, `"args" is a array`, "/0/args"},
		{"args without tool", `[{"task": "a", "expect": null, "args": {}}]`, `"expect" is null`, "/0/args"},
		{"tags object", `[{"task": "a", "expect": "t", "tags": {}}]`, `"tags" is a object`, "/0/tags"},
		{"tag number", `[{"task": "a", "expect": "t", "tags": ["a", 1]}]`, "tag 2 is a number", "/0/tags/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, err := ParseTasks([]byte(tt.src), false)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseTasks: %v", err)
				}
				if len(tasks) == 0 {
					t.Fatal("no tasks read")
				}
				return
			}
			var te *TaskError
			if !errors.As(err, &te) {
				t.Fatalf("error = %v, want a *TaskError containing %q", err, tt.wantErr)
			}
			if !strings.Contains(te.Msg, tt.wantErr) || te.Pointer != tt.pointer {
				t.Errorf("error = %q at %q, want %q at %q", te.Msg, te.Pointer, tt.wantErr, tt.pointer)
			}
		})
	}
	// Strict mode is the reference's: it ignores the extended fields whatever they hold.
	if _, err := ParseTasks([]byte(`[{"task": "a", "expect": "t", "id": 3, "tags": 1}]`), true); err != nil {
		t.Errorf("strict ParseTasks rejected extended fields it should ignore: %v", err)
	}
}

func TestParseTasksReadsFields(t *testing.T) {
	tasks, err := ParseTasks([]byte(`[{"id": "x", "task": "a", "expect": "t", "args": {"n": 1}, "tags": ["p"]}, {"task": "b", "expect": null}]`), false)
	if err != nil {
		t.Fatal(err)
	}
	if tasks[0].ID != "x" || tasks[0].Expected() != "t" || tasks[0].Args.Get("n").Str != "1" || len(tasks[0].Tags) != 1 || tasks[0].Tags[0] != "p" {
		t.Errorf("task 1 = %+v", tasks[0])
	}
	if tasks[1].Expect != nil || tasks[1].Expected() != "" {
		t.Errorf("task 2 expect = %v, want nil", tasks[1].Expect)
	}
}

// The published schema and ParseTasks agree on every example file.
func TestSchemaAgreesWithParser(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, err := filepath.Glob(filepath.Join("testdata", "taskfiles", dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no examples in testdata/taskfiles/%s: %v", dir, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			schemaErr := ValidateTaskFile(src)
			_, parseErr := ParseTasks(src, false)
			if want := dir == "valid"; (schemaErr == nil) != want || (parseErr == nil) != want {
				t.Errorf("%s: schema says %v, parser says %v; want both to be %s", f, schemaErr, parseErr, dir)
			}
		}
	}
}

func TestValidateTaskFileNotJSON(t *testing.T) {
	if err := ValidateTaskFile([]byte(`[{"task": `)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("error = %v, want one saying the file is not JSON", err)
	}
}

func FuzzParseTasks(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "taskfiles", "*", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"task": "\ud800", "expect": "x"}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, strict := range []bool{true, false} {
			tasks, err := ParseTasks(src, strict)
			if err != nil {
				var te *TaskError
				if !errors.As(err, &te) || te.Msg == "" {
					t.Fatalf("error %v is not a *TaskError with a message", err)
				}
				continue
			}
			for _, tk := range tasks {
				if !strict && tk.Args != nil && tk.Expect == nil {
					t.Fatalf("task %+v has args but no expected tool", tk)
				}
				for _, r := range tk.Reject {
					if tk.Accepts(r) {
						t.Fatalf("task %+v both expects and rejects %q", tk, r)
					}
				}
			}
			if strict || len(tasks) == 0 {
				continue
			}
			// What the workbench writes, it reads back the same.
			b, err := json.Marshal(tasks)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			back, err := ParseTasks(b, false)
			if err != nil || !sameTasks(tasks, back) {
				t.Fatalf("%s read back as %+v (%v)", b, back, err)
			}
		}
	})
}
