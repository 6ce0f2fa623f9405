package listing

import (
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	const src = `{"tools":[{"name":"a","description":"A.","inputSchema":{"type":"object","required":["x"]}},{"name":"b"}],"nextCursor":"n"}`
	tests := []struct {
		name string
		op   Op
		want string // the result's tools as compact JSON
		err  string
	}{
		{"set description", Op{Kind: OpSet, Path: "/tools/0/description", Value: NewString("Lists books.")},
			`[{"name":"a","description":"Lists books.","inputSchema":{"type":"object","required":["x"]}},{"name":"b"}]`, ""},
		{"add member", Op{Kind: OpSet, Path: "/tools/1/title", Value: NewString("B")},
			`[{"name":"a","description":"A.","inputSchema":{"type":"object","required":["x"]}},{"name":"b","title":"B"}]`, ""},
		{"remove member", Op{Kind: OpRemove, Path: "/tools/0/inputSchema"},
			`[{"name":"a","description":"A."},{"name":"b"}]`, ""},
		{"insert into inner array", Op{Kind: OpInsert, Path: "/tools/0/inputSchema/required/0", Value: NewString("w")},
			`[{"name":"a","description":"A.","inputSchema":{"type":"object","required":["w","x"]}},{"name":"b"}]`, ""},
		{"insert tool at end", Op{Kind: OpInsert, Path: "/tools/-", Value: NewObject(Member{Key: "name", Value: NewString("c")})},
			`[{"name":"a","description":"A.","inputSchema":{"type":"object","required":["x"]}},{"name":"b"},{"name":"c"}]`, ""},
		{"move tool", Op{Kind: OpMove, Path: "/tools", From: 1, To: 0},
			`[{"name":"b"},{"name":"a","description":"A.","inputSchema":{"type":"object","required":["x"]}}]`, ""},
		{"remove tool", Op{Kind: OpRemove, Path: "/tools/0"}, `[{"name":"b"}]`, ""},
		{"escaped pointer", Op{Kind: OpSet, Path: "/tools/1/a~1b~0c", Value: NewBool(true)},
			`[{"name":"a","description":"A.","inputSchema":{"type":"object","required":["x"]}},{"name":"b","a/b~c":true}]`, ""},
		{"name must stay a string", Op{Kind: OpSet, Path: "/tools/0/name", Value: NewInt(3)}, "", "no string name"},
		{"missing parent", Op{Kind: OpSet, Path: "/tools/0/x/y", Value: NewInt(3)}, "", `no member "x"`},
		{"index past the end", Op{Kind: OpSet, Path: "/tools/5/name", Value: NewString("z")}, "", "past the end"},
		{"outside tools", Op{Kind: OpSet, Path: "/nextCursor", Value: NewString("z")}, "", "paths start at /tools"},
		{"move out of range", Op{Kind: OpMove, Path: "/tools", From: 0, To: 9}, "", "outside"},
		{"set without value", Op{Kind: OpSet, Path: "/tools/0/title"}, "", "no value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustParse(t, src)
			before := string(l.Marshal(""))
			got, err := l.Apply(tt.op)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := string(Marshal(NewArray(got.Tools...), "")); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
			if string(l.Marshal("")) != before {
				t.Error("Apply changed the original listing")
			}
			if !strings.Contains(string(got.Marshal("")), `"nextCursor":"n"`) {
				t.Error("the envelope was lost")
			}
		})
	}
}

func TestResolve(t *testing.T) {
	l := mustParse(t, `[{"name":"a","inputSchema":{"properties":{"q":{"type":"string"}}}}]`)
	if v := l.Get("/tools/0/inputSchema/properties/q/type"); v.String() != "string" {
		t.Errorf("got %v", v)
	}
	for _, p := range []string{"/tools/1", "/tools/01", "/tools/0/nope", "tools"} {
		if v := l.Get(p); v != nil {
			t.Errorf("Get(%q) = %v, want nil", p, v)
		}
	}
}

func TestEditValue(t *testing.T) {
	root, err := ParseJSON([]byte(`[{"task": "a", "expect": "x"}, {"task": "b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		op   Op
		want string // "" for an error
	}{
		{"set a member", Op{Kind: OpSet, Path: "/1/task", Value: NewString("c")}, `[{"task":"a","expect":"x"},{"task":"c"}]`},
		{"add a member", Op{Kind: OpSet, Path: "/1/expect", Value: NewString("y")}, `[{"task":"a","expect":"x"},{"task":"b","expect":"y"}]`},
		{"remove a member", Op{Kind: OpRemove, Path: "/0/expect"}, `[{"task":"a"},{"task":"b"}]`},
		{"a missing element", Op{Kind: OpSet, Path: "/5/task", Value: NewString("c")}, ""},
		{"not a pointer", Op{Kind: OpSet, Path: "1/task", Value: NewString("c")}, ""},
		{"no value", Op{Kind: OpSet, Path: "/0/task"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EditValue(root, tc.op)
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("EditValue = %s, want an error", Marshal(got, ""))
			case tc.want != "" && err != nil:
				t.Errorf("EditValue: %v", err)
			case tc.want != "" && string(Marshal(got, "")) != tc.want:
				t.Errorf("EditValue = %s, want %s", Marshal(got, ""), tc.want)
			}
		})
	}
	if string(Marshal(root, "")) != `[{"task":"a","expect":"x"},{"task":"b"}]` {
		t.Errorf("EditValue changed its input: %s", Marshal(root, ""))
	}
}
